/* libFuzzer harness: the model and checkpoint loader (hog_model_load, the only
 * public entry point: a checkpoint is a model file with training state) on one
 * file; a loaded model's weights are read end to end. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
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
		for (uint64_t i = 0; i < info.dim; i++)
			sum += info.weights[i];
		hog_model_free(m);
	}
	return 0;
}
