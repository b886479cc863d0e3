/* Topology and placement with hwloc 2.x (built when HWLOC=1; topo_stub.c is the
 * same interface without it). At open we load the topology (this machine, a
 * synthetic description or an XML file) and flatten it once into a list of cores
 * in placement order (by NUMA node, then topology order) and a list of PU slots
 * (every core's first PU, then every core's second PU ...). A plan is then only
 * "worker i takes slot i mod slots", which keeps hog_topo_plan() trivial to test
 * and safe to call from any thread. Binding and memory placement go to hwloc, and
 * only when the topology is the machine we run on. See topo.h for the policy. */
#include "sys/topo.h"
#include "sys/err.h"
#include "sys/file.h" /* hog_huge_pages */
#include <errno.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* One core in placement order. */
typedef struct hog_topo_core {
	int lidx;  /* logical index of the core (or of the PU when there are no cores) */
	int numa;  /* logical index of its NUMA node */
	int npu;   /* its PUs */
} hog_topo_core;

struct hog_topo {
	hwloc_topology_t h;
	int real;                  /* hwloc_topology_is_thissystem() */
	hwloc_obj_type_t core_type;/* HWLOC_OBJ_CORE, or HWLOC_OBJ_PU when there are none */
	int ncores, npus, nnuma;
	hog_topo_core *cores;      /* ncores, placement order */
	int *slot_core;            /* npus: index into cores[] of slot k */
	int *slot_pu;              /* npus: OS index of the PU of slot k */
	char source[300];          /* where the topology came from, for describe */
};

const char *hog_topo_backend(void)
{
#ifdef HWLOC_VERSION
	return "hwloc " HWLOC_VERSION;
#else
	return "hwloc";
#endif
}

static int hog_topo_cmp_core(const void *a, const void *b)
{
	const hog_topo_core *x = a, *y = b;
	if (x->numa != y->numa)
		return x->numa < y->numa ? -1 : 1;
	return (x->lidx > y->lidx) - (x->lidx < y->lidx);
}

/* The NUMA node of a core: the first node (logical order) whose PUs include the
 * core's, else the first that shares any PU, else node 0. */
static int hog_topo_core_numa(hwloc_topology_t h, hwloc_const_cpuset_t cs, int nnuma)
{
	int share = -1;
	for (int i = 0; i < nnuma; i++) {
		hwloc_obj_t n = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
		if (!n || !n->cpuset)
			continue;
		if (hwloc_bitmap_isincluded(cs, n->cpuset))
			return i;
		if (share < 0 && hwloc_bitmap_intersects(cs, n->cpuset))
			share = i;
	}
	return share < 0 ? 0 : share;
}

/* Flattens the loaded topology into cores[] and the PU slots. */
static int hog_topo_flatten(hog_topo *t, hog_err *err)
{
	hwloc_topology_t h = t->h;
	t->core_type = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
	int n = hwloc_get_nbobjs_by_type(h, t->core_type);
	int nn = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
	t->nnuma = nn > 0 ? nn : 1;
	if (n <= 0)
		return hog_err_set(err, HOG_EDATA, "topology %s: no cores or PUs", t->source);
	t->cores = calloc((size_t)n, sizeof *t->cores);
	if (!t->cores)
		return hog_err_set(err, ENOMEM, "topology: out of memory");
	int maxpu = 0;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t c = hwloc_get_obj_by_type(h, t->core_type, (unsigned)i);
		if (!c || !c->cpuset)
			continue;
		int np = hwloc_get_nbobjs_inside_cpuset_by_type(h, c->cpuset, HWLOC_OBJ_PU);
		if (np <= 0)
			continue; /* a core with no PU we may use */
		hog_topo_core *k = &t->cores[t->ncores++];
		k->lidx = i;
		k->numa = nn > 0 ? hog_topo_core_numa(h, c->cpuset, nn) : 0;
		k->npu = np;
		t->npus += np;
		if (np > maxpu)
			maxpu = np;
	}
	if (t->ncores == 0)
		return hog_err_set(err, HOG_EDATA, "topology %s: no usable PUs", t->source);
	qsort(t->cores, (size_t)t->ncores, sizeof *t->cores, hog_topo_cmp_core);

	t->slot_core = malloc((size_t)t->npus * sizeof *t->slot_core);
	t->slot_pu = malloc((size_t)t->npus * sizeof *t->slot_pu);
	if (!t->slot_core || !t->slot_pu)
		return hog_err_set(err, ENOMEM, "topology: out of memory");
	/* Round r takes the r-th PU of every core that has one: the SMT siblings come
	 * only after every core has a worker. */
	int k = 0;
	for (int r = 0; r < maxpu; r++)
		for (int i = 0; i < t->ncores; i++) {
			if (t->cores[i].npu <= r)
				continue;
			hwloc_obj_t c = hwloc_get_obj_by_type(h, t->core_type, (unsigned)t->cores[i].lidx);
			hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(h, c->cpuset, HWLOC_OBJ_PU,
			                                                      (unsigned)r);
			if (!pu)
				return hog_err_set(err, HOG_EDATA, "topology %s: inconsistent PUs", t->source);
			t->slot_core[k] = i;
			t->slot_pu[k] = (int)pu->os_index;
			k++;
		}
	if (k != t->npus)
		return hog_err_set(err, HOG_EDATA, "topology %s: %d PUs placed of %d", t->source, k, t->npus);
	return 0;
}

int hog_topo_open(hog_topo **out, const char *synthetic, hog_err *err)
{
	int rc;
	*out = NULL;
	hog_topo *t = calloc(1, sizeof *t);
	if (!t)
		return hog_err_set(err, ENOMEM, "topology: out of memory");
	if (hwloc_topology_init(&t->h) != 0) {
		rc = errno ? errno : ENOMEM;
		t->h = NULL;
		hog_err_set(err, rc, "topology: hwloc_topology_init: %s", strerror(rc));
		goto fail;
	}
	int xml = 0;
	if (!synthetic) {
		snprintf(t->source, sizeof t->source, "this machine");
	} else {
		size_t len = strlen(synthetic);
		xml = len >= 4 && !strcasecmp(synthetic + len - 4, ".xml");
		snprintf(t->source, sizeof t->source, "%s \"%s\"", xml ? "XML file" : "synthetic",
		         synthetic);
		if (xml && access(synthetic, R_OK) != 0) {
			rc = errno;
			hog_err_set(err, rc, "%s: %s", synthetic, strerror(rc));
			goto fail;
		}
		int bad = xml ? hwloc_topology_set_xml(t->h, synthetic)
		              : hwloc_topology_set_synthetic(t->h, synthetic);
		if (bad)
			goto bad_input;
	}
	if (hwloc_topology_load(t->h) != 0) {
		if (synthetic)
			goto bad_input;
		rc = errno ? errno : EINVAL;
		hog_err_set(err, rc, "topology: hwloc cannot read this machine: %s", strerror(rc));
		goto fail;
	}
	t->real = hwloc_topology_is_thissystem(t->h);
	if (!synthetic && !t->real) {
		/* hwloc read HWLOC_SYNTHETIC or HWLOC_XMLFILE instead of the machine. */
		const char *env = getenv("HWLOC_SYNTHETIC") ? "HWLOC_SYNTHETIC" : "HWLOC_XMLFILE";
		if (getenv(env))
			snprintf(t->source, sizeof t->source, "given by %s=\"%s\"", env, getenv(env));
		else
			snprintf(t->source, sizeof t->source, "given by the environment");
	}
	if ((rc = hog_topo_flatten(t, err)) != 0)
		goto fail;
	*out = t;
	return 0;

bad_input:
	if (xml)
		rc = hog_err_set(err, HOG_EDATA, "%s: not an hwloc XML topology (or one that %s "
		                 "cannot read)", synthetic, hog_topo_backend());
	else
		rc = hog_err_set(err, HOG_ECONFIG, "bad synthetic topology \"%s\" "
		                 "(expected levels like \"package:2 core:8 pu:2\")", synthetic);
fail:
	hog_topo_close(t);
	return rc;
}

void hog_topo_close(hog_topo *t)
{
	if (!t)
		return;
	if (t->h)
		hwloc_topology_destroy(t->h);
	free(t->cores);
	free(t->slot_core);
	free(t->slot_pu);
	free(t);
}

int hog_topo_cores(const hog_topo *t) { return t->ncores; }
int hog_topo_pus(const hog_topo *t) { return t->npus; }
int hog_topo_numa_nodes(const hog_topo *t) { return t->nnuma; }
int hog_topo_is_real(const hog_topo *t) { return t->real; }

int hog_topo_plan(const hog_topo *t, int nthreads, enum hog_bind bind, hog_place *out,
                  int *oversubscribed, hog_err *err)
{
	if ((unsigned)bind > HOG_BIND_NONE)
		return hog_err_set(err, HOG_ECONFIG, "placement: unknown binding mode %d", (int)bind);
	if (nthreads < 1)
		return hog_err_set(err, HOG_ECONFIG, "placement: %d threads (need at least 1)", nthreads);
	for (int i = 0; i < nthreads; i++) {
		int s = i % t->npus;
		const hog_topo_core *c = &t->cores[t->slot_core[s]];
		out[i] = (hog_place){ .worker = i, .core = c->lidx, .numa = c->numa, .pu = t->slot_pu[s] };
	}
	if (oversubscribed)
		*oversubscribed = nthreads > t->npus;
	return 0;
}

int hog_topo_bind_self(const hog_topo *t, const hog_place *p, enum hog_bind bind, hog_err *err)
{
	if ((unsigned)bind > HOG_BIND_NONE)
		return hog_err_set(err, HOG_ECONFIG, "binding: unknown mode %d", (int)bind);
	if (bind == HOG_BIND_NONE)
		return 0;
	if (!p || p->numa < 0 || p->numa >= t->nnuma || p->pu < 0)
		return hog_err_set(err, HOG_ECONFIG, "binding: a place outside the topology");
	hwloc_const_cpuset_t set;
	if (bind == HOG_BIND_CORE) {
		/* The one PU the plan chose, not the whole core: SMT siblings planned on the
		 * same core must not share one PU. */
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(t->h, (unsigned)p->pu);
		if (!pu)
			return hog_err_set(err, HOG_ECONFIG, "binding worker %d: no PU %d in the topology",
			                   p->worker, p->pu);
		set = pu->cpuset;
	} else {
		hwloc_obj_t n = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)p->numa);
		if (!n || !n->cpuset || hwloc_bitmap_iszero(n->cpuset))
			return hog_err_set(err, HOG_ECONFIG, "binding worker %d: NUMA node %d has no PUs",
			                   p->worker, p->numa);
		set = n->cpuset;
	}
	if (!t->real)
		return 0; /* a synthetic or XML machine: nothing to bind */
	if (hwloc_set_cpubind(t->h, set, HWLOC_CPUBIND_THREAD) != 0) {
		int rc = errno ? errno : EINVAL;
		char where[64];
		if (bind == HOG_BIND_CORE)
			snprintf(where, sizeof where, "PU %d", p->pu);
		else
			snprintf(where, sizeof where, "NUMA node %d", p->numa);
		return hog_err_set(err, rc, "binding worker %d to %s: %s", p->worker, where, strerror(rc));
	}
	return 0;
}

/* Zeroing is also the first touch: the pages are faulted in under the policy,
 * on 2 MB pages where the kernel grants them (hog_huge_pages: advice). A model
 * is read at random, one coordinate a nonzero: on 4 KB pages a model of
 * megabytes misses the TLB at nearly every cold coordinate, and in a VM each
 * miss walks two page tables. */
static void *hog_topo_zero(void *p, size_t bytes)
{
	if (p) {
		hog_huge_pages(p, bytes);
		memset(p, 0, bytes);
	}
	return p;
}

void *hog_topo_alloc_local(const hog_topo *t, size_t bytes)
{
	if (!bytes)
		bytes = 1;
	void *p = NULL;
	if (t->real) {
		hwloc_cpuset_t cs = hwloc_bitmap_alloc();
		hwloc_nodeset_t ns = hwloc_bitmap_alloc();
		if (cs && ns && hwloc_get_cpubind(t->h, cs, HWLOC_CPUBIND_THREAD) == 0) {
			hwloc_cpuset_to_nodeset(t->h, cs, ns);
			/* Bound to one node: bind the pages there. Not bound (or bound across
			 * nodes): first touch by this thread decides. */
			if (hwloc_bitmap_weight(ns) == 1)
				p = hwloc_alloc_membind(t->h, bytes, ns, HWLOC_MEMBIND_BIND,
				                        HWLOC_MEMBIND_BYNODESET);
		}
		hwloc_bitmap_free(cs);
		hwloc_bitmap_free(ns);
	}
	if (!p)
		p = hwloc_alloc(t->h, bytes);
	return hog_topo_zero(p, bytes);
}

void *hog_topo_alloc_interleaved(const hog_topo *t, size_t bytes)
{
	if (!bytes)
		bytes = 1;
	void *p = NULL;
	/* Without HWLOC_MEMBIND_STRICT hwloc falls back to plain memory by itself when
	 * it cannot bind (a container without mbind). Not for a synthetic machine:
	 * hwloc's stand-in there is malloc(), not page-aligned. */
	if (t->real && t->nnuma > 1)
		p = hwloc_alloc_membind(t->h, bytes, hwloc_topology_get_allowed_nodeset(t->h),
		                        HWLOC_MEMBIND_INTERLEAVE, HWLOC_MEMBIND_BYNODESET);
	if (!p)
		p = hwloc_alloc(t->h, bytes);
	return hog_topo_zero(p, bytes);
}

void hog_topo_free(const hog_topo *t, void *p, size_t bytes)
{
	if (p)
		hwloc_free(t->h, p, bytes ? bytes : 1);
}

int hog_topo_model_interleaved(const hog_topo *t, const hog_place *plan, int n,
                               enum hog_bind bind)
{
	if (t->nnuma < 2)
		return 0;
	return bind == HOG_BIND_NONE || hog_topo_plan_nodes(plan, n) > 1;
}

/* ---- text ---------------------------------------------------------------- */

#include "sys/topo_text.h"

/* "L2 2 x 2 MiB" or "L2 10 x 1.2-2 MiB" */
static void hog_topo_add_cache(hog_topo_text *o, const hog_topo *t, hwloc_obj_type_t type,
                               const char *name, int *first)
{
	int n = hwloc_get_nbobjs_by_type(t->h, type);
	if (n <= 0)
		return;
	unsigned long long lo = ~0ull, hi = 0;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t c = hwloc_get_obj_by_type(t->h, type, (unsigned)i);
		unsigned long long s = c && c->attr ? c->attr->cache.size : 0;
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
	}
	char a[32], b[32];
	hog_topo_add(o, "%s%s %d x ", *first ? "  caches: " : ", ", name, n);
	if (hi == 0)
		hog_topo_add(o, "? bytes");
	else if (lo == hi)
		hog_topo_add(o, "%s", hog_topo_size(a, sizeof a, hi));
	else
		hog_topo_add(o, "%s to %s", hog_topo_size(a, sizeof a, lo), hog_topo_size(b, sizeof b, hi));
	*first = 0;
}

size_t hog_topo_l2_bytes(const hog_topo *t)
{
	unsigned long long lo = 0;
	const int n = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_L2CACHE);
	for (int i = 0; i < n; i++) {
		hwloc_obj_t c = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_L2CACHE, (unsigned)i);
		const unsigned long long s = c && c->attr ? c->attr->cache.size : 0;
		lo = s && (!lo || s < lo) ? s : lo;
	}
	return (size_t)lo;
}

int hog_topo_describe(const hog_topo *t, char *buf, size_t size)
{
	hog_topo_text o = { buf, size, 0 };
	char a[32], list[256];
	hwloc_obj_t root = hwloc_get_root_obj(t->h);
	int npkg = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PACKAGE);
	int nn = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE);

	hog_topo_add(&o, "topology: %s (%s)%s\n", t->source, hog_topo_backend(),
	             t->real ? "" : ", not this machine: nothing is bound");
	hog_topo_add(&o, "machine: ");
	if (npkg > 0)
		hog_topo_add(&o, "%d package%s, ", npkg, hog_topo_s(npkg));
	hog_topo_add(&o, "%d NUMA node%s, %d core%s, %d PU%s", t->nnuma, hog_topo_s(t->nnuma),
	             t->ncores, hog_topo_s(t->ncores), t->npus, hog_topo_s(t->npus));
	if (t->npus % t->ncores == 0)
		hog_topo_add(&o, " (%d per core)", t->npus / t->ncores);
	else
		hog_topo_add(&o, " (SMT on some cores)");
	if (root && root->total_memory)
		hog_topo_add(&o, ", %s memory", hog_topo_size(a, sizeof a, root->total_memory));
	hog_topo_add(&o, "\n");
	for (int i = 0; i < nn; i++) {
		hwloc_obj_t n = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
		int cores = 0;
		for (int c = 0; c < t->ncores; c++)
			cores += t->cores[c].numa == i;
		hog_topo_add(&o, "  NUMA node %d (OS %u): ", i, n->os_index);
		if (n->attr && n->attr->numanode.local_memory)
			hog_topo_add(&o, "%s", hog_topo_size(a, sizeof a, n->attr->numanode.local_memory));
		else
			hog_topo_add(&o, "memory unknown");
		if (n->cpuset && !hwloc_bitmap_iszero(n->cpuset)) {
			hwloc_bitmap_list_snprintf(list, sizeof list, n->cpuset);
			hog_topo_add(&o, ", %d core%s, PUs %s\n", cores, hog_topo_s(cores), list);
		} else {
			hog_topo_add(&o, ", no PUs (memory only)\n");
		}
	}
	int first = 1;
	hog_topo_add_cache(&o, t, HWLOC_OBJ_L2CACHE, "L2", &first);
	hog_topo_add_cache(&o, t, HWLOC_OBJ_L3CACHE, "L3", &first);
	if (!first)
		hog_topo_add(&o, "\n");
	return hog_topo_text_end(&o);
}

int hog_topo_plan_describe(const hog_topo *t, const hog_place *plan, int n, enum hog_bind bind,
                           char *buf, size_t size)
{
	hog_topo_text o = { buf, size, 0 };
	int nodes = hog_topo_plan_nodes(plan, n);
	const char *bn = (unsigned)bind <= HOG_BIND_NONE ? hog_bind_name(bind) : NULL;
	hog_topo_add(&o, "plan: %d worker%s on %d of %d NUMA node%s, binding %s", n, hog_topo_s(n),
	             nodes, t->nnuma, hog_topo_s(t->nnuma), bn ? bn : "?");
	if (bind == HOG_BIND_CORE)
		hog_topo_add(&o, " (each worker pinned to its PU)");
	else if (bind == HOG_BIND_NUMA)
		hog_topo_add(&o, " (each worker pinned to the PUs of its NUMA node)");
	else
		hog_topo_add(&o, " (workers not pinned: the places are what they would be)");
	hog_topo_add(&o, "%s\n", t->real || bind == HOG_BIND_NONE ? "" : "; not this machine: nothing is bound");
	for (int i = 0; i < n; i++)
		hog_topo_add(&o, "worker %d -> core %d (PU %d), NUMA node %d\n", plan[i].worker,
		             plan[i].core, plan[i].pu, plan[i].numa);
	if (hog_topo_model_interleaved(t, plan, n, bind))
		hog_topo_add(&o, "model memory: interleaved across %d NUMA nodes\n", t->nnuma);
	else
		hog_topo_add(&o, "model memory: NUMA node %d%s\n", n > 0 ? plan[0].numa : 0,
		             t->nnuma == 1 ? " (the only node)" : " (where all the workers are)");
	hog_topo_add(&o, "worker shards: on each worker's own NUMA node\n");
	if (n > t->npus)
		hog_topo_add(&o, "warning: %d workers on %d PUs: oversubscribed, some PUs run %d workers\n",
		             n, t->npus, (n + t->npus - 1) / t->npus);
	return hog_topo_text_end(&o);
}
