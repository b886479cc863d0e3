/* Not built yet. */
#include "data/import.h"
#include "sys/err.h"
int hog_import_csv(hog_import_ctx *c, hog_err *err) { (void)c; return hog_err_set(err, HOG_ENOTSUP, "csv: not built yet"); }
