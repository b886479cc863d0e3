#include "data/import.h"
#include "sys/err.h"
int hog_import_csv(hog_import_ctx *c, hog_err *err) { (void)c; return hog_err_set(err, HOG_ENOTSUP, "csv: not yet"); }
int hog_import_ratings(hog_import_ctx *c, hog_err *err) { (void)c; return hog_err_set(err, HOG_ENOTSUP, "ratings: not yet"); }
int hog_import_idx(hog_import_ctx *c, hog_err *err) { (void)c; return hog_err_set(err, HOG_ENOTSUP, "idx: not yet"); }
