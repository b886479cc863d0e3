/* A sparse training set's rows put into another order in place, with memory
 * for a small part of the set beside it (engine.h, eng_permute_rows). The
 * linear model puts a handed-over set (hog_train_consume) into its deal's
 * order, so that each worker's shard is a run of consecutive rows and the
 * chunks of --shuffle-chunk stream from memory as a copied shard's do, with
 * one copy of the data in memory instead of two (issue 23).
 *
 * Rows are of different lengths, so the nonzeros cannot follow the
 * permutation's cycles, and a copy in the new order would be a second set.
 * Instead two passes through a scratch array of the nonzeros' size, whose
 * pages hold data only while it is needed:
 *  1. the rows in their old order, read front to back, are appended to K
 *     buckets of the scratch (bucket b: the rows whose new position is in the
 *     b-th K-th of the set, in their old order); the old arrays' pages go back
 *     to the system behind the reading;
 *  2. the new order is written front to back into the old arrays, each row
 *     gathered from its bucket; the scratch's pages go back bucket by bucket.
 * So the nonzeros are in memory once, plus a bucket (1/K of them), the pages
 * made ahead of each of the K fronts (a 32nd of them in all, at most
 * PERM_AHEAD a front; the scratch takes no huge pages, as K fronts fill at
 * once) and a run of pages not yet given back at each read front. Each
 * nonzero is copied twice, where a shard copy copied it once; the gather
 * reads a bucket at a time (a K-th of the set: cached). Besides: a byte a row (its bucket) and a bit a row, for the
 * fixed-size arrays (labels, weights, the rows' lengths), which follow
 * perm's cycles. Rows of 2^24 nonzeros or more, or sets of 2^40, are refused
 * (EOVERFLOW: pass 1 packs a row's place and length into its offset).
 */
#include "train/engine.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PERM_BUCKETS 64u        /* K; a bucket's number fits a byte */
#define PERM_GIVE (2u << 20)    /* the set's pages go back in runs of at least this (a huge page) */
#define PERM_SGIVE (256u << 10) /* ... the scratch's (small pages) */
#define PERM_POS (1ull << 40)   /* pass 1 keeps a row's place (< 2^40) and length (< 2^24) in
                                   its offset's word */
#define PERM_LEN (1ull << 24)
#define PERM_AHEAD (64u << 10)  /* the scratch's pages are made at most this far ahead of a
                                   bucket's end (and at most a 32nd of the scratch in all) */

/* Gives the pages wholly inside bytes [*from, to) of @p base back to the
 * system (they read as zeros after) in runs of at least @p unit that end on
 * @p unit boundaries (the last run: on a page's); *from moves past them. The
 * data there is not read again. The set's arrays go back in huge pages
 * (PERM_GIVE), so that they fault back whole when pass 2 writes them. */
static void give_back(void *base, size_t *from, size_t to, int last, uintptr_t unit, uintptr_t pg)
{
	if (!base || (to < *from + unit && !last))
		return;
	const uintptr_t end = last ? pg : unit;
	const uintptr_t a = ((uintptr_t)base + *from + pg - 1) & ~(pg - 1), b = ((uintptr_t)base + to) & ~(end - 1);
	if (b <= a)
		return;
	(void)madvise((void *)a, b - a, MADV_DONTNEED);
	*from = b - (uintptr_t)base;
}

/* Anonymous memory for @p bytes (> 0) whose pages are made as they are written, in
 * small pages; NULL when none. */
static void *scratch_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_NOHUGEPAGE
	(void)madvise(p, bytes, MADV_NOHUGEPAGE);
#endif
	return p;
}

/* The scratch's pages for elements [*ready, to) of bucket regions @p a and
 * @p b (b may be NULL), and @p ahead elements more but not past @p end, made in
 * one call: on the virtual machine this was written on, where every page
 * fault traps to the host, faulting the scratch in a page at a time was most
 * of pass 1. */
static void make_ahead(void *a, void *b, uint64_t *ready, uint64_t to, uint64_t end, uint64_t ahead, uintptr_t pg)
{
	if (to <= *ready)
		return;
	uint64_t upto = to + ahead < end ? to + ahead : end;
#ifdef MADV_POPULATE_WRITE
	for (int q = 0; q < 2; q++) {
		const uintptr_t base = (uintptr_t)(q ? b : a);
		if (!base)
			continue;
		const uintptr_t x = (base + *ready * 4) & ~(pg - 1), y = (base + upto * 4 + pg - 1) & ~(pg - 1);
		(void)madvise((void *)x, y - x, MADV_POPULATE_WRITE); /* (older kernels: the faults make them) */
	}
#else
	(void)a, (void)b, (void)pg;
#endif
	*ready = upto;
}

/* a[i] = old a[perm[i]] for each of the @p na arrays (NULL ones skipped),
 * following perm's cycles; @p seen: n bits. */
static void permute_fixed(float *const *a, int na, const uint32_t *perm, uint64_t n, uint64_t *seen)
{
	memset(seen, 0, ((n + 63) / 64) * sizeof *seen);
	for (uint64_t s = 0; s < n; s++) {
		if (seen[s >> 6] >> (s & 63) & 1)
			continue;
		float t[4];
		for (int q = 0; q < na; q++)
			t[q] = a[q] ? a[q][s] : 0;
		for (uint64_t j = s;;) {
			seen[j >> 6] |= 1ull << (j & 63);
			const uint64_t k = perm[j];
			for (int q = 0; q < na; q++)
				if (a[q])
					a[q][j] = k == s ? t[q] : a[q][k];
			if (k == s)
				break;
			j = k;
		}
	}
}

/* The same for one array of 8-byte words. */
static void permute_u64(uint64_t *a, const uint32_t *perm, uint64_t n, uint64_t *seen)
{
	memset(seen, 0, ((n + 63) / 64) * sizeof *seen);
	for (uint64_t s = 0; s < n; s++) {
		if (seen[s >> 6] >> (s & 63) & 1)
			continue;
		const uint64_t t = a[s];
		for (uint64_t j = s;;) {
			seen[j >> 6] |= 1ull << (j & 63);
			const uint64_t k = perm[j];
			a[j] = k == s ? t : a[k];
			if (k == s)
				break;
			j = k;
		}
	}
}

int eng_permute_rows(hog_data *d, const uint32_t *perm, float *wts)
{
	const uint64_t n = d->n, nnz = d->nnz, K = PERM_BUCKETS;
	if (n < 2)
		return 0;
	if (nnz >= PERM_POS || d->offsets[0] != 0)
		return EOVERFLOW;
	uint64_t *seen = malloc(((n + 63) / 64) * sizeof *seen);
	uint8_t *bkt = malloc(n);
	const size_t sbytes = nnz ? nnz * 4 : 1;
	uint32_t *sids = scratch_map(sbytes);
	float *svals = d->vals ? scratch_map(sbytes) : NULL;
	int rc = !seen || !bkt || !sids || (d->vals && !svals) ? ENOMEM : 0;
	uint64_t *off = d->offsets, bstart[PERM_BUCKETS + 1] = { 0 }, cur[PERM_BUCKETS], ready[PERM_BUCKETS];
	for (uint64_t i = 0; i < n && !rc; i++) {
		const uint32_t r = perm[i];
		const uint64_t k = off[r + 1] - off[r];
		if (k >= PERM_LEN)
			rc = EOVERFLOW;
		bkt[r] = (uint8_t)(i * K / n);
		bstart[i * K / n + 1] += k;
	}
	if (rc) {
		free(seen);
		free(bkt);
		if (sids)
			munmap(sids, sbytes);
		if (svals)
			munmap(svals, sbytes);
		return rc;
	}
	for (uint64_t b = 0; b < K; b++) {
		bstart[b + 1] += bstart[b];
		cur[b] = ready[b] = bstart[b];
	}
	/* 1: old order into the buckets; off[r] becomes row r's place in the
	 * scratch and its length (PERM_POS x length + place) */
	const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uint64_t ahead = nnz * 4 / (K * 32); /* bytes a front */
	ahead = (ahead < pg ? pg : ahead > PERM_AHEAD ? PERM_AHEAD : ahead) / 4;
	size_t gi = 0, gv = 0;
	for (uint64_t r = 0, lo = 0; r < n; r++) {
		const uint64_t hi = off[r + 1], k = hi - lo, at = cur[bkt[r]];
		make_ahead(sids, svals, &ready[bkt[r]], at + k, bstart[bkt[r] + 1], ahead, pg);
		memcpy(sids + at, d->ids + lo, k * 4);
		if (svals)
			memcpy(svals + at, d->vals + lo, k * 4);
		off[r] = k * PERM_POS + at;
		cur[bkt[r]] = at + k;
		lo = hi;
		give_back(d->ids, &gi, hi * 4, r + 1 == n, PERM_GIVE, pg);
		give_back(d->vals, &gv, hi * 4, r + 1 == n, PERM_GIVE, pg);
	}
	free(bkt);
	/* 2: the new order, front to back, from the buckets */
	size_t si = 0, sv = 0;
	uint64_t at = 0, b = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (i * K / n != b) { /* bucket b is done: its scratch goes back */
			b = i * K / n;
			give_back(sids, &si, bstart[b] * 4, 0, PERM_SGIVE, pg);
			give_back(svals, &sv, bstart[b] * 4, 0, PERM_SGIVE, pg);
		}
		const uint64_t v = off[perm[i]], src = v % PERM_POS, k = v / PERM_POS;
		memcpy(d->ids + at, sids + src, k * 4);
		if (svals)
			memcpy(d->vals + at, svals + src, k * 4);
		at += k;
	}
	munmap(sids, sbytes);
	if (svals)
		munmap(svals, sbytes);
	/* the offsets: the lengths, into the new order along perm's cycles, summed */
	for (uint64_t r = 0; r < n; r++)
		off[r] /= PERM_POS;
	permute_u64(off, perm, n, seen);
	for (uint64_t i = 0, sum = 0; i <= n; i++) {
		const uint64_t k = i < n ? off[i] : 0;
		off[i] = sum;
		sum += k;
	}
	float *fixed[3] = { d->labels, d->weights, wts };
	permute_fixed(fixed, 3, perm, n, seen);
	free(seen);
	return 0;
}
