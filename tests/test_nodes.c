/* Tests of the node replicas' plan (hog_topo_node_plan, src/sys/topo.h): which
 * node replica each worker flushes into, who owns each, when each node syncs.
 * Each plan is checked against a reference worked out here from the places
 * alone (a quadratic loop over the workers: same node <=> same replica, the
 * owner is the node's lowest worker ...) and, on synthetic machines built by
 * hwloc (2 packages x 8 cores with a NUMA node each, 4 nodes x 4 cores), against
 * counts written out by hand for T below, at, above and not a multiple of the
 * core and node counts. Hand-made places cover the arithmetic in builds without
 * hwloc too. */
#include "util.h"
#include "sys/topo.h"
#include <stdlib.h>
#include <string.h>

/* The rules, from the places alone. */
static void tn_check(const hog_place *p, int n, int every, const hog_node_plan *np)
{
	int nodes = 0;
	for (int i = 0; i < n; i++) {
		int first = i; /* the node's first worker */
		for (int j = 0; j < i; j++)
			if (p[j].numa == p[i].numa) {
				first = j;
				break;
			}
		if (first == i)
			nodes++;
		int r = np->replica[i];
		CU_ASSERT_FATAL(r >= 0 && r < np->nodes);
		CU_ASSERT_EQUAL(np->numa[r], p[i].numa);
		CU_ASSERT_EQUAL(np->owner[r], first);
		CU_ASSERT_EQUAL(np->replica[first], r);
		int before = 0, all = 0;
		for (int j = 0; j < n; j++) {
			all += p[j].numa == p[i].numa;
			before += j < i && p[j].numa == p[i].numa;
		}
		CU_ASSERT_EQUAL(np->slot[i], before);
		CU_ASSERT_EQUAL(np->members[r], all);
		/* replicas numbered in the order of their first workers */
		if (first == i)
			CU_ASSERT_EQUAL(r, nodes - 1);
	}
	CU_ASSERT_EQUAL(np->nodes, nodes);
	CU_ASSERT_EQUAL(np->nodes, hog_topo_plan_nodes(p, n));
	/* phases: in [0, every), replica 0 at 0, spread evenly */
	for (int r = 0; r < np->nodes; r++) {
		CU_ASSERT(np->phase[r] >= 0 && np->phase[r] < every);
		CU_ASSERT_EQUAL(np->phase[r], every * r / np->nodes);
	}
}

/* Plans T workers on @p desc and checks the rules; the node count and the
 * members of each replica in @p members (NULL: not checked). */
static void tn_machine(const char *desc, int T, int every, int nodes, const int *members)
{
	hog_topo *t = NULL;
	hog_err err = { 0 };
	int rc = hog_topo_open(&t, desc, &err);
	if (!strcmp(hog_topo_backend(), "none")) { /* synthetic topologies need hwloc */
		CU_ASSERT_EQUAL(rc, HOG_ENOTSUP);
		fprintf(stderr, "\n  %s: skipped (a build without hwloc refuses synthetic machines, as checked)\n", desc);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	hog_place *p = calloc((size_t)T, sizeof *p);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL_FATAL(hog_topo_plan(t, T, HOG_BIND_CORE, p, NULL, &err), 0);
	hog_node_plan np;
	CU_ASSERT_EQUAL_FATAL(hog_topo_node_plan(p, T, every, &np, &err), 0);
	tn_check(p, T, every, &np);
	CU_ASSERT_EQUAL(np.nodes, nodes);
	for (int r = 0; members && r < np.nodes && r < nodes; r++)
		CU_ASSERT_EQUAL(np.members[r], members[r]);
	hog_topo_node_plan_free(&np);
	CU_ASSERT_PTR_NULL(np.replica);
	free(p);
	hog_topo_close(t);
}

/* 2 packages x 8 cores, a NUMA node per package (16 cores). Compact placement
 * fills node 0 first: up to 8 workers one replica; 9 the second; more than 16
 * wrap round the cores again. */
static void test_nodes_two_packages(void)
{
	const char *d = "pack:2 numa:1 core:8 pu:1";
	tn_machine(d, 1, 1, 1, (int[]){ 1 });
	tn_machine(d, 5, 1, 1, (int[]){ 5 });
	tn_machine(d, 8, 4, 1, (int[]){ 8 });
	tn_machine(d, 9, 4, 2, (int[]){ 8, 1 });
	tn_machine(d, 13, 3, 2, (int[]){ 8, 5 });
	tn_machine(d, 16, 2, 2, (int[]){ 8, 8 });
	tn_machine(d, 17, 2, 2, (int[]){ 9, 8 });  /* worker 16 wraps to core 0 */
	tn_machine(d, 33, 8, 2, (int[]){ 17, 16 }); /* 2 rounds and one */
}

/* 4 NUMA nodes x 4 cores. */
static void test_nodes_four(void)
{
	const char *d = "numa:4 core:4 pu:1";
	tn_machine(d, 3, 1, 1, (int[]){ 3 });
	tn_machine(d, 4, 1, 1, (int[]){ 4 });
	tn_machine(d, 6, 4, 2, (int[]){ 4, 2 });
	tn_machine(d, 10, 4, 3, (int[]){ 4, 4, 2 });
	tn_machine(d, 16, 4, 4, (int[]){ 4, 4, 4, 4 });
	tn_machine(d, 18, 3, 4, (int[]){ 6, 4, 4, 4 }); /* 16, 17 wrap to cores 0, 1 */
	tn_machine(d, 35, 7, 4, (int[]){ 11, 8, 8, 8 });
	/* one core per node: every worker its own node replica */
	tn_machine("numa:2 core:1 pu:1", 2, 1, 2, (int[]){ 1, 1 });
	tn_machine("numa:2 core:1 pu:1", 3, 1, 2, (int[]){ 2, 1 });
}

/* One node: the plan is the flat replica mode's (everyone in replica 0, worker
 * 0 its owner, slots in worker order). */
static void test_nodes_one(void)
{
	tn_machine("package:2 core:8 pu:1", 16, 1, 1, (int[]){ 16 });
	hog_place p[5];
	for (int i = 0; i < 5; i++)
		p[i] = (hog_place){ .worker = i, .core = i, .numa = 0, .pu = i };
	hog_node_plan np;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_topo_node_plan(p, 5, 6, &np, &err), 0);
	CU_ASSERT_EQUAL(np.nodes, 1);
	CU_ASSERT_EQUAL(np.owner[0], 0);
	CU_ASSERT_EQUAL(np.members[0], 5);
	CU_ASSERT_EQUAL(np.phase[0], 0);
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(np.replica[i], 0);
		CU_ASSERT_EQUAL(np.slot[i], i);
	}
	hog_topo_node_plan_free(&np);
	/* this machine, whatever it is */
	hog_topo *t = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_topo_open(&t, NULL, &err), 0);
	int T = hog_topo_cores(t) + 1;
	hog_place *q = calloc((size_t)T, sizeof *q);
	CU_ASSERT_FATAL(q != NULL);
	CU_ASSERT_EQUAL(hog_topo_plan(t, T, HOG_BIND_CORE, q, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_topo_node_plan(q, T, 1, &np, &err), 0);
	tn_check(q, T, 1, &np);
	CU_ASSERT(np.nodes >= 1 && np.nodes <= hog_topo_numa_nodes(t));
	hog_topo_node_plan_free(&np);
	free(q);
	hog_topo_close(t);
}

/* Places made by hand (any backend): nodes out of order and interleaved. */
static void test_nodes_by_hand(void)
{
	const int numa[7] = { 3, 0, 3, 5, 0, 0, 3 };
	hog_place p[7];
	for (int i = 0; i < 7; i++)
		p[i] = (hog_place){ .worker = i, .core = i, .numa = numa[i], .pu = i };
	hog_node_plan np;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_topo_node_plan(p, 7, 6, &np, &err), 0);
	tn_check(p, 7, 6, &np);
	CU_ASSERT_EQUAL(np.nodes, 3);
	const int replica[7] = { 0, 1, 0, 2, 1, 1, 0 }, slot[7] = { 0, 0, 1, 0, 1, 2, 2 };
	const int rnuma[3] = { 3, 0, 5 }, owner[3] = { 0, 1, 3 }, members[3] = { 3, 3, 1 }, phase[3] = { 0, 2, 4 };
	for (int i = 0; i < 7; i++) {
		CU_ASSERT_EQUAL(np.replica[i], replica[i]);
		CU_ASSERT_EQUAL(np.slot[i], slot[i]);
	}
	for (int r = 0; r < 3; r++) {
		CU_ASSERT_EQUAL(np.numa[r], rnuma[r]);
		CU_ASSERT_EQUAL(np.owner[r], owner[r]);
		CU_ASSERT_EQUAL(np.members[r], members[r]);
		CU_ASSERT_EQUAL(np.phase[r], phase[r]);
	}
	hog_topo_node_plan_free(&np);
	/* syncs every flush: every phase 0; every 2 flushes of 3 nodes: 0, 0, 1 */
	CU_ASSERT_EQUAL_FATAL(hog_topo_node_plan(p, 7, 1, &np, &err), 0);
	for (int r = 0; r < 3; r++)
		CU_ASSERT_EQUAL(np.phase[r], 0);
	hog_topo_node_plan_free(&np);
	CU_ASSERT_EQUAL_FATAL(hog_topo_node_plan(p, 7, 2, &np, &err), 0);
	CU_ASSERT_EQUAL(np.phase[0], 0);
	CU_ASSERT_EQUAL(np.phase[1], 0);
	CU_ASSERT_EQUAL(np.phase[2], 1);
	hog_topo_node_plan_free(&np);
	hog_topo_node_plan_free(NULL);
}

static void test_nodes_bad_input(void)
{
	hog_place p[2] = { { 0, 0, 0, 0 }, { 1, 1, -1, 1 } };
	hog_node_plan np;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_topo_node_plan(p, 0, 1, &np, &err), HOG_ECONFIG);
	CU_ASSERT(strstr(err.msg, "0 workers") != NULL);
	CU_ASSERT_PTR_NULL(np.replica);
	CU_ASSERT_EQUAL(hog_topo_node_plan(p, 1, 0, &np, &err), HOG_ECONFIG);
	CU_ASSERT(strstr(err.msg, "every 0 flushes") != NULL);
	CU_ASSERT_EQUAL(hog_topo_node_plan(p, 2, 1, &np, &err), HOG_ECONFIG);
	CU_ASSERT(strstr(err.msg, "worker 1 has no NUMA node") != NULL);
	CU_ASSERT_PTR_NULL(np.replica);
	CU_ASSERT_EQUAL(np.nodes, 0);
}

int test_nodes_register(void)
{
	CU_pSuite s = CU_add_suite("nodes", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_nodes_two_packages);
	TU_ADD(s, test_nodes_four);
	TU_ADD(s, test_nodes_one);
	TU_ADD(s, test_nodes_by_hand);
	TU_ADD(s, test_nodes_bad_input);
	return 0;
}
