/* Internal parts of the data set store shared by the importers, generators and
 * tools (the file and name helpers now live in sys/; included here for them). */
#ifndef HOG_DATA_STORE_H
#define HOG_DATA_STORE_H
#include "hogwild.h"

#include "sys/file.h"
#include "sys/names.h"

#endif
