/* libFuzzer harness: the Vowpal Wabbit importer (hog_import, format
 * HOG_FORMAT_VW, 12 bits, namespaces a and b paired) on one input file. A
 * damaged input must fail with a message and leave no output behind; a good
 * one must give a data set that verifies. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in[1] = { fz_write("in.vw", data, size) };
	hog_import_opts o = { .format = HOG_FORMAT_VW, .vw_bits = 12, .vw_quadratic = "ab,aa", .max_line = 1 << 16 };
	return fz_import(in, 1, &o);
}
