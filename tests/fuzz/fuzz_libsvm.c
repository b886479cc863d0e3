/* libFuzzer harness: the LIBSVM importer (hog_import, format HOG_FORMAT_LIBSVM) on one
 * input file. A damaged input must fail with a message, and leave no
 * output behind; a good one must give a data set that verifies. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in[1] = { fz_write("in.txt", data, size) };
	const char *out = fz_path("out.lmdb");
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM, .header = 0, .max_line = 1 << 16 };
	hog_err err = { 0 };
	int rc = hog_import(in, 1, out, &o, &err);
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
