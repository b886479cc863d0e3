/* CUnit runner: registers every suite (tests/test_NAME.c defines
 * test_NAME_register(), listed by the Makefile in suites.h) and runs them.
 * An argument keeps the suites whose name contains it; HOG_TEST_SKIP, a
 * space-separated list of suite names (test_NAME), leaves those out and says so
 * (make tsan: suites that start no thread).
 * Exit status: nonzero when any test failed (CU_get_error() alone would be 0). */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X(name) int name##_register(void);
#include "suites.h"
#undef X

/* Whether HOG_TEST_SKIP names the suite @p name, a whole word of it. */
static int skipped(const char *name)
{
	const char *s = getenv("HOG_TEST_SKIP");
	size_t n = strlen(name);
	for (const char *p = s ? strstr(s, name) : NULL; p; p = strstr(p + 1, name))
		if ((p == s || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) {
			fprintf(stderr, "%s: skipped (HOG_TEST_SKIP)\n", name);
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
#define X(name) if ((argc < 2 || strstr(#name, argv[1])) && !skipped(#name)) { if (name##_register() != 0) { \
	fprintf(stderr, "cannot register %s\n", #name); return 2; } }
#include "suites.h"
#undef X
	CU_basic_set_mode(getenv("HOG_TEST_VERBOSE") ? CU_BRM_VERBOSE : CU_BRM_NORMAL);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	int rc = CU_get_error() || failed;
	CU_cleanup_registry();
	return rc;
}
