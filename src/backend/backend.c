/* The backend registry: "cpu" is compiled in; "cuda" is the plugin
 * libhogwild-cuda.so (cuda.h), loaded here with dlopen the first time a GPU is
 * asked for, and only then: a run on the CPU never looks for it. Everything
 * else calls hog_backend_open() with a device name and works on whatever comes
 * back.
 *
 * Where the plugin is looked for: $HOG_CUDA_PLUGIN when set (that file alone);
 * else beside the running program (the build tree), in ../lib/hogwild/ from it
 * (the programs installed in PREFIX/bin), and in hogwild/ beside the object this
 * code is in (a program linked with the installed libhogwild.so: LIBDIR/hogwild,
 * where make install puts the plugin). Nothing is compiled in, so an installed
 * tree can move. The first file that exists is loaded; a file that exists but
 * does not load is an error naming it and dlopen's reason, never a silent
 * fall-through to another copy. */
#include "backend/backend.h"
#include "backend/cuda.h"
#include "sys/err.h"
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const hog_cuda_host cuda_host = {
	.abi = HOG_CUDA_PLUGIN_ABI,
	.version = HOG_VERSION_STRING,
	.backend_size = sizeof(hog_backend),
	.ops_size = sizeof(hog_backend_ops),
	.err_size = sizeof(hog_err),
	.err_set = hog_err_set,
	.err_prefix = hog_err_prefix,
	.backend_wrap = hog_backend_wrap,
	.backend_close = hog_backend_close,
};

int hog_cuda_plugin_load(const char *path, hog_cuda_plugin *out, hog_err *err)
{
	memset(out, 0, sizeof *out);
	dlerror();
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		return hog_err_set(err, HOG_ENOTSUP, "the CUDA plugin %s does not load: %s", path,
		                   why ? why : "dlopen failed");
	}
	hog_cuda_plugin_entry entry;
	void *sym = dlsym(h, HOG_CUDA_PLUGIN_ENTRY);
	memcpy(&entry, &sym, sizeof entry); /* ISO C has no cast from void * to a function pointer */
	if (!sym) {
		dlclose(h);
		return hog_err_set(err, HOG_ENOTSUP, "%s is not a hogwild CUDA plugin (it has no %s)", path,
		                   HOG_CUDA_PLUGIN_ENTRY);
	}
	char why[256] = "";
	if (entry(&cuda_host, out, why, sizeof why)) {
		dlclose(h);
		return hog_err_set(err, HOG_ENOTSUP, "the CUDA plugin %s: %s", path, why);
	}
	return 0; /* kept loaded for the life of the process */
}

static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;
static hog_cuda_plugin plugin;
static int plugin_ok;
static unsigned plugin_lookups;

unsigned hog_cuda_plugin_lookups(void)
{
	pthread_mutex_lock(&plugin_lock);
	unsigned n = plugin_lookups;
	pthread_mutex_unlock(&plugin_lock);
	return n;
}

/* The candidates in order, into dirs[]; returns their number. */
static int plugin_dirs(char dirs[3][PATH_MAX])
{
	int n = 0;
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash = NULL;
	if (len > 0) {
		exe[len] = 0;
		slash = strrchr(exe, '/');
	}
	if (slash) {
		*slash = 0;
		snprintf(dirs[n++], PATH_MAX, "%s", exe);
		if (snprintf(dirs[n], PATH_MAX, "%s/../lib/hogwild", exe) < PATH_MAX)
			n++;
	}
	/* this code in libhogwild.so (not linked into the program): LIBDIR/hogwild */
	Dl_info info;
	if (dladdr((void *)plugin_dirs, &info) && info.dli_fname && strstr(info.dli_fname, "/libhogwild.so")) {
		const char *end = strrchr(info.dli_fname, '/');
		if (snprintf(dirs[n], PATH_MAX, "%.*s/hogwild", (int)(end - info.dli_fname), info.dli_fname) < PATH_MAX)
			n++;
	}
	return n;
}

/* The plugin, loaded on first use (under the lock: workers open their backends
 * at once). A failure is not remembered: the next call tries again and says why. */
static const hog_cuda_plugin *cuda_plugin(hog_err *err)
{
	pthread_mutex_lock(&plugin_lock);
	plugin_lookups++;
	if (plugin_ok) {
		pthread_mutex_unlock(&plugin_lock);
		return &plugin;
	}
	int rc;
	const char *env = getenv("HOG_CUDA_PLUGIN");
	if (env && *env) {
		rc = hog_cuda_plugin_load(env, &plugin, err);
		if (rc)
			hog_err_prefix(err, "HOG_CUDA_PLUGIN");
	} else {
		char dirs[3][PATH_MAX], path[PATH_MAX + 32];
		int n = plugin_dirs(dirs), found = 0;
		rc = HOG_ENOTSUP;
		for (int i = 0; i < n && !found; i++) {
			if (snprintf(path, sizeof path, "%s/%s", dirs[i], HOG_CUDA_PLUGIN_FILE) >= (int)sizeof path)
				continue;
			if (access(path, F_OK) == 0) {
				found = 1;
				rc = hog_cuda_plugin_load(path, &plugin, err);
			}
		}
		if (!found)
			hog_err_set(err, HOG_ENOTSUP, "no CUDA backend: %s is neither beside this program (%s) "
			            "nor in %s; this hogwild was built without CUDA (make CUDA=1 where nvcc is "
			            "installed) or its plugin was not installed", HOG_CUDA_PLUGIN_FILE,
			            n > 0 ? dirs[0] : "?", n > 1 ? dirs[n - 1] : "?");
	}
	plugin_ok = rc == 0;
	pthread_mutex_unlock(&plugin_lock);
	return rc ? NULL : &plugin;
}

int hog_backend_has_cuda(void)
{
	hog_err err = { 0 };
	return cuda_plugin(&err) != NULL;
}

/* "cuda" -> 0, "cuda:N" -> N; -1 for anything else. */
static int backend_parse_cuda(const char *device)
{
	if (!strcmp(device, "cuda"))
		return 0;
	if (strncmp(device, "cuda:", 5) || device[5] < '0' || device[5] > '9')
		return -1;
	char *end;
	errno = 0;
	long n = strtol(device + 5, &end, 10);
	return errno || *end || n > 1024 ? -1 : (int)n;
}

int hog_backend_open(hog_backend **out, const char *device, unsigned flags, hog_err *err)
{
	hog_err local;
	if (!err)
		err = &local;
	*out = NULL;
	if (!device || !strcmp(device, "cpu"))
		return hog_cpu_backend_open(out, flags, err);
	int ordinal = backend_parse_cuda(device);
	if (ordinal < 0)
		return hog_err_set(err, HOG_ECONFIG, "device '%s': expected cpu, cuda or cuda:N",
		                   device);
	const hog_cuda_plugin *p = cuda_plugin(err);
	if (!p)
		return hog_err_prefix(err, "device '%s'", device);
	return p->open(out, ordinal, flags, err);
}

int hog_backend_gpus(hog_gpu *out, int max, int *count, char *why, size_t why_size)
{
	*count = 0;
	hog_err err = { 0 };
	const hog_cuda_plugin *p = cuda_plugin(&err);
	if (p)
		return p->gpus(out, max, count, why, why_size);
	if (why && why_size)
		snprintf(why, why_size, "%s", err.msg);
	return 0;
}
