/* Tests of topology and placement (src/sys/topo.h). Plans are checked on
 * synthetic machines that hwloc builds from a description (2 packages x 8 cores,
 * 4 NUMA nodes, SMT cores, SMT siblings numbered the way Intel numbers them) and
 * on an XML file, against the rules at the top of topo.h: compact, no PU shared
 * before every PU is used, SMT siblings after every core, oversubscription
 * flagged. On this machine we check memory placement and that binding the thread
 * to a PU really moves it there. A build without hwloc refuses synthetic
 * topologies with HOG_ENOTSUP: those tests then pass trivially. */
#include "util.h"
#include "sys/topo.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int tt_counts[] = { 1, 2, 8, 16, 17, 33 };
#define TT_NCOUNTS (int)(sizeof tt_counts / sizeof *tt_counts)

static int tt_stub(void) { return !strcmp(hog_topo_backend(), "none"); }

/* Opens a synthetic topology; NULL (test skipped) in a build without hwloc. */
static hog_topo *tt_open(const char *desc)
{
	hog_topo *t = NULL;
	hog_err err = { 0 };
	int rc = hog_topo_open(&t, desc, &err);
	if (tt_stub()) {
		CU_ASSERT_EQUAL(rc, HOG_ENOTSUP);
		CU_ASSERT_PTR_NULL(t);
		CU_ASSERT(strstr(err.msg, "hwloc") != NULL);
		fprintf(stderr, "\n  %s: skipped (a build without hwloc refuses synthetic machines, as checked)\n", desc);
		return NULL;
	}
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "\n%s: %s\n", desc, err.msg);
	return t;
}

/* The rules every plan follows, whatever the machine. */
static void tt_check_rules(const hog_topo *t, const hog_place *p, int n, int over)
{
	int cores = hog_topo_cores(t), pus = hog_topo_pus(t), nodes = hog_topo_numa_nodes(t);
	int maxpu = 0;
	for (int i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(p[i].worker, i);
		CU_ASSERT(p[i].core >= 0 && p[i].core < cores);
		CU_ASSERT(p[i].numa >= 0 && p[i].numa < nodes);
		CU_ASSERT(p[i].pu >= 0);
		if (p[i].pu > maxpu)
			maxpu = p[i].pu;
	}
	CU_ASSERT_EQUAL(over, n > pus);
	int *load = calloc((size_t)maxpu + 1, sizeof *load);
	int *cload = calloc((size_t)cores, sizeof *cload);
	CU_ASSERT_FATAL(load && cload);
	for (int i = 0; i < n; i++) {
		load[p[i].pu]++;
		cload[p[i].core]++;
	}
	int used = 0, lo = n, hi = 0;
	for (int k = 0; k <= maxpu; k++)
		if (load[k]) {
			used++;
			lo = load[k] < lo ? load[k] : lo;
			hi = load[k] > hi ? load[k] : hi;
		}
	/* No PU gets a second worker before every PU has one; then evenly. */
	CU_ASSERT_EQUAL(used, n < pus ? n : pus);
	CU_ASSERT(hi - lo <= 1);
	if (n <= cores) {
		/* One worker per core, and compact: node numbers never go back. */
		for (int c = 0; c < cores; c++)
			CU_ASSERT(cload[c] <= 1);
		for (int i = 1; i < n; i++)
			CU_ASSERT(p[i].numa >= p[i - 1].numa);
	} else if (n <= pus) {
		/* Every core is used before any core gets its second worker. */
		for (int c = 0; c < cores; c++)
			CU_ASSERT(cload[c] >= 1);
	}
	free(load);
	free(cload);
}

/* Plans every count of tt_counts, checks the rules, and hands each plan to @p fn. */
static void tt_plan_all(const hog_topo *t, void (*fn)(const hog_place *, int, int))
{
	for (int k = 0; k < TT_NCOUNTS; k++) {
		int n = tt_counts[k], over = -1;
		hog_place *p = calloc((size_t)n, sizeof *p);
		hog_err err = { 0 };
		CU_ASSERT_FATAL(p != NULL);
		CU_ASSERT_EQUAL(hog_topo_plan(t, n, HOG_BIND_CORE, p, &over, &err), 0);
		tt_check_rules(t, p, n, over);
		if (fn)
			fn(p, n, over);
		free(p);
	}
}

static void tt_expect_packages(const hog_place *p, int n, int over)
{
	for (int i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(p[i].core, i % 16);
		CU_ASSERT_EQUAL(p[i].pu, i % 16);
		CU_ASSERT_EQUAL(p[i].numa, 0);
	}
	CU_ASSERT_EQUAL(over, n > 16);
}

static void test_topo_plan_packages(void)
{
	hog_topo *t = tt_open("package:2 core:8 pu:1");
	if (!t)
		return;
	CU_ASSERT_EQUAL(hog_topo_cores(t), 16);
	CU_ASSERT_EQUAL(hog_topo_pus(t), 16);
	CU_ASSERT_EQUAL(hog_topo_numa_nodes(t), 1);
	CU_ASSERT_EQUAL(hog_topo_is_real(t), 0);
	tt_plan_all(t, tt_expect_packages);
	char buf[4096];
	CU_ASSERT_EQUAL(hog_topo_describe(t, buf, sizeof buf), 0);
	CU_ASSERT(strstr(buf, "2 packages") != NULL);
	CU_ASSERT(strstr(buf, "1 NUMA node,") != NULL);
	CU_ASSERT(strstr(buf, "16 cores") != NULL);
	CU_ASSERT(strstr(buf, "16 PUs") != NULL);
	hog_topo_close(t);
}

static void tt_expect_numa(const hog_place *p, int n, int over)
{
	for (int i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(p[i].core, i % 16);
		CU_ASSERT_EQUAL(p[i].numa, (i % 16) / 4);
		CU_ASSERT_EQUAL(p[i].pu, i % 16);
	}
	CU_ASSERT_EQUAL(hog_topo_plan_nodes(p, n), n >= 16 ? 4 : (n + 3) / 4);
	CU_ASSERT_EQUAL(over, n > 16);
}

static void test_topo_plan_numa(void)
{
	hog_topo *t = tt_open("numa:4 core:4 pu:1");
	if (!t)
		return;
	CU_ASSERT_EQUAL(hog_topo_cores(t), 16);
	CU_ASSERT_EQUAL(hog_topo_numa_nodes(t), 4);
	tt_plan_all(t, tt_expect_numa);

	/* Two workers fit on node 0: the model goes there; eight span two nodes:
	 * interleaved; unpinned workers may run anywhere: interleaved. */
	hog_place p[8];
	CU_ASSERT_EQUAL(hog_topo_plan(t, 2, HOG_BIND_CORE, p, NULL, NULL), 0);
	CU_ASSERT_EQUAL(hog_topo_model_interleaved(t, p, 2, HOG_BIND_CORE), 0);
	CU_ASSERT_EQUAL(hog_topo_model_interleaved(t, p, 2, HOG_BIND_NONE), 1);
	CU_ASSERT_EQUAL(hog_topo_plan(t, 8, HOG_BIND_NUMA, p, NULL, NULL), 0);
	CU_ASSERT_EQUAL(hog_topo_model_interleaved(t, p, 8, HOG_BIND_NUMA), 1);

	char buf[4096];
	CU_ASSERT_EQUAL(hog_topo_describe(t, buf, sizeof buf), 0);
	CU_ASSERT(strstr(buf, "4 NUMA nodes") != NULL);
	CU_ASSERT(strstr(buf, "NUMA node 3") != NULL);
	CU_ASSERT(strstr(buf, "not this machine") != NULL);
	CU_ASSERT_EQUAL(hog_topo_plan_describe(t, p, 8, HOG_BIND_NUMA, buf, sizeof buf), 0);
	CU_ASSERT(strstr(buf, "worker 0 -> core 0 (PU 0), NUMA node 0\n") != NULL);
	CU_ASSERT(strstr(buf, "worker 7 -> core 7 (PU 7), NUMA node 1\n") != NULL);
	CU_ASSERT(strstr(buf, "interleaved across 4 NUMA nodes") != NULL);
	CU_ASSERT(strstr(buf, "oversubscribed") == NULL);
	CU_ASSERT_EQUAL(hog_topo_plan(t, 2, HOG_BIND_CORE, p, NULL, NULL), 0);
	CU_ASSERT_EQUAL(hog_topo_plan_describe(t, p, 2, HOG_BIND_CORE, buf, sizeof buf), 0);
	CU_ASSERT(strstr(buf, "model memory: NUMA node 0") != NULL);
	hog_topo_close(t);
}

static void tt_expect_smt(const hog_place *p, int n, int over)
{
	/* PUs 2c and 2c+1 are core c's: first one worker per core on its first PU,
	 * then the siblings, then around again. */
	for (int i = 0; i < n; i++) {
		int s = i % 8;
		CU_ASSERT_EQUAL(p[i].core, s % 4);
		CU_ASSERT_EQUAL(p[i].pu, 2 * (s % 4) + s / 4);
		CU_ASSERT_EQUAL(p[i].numa, 0);
	}
	CU_ASSERT_EQUAL(over, n > 8);
}

static void test_topo_plan_smt(void)
{
	hog_topo *t = tt_open("package:1 core:4 pu:2");
	if (!t)
		return;
	CU_ASSERT_EQUAL(hog_topo_cores(t), 4);
	CU_ASSERT_EQUAL(hog_topo_pus(t), 8);
	tt_plan_all(t, tt_expect_smt);
	hog_place p[17];
	int over = 0;
	char buf[8192];
	CU_ASSERT_EQUAL(hog_topo_plan(t, 17, HOG_BIND_CORE, p, &over, NULL), 0);
	CU_ASSERT_EQUAL(over, 1);
	CU_ASSERT_EQUAL(hog_topo_plan_describe(t, p, 17, HOG_BIND_CORE, buf, sizeof buf), 0);
	CU_ASSERT(strstr(buf, "worker 4 -> core 0 (PU 1), NUMA node 0\n") != NULL);
	CU_ASSERT(strstr(buf, "oversubscribed") != NULL);
	CU_ASSERT(strstr(buf, "model memory: NUMA node 0") != NULL);
	hog_topo_close(t);
}

static void tt_expect_intel(const hog_place *p, int n, int over)
{
	(void)over;
	/* Siblings numbered c and c+4 (Linux on Intel): PUs 0..3 first, then 4..7. */
	for (int i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(p[i].core, i % 4);
		CU_ASSERT_EQUAL(p[i].pu, i % 8);
	}
}

static void test_topo_plan_smt_numbering(void)
{
	hog_topo *t = tt_open("package:1 core:4 pu:2(indexes=0,4,1,5,2,6,3,7)");
	if (!t)
		return;
	tt_plan_all(t, tt_expect_intel);
	hog_topo_close(t);
}

/* A bigger machine: 2 packages x 2 NUMA nodes x 6 cores x 2 PUs. */
static void test_topo_plan_big(void)
{
	hog_topo *t = tt_open("package:2 numa:2 l3:1 core:6 pu:2");
	if (!t)
		return;
	CU_ASSERT_EQUAL(hog_topo_cores(t), 24);
	CU_ASSERT_EQUAL(hog_topo_pus(t), 48);
	CU_ASSERT_EQUAL(hog_topo_numa_nodes(t), 4);
	tt_plan_all(t, NULL);
	hog_place p[48];
	CU_ASSERT_EQUAL(hog_topo_plan(t, 48, HOG_BIND_CORE, p, NULL, NULL), 0);
	tt_check_rules(t, p, 48, 0);
	CU_ASSERT_EQUAL(p[5].numa, 0);
	CU_ASSERT_EQUAL(p[6].numa, 1);
	CU_ASSERT_EQUAL(p[23].numa, 3);
	CU_ASSERT_EQUAL(p[24].core, 0); /* second round: the siblings */
	CU_ASSERT_EQUAL(p[24].pu, 1);
	char buf[4096];
	CU_ASSERT_EQUAL(hog_topo_describe(t, buf, sizeof buf), 0);
	CU_ASSERT(strstr(buf, "L3 4 x") != NULL);
	CU_ASSERT_EQUAL(hog_topo_l2_bytes(t), 0); /* (it names no L2) */
	hog_topo_close(t);
}

/* The L2 size the linear model sizes its prefetching by: the smallest one the
 * machine names (synthetic sizes, the cores' caches differing by package). */
static void test_topo_l2(void)
{
	hog_topo *t = tt_open("package:2 l2:2(size=524288) core:2 pu:1");
	if (!t)
		return;
	CU_ASSERT_EQUAL(hog_topo_l2_bytes(t), 524288);
	hog_topo_close(t);
	if (!(t = tt_open("package:1 l3:1(size=33554432) l2:4(size=1048576) core:1 pu:2")))
		return;
	CU_ASSERT_EQUAL(hog_topo_l2_bytes(t), 1048576);
	hog_topo_close(t);
}

/* An XML machine whose NUMA node 0 holds the even PUs and node 1 the odd ones. */
static const char tt_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
	"<topology version=\"2.0\">\n"
	" <object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\""
	" allowed_cpuset=\"0x0000000f\" nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\""
	" allowed_nodeset=\"0x00000003\" gp_index=\"1\">\n"
	"  <object type=\"Package\" os_index=\"0\" cpuset=\"0x00000005\" complete_cpuset=\"0x00000005\""
	" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"2\">\n"
	"   <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x00000005\" complete_cpuset=\"0x00000005\""
	" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"3\" local_memory=\"1073741824\"/>\n"
	"   <object type=\"Core\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\""
	" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"4\">\n"
	"    <object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\""
	" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"5\"/>\n"
	"   </object>\n"
	"   <object type=\"Core\" os_index=\"2\" cpuset=\"0x00000004\" complete_cpuset=\"0x00000004\""
	" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"6\">\n"
	"    <object type=\"PU\" os_index=\"2\" cpuset=\"0x00000004\" complete_cpuset=\"0x00000004\""
	" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"7\"/>\n"
	"   </object>\n"
	"  </object>\n"
	"  <object type=\"Package\" os_index=\"1\" cpuset=\"0x0000000a\" complete_cpuset=\"0x0000000a\""
	" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"8\">\n"
	"   <object type=\"NUMANode\" os_index=\"1\" cpuset=\"0x0000000a\" complete_cpuset=\"0x0000000a\""
	" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"9\" local_memory=\"2147483648\"/>\n"
	"   <object type=\"Core\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\""
	" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"10\">\n"
	"    <object type=\"PU\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\""
	" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"11\"/>\n"
	"   </object>\n"
	"   <object type=\"Core\" os_index=\"3\" cpuset=\"0x00000008\" complete_cpuset=\"0x00000008\""
	" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"12\">\n"
	"    <object type=\"PU\" os_index=\"3\" cpuset=\"0x00000008\" complete_cpuset=\"0x00000008\""
	" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"13\"/>\n"
	"   </object>\n"
	"  </object>\n"
	" </object>\n"
	"</topology>\n";

static void test_topo_xml(void)
{
	const char *path = tu_write("machine.xml", tt_xml, (size_t)-1);
	hog_topo *t = tt_open(path);
	if (!t)
		return;
	CU_ASSERT_EQUAL(hog_topo_cores(t), 4);
	CU_ASSERT_EQUAL(hog_topo_numa_nodes(t), 2);
	CU_ASSERT_EQUAL(hog_topo_is_real(t), 0);
	hog_place p[4];
	CU_ASSERT_EQUAL(hog_topo_plan(t, 4, HOG_BIND_CORE, p, NULL, NULL), 0);
	/* Node 0 first: its PUs are 0 and 2. */
	CU_ASSERT_EQUAL(p[0].pu, 0);
	CU_ASSERT_EQUAL(p[1].pu, 2);
	CU_ASSERT_EQUAL(p[2].pu, 1);
	CU_ASSERT_EQUAL(p[3].pu, 3);
	CU_ASSERT_EQUAL(p[1].numa, 0);
	CU_ASSERT_EQUAL(p[2].numa, 1);
	tt_check_rules(t, p, 4, 0);
	char buf[2048];
	CU_ASSERT_EQUAL(hog_topo_describe(t, buf, sizeof buf), 0);
	CU_ASSERT(strstr(buf, "XML file") != NULL);
	CU_ASSERT(strstr(buf, "2 NUMA nodes") != NULL);
	CU_ASSERT(strstr(buf, "2 GiB") != NULL);
	hog_topo_close(t);
}

static void test_topo_bad_input(void)
{
	hog_topo *t = NULL;
	hog_err err = { 0 };
	int rc = hog_topo_open(&t, "bogus:3 pu:x", &err);
	CU_ASSERT_EQUAL(rc, tt_stub() ? HOG_ENOTSUP : HOG_ECONFIG);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT(strstr(err.msg, "bogus:3") != NULL);
	rc = hog_topo_open(&t, tu_path("no-such-machine.xml"), &err);
	CU_ASSERT_EQUAL(rc, tt_stub() ? HOG_ENOTSUP : ENOENT);
	CU_ASSERT_PTR_NULL(t);
	rc = hog_topo_open(&t, tu_write("junk.xml", "<not a topology>\n", (size_t)-1), &err);
	CU_ASSERT_EQUAL(rc, tt_stub() ? HOG_ENOTSUP : HOG_EDATA);
	CU_ASSERT_PTR_NULL(t);
}

static void test_topo_bad_threads(void)
{
	hog_topo *t = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_topo_open(&t, NULL, &err), 0);
	hog_place p[2];
	int over = 7;
	CU_ASSERT_EQUAL(hog_topo_plan(t, 0, HOG_BIND_CORE, p, &over, &err), HOG_ECONFIG);
	CU_ASSERT_EQUAL(err.code, HOG_ECONFIG);
	CU_ASSERT(strstr(err.msg, "0 threads") != NULL);
	CU_ASSERT_EQUAL(hog_topo_plan(t, -3, HOG_BIND_NONE, p, &over, &err), HOG_ECONFIG);
	CU_ASSERT_EQUAL(hog_topo_plan(t, 1, (enum hog_bind)9, p, &over, &err), HOG_ECONFIG);
	CU_ASSERT_EQUAL(over, 7); /* untouched on error */
	CU_ASSERT_EQUAL(hog_topo_plan(t, 1, HOG_BIND_CORE, p, NULL, &err), 0);
	CU_ASSERT_EQUAL(hog_topo_bind_self(t, p, (enum hog_bind)9, &err), HOG_ECONFIG);
	hog_topo_close(t);
	hog_topo_close(NULL);
}

/* This machine (or what the stub sees of it): the same rules hold. */
static void test_topo_plan_this_machine(void)
{
	hog_topo *t = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_topo_open(&t, NULL, &err), 0);
	CU_ASSERT(hog_topo_cores(t) >= 1);
	CU_ASSERT(hog_topo_pus(t) >= hog_topo_cores(t));
	CU_ASSERT(hog_topo_numa_nodes(t) >= 1);
	if (!getenv("HWLOC_SYNTHETIC") && !getenv("HWLOC_XMLFILE"))
		CU_ASSERT_EQUAL(hog_topo_is_real(t), !tt_stub());
	tt_plan_all(t, NULL);
	char buf[8192];
	CU_ASSERT_EQUAL(hog_topo_describe(t, buf, sizeof buf), 0);
	CU_ASSERT(strstr(buf, "topology: ") == buf);
	CU_ASSERT(strstr(buf, "NUMA node") != NULL);
	/* Too small a buffer: cut, terminated, ERANGE. */
	char small[16];
	memset(small, 'x', sizeof small);
	CU_ASSERT_EQUAL(hog_topo_describe(t, small, sizeof small), ERANGE);
	CU_ASSERT_EQUAL(strlen(small), sizeof small - 1);
	CU_ASSERT_EQUAL(strncmp(small, buf, sizeof small - 1), 0);
	hog_place p[3];
	CU_ASSERT_EQUAL(hog_topo_plan(t, 3, HOG_BIND_CORE, p, NULL, NULL), 0);
	CU_ASSERT_EQUAL(hog_topo_plan_describe(t, p, 3, HOG_BIND_CORE, small, sizeof small), ERANGE);
	CU_ASSERT_EQUAL(hog_topo_plan_describe(t, p, 3, HOG_BIND_CORE, buf, sizeof buf), 0);
	CU_ASSERT(strstr(buf, "worker 2 -> core") != NULL);
	hog_topo_close(t);
}

/* Memory: zeroed, page-aligned, writable, freed without complaint (ASan). */
static void tt_check_alloc(const hog_topo *t)
{
	static const size_t sizes[] = { 0, 1, 3 * 4096 + 5, 1 << 20 };
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		for (int interleaved = 0; interleaved < 2; interleaved++) {
			size_t n = sizes[k];
			unsigned char *m = interleaved ? hog_topo_alloc_interleaved(t, n)
			                               : hog_topo_alloc_local(t, n);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_EQUAL((uintptr_t)m % 4096, 0);
			size_t bad = 0;
			for (size_t i = 0; i < n; i++)
				bad += m[i] != 0;
			CU_ASSERT_EQUAL(bad, 0);
			memset(m, 0xa5, n);
			if (n)
				CU_ASSERT_EQUAL(m[n - 1], 0xa5);
			hog_topo_free(t, m, n);
		}
	}
	hog_topo_free(t, NULL, 10);
}

static void test_topo_alloc(void)
{
	hog_topo *t = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_topo_open(&t, NULL, &err), 0);
	tt_check_alloc(t);
	hog_topo_close(t);
	if ((t = tt_open("numa:4 core:2 pu:1")) != NULL) {
		tt_check_alloc(t); /* not this machine: plain memory */
		hog_topo_close(t);
	}
}

/* Binding on a synthetic machine does nothing and succeeds. */
static void test_topo_bind_synthetic(void)
{
	hog_topo *t = tt_open("numa:2 core:2 pu:2");
	if (!t)
		return;
	hog_place p[8];
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_topo_plan(t, 8, HOG_BIND_CORE, p, NULL, &err), 0);
	for (int i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(hog_topo_bind_self(t, &p[i], HOG_BIND_CORE, &err), 0);
		CU_ASSERT_EQUAL(hog_topo_bind_self(t, &p[i], HOG_BIND_NUMA, &err), 0);
		CU_ASSERT_EQUAL(hog_topo_bind_self(t, &p[i], HOG_BIND_NONE, &err), 0);
	}
	hog_place out = { .worker = 0, .core = 0, .numa = 5, .pu = 0 };
	CU_ASSERT_EQUAL(hog_topo_bind_self(t, &out, HOG_BIND_NUMA, &err), HOG_ECONFIG);
	hog_topo_close(t);
}

/* Binding for real happens in a thread of its own, so that the test runner's
 * main thread (and the OpenMP teams of later suites) keep every CPU. CUnit is
 * not thread-safe: the thread only records, the test asserts. */
typedef struct tt_bind_result {
	const hog_topo *t;
	int nplaces;
	hog_place place[2];
	int rc_core[2], cpu_after[2], rc_numa, rc_none;
	int alloc_ok;
	hog_err err;
} tt_bind_result;

static void *tt_bind_thread(void *arg)
{
	tt_bind_result *r = arg;
	for (int i = 0; i < r->nplaces; i++) {
		r->rc_core[i] = hog_topo_bind_self(r->t, &r->place[i], HOG_BIND_CORE, &r->err);
		r->cpu_after[i] = sched_getcpu();
	}
	/* Memory from a bound thread goes on its node. */
	unsigned char *m = hog_topo_alloc_local(r->t, 1 << 16);
	r->alloc_ok = m && m[0] == 0 && m[(1 << 16) - 1] == 0;
	hog_topo_free(r->t, m, 1 << 16);
	r->rc_numa = hog_topo_bind_self(r->t, &r->place[0], HOG_BIND_NUMA, &r->err);
	r->rc_none = hog_topo_bind_self(r->t, &r->place[0], HOG_BIND_NONE, &r->err);
	return NULL;
}

static void test_topo_bind_this_machine(void)
{
	hog_topo *t = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_topo_open(&t, NULL, &err), 0);
	tt_bind_result r = { .t = t };
	int n = hog_topo_cores(t) >= 2 ? 2 : 1;
	CU_ASSERT_EQUAL_FATAL(hog_topo_plan(t, n, HOG_BIND_CORE, r.place, NULL, &err), 0);
	/* Worker 0's place, then the last worker's: the thread must move. */
	r.nplaces = n;
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, tt_bind_thread, &r), 0);
	pthread_join(th, NULL);
	for (int i = 0; i < n; i++) {
		if (r.rc_core[i] == 0) {
			if (hog_topo_is_real(t))
				CU_ASSERT_EQUAL(r.cpu_after[i], r.place[i].pu);
		} else {
			/* Refused (a container): a clear errno and a message naming the PU. */
			CU_ASSERT(r.rc_core[i] > 0);
			CU_ASSERT(strstr(r.err.msg, "binding worker") != NULL);
			fprintf(stderr, "\n  [topo: binding not permitted here: %s]\n", r.err.msg);
		}
	}
	CU_ASSERT(r.rc_numa == 0 || r.rc_numa > 0);
	CU_ASSERT_EQUAL(r.rc_none, 0);
	CU_ASSERT(r.alloc_ok);
	hog_topo_close(t);
}

/* hog_topo is read-only once open: many threads may plan and allocate at once
 * (run under TSan by `make tsan`). */
static void *tt_share_thread(void *arg)
{
	const hog_topo *t = arg;
	hog_place p[40];
	long bad = 0;
	for (int k = 0; k < 50; k++) {
		if (hog_topo_plan(t, 40, HOG_BIND_CORE, p, NULL, NULL) != 0)
			bad++;
		void *m = hog_topo_alloc_interleaved(t, 8192);
		if (!m)
			bad++;
		hog_topo_free(t, m, 8192);
	}
	return (void *)bad;
}

static void test_topo_shared(void)
{
	hog_topo *t = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_topo_open(&t, NULL, &err), 0);
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, tt_share_thread, t), 0);
	for (int i = 0; i < 4; i++) {
		void *bad = NULL;
		pthread_join(th[i], &bad);
		CU_ASSERT_PTR_NULL(bad);
	}
	hog_topo_close(t);
}

static void test_topo_names(void)
{
	CU_ASSERT_STRING_EQUAL(hog_bind_name(HOG_BIND_CORE), "core");
	CU_ASSERT_STRING_EQUAL(hog_bind_name(HOG_BIND_NUMA), "numa");
	CU_ASSERT_STRING_EQUAL(hog_bind_name(HOG_BIND_NONE), "none");
	CU_ASSERT_EQUAL(hog_bind_parse("numa"), HOG_BIND_NUMA);
	CU_ASSERT_EQUAL(hog_bind_parse("socket"), -1);
	CU_ASSERT_PTR_NOT_NULL(hog_topo_backend());
	hog_place p[3] = { { 0, 0, 2, 0 }, { 1, 1, 0, 1 }, { 2, 2, 2, 2 } };
	CU_ASSERT_EQUAL(hog_topo_plan_nodes(p, 3), 2);
	CU_ASSERT_EQUAL(hog_topo_plan_nodes(p, 0), 0);
}

int test_topo_register(void)
{
	CU_pSuite s = CU_add_suite("topo", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_topo_plan_packages);
	TU_ADD(s, test_topo_plan_numa);
	TU_ADD(s, test_topo_plan_smt);
	TU_ADD(s, test_topo_plan_smt_numbering);
	TU_ADD(s, test_topo_plan_big);
	TU_ADD(s, test_topo_l2);
	TU_ADD(s, test_topo_xml);
	TU_ADD(s, test_topo_bad_input);
	TU_ADD(s, test_topo_bad_threads);
	TU_ADD(s, test_topo_plan_this_machine);
	TU_ADD(s, test_topo_alloc);
	TU_ADD(s, test_topo_bind_synthetic);
	TU_ADD(s, test_topo_bind_this_machine);
	TU_ADD(s, test_topo_shared);
	TU_ADD(s, test_topo_names);
	return 0;
}
