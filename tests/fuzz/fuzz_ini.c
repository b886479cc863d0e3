/* libFuzzer harness: the INI reader (hog_ini_parse) on one file; every key and
 * value handed to the callback must be a readable string. */
#include "fuzz.h"
#include "sys/ini.h"

static int fz_entry(void *ud, const char *section, const char *key, const char *value, unsigned line, hog_err *err)
{
	(void)err;
	*(size_t *)ud += strlen(section ? section : "") + strlen(key) + strlen(value) + (size_t)(line > 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fz_write("in.ini", data, size);
	size_t total = 0;
	hog_err err = { 0 };
	int rc = hog_ini_parse(p, fz_entry, &total, &err);
	fz_check(rc, &err);
	return 0;
}
