/* Test helpers (tests/util.h) and a suite that checks them: fixtures must land
 * where the other suites expect them. */
#include "util.h"
#include "hogwild.h"
#include "model/model.h"
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

static volatile int tu_stop_flag;
static unsigned long long tu_stop_after;
static void tu_stop_in_epoch_2(void *ud, const hog_progress *p)
{
	(void)ud;
	if (p->epoch == 2 && p->done > tu_stop_after)
		__atomic_store_n(&tu_stop_flag, 1, __ATOMIC_RELAXED);
}

static int tu_run(const hog_data *d, const char *path, const hog_train_opts *o, hog_model **m, hog_train_result *r,
                  int want)
{
	hog_err err = { 0 };
	int rc = d ? hog_train(d, NULL, o, m, r, &err) : hog_train_stream(path, NULL, o, m, r, &err);
	if (rc != want)
		fprintf(stderr, "\n  %s: %s\n", d ? "hog_train" : "hog_train_stream", rc ? err.msg : "not stopped");
	return rc == want ? 0 : -1;
}

int tu_same_model(const hog_model *a, const hog_model *b)
{
	return a && b && a->nparams == b->nparams && !memcmp(a->params, b->params, a->nparams * sizeof *a->params) &&
	       a->aux == b->aux;
}

int tu_stop_resume_same(const hog_data *d, const char *stream_path, const hog_train_opts *o0,
                        unsigned long long after, int threads_resumed)
{
	hog_train_opts o = *o0;
	hog_model *straight = NULL, *stopped = NULL, *resumed = NULL;
	hog_train_result r;
	const char *ck = tu_path("tu_stop.ckpt");
	int same = -1;
	unlink(ck);
	if (tu_run(d, stream_path, &o, &straight, NULL, 0))
		goto out;
	o.checkpoint = ck;
	o.stop = &tu_stop_flag;
	o.on_progress = tu_stop_in_epoch_2;
	tu_stop_after = after;
	tu_stop_flag = 0;
	if (tu_run(d, stream_path, &o, &stopped, &r, HOG_EINTR))
		goto out;
	CU_ASSERT_EQUAL(r.epochs_done, 1);
	o.on_progress = NULL;
	o.stop = NULL;
	o.checkpoint = NULL;
	o.resume = ck;
	o.threads = threads_resumed;
	if (tu_run(d, stream_path, &o, &resumed, NULL, 0))
		goto out;
	same = tu_same_model(straight, resumed);
out:
	hog_model_free(straight);
	hog_model_free(stopped);
	hog_model_free(resumed);
	return same;
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
