/* Test helpers (tests/util.h) and a suite that checks them: fixtures must land
 * where the other suites expect them. */
#include "util.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

static char tu_root[256];

static void tu_cleanup(void)
{
	if (tu_root[0] && !getenv("HOG_TEST_KEEP")) {
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", tu_root);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tu_root);
	}
}

const char *tu_dir(void)
{
	if (!tu_root[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(tu_root, sizeof tu_root, "%s/hogwild-test-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(tu_root)) {
			perror("mkdtemp");
			abort();
		}
		atexit(tu_cleanup);
	}
	return tu_root;
}

const char *tu_path(const char *name)
{
	static char bufs[8][512];
	static int k;
	char *b = bufs[k++ & 7];
	snprintf(b, 512, "%s/%s", tu_dir(), name);
	return b;
}

const char *tu_write(const char *name, const void *data, size_t len)
{
	const char *p = tu_path(name);
	FILE *f = fopen(p, "wb");
	if (!f)
		abort();
	if (len == (size_t)-1)
		len = strlen(data);
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
	return p;
}

const char *tu_write_gz(const char *name, const void *data, size_t len)
{
	const char *p = tu_path(name);
	gzFile g = gzopen(p, "wb");
	if (!g)
		abort();
	if (len && gzwrite(g, data, (unsigned)len) != (int)len)
		abort();
	gzclose(g);
	return p;
}

int tu_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_util_paths(void)
{
	const char *p = tu_write("hello.txt", "hi\n", (size_t)-1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p, tu_dir()));
	CU_ASSERT_EQUAL(tu_sh("grep -q hi '%s'", p), 0);
	CU_ASSERT_EQUAL(tu_sh("exit 3"), 3);
}

int test_util_register(void)
{
	CU_pSuite s = CU_add_suite("util", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_util_paths);
	return 0;
}
