/* What both topology backends share: counting the NUMA nodes a plan uses, the
 * node replicas' plan (hog_topo_node_plan, pure arithmetic on the places), and
 * the text helpers of topo_text.h. Compiled with either backend. */
#include "sys/err.h"
#include "sys/topo.h"
#include "sys/topo_text.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int hog_topo_plan_nodes(const hog_place *plan, int n)
{
	int max = -1, count = 0;
	for (int i = 0; i < n; i++)
		if (plan[i].numa > max)
			max = plan[i].numa;
	if (max < 0)
		return 0;
	unsigned char *seen = calloc((size_t)max + 1, 1);
	if (!seen) /* cannot count: say "more than one", the safe answer for placement */
		return 2;
	for (int i = 0; i < n; i++)
		if (plan[i].numa >= 0 && !seen[plan[i].numa]++)
			count++;
	free(seen);
	return count;
}

/* Node replicas are numbered in the order of their first workers, not by NUMA
 * index: with the compact plan that is the same order, and replica 0 is always
 * worker 0's, so with one node the plan is exactly the flat replica mode's
 * (everyone in replica 0, worker 0 its owner). Owners are the nodes' first
 * workers because those exist whatever T is; the sync phases spread the nodes'
 * crossings of the interconnect evenly over the sync interval. */
int hog_topo_node_plan(const hog_place *plan, int n, int every, hog_node_plan *out, hog_err *err)
{
	*out = (hog_node_plan){ 0 };
	if (n < 1 || every < 1)
		return hog_err_set(err, HOG_ECONFIG, "node replicas: %d workers, syncs every %d flushes (need at least 1 each)",
		                   n, every);
	int max = -1;
	for (int i = 0; i < n; i++) {
		if (plan[i].numa < 0)
			return hog_err_set(err, HOG_ECONFIG, "node replicas: worker %d has no NUMA node (%d)", i, plan[i].numa);
		if (plan[i].numa > max)
			max = plan[i].numa;
	}
	/* one block: replica, slot [n]; numa, owner, members, phase [nodes <= n];
	 * and the NUMA node -> replica map [max + 1] */
	int *b = malloc(((size_t)n * 6 + (size_t)max + 1) * sizeof *b);
	if (!b)
		return hog_err_set(err, ENOMEM, "out of memory");
	int *of = b + (size_t)n * 6;
	for (int v = 0; v <= max; v++)
		of[v] = -1;
	out->replica = b;
	out->slot = b + n;
	out->numa = b + 2 * (size_t)n;
	out->owner = b + 3 * (size_t)n;
	out->members = b + 4 * (size_t)n;
	out->phase = b + 5 * (size_t)n;
	for (int i = 0; i < n; i++) {
		int v = plan[i].numa, r = of[v];
		if (r < 0) {
			r = of[v] = out->nodes++;
			out->numa[r] = v;
			out->owner[r] = i;
			out->members[r] = 0;
		}
		out->replica[i] = r;
		out->slot[i] = out->members[r]++;
	}
	for (int r = 0; r < out->nodes; r++)
		out->phase[r] = (int)((long long)every * r / out->nodes);
	return 0;
}

void hog_topo_node_plan_free(hog_node_plan *p)
{
	if (p) {
		free(p->replica);
		*p = (hog_node_plan){ 0 };
	}
}

void hog_topo_add(hog_topo_text *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = o->len < o->size ? o->size - o->len : 0;
	int k = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->len += (size_t)k;
}

int hog_topo_text_end(hog_topo_text *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len < o->size ? 0 : ERANGE;
}

/* "5.2 GiB", "260 MiB", "48 KiB" */
const char *hog_topo_size(char *b, size_t n, unsigned long long v)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double x = (double)v;
	int u = 0;
	while (x >= 1024 && u < 5) {
		x /= 1024;
		u++;
	}
	if (x == (double)(unsigned long long)x)
		snprintf(b, n, "%.0f %s", x, unit[u]);
	else
		snprintf(b, n, "%.1f %s", x, unit[u]);
	return b;
}

const char *hog_topo_s(int n) { return n == 1 ? "" : "s"; }
