/* File helpers: temporary names, durable renames, input checks (file.c). */
#ifndef HOG_SYS_FILE_H
#define HOG_SYS_FILE_H
#include "hogwild.h"

/** Makes "<path>.tmp.<pid>" (caller frees). */
char *hog_tmp_path(const char *path);
/** fsync()s the directory that holds @p path, so a rename into it is durable. */
int hog_fsync_dir(const char *path);
/** Refuses paths that are directories, naming them. */
int hog_check_regular_input(const char *path, hog_err *err);
/** Done with bytes [p, p + len) of a read-only file mapping: the whole pages
 * among them leave this process's resident set (the page cache keeps them; a
 * later read faults them back). Never call it on memory that is not such a map. */
void hog_map_release(const void *p, size_t len);

#endif
