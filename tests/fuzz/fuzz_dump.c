/* libFuzzer harness: the model dump's reader (hog_model_undump, `hogwild model
 * load`) on one text file. A bad dump must fail with a message naming
 * FILE:LINE and write nothing; a good one must give a model file that loads,
 * and whose dump reads back to the same file. The seeds are dumps of small
 * models of each kind (tests/fuzz/corpus/dump/). */
#include "fuzz.h"
#include <fcntl.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fz_write("in.txt", data, size), *out = fz_path("in.model");
	hog_err err = { 0 };
	unlink(out);
	int rc = hog_model_undump(in, out, &err);
	if (rc) {
		if (!err.msg[0] || access(out, F_OK) == 0)
			abort(); /* no message, or a file left behind */
		return 0;
	}
	hog_model *m = NULL;
	if (hog_model_load(&m, out, &err) != 0)
		abort(); /* a dump read back must make a model that loads */
	hog_model_free(m);
	int fd = open(fz_path("out.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || hog_model_dump(out, fd, &err) != 0)
		abort();
	close(fd);
	return 0;
}
