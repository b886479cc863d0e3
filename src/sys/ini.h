/* A small INI reader for config files: "[section]", "key = value", comments
 * starting with '#' or ';', blank lines. Values may be quoted with "...". A line
 * that is none of these is an error naming FILE:LINE. */
#ifndef HOG_SYS_INI_H
#define HOG_SYS_INI_H
#include "hogwild.h"

typedef int (*hog_ini_fn)(void *ud, const char *section, const char *key, const char *value,
                          unsigned line, hog_err *err);
/** Calls @p fn for every key; stops at the first non-zero return. */
int hog_ini_parse(const char *path, hog_ini_fn fn, void *ud, hog_err *err);
#endif
