/* Error codes and the error context: one hog_strerror() for errno values and our
 * own negative codes (the LMDB way), and helpers that format a message into the
 * caller's hog_err. The library never prints: the caller decides. */
#include "sys/err.h"
#include <lmdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *hog_strerror(int code)
{
	switch (code) {
	case HOG_OK: return "success";
	case HOG_EDATA: return "malformed input data";
	case HOG_ECONFIG: return "bad option or parameter";
	case HOG_ENOTSUP: return "not supported";
	case HOG_ECORRUPT: return "damaged file";
	case HOG_EVERSION: return "file written by a newer format version";
	case HOG_EFORMAT: return "not a hogwild file";
	case HOG_EDIVERGED: return "training diverged";
	case HOG_EINTR: return "interrupted";
	case HOG_ELMDB: return "LMDB error";
	case HOG_ECUDA: return "CUDA error";
	case HOG_EMISMATCH: return "file does not match";
	case HOG_EMPI: return "MPI error";
	default:
		if (code > 0)
			return strerror(code);
		return "unknown error";
	}
}

int hog_err_set(hog_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

int hog_err_prefix(hog_err *err, const char *fmt, ...)
{
	if (!err)
		return 0;
	char pre[256], old[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	size_t np = strlen(pre);
	if (np > sizeof err->msg - 3)
		np = sizeof err->msg - 3;
	memcpy(err->msg, pre, np);
	memcpy(err->msg + np, ": ", 2);
	size_t rest = sizeof err->msg - np - 3, no = strlen(old);
	if (no > rest)
		no = rest;
	memcpy(err->msg + np + 2, old, no);
	err->msg[np + 2 + no] = 0;
	return err->code;
}

int hog_err_lmdb(hog_err *err, int rc, const char *what, const char *path)
{
	if (rc > 0)
		return hog_err_set(err, rc, "%s: %s: %s", path, what, strerror(rc));
	return hog_err_set(err, HOG_ELMDB, "%s: %s: %s", path, what, mdb_strerror(rc));
}
