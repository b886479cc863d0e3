/* hog_train(): the worker team, epochs, evaluation, checkpoints.
 *
 * Setup (before the threads start):
 *  - features are renumbered by falling frequency (internal id 0 is the bias), so
 *    hot coordinates share cache lines and come first in every row; the per-
 *    coordinate regularizer l2 * n / d_v (Hogwild! paper, §5: lambda w_v / d_v
 *    summed over an epoch is lambda w_v) is precomputed;
 *  - the examples are dealt to the workers by a seeded permutation.
 * In the parallel region each worker binds itself (hwloc), copies its shard into
 * memory on its own NUMA node with rows sorted by internal id, and then runs
 * epochs of rounds. Between rounds the team meets at a barrier (sync.h) and one
 * thread checks for a stop request, divergence, a due checkpoint, and reports
 * progress. After each epoch the team evaluates the test set together.
 *
 * The shuffle of epoch e in worker k is seeded by (seed, e, k), so a serial run is
 * bit-reproducible and a run resumed from a checkpoint continues exactly.
 */
#include "sys/file.h"
#include "sys/names.h"
#include "model/linear.h"
#include "sys/err.h"
#include "sys/topo.h"
#include "train/kernel.h"
#include <cblas.h>
#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DELAY_SAMPLE_MASK 63u     /* sample 1 in 64 examples for the delay figures */
#define DELAY_SAMPLES_MAX (1u << 16)

void hog_train_opts_init(hog_train_opts *o)
{
	memset(o, 0, sizeof *o);
	o->mode = HOG_MODE_LOCKFREE;
	o->loss = HOG_LOSS_LOGISTIC;
	o->rule = HOG_RULE_SGD;
	o->sched = HOG_SCHED_BACKOFF;
	o->bind = HOG_BIND_CORE;
	o->epochs = 20;
	o->lr = 0; /* chosen from the data's scale */
	o->backoff = 0.9;
	o->l2 = 1e-6;
	o->adagrad_beta = 1.0;
	o->seed = 1;
	o->hot = -1;
	o->flush_every = 1024;
	o->stripes = 64;
	o->round_examples = 1u << 15;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* splitmix64: seeds and shuffles */
static uint64_t mix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void shuffle_u32(uint32_t *a, uint64_t n, uint64_t seed)
{
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = mix64(&seed) % i;
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* ------------------------------------------------------------------ state */

typedef struct pending { /* one example read but not yet written (--delay) */
	uint32_t row;
	float g;
	uint64_t seen; /* team's applied count at the read; UINT64_MAX: not sampled */
} pending;

typedef struct worker {
	kern_worker k;
	int id;
	/* the shard, in memory on the worker's node, rows sorted by internal id */
	uint64_t n, nnz, nnz_max;
	float *y;
	uint64_t *off;
	uint32_t *ids;
	float *xs;
	size_t shard_bytes;
	uint32_t *order;
	uint64_t pos;               /* examples done in this epoch */
	uint64_t ex_done, nnz_done; /* in this epoch */
	uint32_t since_flush;
	/* delay queue */
	pending *q;
	float *qsnap;               /* (delay+1) * (nnz_max+1) g-bar snapshots */
	float *gsnap_own;           /* k.gsnap's own buffer (k.gsnap points into qsnap with --delay) */
	uint32_t qhead, qlen;
	uint64_t *dsamples;
	uint32_t ndsamples;
	int rc;
	_Alignas(64) _Atomic uint64_t applied; /* examples written, read by samplers */
	char pad[56];
} worker;

typedef struct trainer {
	hog_train_opts o;
	const hog_data *tr, *te;
	uint64_t dim, D;            /* features; coordinates = dim + 1 */
	uint32_t S;
	_Atomic float *P;
	size_t P_bytes;
	float *reg;
	uint32_t *map;              /* data set feature id -> internal id */
	uint32_t *inv;              /* internal id -> data set feature id (0 = bias) */
	uint32_t *perm;             /* examples dealt to workers */
	uint32_t *test_ids;         /* test ids mapped to internal ids (UINT32_MAX: unknown) */
	float *test_margins;
	hog_spin *locks;
	uint32_t nlocks;
	kern_shared ks;
	int T;
	hog_topo *topo;
	hog_place *plan;
	worker **w;
	hog_barrier bar;
	atomic_int action;          /* 0 go on, 1 stop (signal), 2 diverged, 3 error */
	atomic_int go, gone, short_team; /* hand-over into and out of the parallel region */
	int start_epoch;
	uint64_t *start_pos;
	int epochs_done;
	double elapsed, last_ckpt;
	hog_epoch_stats last;
	float bias_start;           /* the bias when the epoch began */
	hog_err *err;
	int rc;
	hog_err werr;               /* errors inside the team, reported once */
} trainer;

/* The stop flag is set from a signal handler: read it atomically. */
static inline int stop_requested(const trainer *t)
{
	return t->o.stop && __atomic_load_n(t->o.stop, __ATOMIC_RELAXED);
}

/* Step size for epoch e after t examples (the schedule, then the warm-up ramp). */
static float lr_at(const trainer *t, int e, uint64_t ex)
{
	double lr = t->o.lr;
	if (t->o.rule == HOG_RULE_SGD) {
		if (t->o.sched == HOG_SCHED_BACKOFF)
			lr *= pow(t->o.backoff, e);
		else if (t->o.sched == HOG_SCHED_INVT)
			lr /= 1.0 + (double)ex / t->o.t0;
	}
	if (t->o.warmup && ex < t->o.warmup)
		lr *= (double)(ex + 1) / (double)t->o.warmup;
	return (float)lr;
}

static uint64_t team_applied(const trainer *t)
{
	uint64_t s = 0;
	for (int k = 0; k < t->T; k++)
		s += atomic_load_explicit(&t->w[k]->applied, memory_order_relaxed);
	return s;
}

static void note_delay(worker *w, uint64_t d)
{
	if (w->ndsamples < DELAY_SAMPLES_MAX)
		w->dsamples[w->ndsamples++] = d;
}

/* Buffered mode: move each hot coordinate by this worker's change since the last
 * flush divided by the number of workers, and take the others' changes into the
 * private copy.
 *
 * Why divided: every worker sees examples from the same distribution, so within
 * a flush interval each one makes (nearly) the same correction to a hot
 * coordinate such as the bias. Summing T such corrections overshoots by T: the
 * error flips sign at every flush (measured: test accuracy jumping between 52%
 * and 95% from epoch to epoch on the RCV1-shaped set with 2 workers). Averaging
 * them is local SGD with model averaging on the hot coordinates, stable for any
 * interval and team size, and the same as before on one thread. AdaGrad's sums
 * of squared gradients (record component 1) are counts, not corrections: summed.
 *
 * A relaxed load and store, not a CAS: lock-prefixed instructions drain the
 * store buffer and cost ~25 cycles each, a quarter of the single-thread time for
 * ~2000 coordinates every 256 examples; a change can be lost when two workers
 * flush one coordinate at the same instant, so each starts its sweep elsewhere. */
static void flush_hot(const trainer *t, worker *w)
{
	const uint32_t S = t->S, n = t->ks.hot * S;
	const float share = 1.0f / (float)t->T;
	_Atomic float *P = t->P;
	float *rec = w->k.hrec, *base = w->k.hbase;
	uint32_t start = (uint32_t)((uint64_t)t->ks.hot * (uint32_t)w->id / (uint32_t)t->T) * S;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = start + k < n ? start + k : start + k - n;
		float d = rec[i] - base[i], p = ald(&P[i]);
		if (d != 0.0f) {
			p += (S == 1 || i % S == 0) ? d * share : d;
			ast(&P[i], p);
		}
		rec[i] = base[i] = p;
	}
	w->since_flush = 0;
}

/* ---------------------------------------------------------- the rounds */

/* Rows are visited in a fresh random order every epoch, so the hardware cannot
 * guess the next one: fetch a whole row's ids and values a few examples ahead,
 * or every row costs a few serialized trips to memory (measured: 0.30 s an epoch
 * on the RCV1-shaped set without, see bench/results). */
#define PREFETCH_AHEAD 4
HOG_INLINE void prefetch_row(const worker *w, uint32_t r, const int VALS)
{
	uint64_t lo = w->off[r], hi = w->off[r + 1];
	const char *a = (const char *)&w->ids[lo], *ae = (const char *)&w->ids[hi];
	for (; a < ae; a += 64)
		__builtin_prefetch(a);
	if (VALS) {
		const char *b = (const char *)&w->xs[lo], *be = (const char *)&w->xs[hi];
		for (; b < be; b += 64)
			__builtin_prefetch(b);
	}
	__builtin_prefetch(&w->y[r]);
}

typedef uint64_t (*round_fn)(trainer *t, worker *w, int epoch, uint64_t from, uint64_t to);

/* Examples [from, to) of the worker's order for this epoch, specialized. Checks
 * the stop flag and recomputes the step size every 64 examples. */
#define ROUND_BODY(MODE, RULE, LOSS, VALS)                                                       \
	{                                                                                            \
		const kern_shared *sh = &t->ks;                                                          \
		const int measure = t->o.measure_delay;                                                  \
		const uint64_t T = (uint64_t)t->T, base = (uint64_t)epoch * t->tr->n;                      \
		uint64_t i = from;                                                                       \
		for (uint32_t chunk = 1; i < to; chunk++) {                                              \
			if ((chunk & 15) == 0 && stop_requested(t))                                    \
				break;                                                                           \
			const float lr = lr_at(t, epoch, base + i * T);                                      \
			const uint64_t end = to - i > 64 ? i + 64 : to;                                      \
			for (; i < end; i++) {                                                               \
				uint32_t r = w->order[i];                                                        \
				uint64_t lo = w->off[r];                                                         \
				uint32_t nnz = (uint32_t)(w->off[r + 1] - lo);                                   \
				if (i + 4 * PREFETCH_AHEAD < to)                                                 \
					__builtin_prefetch(&w->off[w->order[i + 4 * PREFETCH_AHEAD]]);               \
				if (i + PREFETCH_AHEAD < to)                                                     \
					prefetch_row(w, w->order[i + PREFETCH_AHEAD], VALS);                         \
				uint64_t seen = 0;                                                               \
				int sample = measure && (i & DELAY_SAMPLE_MASK) == 0;                            \
				if (sample) seen = team_applied(t);                                              \
				process_example(MODE, RULE, LOSS, VALS, sh, &w->k, w->ids + lo,                  \
				                VALS ? w->xs + lo : NULL, nnz, w->y[r], lr);                     \
				w->nnz_done += nnz;                                                              \
				if (measure) {                                                                   \
					atomic_store_explicit(&w->applied, atomic_load_explicit(&w->applied,         \
					                      memory_order_relaxed) + 1, memory_order_relaxed);      \
					if (sample) note_delay(w, team_applied(t) - seen - 1);                       \
				}                                                                                \
				if (MODE == HOG_MODE_BUFFERED && ++w->since_flush >= (uint32_t)t->o.flush_every) \
					flush_hot(t, w);                                                             \
			}                                                                                    \
		}                                                                                        \
		w->ex_done += i - from;                                                                  \
		return i;                                                                                \
	}

#define DEF_ROUND(M, R, L, V) \
	static uint64_t round_##M##_##R##_##L##_##V(trainer *t, worker *w, int epoch, uint64_t from, uint64_t to) \
	ROUND_BODY(HOG_MODE_##M, HOG_RULE_##R, HOG_LOSS_##L, V)
#define DEF_ROUND_V(M, R, L) DEF_ROUND(M, R, L, 0) DEF_ROUND(M, R, L, 1)
#define DEF_ROUND_L(M, R) DEF_ROUND_V(M, R, LOGISTIC) DEF_ROUND_V(M, R, HINGE) DEF_ROUND_V(M, R, SQUARED)
#define DEF_ROUND_R(M) DEF_ROUND_L(M, SGD) DEF_ROUND_L(M, ADAGRAD) DEF_ROUND_L(M, ADAREVISION)
DEF_ROUND_R(LOCKFREE)
DEF_ROUND_R(ATOMIC)
DEF_ROUND_R(STRIPED)
DEF_ROUND_R(LOCKED)
DEF_ROUND_L(BUFFERED, SGD)
DEF_ROUND_L(BUFFERED, ADAGRAD)

#define REF_V(M, R, L) { round_##M##_##R##_##L##_0, round_##M##_##R##_##L##_1 }
#define REF_L(M, R) { REF_V(M, R, LOGISTIC), REF_V(M, R, HINGE), REF_V(M, R, SQUARED) }
#define REF_R(M) { REF_L(M, SGD), REF_L(M, ADAGRAD), REF_L(M, ADAREVISION) }
static const round_fn round_table[HOG_MODE_COUNT][3][3][2] = {
	[HOG_MODE_SERIAL] = REF_R(LOCKFREE), /* one worker: the same loop, bit for bit */
	[HOG_MODE_LOCKFREE] = REF_R(LOCKFREE),
	[HOG_MODE_BUFFERED] = { REF_L(BUFFERED, SGD), REF_L(BUFFERED, ADAGRAD) },
	[HOG_MODE_ATOMIC] = REF_R(ATOMIC),
	[HOG_MODE_STRIPED] = REF_R(STRIPED),
	[HOG_MODE_LOCKED] = REF_R(LOCKED),
};

/* --delay K: each example's update is queued and written K examples later. The
 * read and the write each take the mode's locks on their own. Not specialized by
 * loss and values: this path is for studying step rules under delay. */
static void apply_pending(trainer *t, worker *w, pending *p, float *snap, float lr)
{
	const enum hog_mode mode = t->o.mode == HOG_MODE_SERIAL ? HOG_MODE_LOCKFREE : t->o.mode;
	uint64_t lo = w->off[p->row];
	uint32_t nnz = (uint32_t)(w->off[p->row + 1] - lo);
	const uint32_t *ids = w->ids + lo;
	const float *xs = w->xs ? w->xs + lo : NULL;
	w->k.gsnap = snap;
#define APPLY(M, R)                                                                                    \
	do {                                                                                               \
		lock_example(M, &t->ks, ids, nnz);                                                             \
		if (xs) write_update(M, R, 1, &t->ks, &w->k, ids, xs, nnz, 0, p->g, lr);                      \
		else write_update(M, R, 0, &t->ks, &w->k, ids, xs, nnz, 0, p->g, lr);                         \
		unlock_example(M, &t->ks, ids, nnz);                                                           \
	} while (0)
#define APPLY_R(M)                                                                 \
	do {                                                                           \
		switch (t->o.rule) {                                                       \
		case HOG_RULE_SGD: APPLY(M, HOG_RULE_SGD); break;                          \
		case HOG_RULE_ADAGRAD: APPLY(M, HOG_RULE_ADAGRAD); break;                  \
		case HOG_RULE_ADAREVISION: APPLY(M, HOG_RULE_ADAREVISION); break;          \
		}                                                                          \
	} while (0)
	switch (mode) {
	case HOG_MODE_ATOMIC: APPLY_R(HOG_MODE_ATOMIC); break;
	case HOG_MODE_STRIPED: APPLY_R(HOG_MODE_STRIPED); break;
	case HOG_MODE_LOCKED: APPLY_R(HOG_MODE_LOCKED); break;
	default: APPLY_R(HOG_MODE_LOCKFREE); break;
	}
	atomic_store_explicit(&w->applied, atomic_load_explicit(&w->applied, memory_order_relaxed) + 1,
	                      memory_order_relaxed);
	if (p->seen != UINT64_MAX)
		note_delay(w, team_applied(t) - p->seen - 1);
}

static float read_pending(trainer *t, worker *w, uint32_t row, float *snap)
{
	const enum hog_mode mode = t->o.mode == HOG_MODE_SERIAL ? HOG_MODE_LOCKFREE : t->o.mode;
	uint64_t lo = w->off[row];
	uint32_t nnz = (uint32_t)(w->off[row + 1] - lo);
	const uint32_t *ids = w->ids + lo;
	const float *xs = w->xs ? w->xs + lo : NULL;
	w->k.gsnap = snap;
	float m = 0;
#define READ(M, R)                                                                         \
	do {                                                                                   \
		lock_example(M, &t->ks, ids, nnz);                                                 \
		m = xs ? read_margin(M, R, 1, &t->ks, &w->k, ids, xs, nnz, 0)                      \
		       : read_margin(M, R, 0, &t->ks, &w->k, ids, xs, nnz, 0);                     \
		unlock_example(M, &t->ks, ids, nnz);                                               \
	} while (0)
#define READ_R(M)                                                                  \
	do {                                                                           \
		switch (t->o.rule) { /* the rule sets the record stride: all three */      \
		case HOG_RULE_SGD: READ(M, HOG_RULE_SGD); break;                           \
		case HOG_RULE_ADAGRAD: READ(M, HOG_RULE_ADAGRAD); break;                   \
		case HOG_RULE_ADAREVISION: READ(M, HOG_RULE_ADAREVISION); break;           \
		}                                                                          \
	} while (0)
	switch (mode) {
	case HOG_MODE_ATOMIC: READ_R(HOG_MODE_ATOMIC); break;
	case HOG_MODE_STRIPED: READ_R(HOG_MODE_STRIPED); break;
	case HOG_MODE_LOCKED: READ_R(HOG_MODE_LOCKED); break;
	default: READ_R(HOG_MODE_LOCKFREE); break;
	}
	return m;
}

static void drain_pending(trainer *t, worker *w, int epoch, uint64_t ex)
{
	const uint32_t K1 = (uint32_t)t->o.delay + 1;
	float lr = lr_at(t, epoch, ex);
	while (w->qlen) {
		uint32_t slot = (w->qhead + K1 - w->qlen) % K1;
		apply_pending(t, w, &w->q[slot], w->qsnap + (size_t)slot * (w->nnz_max + 1), lr);
		w->qlen--;
	}
}

static uint64_t round_delayed(trainer *t, worker *w, int epoch, uint64_t from, uint64_t to)
{
	const uint32_t K1 = (uint32_t)t->o.delay + 1;
	const uint64_t T = (uint64_t)t->T, base = (uint64_t)epoch * t->tr->n;
	const enum hog_loss loss = t->o.loss;
	uint64_t i;
	for (i = from; i < to; i++) {
		if ((i & 1023) == 0 && stop_requested(t))
			break;
		float lr = lr_at(t, epoch, base + i * T);
		uint32_t row = w->order[i], slot = w->qhead;
		pending *p = &w->q[slot];
		float *snap = w->qsnap + (size_t)slot * (w->nnz_max + 1);
		p->row = row;
		p->seen = (i & DELAY_SAMPLE_MASK) == 0 ? team_applied(t) : UINT64_MAX;
		float m = read_pending(t, w, row, snap), y = w->y[row];
		w->k.loss += hog_loss_value(loss, m, y);
		p->g = hog_loss_deriv(loss, m, y);
		w->nnz_done += w->off[row + 1] - w->off[row];
		w->qhead = (slot + 1) % K1;
		if (++w->qlen == K1) { /* the oldest has waited K further reads */
			uint32_t old = w->qhead; /* slot after the newest = oldest */
			apply_pending(t, w, &w->q[old], w->qsnap + (size_t)old * (w->nnz_max + 1), lr);
			w->qlen--;
		}
	}
	w->ex_done += i - from;
	return i;
}

/* ------------------------------------------------------------ setup */

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The default step: SGD's 1/(1 + mean |x|^2) keeps the first steps below the
 * curvature of the loss whatever the scale of the features (0.5 for unit-norm
 * rows like RCV1's; ~0.067 for a9a's 14 binary features); AdaGrad normalizes by
 * the gradients itself, so its alpha needs no scale. */
double hog_default_lr(const hog_data *d, enum hog_rule rule)
{
	if (rule != HOG_RULE_SGD)
		return 0.1;
	double sq = 0;
	if (d->vals)
		for (uint64_t j = 0; j < d->nnz; j++)
			sq += (double)d->vals[j] * d->vals[j];
	else
		sq = (double)d->nnz;
	return 1.0 / (1.0 + sq / (double)(d->n ? d->n : 1));
}

/* Renumbers features by falling frequency and precomputes the regularizer. */
static int setup_features(trainer *t)
{
	const hog_data *d = t->tr;
	uint64_t *cnt = calloc(t->dim + 1, sizeof *cnt);
	uint64_t *key = malloc((t->dim + 1) * sizeof *key);
	t->map = malloc((t->dim + 1) * sizeof *t->map);
	t->inv = malloc((t->D + 1) * sizeof *t->inv);
	t->reg = malloc(t->D * sizeof *t->reg);
	if (!cnt || !key || !t->map || !t->inv || !t->reg) {
		free(cnt);
		free(key);
		return hog_err_set(t->err, ENOMEM, "out of memory for %llu features", (unsigned long long)t->dim);
	}
	for (uint64_t j = 0; j < d->nnz; j++)
		cnt[d->ids[j]]++;
	/* sort (count desc, id asc) by packing: counts < 2^32 for n < 2^32 examples */
	for (uint64_t v = 0; v < t->dim; v++)
		key[v] = ((uint64_t)(UINT32_MAX - (cnt[v] > UINT32_MAX ? UINT32_MAX : cnt[v])) << 32) | v;
	qsort(key, t->dim, sizeof *key, cmp_key);
	t->inv[0] = UINT32_MAX;
	for (uint64_t r = 0; r < t->dim; r++) {
		uint32_t v = (uint32_t)key[r];
		t->map[v] = (uint32_t)(r + 1);
		t->inv[r + 1] = v;
	}
	/* l2 * n / d_v, clamped so that one step never more than zeroes a weight */
	double cap = t->o.rule == HOG_RULE_SGD ? 1.0 / t->o.lr : t->o.adagrad_beta / t->o.lr;
	t->reg[0] = 0;
	for (uint64_t r = 1; r < t->D; r++) {
		uint64_t c = cnt[t->inv[r]];
		double g = c ? t->o.l2 * (double)d->n / (double)c : 0;
		t->reg[r] = (float)(g < cap ? g : cap);
	}
	/* buffered: hot = coordinates written at least once per flush interval on average */
	if (t->o.mode == HOG_MODE_BUFFERED) {
		uint32_t hot = 1;
		if (t->o.hot >= 0)
			hot = (uint32_t)t->o.hot + 1;
		else
			while (hot < t->D && hot <= 65536 && cnt[t->inv[hot]] * (uint64_t)t->o.flush_every >= d->n)
				hot++;
		t->ks.hot = hot > t->D ? (uint32_t)t->D : hot;
	}
	free(cnt);
	free(key);
	return 0;
}

/* Sorts one row by internal id, carrying its values (rows are short: insertion). */
static void sort_row(uint32_t *ids, float *xs, uint64_t n)
{
	for (uint64_t i = 1; i < n; i++) {
		uint32_t id = ids[i];
		float x = xs ? xs[i] : 0;
		uint64_t j = i;
		for (; j > 0 && ids[j - 1] > id; j--) {
			ids[j] = ids[j - 1];
			if (xs)
				xs[j] = xs[j - 1];
		}
		ids[j] = id;
		if (xs)
			xs[j] = x;
	}
}

/* Moves the ids below @p hot (and their values) to the front of a row, keeping
 * the order within each part; tmp has room for 2n floats. */
static void hot_first(uint32_t *ids, float *xs, uint64_t n, uint32_t hot, float *tmp)
{
	uint32_t *cid = (uint32_t *)tmp;
	float *cx = tmp + n;
	uint64_t h = 0, c = 0;
	for (uint64_t j = 0; j < n; j++) {
		if (ids[j] < hot) {
			ids[h] = ids[j];
			if (xs)
				xs[h] = xs[j];
			h++;
		} else {
			cid[c] = ids[j];
			if (xs)
				cx[c] = xs[j];
			c++;
		}
	}
	memcpy(ids + h, cid, c * sizeof *ids);
	if (xs)
		memcpy(xs + h, cx, c * sizeof *xs);
}

/* Copies worker k's share of the examples into memory on its node (the worker
 * is bound: first touch places it), with ids renumbered. Rows keep their order
 * except where a mode needs another: striped sorts them (locks are taken in
 * order), buffered moves the hot coordinates to the front. Sorting every row
 * cost 40% of a one-epoch run, so the other modes skip it. */
static int build_shard(trainer *t, worker *w)
{
	const hog_data *d = t->tr;
	uint64_t n0 = d->n * (uint64_t)w->id / t->T, n1 = d->n * (uint64_t)(w->id + 1) / t->T;
	const uint32_t *rows = t->perm + n0;
	uint64_t n = n1 - n0, nnz = 0, nnz_max = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = d->offsets[rows[i] + 1] - d->offsets[rows[i]];
		nnz += k;
		if (k > nnz_max)
			nnz_max = k;
	}
	w->n = n;
	w->nnz = nnz;
	w->nnz_max = nnz_max;
	size_t bytes = n * 4 + (n + 1) * 8 + nnz * 4 + (d->vals ? nnz * 4 : 0) + n * 4 + 64 * 5;
	char *p = hog_topo_alloc_local(t->topo, bytes);
	if (!p)
		return ENOMEM;
	w->shard_bytes = bytes;
#define TAKE(ptr, sz) do { ptr = (void *)p; p += ((sz) + 63) & ~(size_t)63; } while (0)
	TAKE(w->y, n * 4);
	TAKE(w->off, (n + 1) * 8);
	TAKE(w->ids, nnz * 4);
	if (d->vals)
		TAKE(w->xs, nnz * 4);
	TAKE(w->order, n * 4);
#undef TAKE
	float *tmp = t->o.mode == HOG_MODE_BUFFERED ? malloc((nnz_max + 1) * 8) : NULL;
	if (t->o.mode == HOG_MODE_BUFFERED && !tmp)
		return ENOMEM;
	w->off[0] = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t r = rows[i];
		uint64_t lo = d->offsets[r], k = d->offsets[r + 1] - lo, at = w->off[i];
		w->y[i] = d->labels[r];
		w->off[i + 1] = at + k;
		for (uint64_t j = 0; j < k; j++)
			w->ids[at + j] = t->map[d->ids[lo + j]];
		if (d->vals)
			memcpy(w->xs + at, d->vals + lo, k * sizeof(float));
		if (t->o.mode == HOG_MODE_STRIPED) /* stripes must be locked in order */
			sort_row(w->ids + at, d->vals ? w->xs + at : NULL, k);
		else if (t->o.mode == HOG_MODE_BUFFERED) /* the hot coordinates lead */
			hot_first(w->ids + at, d->vals ? w->xs + at : NULL, k, t->ks.hot, tmp);
	}
	free(tmp);
	return 0;
}

static int worker_init(trainer *t, worker *w)
{
	int rc = build_shard(t, w);
	if (rc)
		return rc;
	const uint32_t S = t->S;
	if (t->o.mode == HOG_MODE_BUFFERED) {
		w->k.hrec = hog_topo_alloc_local(t->topo, (size_t)t->ks.hot * S * 4);
		w->k.hbase = hog_topo_alloc_local(t->topo, (size_t)t->ks.hot * S * 4);
		if (!w->k.hrec || !w->k.hbase)
			return ENOMEM;
	}
	uint32_t K1 = (uint32_t)t->o.delay + 1;
	w->k.gsnap = w->gsnap_own = malloc((w->nnz_max + 1) * 4);
	w->dsamples = malloc(DELAY_SAMPLES_MAX * sizeof *w->dsamples);
	if (!w->k.gsnap || !w->dsamples)
		return ENOMEM;
	if (t->o.delay) {
		w->q = malloc(K1 * sizeof *w->q);
		w->qsnap = malloc((size_t)K1 * (w->nnz_max + 1) * 4);
		if (!w->q || !w->qsnap)
			return ENOMEM;
	}
	return 0;
}

static void worker_free(trainer *t, worker *w)
{
	if (!w)
		return;
	hog_topo_free(t->topo, w->y, w->shard_bytes);
	if (w->k.hrec)
		hog_topo_free(t->topo, w->k.hrec, (size_t)t->ks.hot * t->S * 4);
	if (w->k.hbase)
		hog_topo_free(t->topo, w->k.hbase, (size_t)t->ks.hot * t->S * 4);
	free(w->gsnap_own);
	free(w->q);
	free(w->qsnap);
	free(w->dsamples);
	free(w);
}

/* ------------------------------------------------------------ model I/O */

/* The model as it stands, in the data set's feature order. */
static hog_model *snapshot_model(const trainer *t)
{
	hog_model *m = hog_model_new(t->dim, t->o.loss, t->o.rule);
	if (!m)
		return NULL;
	const uint32_t S = t->S;
	for (uint64_t v = 0; v < t->dim; v++)
		for (uint32_t k = 0; k < S; k++)
			m->params[v * S + k] = ald(&t->P[(size_t)t->map[v] * S + k]);
	for (uint32_t k = 0; k < S; k++)
		m->params[t->dim * S + k] = ald(&t->P[k]);
	m->sched = t->o.sched;
	m->lr = t->o.lr;
	m->l2 = t->o.l2;
	m->beta = t->o.adagrad_beta;
	m->backoff = t->o.backoff;
	m->t0 = t->o.t0;
	m->warmup = t->o.warmup;
	m->seed = t->o.seed;
	m->epochs_done = t->epochs_done;
	m->t = (uint64_t)t->epochs_done * t->tr->n;
	return m;
}

static int write_checkpoint(trainer *t, int in_epoch)
{
	if (!t->o.checkpoint)
		return 0;
	hog_model *m = snapshot_model(t);
	if (!m)
		return hog_err_set(t->err, ENOMEM, "out of memory writing a checkpoint");
	if (in_epoch && (m->positions = malloc(t->T * sizeof *m->positions))) {
		m->in_epoch = 1;
		m->nworkers = (uint32_t)t->T;
		for (int k = 0; k < t->T; k++)
			m->positions[k] = t->w[k]->pos;
	}
	int rc = hog_model_save(m, t->o.checkpoint, t->err);
	hog_model_free(m);
	t->last_ckpt = now_s();
	return rc;
}

static int load_resume(trainer *t)
{
	hog_model *m;
	int rc = hog_model_load(&m, t->o.resume, t->err);
	if (rc)
		return rc;
	if (m->dim != t->dim || m->loss != t->o.loss || m->rule != t->o.rule) {
		rc = hog_err_set(t->err, HOG_EMISMATCH,
		                 "%s: checkpoint is for %llu features, %s loss, %s; this run has %llu, %s, %s",
		                 t->o.resume, (unsigned long long)m->dim, hog_loss_name(m->loss),
		                 hog_rule_name(m->rule), (unsigned long long)t->dim, hog_loss_name(t->o.loss),
		                 hog_rule_name(t->o.rule));
		hog_model_free(m);
		return rc;
	}
	const uint32_t S = t->S;
	for (uint64_t v = 0; v < t->dim; v++)
		for (uint32_t k = 0; k < S; k++)
			ast(&t->P[(size_t)t->map[v] * S + k], m->params[v * S + k]);
	for (uint32_t k = 0; k < S; k++)
		ast(&t->P[k], m->params[t->dim * S + k]);
	t->start_epoch = m->epochs_done;
	t->epochs_done = m->epochs_done;
	if (m->in_epoch && m->nworkers == (uint32_t)t->T)
		for (int k = 0; k < t->T; k++)
			t->start_pos[k] = m->positions[k];
	hog_model_free(m);
	return 0;
}

/* ------------------------------------------------------------ evaluation */

/* The team computes the test margins, one slice each. */
static void eval_slice(trainer *t, int k)
{
	const hog_data *d = t->te;
	const uint32_t S = t->S;
	uint64_t a = d->n * (uint64_t)k / t->T, b = d->n * (uint64_t)(k + 1) / t->T;
	for (uint64_t i = a; i < b; i++) {
		float m = ald(&t->P[0]);
		for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
			if (t->test_ids[j] != UINT32_MAX)
				m += ald(&t->P[(size_t)t->test_ids[j] * S]) * (d->vals ? d->vals[j] : 1.0f);
		t->test_margins[i] = m;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void delay_stats(trainer *t, hog_epoch_stats *s)
{
	uint64_t total = 0;
	for (int k = 0; k < t->T; k++)
		total += t->w[k]->ndsamples;
	s->delay_samples = total;
	s->delay_mean = s->delay_p99 = s->delay_max = NAN;
	if (!total)
		return;
	uint64_t *all = malloc(total * sizeof *all);
	if (!all)
		return;
	uint64_t at = 0;
	double sum = 0;
	for (int k = 0; k < t->T; k++) {
		memcpy(all + at, t->w[k]->dsamples, t->w[k]->ndsamples * sizeof *all);
		at += t->w[k]->ndsamples;
		t->w[k]->ndsamples = 0;
	}
	qsort(all, total, sizeof *all, cmp_u64);
	for (uint64_t i = 0; i < total; i++)
		sum += (double)all[i];
	s->delay_mean = sum / total;
	s->delay_p99 = (double)all[(uint64_t)(0.99 * (total - 1))];
	s->delay_max = (double)all[total - 1];
	free(all);
}

/* ------------------------------------------------------------ the team */

static void progress(trainer *t, int epoch, double t_epoch)
{
	if (!t->o.on_progress)
		return;
	hog_progress p = { .epoch = epoch + 1, .epochs = t->o.epochs, .total = t->tr->n,
	                   .seconds = now_s() - t_epoch };
	double loss = 0;
	for (int k = 0; k < t->T; k++) {
		p.done += t->w[k]->ex_done;
		loss += t->w[k]->k.loss;
	}
	p.train_loss = p.done ? loss / p.done : NAN;
	p.lr = lr_at(t, epoch, (uint64_t)epoch * t->tr->n + p.done);
	t->o.on_progress(t->o.ud, &p);
}

static void team_fail(trainer *t, int rc, const char *what)
{
#pragma omp critical(hog_team_fail)
	if (!t->werr.code)
		hog_err_set(&t->werr, rc, "%s: %s", what, hog_strerror(rc));
	atomic_store(&t->action, 3);
}

static void run_team(trainer *t)
{
	const int k = omp_get_thread_num();
	worker *w = t->w[k];
	hog_err berr;
	int rc = hog_topo_bind_self(t->topo, &t->plan[k], t->o.bind, &berr);
	(void)rc; /* a container may refuse binding: run unbound rather than fail */
	if ((rc = worker_init(t, w)))
		team_fail(t, rc, "setting up a worker");
	hog_barrier_wait(&t->bar);
	if (atomic_load(&t->action))
		return;
	const round_fn fn = t->o.delay ? round_delayed
	                               : round_table[t->o.mode][t->o.rule][t->o.loss][t->tr->vals != NULL];
	for (int e = t->start_epoch; e < t->o.epochs; e++) {
		for (uint64_t i = 0; i < w->n; i++)
			w->order[i] = (uint32_t)i;
		uint64_t seed = t->o.seed ^ 0x5EEDull;
		seed = mix64(&seed) ^ ((uint64_t)e << 20) ^ (uint64_t)k;
		shuffle_u32(w->order, w->n, mix64(&seed));
		w->pos = e == t->start_epoch ? t->start_pos[k] : 0;
		w->ex_done = w->nnz_done = 0;
		w->k.loss = 0;
		w->k.bias_sum = w->k.bias_abs = 0;
		if (t->o.mode == HOG_MODE_BUFFERED)
			flush_hot(t, w); /* fresh private copy */
		const uint64_t R = t->o.round_examples;
		uint64_t nmax = t->tr->n / t->T + 1, rounds = (nmax + R - 1) / R;
		hog_barrier_wait(&t->bar);
		if (k == 0)
			t->bias_start = ald(&t->P[0]);
		double t_epoch = now_s(), spent = 0;
		int act = 0;
		for (uint64_t r = 0; r < rounds && !act; r++) {
			double t_round = now_s();
			uint64_t to = (r + 1) * R < w->n ? (r + 1) * R : w->n;
			if (w->pos < to)
				w->pos = fn(t, w, e, w->pos, to);
			if (r + 1 == rounds && t->o.delay)
				drain_pending(t, w, e, (uint64_t)(e + 1) * t->tr->n);
			if (t->o.mode == HOG_MODE_BUFFERED)
				flush_hot(t, w);
			hog_barrier_wait(&t->bar);
			if (k == 0) {
				spent += now_s() - t_round;
				double loss = 0;
				for (int q = 0; q < t->T; q++)
					loss += t->w[q]->k.loss;
				if (!isfinite(loss) || !isfinite(ald(&t->P[0]))) {
					atomic_store(&t->action, 2);
					hog_err_set(&t->werr, HOG_EDIVERGED,
					            "training diverged in epoch %d at step size %g: the loss is %s; "
					            "try a smaller --lr", e + 1, (double)lr_at(t, e, (uint64_t)e * t->tr->n),
					            isnan(loss) ? "NaN" : "infinite");
				} else if (stop_requested(t)) {
					atomic_store(&t->action, 1);
				} else if (t->o.checkpoint_every > 0 && r + 1 < rounds && !t->o.delay &&
				           now_s() - t->last_ckpt >= t->o.checkpoint_every) {
					/* (with --delay, updates wait in private queues: checkpoints only at epoch ends) */
					if ((rc = write_checkpoint(t, 1)))
						team_fail(t, rc, "writing a checkpoint");
				}
				progress(t, e, t_epoch);
			}
			hog_barrier_wait(&t->bar);
			act = atomic_load(&t->action);
		}
		if (act == 1) { /* stopped: write everything queued, then the checkpoint */
			if (t->o.delay)
				drain_pending(t, w, e, (uint64_t)e * t->tr->n + w->pos * t->T);
			hog_barrier_wait(&t->bar);
			if (k == 0 && (rc = write_checkpoint(t, 1)))
				team_fail(t, rc, "writing a checkpoint");
			return;
		}
		if (act)
			return;
		if (t->te)
			eval_slice(t, k);
		hog_barrier_wait(&t->bar);
		if (k == 0) {
			hog_epoch_stats s = { .epoch = e + 1, .threads = t->T, .seconds = spent };
			for (int q = 0; q < t->T; q++) {
				s.examples += t->w[q]->ex_done;
				s.nnz += t->w[q]->nnz_done;
				s.train_loss += t->w[q]->k.loss;
			}
			t->elapsed += spent;
			t->epochs_done = e + 1;
			s.elapsed = t->elapsed;
			s.train_loss /= s.examples ? (double)s.examples : 1.0;
			s.bias_lost = NAN;
			if (t->o.rule == HOG_RULE_SGD) {
				/* |what the bias should have moved - what it moved| over the total size of
				 * the changes made: the share of update mass lost to overwrites (float
				 * rounding alone leaves ~1e-6) */
				double want = 0, gross = 0, got = (double)ald(&t->P[0]) - t->bias_start;
				for (int q = 0; q < t->T; q++) {
					want += t->w[q]->k.bias_sum;
					gross += t->w[q]->k.bias_abs;
				}
				s.bias_lost = gross > 0 ? fabs(want - got) / gross : 0;
			}
			s.ex_per_s = spent > 0 ? s.examples / spent : 0;
			s.nnz_per_s_per_thread = spent > 0 ? s.nnz / spent / t->T : 0;
			s.lr = lr_at(t, e, (uint64_t)(e + 1) * t->tr->n - 1);
			s.test_loss = s.test_acc = s.test_auc = NAN;
			if (t->te) {
				hog_eval ev;
				hog_model_eval_margins(t->o.loss, t->test_margins, t->te->labels, t->te->n,
				                       t->te->meta.task == HOG_TASK_BINARY, &ev);
				s.test_loss = ev.loss;
				s.test_acc = ev.accuracy;
				s.test_auc = ev.auc;
			}
			delay_stats(t, &s);
			t->last = s;
			if (t->o.on_epoch)
				t->o.on_epoch(t->o.ud, &s);
			if (t->o.checkpoint && (rc = write_checkpoint(t, 0)))
				team_fail(t, rc, "writing a checkpoint");
		}
		hog_barrier_wait(&t->bar);
		if (atomic_load(&t->action))
			return;
	}
}

/* ------------------------------------------------------------ hog_train */

static int check_opts(const hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err)
{
	if (!tr || tr->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "a linear model needs a sparse data set%s%s",
		                   tr ? ", not " : "", tr ? hog_kind_name(tr->meta.kind) : "");
	if (tr->meta.task == HOG_TASK_MULTICLASS)
		return hog_err_set(err, HOG_EMISMATCH, "the linear model takes binary or regression labels, "
		                   "not multiclass (%u classes)", tr->meta.classes);
	if (te && te->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "the test set is %s, not sparse", hog_kind_name(te->meta.kind));
	if (tr->n == 0 || tr->n >= UINT32_MAX || tr->dim >= UINT32_MAX - 1)
		return hog_err_set(err, HOG_EMISMATCH, "data set size out of range (%llu examples)",
		                   (unsigned long long)tr->n);
	if ((unsigned)o->mode >= HOG_MODE_COUNT)
		return hog_err_set(err, HOG_ECONFIG, "unknown mode");
	if ((unsigned)o->loss > HOG_LOSS_SQUARED || (unsigned)o->rule > HOG_RULE_ADAREVISION ||
	    (unsigned)o->sched > HOG_SCHED_INVT || (unsigned)o->bind > HOG_BIND_NONE)
		return hog_err_set(err, HOG_ECONFIG, "unknown loss, step rule, schedule or binding");
	if (o->threads < 0 || o->threads > 4096)
		return hog_err_set(err, HOG_ECONFIG, "--threads must be 1..4096 (or 0 for every core), not %d", o->threads);
	if (o->epochs < 1)
		return hog_err_set(err, HOG_ECONFIG, "--epochs must be at least 1, not %d", o->epochs);
	if (!(o->lr >= 0) || !isfinite(o->lr))
		return hog_err_set(err, HOG_ECONFIG, "--lr must be positive, not %g", o->lr);
	if (!(o->backoff > 0 && o->backoff <= 1))
		return hog_err_set(err, HOG_ECONFIG, "--backoff must be in (0, 1], not %g", o->backoff);
	if (!(o->l2 >= 0) || !isfinite(o->l2))
		return hog_err_set(err, HOG_ECONFIG, "--l2 must be zero or positive, not %g", o->l2);
	if (!(o->adagrad_beta > 0))
		return hog_err_set(err, HOG_ECONFIG, "--adagrad-beta must be positive, not %g", o->adagrad_beta);
	if (o->delay < 0 || o->delay > (1 << 20))
		return hog_err_set(err, HOG_ECONFIG, "--delay must be 0..1048576, not %d", o->delay);
	if (o->flush_every < 1 || o->stripes < 1 || (o->stripes & (o->stripes - 1)))
		return hog_err_set(err, HOG_ECONFIG, "--flush-every must be >= 1 and --stripe-size a power of two");
	if (o->mode == HOG_MODE_BUFFERED && (o->rule == HOG_RULE_ADAREVISION || o->delay))
		return hog_err_set(err, HOG_ECONFIG, "buffered mode supports sgd and adagrad without --delay; "
		                   "use lockfree or atomic for adarevision or --delay");
	if (o->loss == HOG_LOSS_LOGISTIC || o->loss == HOG_LOSS_HINGE) {
		if (tr->meta.task != HOG_TASK_BINARY)
			return hog_err_set(err, HOG_EMISMATCH, "%s loss needs binary labels; this data set's task is %s",
			                   hog_loss_name(o->loss), hog_task_name(tr->meta.task));
	}
	return 0;
}

int hog_train(const hog_data *train, const hog_data *test, const hog_train_opts *opts, hog_model **model_out,
              hog_train_result *res, hog_err *err)
{
	if (model_out)
		*model_out = NULL;
	if (res)
		memset(res, 0, sizeof *res);
	int rc = check_opts(opts, train, test, err);
	if (rc)
		return rc;
	trainer *t = calloc(1, sizeof *t);
	if (!t)
		return hog_err_set(err, ENOMEM, "out of memory");
	t->o = *opts;
	t->tr = train;
	t->te = test;
	t->err = err;
	t->dim = train->dim;
	t->D = train->dim + 1;
	t->S = hog_rule_stride(opts->rule);
	if (t->o.t0 <= 0)
		t->o.t0 = (double)train->n;
	if (t->o.lr == 0)
		t->o.lr = hog_default_lr(train, opts->rule);
	if (!t->o.round_examples)
		t->o.round_examples = 1u << 15;
	openblas_set_num_threads(1); /* no BLAS threads inside our workers */

	if ((rc = hog_topo_open(&t->topo, opts->topology, err)))
		goto done;
	t->T = opts->mode == HOG_MODE_SERIAL ? 1 : opts->threads ? opts->threads : hog_topo_cores(t->topo);
	if ((uint64_t)t->T > train->n)
		t->T = (int)train->n;
	if (!(t->plan = calloc(t->T, sizeof *t->plan)) || !(t->w = calloc(t->T, sizeof *t->w)) ||
	    !(t->start_pos = calloc(t->T, sizeof *t->start_pos))) {
		rc = hog_err_set(err, ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = hog_topo_plan(t->topo, t->T, opts->bind, t->plan, NULL, err)))
		goto done;
	if ((rc = setup_features(t)))
		goto done;
	t->P_bytes = t->D * t->S * sizeof(float);
	t->P = hog_topo_alloc_interleaved(t->topo, t->P_bytes);
	t->perm = malloc(train->n * sizeof *t->perm);
	if (!t->P || !t->perm) {
		rc = hog_err_set(err, ENOMEM, "out of memory for the model");
		goto done;
	}
	for (uint64_t i = 0; i < train->n; i++)
		t->perm[i] = (uint32_t)i;
	shuffle_u32(t->perm, train->n, opts->seed);
	t->ks.P = t->P;
	t->ks.reg = t->reg;
	t->ks.beta = (float)opts->adagrad_beta;
	t->ks.stripe_shift = (uint32_t)__builtin_ctz((unsigned)opts->stripes);
	t->nlocks = opts->mode == HOG_MODE_STRIPED ? (uint32_t)((t->D >> t->ks.stripe_shift) + 1) : 1;
	if (!(t->locks = aligned_alloc(64, t->nlocks * sizeof *t->locks))) {
		rc = hog_err_set(err, ENOMEM, "out of memory");
		goto done;
	}
	for (uint32_t i = 0; i < t->nlocks; i++)
		atomic_init(&t->locks[i].v, 0);
	t->ks.locks = t->locks;
	if (test) {
		t->test_ids = malloc(test->nnz * sizeof *t->test_ids + 4);
		t->test_margins = malloc(test->n * sizeof *t->test_margins + 4);
		if (!t->test_ids || !t->test_margins) {
			rc = hog_err_set(err, ENOMEM, "out of memory for the test set");
			goto done;
		}
		for (uint64_t j = 0; j < test->nnz; j++)
			t->test_ids[j] = test->ids[j] < t->dim ? t->map[test->ids[j]] : UINT32_MAX;
	}
	for (int k = 0; k < t->T; k++) {
		if (!(t->w[k] = aligned_alloc(64, sizeof(worker)))) {
			rc = hog_err_set(err, ENOMEM, "out of memory");
			goto done;
		}
		memset(t->w[k], 0, sizeof(worker));
		t->w[k]->id = k;
		atomic_init(&t->w[k]->applied, 0);
	}
	if (opts->resume && (rc = load_resume(t)))
		goto done;
	if (t->start_epoch >= opts->epochs) {
		rc = hog_err_set(err, HOG_ECONFIG, "the checkpoint has done %d epochs already; ask for more with --epochs",
		                 t->start_epoch);
		goto done;
	}
	hog_barrier_init(&t->bar, (unsigned)t->T);
	atomic_init(&t->action, 0);
	t->last_ckpt = now_s();
	omp_set_dynamic(0);
	/* Release everything set up so far to the workers, and acquire what they did
	 * when they are done: libgomp's own fork and join are futexes that
	 * ThreadSanitizer cannot see, these atomics it can. */
	atomic_init(&t->gone, 0);
	atomic_init(&t->short_team, 0);
	atomic_store_explicit(&t->go, 1, memory_order_release);
#pragma omp parallel num_threads(t->T)
	{
		(void)atomic_load_explicit(&t->go, memory_order_acquire);
		if (omp_get_num_threads() == t->T)
			run_team(t);
		else if (omp_get_thread_num() == 0)
			atomic_store(&t->short_team, omp_get_num_threads());
		atomic_fetch_add_explicit(&t->gone, 1, memory_order_release);
	}
	(void)atomic_load_explicit(&t->gone, memory_order_acquire);
	if (atomic_load(&t->short_team)) {
		rc = hog_err_set(err, EAGAIN, "asked for %d threads, OpenMP gave %d", t->T, atomic_load(&t->short_team));
		goto done;
	}
	switch (atomic_load(&t->action)) {
	case 1:
		rc = hog_err_set(err, HOG_EINTR, "stopped in epoch %d%s%s", t->epochs_done + 1,
		                 opts->checkpoint ? "; checkpoint written to " : "", opts->checkpoint ? opts->checkpoint : "");
		break;
	case 2:
	case 3:
		rc = t->werr.code ? t->werr.code : HOG_EDATA;
		hog_err_set(err, rc, "%s", t->werr.msg);
		break;
	}
	if (res) {
		res->epochs_done = t->epochs_done;
		res->threads = t->T;
		res->seconds = t->elapsed;
		res->last = t->last;
		res->hot = (int)t->ks.hot - (t->ks.hot > 0);
	}
	if (model_out && rc != HOG_EDIVERGED) {
		*model_out = snapshot_model(t);
		if (!*model_out && !rc)
			rc = hog_err_set(err, ENOMEM, "out of memory");
	}
done:
	if (t->w)
		for (int k = 0; k < t->T; k++)
			worker_free(t, t->w[k]);
	free(t->w);
	if (t->P)
		hog_topo_free(t->topo, (void *)t->P, t->P_bytes);
	free(t->plan);
	free(t->start_pos);
	free(t->reg);
	free(t->map);
	free(t->inv);
	free(t->perm);
	free(t->test_ids);
	free(t->test_margins);
	free(t->locks);
	hog_topo_close(t->topo);
	free(t);
	return rc;
}
