/* The ranges of the update modes' own options (--delay, --node-sync,
 * --flush-every, --stripe-size), which only some models use (linear all of
 * them, the mlp --flush-every). Each trainer's check() calls this first, so a
 * value out of range is refused whatever the model, as it was when the engine
 * checked them itself; the engine checks only what every model shares (issue
 * 20: the engine knows no model). */
#include "train/engine.h"
#include "sys/err.h"

int eng_check_mode_opts(const hog_train_opts *o, hog_err *err)
{
	if (o->delay < 0 || o->delay > (1 << 20))
		return hog_err_set(err, HOG_ECONFIG, "--delay must be 0..1048576, not %d", o->delay);
	if (o->node_sync < -1)
		return hog_err_set(err, HOG_ECONFIG, "--node-sync must be off (-1) or at least 1, not %d", o->node_sync);
	if (o->flush_every < 0 || o->stripes < 1 || (o->stripes & (o->stripes - 1)))
		return hog_err_set(err, HOG_ECONFIG, "--flush-every must be >= 1 and --stripe-size a power of two");
	return 0;
}
