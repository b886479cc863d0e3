/* Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c): the library reads
 * files, so each input is written to a file in a private directory on tmpfs
 * (/dev/shm when there is one) and the public entry point is called on it.
 * Harnesses check only that nothing crashes or reads out of bounds (the
 * sanitizers) and that failures come with a code and a message. */
#ifndef HOG_FUZZ_H
#define HOG_FUZZ_H
#include "hogwild.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fz_dir[128];

/* Removes what the harnesses write (the names they use) and the directory. */
static inline void fz_cleanup(void)
{
	static const char *names[] = { "in.txt", "in.ini", "in.lmdb", "in.model", "images.idx", "labels.idx",
	                               "out.lmdb", "in.lmdb-lock", "out.lmdb-lock", "out.txt" };
	char p[256];
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(p, sizeof p, "%s/%s", fz_dir, names[i]);
		unlink(p);
	}
	rmdir(fz_dir);
}

/* The path of @p name in this process's directory, made on first use. */
static inline const char *fz_path(const char *name)
{
	static char buf[4][256];
	static int k;
	if (!fz_dir[0]) {
		snprintf(fz_dir, sizeof fz_dir, "%s/hogwild-fuzz-XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(fz_dir))
			abort();
		atexit(fz_cleanup);
	}
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", fz_dir, name);
	return buf[k];
}

static inline const char *fz_write(const char *name, const uint8_t *data, size_t size)
{
	const char *p = fz_path(name);
	FILE *f = fopen(p, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
	return p;
}

/* A failing call must say why: a code and a message. */
static inline void fz_check(int rc, const hog_err *err)
{
	if (rc != 0 && !err->msg[0]) {
		fprintf(stderr, "failure %d (%s) without a message\n", rc, hog_strerror(rc));
		abort();
	}
}

/* Imports @p nin files with @p o: a failure must come with a message and leave
 * no output behind; a success must give a data set that verifies. */
static inline int fz_import(const char *const *in, int nin, const hog_import_opts *o)
{
	const char *out = fz_path("out.lmdb");
	hog_err err = { 0 };
	int rc = hog_import(in, nin, out, o, &err);
	fz_check(rc, &err);
	if (rc == 0) {
		uint64_t blocks;
		hog_err e2 = { 0 };
		if (hog_store_verify(out, &blocks, &e2) != 0) {
			fprintf(stderr, "imported set does not verify: %s\n", e2.msg);
			abort();
		}
		unlink(out);
	} else if (access(out, F_OK) == 0) {
		fprintf(stderr, "failed import left %s behind\n", out);
		abort();
	}
	return 0;
}

#endif
