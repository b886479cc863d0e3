/* A check of an LMDB file's own structure, run before LMDB maps it (see
 * lmdb_check.c): LMDB trusts its pages, a reader of ours trusts nothing. */
#ifndef HOG_DATA_LMDB_CHECK_H
#define HOG_DATA_LMDB_CHECK_H
#include "hogwild.h"

/** Reads the file at @p path (read-only, bounded) and checks what LMDB will rely
 * on when it opens it read-only: both meta pages, that the file holds every page
 * the current meta page counts (else "truncated", with both sizes), and the
 * B-tree of the main database and of every named database in it: page numbers,
 * headers, node offsets and sizes, child and overflow page numbers, depth and
 * entry counts. @return 0; HOG_EFORMAT (not an LMDB file); HOG_ECORRUPT naming the
 * page and what is wrong; an errno value when the file cannot be read. */
int hog_lmdb_check(const char *path, hog_err *err);

/** What follows the path in the refusal of a file that is not LMDB at all
 * (here and in the store's open); the CLI reads it to add how to import such
 * a file (cli/main.c). */
#define HOG_NOT_LMDB ": not an LMDB file, so not a hogwild data set"

#endif
