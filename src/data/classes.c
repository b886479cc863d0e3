/* Class names: a set whose labels were names (a CSV column of "setosa",
 * "versicolor", ...) keeps them in its meta "class_names", class k's name the
 * k-th, each ended by '\n'; a model keeps its training set's (model.c's
 * section 5), predict writes them, and a test set imported apart, whose
 * importer numbered the names in its own order of first appearance, is put in
 * its reference's numbers by name (reconcile.c). */
#include "data/classes.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *hog_class_name(const char *names, uint32_t k, size_t *len)
{
	const char *p = names;
	for (uint32_t i = 0; p && *p && i < k; i++)
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	if (!p || !*p)
		return NULL;
	const char *e = strchr(p, '\n');
	*len = e ? (size_t)(e - p) : strlen(p);
	return p;
}

int hog_class_names_ok(const char *p, size_t n)
{
	if (n == 0 || p[0] == '\n' || p[n - 1] != '\n')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)p[i] < 32 && p[i] != '\n') || (p[i] == '\n' && i + 1 < n && p[i + 1] == '\n'))
			return 0;
	return 1;
}

uint32_t hog_class_count(const char *names)
{
	uint32_t k = 0;
	for (const char *p = names; p && *p; p++)
		k += *p == '\n';
	return k;
}

uint32_t hog_class_numbers(const char *names, float *values, long *top)
{
	uint32_t k = 0;
	long hi = -1;
	for (const char *p = names; p && *p; k++) {
		char *e;
		errno = 0;
		const long v = strtol(p, &e, 10);
		if (e == p || *e != '\n' || errno || v < -1 || v > 65535)
			return 0;
		if (values)
			values[k] = (float)v;
		hi = v > hi ? v : hi;
		p = e + 1;
	}
	if (top)
		*top = hi;
	return k;
}
