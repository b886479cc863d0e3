/* Not built yet. */
#include "hogwild.h"
#include "sys/err.h"
int hog_gen(const char *out, const hog_gen_opts *o, hog_err *err) { (void)out; (void)o; return hog_err_set(err, HOG_ENOTSUP, "gen: not built yet"); }
