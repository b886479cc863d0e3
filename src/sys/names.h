/* Names of the data set kinds and tasks (the names of the training enums are
 * public: hogwild.h). */
#ifndef HOG_SYS_NAMES_H
#define HOG_SYS_NAMES_H
#include "hogwild.h"

const char *hog_kind_name(enum hog_kind k);
const char *hog_task_name(enum hog_task t);
/** Parses "binary", "multiclass", "regression", "ratings"; 0 when unknown. */
enum hog_task hog_task_parse(const char *s);

#endif
