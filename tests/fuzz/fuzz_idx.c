/* libFuzzer harness: the MNIST idx importer (hog_import, format HOG_FORMAT_IDX) on one
 * input file pair (the first two bytes say where the images end). A damaged input must fail with a message, and leave no
 * output behind; a good one must give a data set that verifies. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the first two bytes split the input into the images and the labels file */
	if (size < 2)
		return 0;
	size_t cut = ((size_t)data[0] << 8 | data[1]);
	data += 2;
	size -= 2;
	if (cut > size)
		cut = size;
	const char *in[2] = { fz_write("images.idx", data, cut), fz_write("labels.idx", data + cut, size - cut) };
	/* small blocks: the writer reserves a whole block of the largest images (2^24
	 * pixels) up front; sizing blocks by bytes is issue 9's CLI/IO half */
	hog_import_opts o = { .format = HOG_FORMAT_IDX, .header = 0, .max_line = 1 << 16, .block_examples = 8 };
	return fz_import(in, 2, &o);
}
