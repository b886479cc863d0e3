/* The ranges of the update modes' options that more than one model reads
 * (--delay: linear uses it and the others refuse it; --flush-every: linear and
 * the mlp). Each trainer's check() calls this first, so a value out of range is
 * refused whatever the model, as it was when the engine checked them itself;
 * the engine checks only what every model shares (issue 20: the engine knows
 * no model). The ranges of linear's own (--node-sync, --stripe-size, in
 * hog_train_opts.linear) are linear's check's. */
#include "train/engine.h"
#include "sys/err.h"

int eng_check_mode_opts(const hog_train_opts *o, hog_err *err)
{
	if (o->delay < 0 || o->delay > (1 << 20))
		return hog_err_set(err, HOG_ECONFIG, "--delay must be 0..1048576, not %d", o->delay);
	if (o->flush_every < 0)
		return hog_err_set(err, HOG_ECONFIG, "--flush-every must be >= 1 and --stripe-size a power of two");
	return 0;
}
