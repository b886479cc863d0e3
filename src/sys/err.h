/* Internal helpers for the error context of hogwild.h: set a code and a message
 * in one call, and wrap LMDB's codes. */
#ifndef HOG_SYS_ERR_H
#define HOG_SYS_ERR_H
#include "hogwild.h"
#include <stdio.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hogwild's file formats are little-endian and read in place: big-endian hosts are not supported"
#endif

/** Sets err (if not NULL) to code and a printf-style message; returns code. */
int hog_err_set(hog_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** Prefixes the message already in err with "prefix: " (keeps the code). */
int hog_err_prefix(hog_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Maps an LMDB return code: MDB codes become HOG_ELMDB with mdb_strerror text. */
int hog_err_lmdb(hog_err *err, int rc, const char *what, const char *path);


#endif
