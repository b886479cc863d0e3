/* Not built yet. */
#include "data/import.h"
#include "sys/err.h"
int hog_import_ratings(hog_import_ctx *c, hog_err *err) { (void)c; return hog_err_set(err, HOG_ENOTSUP, "ratings: not built yet"); }
