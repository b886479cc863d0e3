/* libFuzzer harness: the model and checkpoint loader (hog_model_load, the only
 * public entry point: a checkpoint is a model file with training state) on one
 * file; a loaded model's weights are read end to end. Each input is loaded
 * twice: as it is, and with its trailing CRC-32 recomputed, so that mutations
 * reach the checks behind the checksum. */
#include "fuzz.h"
#include <zlib.h>

static void load(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	load(data, size);
	if (size >= 4) { /* the format's CRC: of every byte before it */
		uint8_t *c = malloc(size);
		if (!c)
			return 0;
		memcpy(c, data, size);
		uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), c, (uInt)(size - 4));
		memcpy(c + size - 4, &crc, 4);
		load(c, size);
		free(c);
	}
	return 0;
}

static void load(const uint8_t *data, size_t size)
{
	const char *p = fz_write("in.model", data, size);
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = hog_model_load(&m, p, &err);
	fz_check(rc, &err);
	if (rc == 0) {
		hog_model_info info;
		hog_model_info_get(m, &info);
		volatile double sum = info.bias;
		for (uint64_t i = 0; info.weights && i < info.dim; i++) /* (an mlp has a dim and no weights here) */
			sum += info.weights[i];
		(void)sum;
		if (info.split && (strlen(info.split) == 0 || strlen(info.split) > 256)) /* (section 4) */
			abort();
		hog_model_free(m);
	}
}
