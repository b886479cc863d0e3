/* What both topology backends share: counting the NUMA nodes a plan uses, and
 * the text helpers of topo_text.h. Compiled with either backend. */
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
