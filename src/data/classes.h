/* Class names that are numbers: the importer names whole-number labels that
 * are not the classes 0..K-1 by their values (writer.c, named_task), and
 * export (tools.c) and matching (reconcile_names.c) read the values back. */
#ifndef HOG_DATA_CLASSES_H
#define HOG_DATA_CLASSES_H
#include "hogwild.h"

/** The number of @p names when every one is a whole number from -1 to 65535
 * ("2", "-1"), else 0; their values into @p values (NULL: not wanted,
 * else hog_class_count(names) of them) and the largest into *@p top. */
uint32_t hog_class_numbers(const char *names, float *values, long *top);

#endif
