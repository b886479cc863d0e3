/* The no-sharing ceiling for the linear model: a plain loop of logistic SGD
 * written for the benchmark (not hogwild's own code), in which each thread owns
 * a private model and a contiguous share of a shuffled row order, and nothing
 * is shared or merged while an epoch runs. Whatever a hogwild mode does beyond
 * it (shared writes, flushes, barriers, averaging, progress) is what the
 * comparison measures.
 *
 *   bound DATA.lmdb THREADS EPOCHS [SEED [ORDER [WORK]]]
 *
 * ORDER: rows (default: every epoch visits the thread's share in a new shuffled
 * order), none (the data set's order) or chunk:C (the thread's share copied
 * once, in the shuffled order, into its own memory; every epoch visits chunks of
 * C consecutive rows of that copy in a new shuffled order: hogwild's
 * --shuffle-chunk C). Threads are
 * OpenMP threads: pin them with OMP_PROC_BIND=true OMP_PLACES=cores. Each
 * thread first-touches its own model and prefetches the rows it will visit
 * next (a random row is a cache miss otherwise). The data set is read with hogwild's
 * loader (libhogwild); the loop below is the benchmark's.
 *
 * WORK: plain (default: w -= lr g x, nothing else) or avg, the work hogwild's
 * defaults do beyond it, written here as plain loops: a bias, the per-touch l2
 * of hogwild's default --l2 1e-6 (l2 n / d_v for a feature in d_v rows, capped
 * at 1 / lr), and --average's sum of position x change per coordinate in a
 * double (the suffix average is w - U / N at the epoch's end): the ceiling of
 * serial with its default options, beside the plain loop's. avg+pf: the same,
 * each example's l2 factors and sums asked for before its margin is read (on a
 * model past the caches three misses a nonzero overlap; on one that fits the
 * prefetches cost time): the better of the two is the ceiling. l2 (and l2+pf):
 * the bias and the l2 without --average's sums: the arithmetic of an update in
 * the modes that average at their merges (replica, buffered's hot part,
 * deterministic), whose averaging is then the mode's own cost.
 *
 * The margin is two sums, of the even and the odd nonzeros, added at the end:
 * one chain of dependent adds runs at an add's latency a nonzero, and hogwild's
 * kernel sums in two since d4042bf; a ceiling must not fall below the loop it
 * bounds for want of the same plain step.
 *
 * Prints one line per epoch, "epoch E seconds S loss L" (L: the progressive
 * logistic loss, a sanity check, not a figure to compare), and last
 * "median_s_per_epoch S" over epochs 2.. (all of them when EPOCHS < 3). */
#define _DEFAULT_SOURCE /* madvise */
#include "hogwild.h"
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define AHEAD 4 /* rows */

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void shuffle(uint32_t *a, uint64_t n, uint64_t seed)
{
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = mix(&seed) % i;
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* A thread's copy of its rows and its model, on 2 MB pages where the kernel
 * grants them, as hogwild asks for the set's and the model's (measured on a VM:
 * 4 KB pages left the bound's epochs at 0.09-0.72 s on the RCV1-shaped set,
 * hogwild's at 0.11-0.13) */
static void *rows_alloc(size_t bytes)
{
	const size_t huge = 2u << 20;
	void *p = NULL;
	bytes = (bytes + huge - 1) / huge * huge;
	if (posix_memalign(&p, huge, bytes ? bytes : huge))
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

/* One example's update with the defaults' work (WORK avg and l2): the bias and
 * the per-touch l2, and with SUMS --average's sums at position @p c. Called with
 * a constant SUMS, so that each ceiling's loop is its own, with no test in it. */
static inline __attribute__((always_inline)) void update_dflt(const int SUMS, const uint32_t *ids, const float *xs,
                                                             uint64_t n, float g, float lr, const float *rg, float *w,
                                                             float *bias, double *U, double *Ub, double c)
{
	const float nb = *bias - g;
	if (SUMS)
		*Ub += c * ((double)nb - (double)*bias);
	*bias = nb;
	for (uint64_t j = 0; j < n; j++) {
		const uint32_t v = ids[j];
		const float wo = w[v], wn = wo - (g * (xs ? xs[j] : 1.0f) + lr * rg[v] * wo);
		w[v] = wn;
		if (SUMS)
			U[v] += c * ((double)wn - (double)wo);
	}
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bound DATA.lmdb THREADS EPOCHS [SEED [rows|none|chunk:C [plain|avg|avg+pf|l2|l2+pf]]]\n");
		return 2;
	}
	const int T = atoi(argv[2]), E = atoi(argv[3]);
	const uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
	const int shuffled = !(argc > 5 && !strcmp(argv[5], "none"));
	const uint64_t chunk = argc > 5 && !strncmp(argv[5], "chunk:", 6) ? strtoull(argv[5] + 6, NULL, 10) : 0;
	const char *work = argc > 6 ? argv[6] : "plain";
	const int l2 = !strcmp(work, "l2") || !strcmp(work, "l2+pf"); /* the bias and l2, no sums */
	const int pf = !strcmp(work, "avg+pf") || !strcmp(work, "l2+pf");
	const int dflt = l2 || !strcmp(work, "avg") || !strcmp(work, "avg+pf"); /* the defaults' bias and l2 */
	const int sums = dflt && !l2;
	if (!dflt && strcmp(work, "plain")) {
		fprintf(stderr, "bound: WORK is plain, avg, avg+pf, l2 or l2+pf, not %s\n", work);
		return 2;
	}
	if (T < 1 || E < 1) {
		fprintf(stderr, "bound: THREADS and EPOCHS must be at least 1\n");
		return 2;
	}
	hog_data *d = NULL;
	hog_err err = { 0 };
	if (hog_data_load(&d, argv[1], &err)) {
		fprintf(stderr, "bound: %s\n", err.msg);
		return 1;
	}
	if (!d->offsets) {
		fprintf(stderr, "bound: %s is not a sparse set\n", argv[1]);
		return 1;
	}
	/* hogwild's default step for sgd: 1 / (1 + mean |x|^2), decayed 0.9 an epoch */
	double sq = 0;
	for (uint64_t p = 0; p < d->nnz; p++)
		sq += d->vals ? (double)d->vals[p] * d->vals[p] : 1.0;
	const double lr0 = 1.0 / (1.0 + sq / (double)(d->n ? d->n : 1));
	uint32_t *perm = malloc((d->n ? d->n : 1) * sizeof *perm);
	double *secs = calloc((size_t)E, sizeof *secs), *loss = calloc((size_t)E, sizeof *loss);
	if (!perm || !secs || !loss) {
		fprintf(stderr, "bound: out of memory\n");
		return 1;
	}
	for (uint64_t i = 0; i < d->n; i++)
		perm[i] = (uint32_t)i;
	if (shuffled)
		shuffle(perm, d->n, seed);
	const uint64_t D = d->dim;
	/* avg, l2: each feature's per-touch l2 (hogwild's default --l2 1e-6) */
	float *reg = dflt ? calloc(D ? D : 1, sizeof *reg) : NULL;
	if (dflt) {
		uint64_t *cnt = calloc(D ? D : 1, sizeof *cnt);
		if (!reg || !cnt) {
			fprintf(stderr, "bound: out of memory\n");
			return 1;
		}
		for (uint64_t p = 0; p < d->nnz; p++)
			cnt[d->ids[p]]++;
		for (uint64_t v = 0; v < D; v++) {
			const double g = cnt[v] ? 1e-6 * (double)d->n / (double)cnt[v] : 0;
			reg[v] = (float)(g < 1.0 / lr0 ? g : 1.0 / lr0);
		}
		free(cnt);
	}
	omp_set_dynamic(0);
#pragma omp parallel num_threads(T)
	{
		const int k = omp_get_thread_num();
		const uint64_t a = d->n * (uint64_t)k / (uint64_t)T, b = d->n * (uint64_t)(k + 1) / (uint64_t)T;
		float *w = rows_alloc((D ? D : 1) * sizeof *w); /* (2 MB pages too, as hogwild's model) */
		uint32_t *order = malloc((b - a ? b - a : 1) * sizeof *order);
		if (!w || !order)
			abort();
		memset(w, 0, (D ? D : 1) * sizeof *w); /* first touch: this thread's memory */
		/* avg, l2: the thread's own copy of the l2 factors, its bias (and avg: its sums) */
		float *rg = dflt ? rows_alloc((D ? D : 1) * sizeof *rg) : NULL, bias = 0;
		double *U = sums ? rows_alloc((D ? D : 1) * sizeof *U) : NULL, Ub = 0;
		if (dflt && (!rg || (sums && !U)))
			abort();
		if (dflt)
			memcpy(rg, reg, (D ? D : 1) * sizeof *rg);
		/* chunk:C: the share copied in the shuffled order, then read in place */
		const uint64_t *offs = d->offsets;
		const uint32_t *sids = d->ids;
		const float *svals = d->vals, *slab = d->labels;
		uint64_t nch = chunk > 1 ? (b - a + chunk - 1) / chunk : 0;
		uint32_t *corder = nch ? malloc(nch * sizeof *corder) : NULL;
		if (nch) {
			uint64_t nz = 0;
			for (uint64_t i = a; i < b; i++)
				nz += d->offsets[perm[i] + 1] - d->offsets[perm[i]];
			uint64_t *o2 = rows_alloc((b - a + 1) * sizeof *o2);
			uint32_t *i2 = rows_alloc((nz ? nz : 1) * sizeof *i2);
			float *v2 = d->vals ? rows_alloc((nz ? nz : 1) * sizeof *v2) : NULL, *l2 = rows_alloc((b - a + 1) * sizeof *l2);
			if (!corder || !o2 || !i2 || (d->vals && !v2) || !l2)
				abort();
			o2[0] = 0;
			for (uint64_t i = a; i < b; i++) {
				const uint32_t r = perm[i];
				const uint64_t lo = d->offsets[r], k2 = d->offsets[r + 1] - lo, at = o2[i - a];
				memcpy(i2 + at, d->ids + lo, k2 * sizeof *i2);
				if (v2)
					memcpy(v2 + at, d->vals + lo, k2 * sizeof *v2);
				l2[i - a] = d->labels[r];
				o2[i - a + 1] = at + k2;
			}
			offs = o2, sids = i2, svals = v2, slab = l2;
		}
		for (int ep = 0; ep < E; ep++) {
			if (nch) { /* rows of the copy: chunks of consecutive ones, the chunks shuffled */
				for (uint64_t c = 0; c < nch; c++)
					corder[c] = (uint32_t)c;
				shuffle(corder, nch, seed ^ ((uint64_t)ep << 20) ^ (uint64_t)k);
				uint64_t at = 0;
				for (uint64_t c = 0; c < nch; c++)
					for (uint64_t i = corder[c] * chunk; i < corder[c] * chunk + chunk && i < b - a; i++)
						order[at++] = (uint32_t)i;
			} else {
				memcpy(order, perm + a, (b - a) * sizeof *order);
				if (shuffled)
					shuffle(order, b - a, seed ^ ((uint64_t)ep << 20) ^ (uint64_t)k);
			}
			const float lr = (float)(lr0 * pow(0.9, ep));
			if (sums) { /* each epoch's average starts afresh, as hogwild's */
				memset(U, 0, (D ? D : 1) * sizeof *U);
				Ub = 0;
			}
#pragma omp barrier
			double t0 = now(), l = 0;
			for (uint64_t i = 0; i < b - a; i++) {
				if (i + AHEAD < b - a) { /* a random row is a cache miss: ask for it early */
					const uint32_t q = order[i + AHEAD];
					for (uint64_t p = offs[q]; p < offs[q + 1]; p += 16) {
						__builtin_prefetch(sids + p);
						if (svals)
							__builtin_prefetch(svals + p);
					}
					__builtin_prefetch(slab + q);
				}
				if (i + 4 * AHEAD < b - a)
					__builtin_prefetch(offs + order[i + 4 * AHEAD]);
				const uint32_t r = order[i];
				const uint64_t lo = offs[r], hi = offs[r + 1];
				const uint32_t *ids = sids + lo;
				const float *xs = svals ? svals + lo : NULL;
				const float y = slab[r];
				float m = bias, m1 = 0;
				if (pf)
					for (uint64_t j = 0; j < hi - lo; j++) {
						__builtin_prefetch(&rg[ids[j]]);
						if (sums)
							__builtin_prefetch(&U[ids[j]], 1);
					}
				uint64_t j = 0;
				for (; j + 1 < hi - lo; j += 2) { /* two sums: see the top */
					m += w[ids[j]] * (xs ? xs[j] : 1.0f);
					m1 += w[ids[j + 1]] * (xs ? xs[j + 1] : 1.0f);
				}
				if (j < hi - lo)
					m += w[ids[j]] * (xs ? xs[j] : 1.0f);
				m += m1;
				const float z = y * m;
				l += z > 0 ? log1pf(expf(-z)) : -z + log1pf(expf(z));
				const float g = -y / (1.0f + expf(z)) * lr;
				if (!dflt) {
					for (uint64_t j = 0; j < hi - lo; j++)
						w[ids[j]] -= g * (xs ? xs[j] : 1.0f);
				} else if (sums) { /* c: the example's position in the thread's epoch */
					update_dflt(1, ids, xs, hi - lo, g, lr, rg, w, &bias, U, &Ub, (double)i);
				} else {
					update_dflt(0, ids, xs, hi - lo, g, lr, rg, w, &bias, NULL, NULL, 0);
				}
			}
#pragma omp barrier
#pragma omp critical
			loss[ep] += l;
#pragma omp master
			secs[ep] = now() - t0;
		}
		if (sums && !(Ub == Ub && U[0] == U[0])) /* (the sums are read: the compiler keeps them) */
			abort();
		if (dflt && bias != bias) /* (nor drops the bias) */
			abort();
		free(order);
		free(w);
		free(rg);
		free(U);
		free(corder);
		if (nch) {
			free((void *)offs);
			free((void *)sids);
			free((void *)svals);
			free((void *)slab);
		}
	}
	for (int ep = 0; ep < E; ep++)
		printf("epoch %d seconds %.6f loss %.6f\n", ep + 1, secs[ep], loss[ep] / (double)(d->n ? d->n : 1));
	const int from = E >= 3 ? 1 : 0, n = E - from;
	qsort(secs + from, (size_t)n, sizeof *secs, cmp_d);
	printf("median_s_per_epoch %.6f\n", n % 2 ? secs[from + n / 2] : (secs[from + n / 2 - 1] + secs[from + n / 2]) / 2);
	free(reg);
	free(perm);
	free(secs);
	free(loss);
	hog_data_free(d);
	return 0;
}
