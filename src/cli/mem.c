/* How much memory this process may use, and whether a data set fits in it:
 * the rule by which eval, predict and train's test set stream on their own,
 * and what data info says. */
#include "cli/cli.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number read from the first line of @p path ("max" and missing files: 0). */
static uint64_t read_u64(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long long v = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* This process's memory cgroup directory: cgroup v2's ("0::/path"), else the
 * v1 memory controller's ("N:memory:/path"); *v1 says which. */
static int cgroup_dir(char *buf, size_t size, int *v1)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[4096], v2[4096] = "";
	int ok = 0;
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = 0;
		if (!strcmp(ctl + 1, "") && !v2[0])
			snprintf(v2, sizeof v2, "%s", path);
		for (char *t = strtok(ctl + 1, ","); t && !ok; t = strtok(NULL, ","))
			if (!strcmp(t, "memory"))
				ok = snprintf(buf, size, "/sys/fs/cgroup/memory%s", path) < (int)size;
		if (ok)
			break;
	}
	if (f)
		fclose(f);
	*v1 = ok;
	if (!ok && v2[0])
		ok = snprintf(buf, size, "/sys/fs/cgroup%s", v2) < (int)size;
	if (ok && buf[strlen(buf) - 1] == '/')
		buf[strlen(buf) - 1] = 0;
	return ok;
}

uint64_t cli_mem_available(char *why, size_t size)
{
	uint64_t avail = 0;
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	while (f && fgets(line, sizeof line, f)) {
		unsigned long long kb;
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			avail = kb * 1024;
	}
	if (f)
		fclose(f);
	if (why)
		snprintf(why, size, "MemAvailable");
	/* the cgroup's limit less its usage, for this cgroup and those above it */
	char dir[4096], p[4200];
	int v1;
	if (cgroup_dir(dir, sizeof dir, &v1))
		for (size_t root = strlen(v1 ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup");;) {
			snprintf(p, sizeof p, "%s/%s", dir, v1 ? "memory.limit_in_bytes" : "memory.max");
			uint64_t max = read_u64(p);
			snprintf(p, sizeof p, "%s/%s", dir, v1 ? "memory.usage_in_bytes" : "memory.current");
			uint64_t cur = read_u64(p);
			if (max) {
				uint64_t left = max > cur ? max - cur : 0;
				if (!avail || left < avail) {
					avail = left;
					if (why)
						snprintf(why, size, "the memory cgroup's limit (%s/%s) less its use",
						         strlen(dir) > 200 ? "..." : dir, v1 ? "memory.limit_in_bytes" : "memory.max");
				}
			}
			char *slash = strrchr(dir, '/');
			if (!slash || (size_t)(slash - dir) < root)
				break;
			*slash = 0;
		}
	const char *env = getenv("HOGWILD_MEMORY");
	if (env && *env) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(env, &end, 10);
		const int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
		                : *end == 'G' || *end == 'g' ? 30 : 0;
		end += shift != 0;
		/* (a value it cannot read is said, once: "20x" was 20 bytes, "0" nothing at all) */
		static int said;
		if (end == env || *end || errno || !v || v > (~0ull >> shift) || *env == '-') {
			if (!said++)
				fprintf(stderr, "hogwild: HOGWILD_MEMORY='%.40s' is not a byte count above 0 (N, or N with K, M or "
				        "G): ignored\n", env);
		} else {
			avail = v << shift;
			if (why)
				snprintf(why, size, "HOGWILD_MEMORY");
		}
	}
	return avail;
}

uint64_t cli_data_bytes(const hog_meta *m)
{
	uint64_t n = m->examples, b = 0;
	switch (m->kind) {
	case HOG_KIND_SPARSE: b = n * 12 + m->nnz * 8; break; /* labels, offsets; ids, values */
	case HOG_KIND_DENSE: b = n * 4 + n * m->features * 4; break;
	case HOG_KIND_RATINGS: b = n * 12; break;
	}
	return b + (m->weighted ? n * 4 : 0);
}

int cli_stream_auto(const char *cmd, const char *path, const hog_meta *m)
{
	char why[300];
	uint64_t avail = cli_mem_available(why, sizeof why), need = cli_data_bytes(m);
	if (!avail || need <= avail / 2)
		return 0;
	fprintf(stderr, "hogwild %s: note: %s holds %.1f MB decoded, more than half of the %.1f MB available (%s): "
	        "read a chunk at a time (--stream)\n", cmd, path, need / 1e6, avail / 1e6, why);
	return 1;
}

uint64_t cli_chunk_examples(const hog_meta *m)
{
	uint64_t avail = cli_mem_available(NULL, 0), bytes = 8u << 20;
	if (avail && avail / 16 < bytes)
		bytes = avail / 16;
	return hog_chunks_size(m, bytes);
}
