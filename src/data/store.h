/* Internal parts of the data set store shared by the importers, generators and
 * tools (the file and name helpers now live in sys/; included here for them). */
#ifndef HOG_DATA_STORE_H
#define HOG_DATA_STORE_H
#include "hogwild.h"

#include "sys/file.h"
#include "sys/names.h"

/* The loaded set's id maps and column names, from its store (reconcile.c). */
int hog_data_load_extras(hog_store *s, hog_data *d, hog_err *err);

#endif
