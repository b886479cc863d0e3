/* How much memory this process may use, and whether a data set fits in it:
 * the rule by which eval, predict and train's test set stream on their own,
 * and what data info says. */
#include "cli/cli.h"
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

/* This process's cgroup v2 directory (from /proc/self/cgroup's "0::/path"). */
static int cgroup_dir(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[4096];
	int ok = 0;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			ok = snprintf(buf, size, "/sys/fs/cgroup%s", line + 3) < (int)size;
			break;
		}
	if (f)
		fclose(f);
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
	if (cgroup_dir(dir, sizeof dir))
		for (;;) {
			snprintf(p, sizeof p, "%s/memory.max", dir);
			uint64_t max = read_u64(p);
			snprintf(p, sizeof p, "%s/memory.current", dir);
			uint64_t cur = read_u64(p);
			if (max) {
				uint64_t left = max > cur ? max - cur : 0;
				if (!avail || left < avail) {
					avail = left;
					if (why)
						snprintf(why, size, "the memory cgroup's limit (%s/memory.max) less its use",
						         strlen(dir) > 200 ? "..." : dir);
				}
			}
			char *slash = strrchr(dir, '/');
			if (!slash || slash - dir <= (long)strlen("/sys/fs/cgroup"))
				break;
			*slash = 0;
		}
	const char *env = getenv("HOGWILD_MEMORY");
	if (env && *env) {
		char *end;
		unsigned long long v = strtoull(env, &end, 10);
		if (*end == 'M' || *end == 'm')
			v <<= 20;
		else if (*end == 'G' || *end == 'g')
			v <<= 30;
		if (v) {
			avail = v;
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
