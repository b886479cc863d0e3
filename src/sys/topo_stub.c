/* Topology and placement without hwloc (built when HWLOC=0; topo_hwloc.c is the
 * real one). The machine is the CPUs this process may run on (its affinity mask,
 * or the online CPUs when that cannot be read), each counted as one core, on one
 * NUMA node. Plans follow the same rule as with hwloc (worker i on CPU i, wrapping
 * around when oversubscribed); binding does nothing and succeeds; memory is plain
 * page-aligned memory placed by first touch. Synthetic and XML topologies need
 * hwloc and are refused with HOG_ENOTSUP. See topo.h for the interface. */
#include "sys/topo.h"
#include "sys/err.h"
#include "sys/file.h" /* hog_huge_pages */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hog_topo {
	int ncpu;
	int *cpu; /* OS numbers of the CPUs, increasing */
};

const char *hog_topo_backend(void) { return "none"; }

int hog_topo_open(hog_topo **out, const char *synthetic, hog_err *err)
{
	*out = NULL;
	if (synthetic)
		return hog_err_set(err, HOG_ENOTSUP, "topology \"%s\": synthetic and XML topologies "
		                   "need hwloc (this hogwild was built with HWLOC=0)", synthetic);
	hog_topo *t = calloc(1, sizeof *t);
	if (!t)
		return hog_err_set(err, ENOMEM, "topology: out of memory");
	cpu_set_t set;
	CPU_ZERO(&set);
	int n = 0;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
	if (n > 0) {
		t->cpu = malloc((size_t)n * sizeof *t->cpu);
		if (!t->cpu)
			goto oom;
		for (int c = 0; c < CPU_SETSIZE && t->ncpu < n; c++)
			if (CPU_ISSET(c, &set))
				t->cpu[t->ncpu++] = c;
	} else {
		long on = sysconf(_SC_NPROCESSORS_ONLN);
		n = on > 0 ? (int)on : 1;
		t->cpu = malloc((size_t)n * sizeof *t->cpu);
		if (!t->cpu)
			goto oom;
		for (int c = 0; c < n; c++)
			t->cpu[t->ncpu++] = c;
	}
	*out = t;
	return 0;
oom:
	free(t);
	return hog_err_set(err, ENOMEM, "topology: out of memory");
}

void hog_topo_close(hog_topo *t)
{
	if (t) {
		free(t->cpu);
		free(t);
	}
}

int hog_topo_cores(const hog_topo *t) { return t->ncpu; }
int hog_topo_pus(const hog_topo *t) { return t->ncpu; }
int hog_topo_numa_nodes(const hog_topo *t) { (void)t; return 1; }
int hog_topo_is_real(const hog_topo *t) { (void)t; return 0; }

int hog_topo_plan(const hog_topo *t, int nthreads, enum hog_bind bind, hog_place *out,
                  int *oversubscribed, hog_err *err)
{
	if ((unsigned)bind > HOG_BIND_NONE)
		return hog_err_set(err, HOG_ECONFIG, "placement: unknown binding mode %d", (int)bind);
	if (nthreads < 1)
		return hog_err_set(err, HOG_ECONFIG, "placement: %d threads (need at least 1)", nthreads);
	for (int i = 0; i < nthreads; i++) {
		int c = i % t->ncpu;
		out[i] = (hog_place){ .worker = i, .core = c, .numa = 0, .pu = t->cpu[c] };
	}
	if (oversubscribed)
		*oversubscribed = nthreads > t->ncpu;
	return 0;
}

int hog_topo_bind_self(const hog_topo *t, const hog_place *p, enum hog_bind bind, hog_err *err)
{
	(void)t;
	(void)p;
	if ((unsigned)bind > HOG_BIND_NONE)
		return hog_err_set(err, HOG_ECONFIG, "binding: unknown mode %d", (int)bind);
	return 0; /* no hwloc: threads stay where the OS puts them */
}

static void *hog_topo_page_alloc(size_t bytes)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p = NULL;
	if (posix_memalign(&p, pg > 0 ? (size_t)pg : 4096, bytes ? bytes : 1) != 0)
		return NULL;
	hog_huge_pages(p, bytes); /* (as topo_hwloc.c's, before the first touch) */
	memset(p, 0, bytes ? bytes : 1); /* zeroed, and the first touch */
	return p;
}

void *hog_topo_alloc_local(const hog_topo *t, size_t bytes)
{
	(void)t;
	return hog_topo_page_alloc(bytes);
}

void *hog_topo_alloc_interleaved(const hog_topo *t, size_t bytes)
{
	(void)t;
	return hog_topo_page_alloc(bytes);
}

void hog_topo_free(const hog_topo *t, void *p, size_t bytes)
{
	(void)t;
	(void)bytes;
	free(p);
}

int hog_topo_model_interleaved(const hog_topo *t, const hog_place *plan, int n,
                               enum hog_bind bind)
{
	(void)t;
	(void)plan;
	(void)n;
	(void)bind;
	return 0;
}

/* ---- text ---------------------------------------------------------------- */

#include "sys/topo_text.h"

size_t hog_topo_l2_bytes(const hog_topo *t)
{
	(void)t;
	const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	return l2 > 0 ? (size_t)l2 : 0;
}

int hog_topo_describe(const hog_topo *t, char *buf, size_t size)
{
	hog_topo_text o = { buf, size, 0 };
	char a[32], b[32];
	hog_topo_add(&o, "topology: this machine (built without hwloc: threads are not pinned, "
	             "NUMA nodes and SMT are not seen)\n");
	hog_topo_add(&o, "machine: 1 NUMA node (assumed), %d core%s (CPUs the process may use, "
	             "each counted as a core), %d PU%s", t->ncpu, hog_topo_s(t->ncpu), t->ncpu,
	             hog_topo_s(t->ncpu));
	long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
	if (pages > 0 && pg > 0)
		hog_topo_add(&o, ", %s memory", hog_topo_size(a, sizeof a,
		             (unsigned long long)pages * (unsigned long long)pg));
	hog_topo_add(&o, "\n  CPUs:");
	for (int i = 0; i < t->ncpu; i++) {
		int j = i;
		while (j + 1 < t->ncpu && t->cpu[j + 1] == t->cpu[j] + 1)
			j++;
		if (j > i)
			hog_topo_add(&o, "%s%d-%d", i ? "," : " ", t->cpu[i], t->cpu[j]);
		else
			hog_topo_add(&o, "%s%d", i ? "," : " ", t->cpu[i]);
		i = j;
	}
	hog_topo_add(&o, "\n");
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (l2 > 0 || l3 > 0) {
		hog_topo_add(&o, "  caches:");
		if (l2 > 0)
			hog_topo_add(&o, " L2 %s", hog_topo_size(a, sizeof a, (unsigned long long)l2));
		if (l3 > 0)
			hog_topo_add(&o, "%s L3 %s", l2 > 0 ? "," : "",
			             hog_topo_size(b, sizeof b, (unsigned long long)l3));
		hog_topo_add(&o, " (per cache, from the C library)\n");
	}
	return hog_topo_text_end(&o);
}

int hog_topo_plan_describe(const hog_topo *t, const hog_place *plan, int n, enum hog_bind bind,
                           char *buf, size_t size)
{
	hog_topo_text o = { buf, size, 0 };
	const char *bn = (unsigned)bind <= HOG_BIND_NONE ? hog_bind_name(bind) : NULL;
	hog_topo_add(&o, "plan: %d worker%s on 1 NUMA node, binding %s (not applied: built without "
	             "hwloc)\n", n, hog_topo_s(n), bn ? bn : "?");
	for (int i = 0; i < n; i++)
		hog_topo_add(&o, "worker %d -> core %d (PU %d), NUMA node %d\n", plan[i].worker,
		             plan[i].core, plan[i].pu, plan[i].numa);
	hog_topo_add(&o, "model memory: NUMA node 0 (the only node seen; first touch)\n");
	hog_topo_add(&o, "worker shards: first touch by each worker\n");
	if (n > t->ncpu)
		hog_topo_add(&o, "warning: %d workers on %d CPUs: oversubscribed, some CPUs run %d workers\n",
		             n, t->ncpu, (n + t->ncpu - 1) / t->ncpu);
	return hog_topo_text_end(&o);
}
