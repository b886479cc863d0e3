/* The CSV importer's tables of names (import_csv_names.h). */
#include "data/import_csv_names.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t csv_name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

void csv_names_free(csv_names *t)
{
	free(t->buf);
	free(t->slot);
	free(t->at);
}

/* The number of name [s, e) (@p pre, @p npre before it: "column="), a new one
 * numbered next; -1 with a message in @p why. */
long csv_names_id(csv_names *t, const char *pre, size_t npre, const char *s, size_t n, char *why, size_t size)
{
	const size_t len = npre + n;
	uint32_t h = csv_name_hash(pre, npre);
	for (size_t i = 0; i < n; i++) /* (FNV-1a over pre then s) */
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	for (uint32_t j = t->nslot ? h & (t->nslot - 1) : 0; t->nslot && t->slot[j]; j = (j + 1) & (t->nslot - 1)) {
		const uint32_t k = t->slot[j] - 1;
		const size_t at = t->at[k], end = k + 1 < t->n ? t->at[k + 1] : t->len; /* (its '\n' at end - 1) */
		if (end - at - 1 == len && !memcmp(t->buf + at, pre, npre) && !memcmp(t->buf + at + npre, s, n))
			return k;
	}
	if (t->n == t->max) {
		snprintf(why, size, "more than %u %s", t->max, npre ? "categories" : "class names");
		return -1;
	}
	if (2 * (t->n + 1) >= t->nslot) { /* grow the table (and the offsets) */
		const uint32_t ns = t->nslot ? 2 * t->nslot : 64;
		uint32_t *slot = calloc(ns, sizeof *slot), *at = realloc(t->at, ns / 2 * sizeof *at);
		if (at)
			t->at = at;
		if (!slot || !at) {
			free(slot);
			snprintf(why, size, "out of memory for the names");
			return -1;
		}
		for (uint32_t k = 0; k < t->n; k++) {
			const char *name = t->buf + at[k];
			uint32_t j = csv_name_hash(name, strcspn(name, "\n")) & (ns - 1);
			while (slot[j])
				j = (j + 1) & (ns - 1);
			slot[j] = k + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = ns;
	}
	if (t->len + len + 2 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		while (cap < t->len + len + 2)
			cap *= 2;
		char *b = realloc(t->buf, cap);
		if (!b) {
			snprintf(why, size, "out of memory for the names");
			return -1;
		}
		t->buf = b;
		t->cap = cap;
	}
	const uint32_t k = t->n++;
	t->at[k] = (uint32_t)t->len;
	memcpy(t->buf + t->len, pre, npre);
	memcpy(t->buf + t->len + npre, s, n);
	t->len += len;
	t->buf[t->len++] = '\n';
	t->buf[t->len] = 0;
	uint32_t j = h & (t->nslot - 1);
	while (t->slot[j])
		j = (j + 1) & (t->nslot - 1);
	t->slot[j] = k + 1;
	return k;
}

/* A name's field [*s, *e): quotes removed, 1 to 255 bytes, no control
 * character or quote; 0, or -1 with a message in @p why. */
int csv_name_field(const char **s, const char **e, const char *what, char *why, size_t size)
{
	if (*e - *s >= 2 && **s == '"' && (*e)[-1] == '"') {
		(*s)++;
		(*e)--;
	}
	const size_t n = (size_t)(*e - *s);
	if (n == 0 || n > CSV_NAME_MAX) {
		snprintf(why, size, "%s of %zu bytes (1 to %d)", what, n, CSV_NAME_MAX);
		return -1;
	}
	for (const char *p = *s; p < *e; p++)
		if ((unsigned char)*p < 32 || *p == '"') {
			snprintf(why, size, "%s with a %s in it", what, *p == '"' ? "quote" : "control character");
			return -1;
		}
	return 0;
}
