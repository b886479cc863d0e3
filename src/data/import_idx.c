/* Not built yet. */
#include "data/import.h"
#include "sys/err.h"
int hog_import_idx(hog_import_ctx *c, hog_err *err) { (void)c; return hog_err_set(err, HOG_ENOTSUP, "idx: not built yet"); }
