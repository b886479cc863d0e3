/* hog_data_sample(): a small random subset of a loaded data set, as a data set of
 * its own (every kind: sparse rows, ratings, dense rows). `--mode auto` probes the
 * update modes on one; it is also a cheap way to try settings on a large set.
 * hog_data_subset() copies given examples: `tune` cuts its folds with it. */
#include "sys/err.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sample_mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int hog_data_sample(const hog_data *d, uint64_t n, uint64_t seed, hog_data **out, hog_err *err)
{
	*out = NULL;
	if (n > d->n)
		n = d->n;
	/* a partial Fisher-Yates shuffle picks n distinct examples; sorted back so the
	 * subset keeps the set's own order (as a prefix of it would) */
	uint64_t *pick = malloc((d->n + 1) * sizeof *pick);
	unsigned char *mark = calloc(d->n + 1, 1);
	if (!pick || !mark) {
		free(pick);
		free(mark);
		return hog_err_set(err, ENOMEM, "out of memory sampling %llu examples", (unsigned long long)n);
	}
	for (uint64_t i = 0; i < d->n; i++)
		pick[i] = i;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t j = i + sample_mix(&seed) % (d->n - i), t = pick[i];
		pick[i] = pick[j];
		pick[j] = t;
	}
	/* mark and sweep puts them back in the set's order in O(d->n) */
	for (uint64_t i = 0; i < n; i++)
		mark[pick[i]] = 1;
	uint64_t k = 0;
	for (uint64_t i = 0; i < d->n; i++)
		if (mark[i])
			pick[k++] = i;
	free(mark);
	int rc = hog_data_subset(d, pick, n, out, err);
	free(pick);
	return rc;
}

int hog_data_subset(const hog_data *d, const uint64_t *pick, uint64_t n, hog_data **out, hog_err *err)
{
	*out = NULL;
	hog_data *s = calloc(1, sizeof *s);
	if (!s)
		goto oom;
	s->meta = d->meta;
	s->meta.examples = n;
	s->n = n;
	/* (the names its labels number, and its columns: a model trained on it keeps them) */
	if ((d->class_names && !(s->class_names = strdup(d->class_names))) ||
	    (d->categories && !(s->categories = strdup(d->categories))) ||
	    (d->columns && !(s->columns = strdup(d->columns))))
		goto oom;
	s->category_from = d->category_from;
	s->csv_label = d->csv_label;
	s->csv_fields = d->csv_fields;
	s->libsvm_base = d->libsvm_base;
	s->vw_bits = d->vw_bits;
	s->dim = d->dim;
	if (d->labels && !(s->labels = malloc(n * 4 + 4)))
		goto oom;
	s->meta.positives = 0;
	s->meta.label_sum = 0;
	for (uint64_t i = 0; i < n && d->labels; i++) {
		float y = s->labels[i] = d->labels[pick[i]];
		s->meta.positives += y > 0;
		s->meta.label_sum += y;
		s->meta.label_min = i == 0 || y < s->meta.label_min ? y : s->meta.label_min;
		s->meta.label_max = i == 0 || y > s->meta.label_max ? y : s->meta.label_max;
	}
	if (d->weights) {
		if (!(s->weights = malloc(n * 4 + 4)))
			goto oom;
		s->meta.weight_sum = 0;
		for (uint64_t i = 0; i < n; i++)
			s->meta.weight_sum += s->weights[i] = d->weights[pick[i]];
	} else {
		s->meta.weight_sum = (double)n;
	}
	if (d->offsets) {
		uint64_t nnz = 0;
		for (uint64_t i = 0; i < n; i++)
			nnz += d->offsets[pick[i] + 1] - d->offsets[pick[i]];
		s->nnz = s->meta.nnz = nnz;
		if (!(s->offsets = malloc((n + 1) * 8)) || !(s->ids = malloc(nnz * 4 + 4)) ||
		    (d->vals && !(s->vals = malloc(nnz * 4 + 4))))
			goto oom;
		s->offsets[0] = 0;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t lo = d->offsets[pick[i]], k = d->offsets[pick[i] + 1] - lo, at = s->offsets[i];
			memcpy(s->ids + at, d->ids + lo, k * 4);
			if (d->vals)
				memcpy(s->vals + at, d->vals + lo, k * 4);
			s->offsets[i + 1] = at + k;
		}
	}
	if (d->users) {
		if (!(s->users = malloc(n * 4 + 4)) || !(s->items = malloc(n * 4 + 4)) || !(s->ratings = malloc(n * 4 + 4)))
			goto oom;
		for (uint64_t i = 0; i < n; i++) {
			s->users[i] = d->users[pick[i]];
			s->items[i] = d->items[pick[i]];
			s->ratings[i] = d->ratings[pick[i]];
		}
	}
	if (d->x) {
		if (!(s->x = malloc(n * d->dim * 4 + 4)))
			goto oom;
		for (uint64_t i = 0; i < n; i++)
			memcpy(s->x + i * d->dim, d->x + pick[i] * d->dim, d->dim * 4);
		s->nnz = s->meta.nnz = n * d->dim;
	}
	*out = s;
	return 0;
oom:
	hog_data_free(s);
	return hog_err_set(err, ENOMEM, "out of memory taking a subset of %llu examples", (unsigned long long)n);
}
