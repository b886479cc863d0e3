/* The sparse linear model on the training engine (engine.h): its shared
 * parameters, the workers' shards, the specialized rounds, buffered mode's hot
 * coordinates, the --delay queue, and evaluation.
 *
 * Setup (before the threads start):
 *  - features are renumbered by falling frequency (internal id 0 is the bias), so
 *    hot coordinates share cache lines and come first in every row; the per-
 *    coordinate regularizer l2 * n / d_v (Hogwild! paper, §5: lambda w_v / d_v
 *    summed over an epoch is lambda w_v) is precomputed;
 *  - the examples are dealt to the workers by a seeded permutation.
 * Each worker copies its share into memory on its own NUMA node with ids
 * renumbered (rows sorted where a mode needs it). The per-example kernel is
 * kernel.h's, instantiated once per (mode, rule, loss, has-values).
 */
#include "model/linear.h"
#include "sys/err.h"
#include "sys/names.h"
#include "train/engine.h"
#include "train/kernel.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct pending { /* one example read but not yet written (--delay) */
	uint32_t row;
	float g;
	uint64_t seen; /* team's applied count at the read; UINT64_MAX: not sampled */
} pending;

typedef struct lin_worker {
	kern_worker k;
	/* the shard, in memory on the worker's node */
	uint64_t nnz, nnz_max;
	float *y;
	uint64_t *off;
	uint32_t *ids;
	float *xs;
	void *shard;
	size_t shard_bytes;
	uint32_t since_flush;
	/* delay queue */
	pending *q;
	float *qsnap;               /* (delay+1) * (nnz_max+1) g-bar snapshots */
	float *gsnap_own;           /* k.gsnap's own buffer (k.gsnap points into qsnap with --delay) */
	uint32_t qhead, qlen;
} lin_worker;

typedef struct lin_state {
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
	float bias_start;           /* the bias when the epoch began */
} lin_state;

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
static void flush_hot(const hog_engine *e, int id, lin_worker *w)
{
	const lin_state *L = e->model;
	const uint32_t S = L->S, n = L->ks.hot * S;
	const float share = 1.0f / (float)e->T;
	_Atomic float *P = L->P;
	float *rec = w->k.hrec, *base = w->k.hbase;
	uint32_t start = (uint32_t)((uint64_t)L->ks.hot * (uint32_t)id / (uint32_t)e->T) * S;
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
HOG_INLINE void prefetch_row(const lin_worker *w, uint32_t r, const int VALS)
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

/* Examples [from, to) of the worker's order for this epoch, specialized. Checks
 * the stop flag and recomputes the step size every 64 examples. */
#define ROUND_BODY(MODE, RULE, LOSS, VALS)                                                       \
	{                                                                                            \
		const lin_state *L = e->model;                                                           \
		lin_worker *w = ew->m;                                                                   \
		const kern_shared *sh = &L->ks;                                                          \
		const uint32_t *order = ew->order;                                                       \
		const int measure = e->o.measure_delay;                                                  \
		const uint64_t T = (uint64_t)e->T * e->ranks, base = (uint64_t)epoch * e->tr->n;         \
		uint64_t i = from, nnz_done = 0;                                                         \
		for (uint32_t chunk = 1; i < to; chunk++) {                                              \
			if ((chunk & 15) == 0 && eng_stop_requested(e))                                      \
				break;                                                                           \
			const float lr = eng_lr_at(e, epoch, base + i * T);                                  \
			const uint64_t end = to - i > 64 ? i + 64 : to;                                      \
			for (; i < end; i++) {                                                               \
				uint32_t r = order[i];                                                           \
				uint64_t lo = w->off[r];                                                         \
				uint32_t nnz = (uint32_t)(w->off[r + 1] - lo);                                   \
				if (i + 4 * PREFETCH_AHEAD < to)                                                 \
					__builtin_prefetch(&w->off[order[i + 4 * PREFETCH_AHEAD]]);                  \
				if (i + PREFETCH_AHEAD < to)                                                     \
					prefetch_row(w, order[i + PREFETCH_AHEAD], VALS);                            \
				uint64_t seen = 0;                                                               \
				int sample = measure && (i & HOG_DELAY_SAMPLE_MASK) == 0;                        \
				if (sample) seen = eng_team_applied(e);                                          \
				process_example(MODE, RULE, LOSS, VALS, sh, &w->k, w->ids + lo,                  \
				                VALS ? w->xs + lo : NULL, nnz, w->y[r], lr);                     \
				nnz_done += nnz;                                                                 \
				if (measure) {                                                                   \
					eng_count_applied(ew);                                                       \
					if (sample) eng_note_delay(ew, eng_team_applied(e) - seen - 1);              \
				}                                                                                \
				if (MODE == HOG_MODE_BUFFERED && ++w->since_flush >= (uint32_t)e->o.flush_every) \
					flush_hot(e, ew->id, w);                                                     \
			}                                                                                    \
		}                                                                                        \
		ew->ex_done += i - from;                                                                 \
		ew->units_done += nnz_done;                                                              \
		ew->loss += w->k.loss;                                                                   \
		w->k.loss = 0;                                                                           \
		return i;                                                                                \
	}

#define DEF_ROUND(M, R, L, V) \
	static uint64_t round_##M##_##R##_##L##_##V(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to) \
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
static const eng_round_fn round_table[HOG_MODE_COUNT][3][3][2] = {
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
static void apply_pending(hog_engine *e, eng_worker *ew, pending *p, float *snap, float lr)
{
	const lin_state *L = e->model;
	lin_worker *w = ew->m;
	const enum hog_mode mode = e->o.mode == HOG_MODE_SERIAL ? HOG_MODE_LOCKFREE : e->o.mode;
	uint64_t lo = w->off[p->row];
	uint32_t nnz = (uint32_t)(w->off[p->row + 1] - lo);
	const uint32_t *ids = w->ids + lo;
	const float *xs = w->xs ? w->xs + lo : NULL;
	w->k.gsnap = snap;
#define APPLY(M, R)                                                                                    \
	do {                                                                                               \
		lock_example(M, &L->ks, ids, nnz);                                                             \
		if (xs) write_update(M, R, 1, &L->ks, &w->k, ids, xs, nnz, 0, p->g, lr);                      \
		else write_update(M, R, 0, &L->ks, &w->k, ids, xs, nnz, 0, p->g, lr);                         \
		unlock_example(M, &L->ks, ids, nnz);                                                           \
	} while (0)
#define APPLY_R(M)                                                                 \
	do {                                                                           \
		switch (e->o.rule) {                                                       \
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
	eng_count_applied(ew);
	if (p->seen != UINT64_MAX)
		eng_note_delay(ew, eng_team_applied(e) - p->seen - 1);
}

static float read_pending(hog_engine *e, eng_worker *ew, uint32_t row, float *snap)
{
	const lin_state *L = e->model;
	lin_worker *w = ew->m;
	const enum hog_mode mode = e->o.mode == HOG_MODE_SERIAL ? HOG_MODE_LOCKFREE : e->o.mode;
	uint64_t lo = w->off[row];
	uint32_t nnz = (uint32_t)(w->off[row + 1] - lo);
	const uint32_t *ids = w->ids + lo;
	const float *xs = w->xs ? w->xs + lo : NULL;
	w->k.gsnap = snap;
	float m = 0;
#define READ(M, R)                                                                         \
	do {                                                                                   \
		lock_example(M, &L->ks, ids, nnz);                                                 \
		m = xs ? read_margin(M, R, 1, &L->ks, &w->k, ids, xs, nnz, 0)                      \
		       : read_margin(M, R, 0, &L->ks, &w->k, ids, xs, nnz, 0);                     \
		unlock_example(M, &L->ks, ids, nnz);                                               \
	} while (0)
#define READ_R(M)                                                                  \
	do {                                                                           \
		switch (e->o.rule) { /* the rule sets the record stride: all three */      \
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

static void drain_pending(hog_engine *e, eng_worker *ew, float lr)
{
	lin_worker *w = ew->m;
	const uint32_t K1 = (uint32_t)e->o.delay + 1;
	while (w->qlen) {
		uint32_t slot = (w->qhead + K1 - w->qlen) % K1;
		apply_pending(e, ew, &w->q[slot], w->qsnap + (size_t)slot * (w->nnz_max + 1), lr);
		w->qlen--;
	}
}

static uint64_t round_delayed(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to)
{
	lin_worker *w = ew->m;
	const uint32_t K1 = (uint32_t)e->o.delay + 1;
	const uint64_t T = (uint64_t)e->T * e->ranks, base = (uint64_t)epoch * e->tr->n;
	const enum hog_loss loss = e->o.loss;
	uint64_t i;
	for (i = from; i < to; i++) {
		if ((i & 1023) == 0 && eng_stop_requested(e))
			break;
		float lr = eng_lr_at(e, epoch, base + i * T);
		uint32_t row = ew->order[i], slot = w->qhead;
		pending *p = &w->q[slot];
		float *snap = w->qsnap + (size_t)slot * (w->nnz_max + 1);
		p->row = row;
		p->seen = (i & HOG_DELAY_SAMPLE_MASK) == 0 ? eng_team_applied(e) : UINT64_MAX;
		float m = read_pending(e, ew, row, snap), y = w->y[row];
		ew->loss += hog_loss_value(loss, m, y);
		p->g = hog_loss_deriv(loss, m, y);
		ew->units_done += w->off[row + 1] - w->off[row];
		w->qhead = (slot + 1) % K1;
		if (++w->qlen == K1) { /* the oldest has waited K further reads */
			uint32_t old = w->qhead; /* slot after the newest = oldest */
			apply_pending(e, ew, &w->q[old], w->qsnap + (size_t)old * (w->nnz_max + 1), lr);
			w->qlen--;
		}
	}
	ew->ex_done += i - from;
	return i;
}

static eng_round_fn lin_round(const hog_engine *e)
{
	if (e->o.delay)
		return round_delayed;
	return round_table[e->o.mode][e->o.rule][e->o.loss][e->tr->vals != NULL];
}

static void lin_epoch_begin(hog_engine *e, eng_worker *ew, int epoch)
{
	lin_worker *w = ew->m;
	(void)epoch;
	w->k.loss = 0;
	w->k.bias_sum = w->k.bias_abs = 0;
	if (e->o.mode == HOG_MODE_BUFFERED)
		flush_hot(e, ew->id, w); /* fresh private copy */
}

static void lin_round_end(hog_engine *e, eng_worker *ew, int epoch, int last)
{
	if (last && e->o.delay)
		drain_pending(e, ew, eng_lr_at(e, epoch, (uint64_t)(epoch + 1) * e->tr->n));
	if (e->o.mode == HOG_MODE_BUFFERED)
		flush_hot(e, ew->id, ew->m);
}

static void lin_stop(hog_engine *e, eng_worker *ew, int epoch)
{
	if (e->o.delay)
		drain_pending(e, ew, eng_lr_at(e, epoch, (uint64_t)epoch * e->tr->n + ew->pos * e->T * e->ranks));
}

static void lin_epoch_started(hog_engine *e, int epoch)
{
	lin_state *L = e->model;
	(void)epoch;
	L->bias_start = ald(&L->P[0]);
}

static float lin_probe(const hog_engine *e)
{
	const lin_state *L = e->model;
	return ald(&L->P[0]);
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
static int setup_features(hog_engine *e, lin_state *L)
{
	const hog_data *d = e->tr;
	uint64_t *cnt = calloc(L->dim + 1, sizeof *cnt);
	uint64_t *key = malloc((L->dim + 1) * sizeof *key);
	L->map = malloc((L->dim + 1) * sizeof *L->map);
	L->inv = malloc((L->D + 1) * sizeof *L->inv);
	L->reg = malloc(L->D * sizeof *L->reg);
	if (!cnt || !key || !L->map || !L->inv || !L->reg) {
		free(cnt);
		free(key);
		return hog_err_set(e->err, ENOMEM, "out of memory for %llu features", (unsigned long long)L->dim);
	}
	for (uint64_t j = 0; j < d->nnz; j++)
		cnt[d->ids[j]]++;
	/* sort (count desc, id asc) by packing: counts < 2^32 for n < 2^32 examples */
	for (uint64_t v = 0; v < L->dim; v++)
		key[v] = ((uint64_t)(UINT32_MAX - (cnt[v] > UINT32_MAX ? UINT32_MAX : cnt[v])) << 32) | v;
	qsort(key, L->dim, sizeof *key, cmp_key);
	L->inv[0] = UINT32_MAX;
	for (uint64_t r = 0; r < L->dim; r++) {
		uint32_t v = (uint32_t)key[r];
		L->map[v] = (uint32_t)(r + 1);
		L->inv[r + 1] = v;
	}
	/* l2 * n / d_v, clamped so that one step never more than zeroes a weight */
	double cap = e->o.rule == HOG_RULE_SGD ? 1.0 / e->o.lr : e->o.adagrad_beta / e->o.lr;
	L->reg[0] = 0;
	for (uint64_t r = 1; r < L->D; r++) {
		uint64_t c = cnt[L->inv[r]];
		double g = c ? e->o.l2 * (double)d->n / (double)c : 0;
		L->reg[r] = (float)(g < cap ? g : cap);
	}
	/* buffered: hot = coordinates written at least once per flush interval on average */
	if (e->o.mode == HOG_MODE_BUFFERED) {
		uint32_t hot = 1;
		if (e->o.hot >= 0)
			hot = (uint32_t)e->o.hot + 1;
		else
			while (hot < L->D && hot <= 65536 && cnt[L->inv[hot]] * (uint64_t)e->o.flush_every >= d->n)
				hot++;
		L->ks.hot = hot > L->D ? (uint32_t)L->D : hot;
		e->hot = (int)L->ks.hot - (L->ks.hot > 0);
	}
	free(cnt);
	free(key);
	return 0;
}

static void lin_free(hog_engine *e)
{
	lin_state *L = e->model;
	if (!L)
		return;
	if (L->P)
		hog_topo_free(e->topo, (void *)L->P, L->P_bytes);
	free(L->reg);
	free(L->map);
	free(L->inv);
	free(L->perm);
	free(L->test_ids);
	free(L->test_margins);
	free(L->locks);
	free(L);
	e->model = NULL;
}

static int lin_setup(hog_engine *e)
{
	const hog_data *tr = e->tr, *te = e->te;
	lin_state *L = calloc(1, sizeof *L);
	if (!L)
		return hog_err_set(e->err, ENOMEM, "out of memory");
	e->model = L;
	L->dim = tr->dim;
	L->D = tr->dim + 1;
	L->S = hog_rule_stride(e->o.rule);
	int rc = setup_features(e, L);
	if (rc)
		return rc;
	L->P_bytes = L->D * L->S * sizeof(float);
	L->P = hog_topo_alloc_interleaved(e->topo, L->P_bytes);
	L->perm = malloc(tr->n * sizeof *L->perm);
	if (!L->P || !L->perm)
		return hog_err_set(e->err, ENOMEM, "out of memory for the model");
	for (uint64_t i = 0; i < tr->n; i++)
		L->perm[i] = (uint32_t)i;
	if (!e->o.no_shuffle)
		eng_shuffle_u32(L->perm, tr->n, e->o.seed);
	L->ks.P = L->P;
	L->ks.reg = L->reg;
	L->ks.beta = (float)e->o.adagrad_beta;
	L->ks.stripe_shift = (uint32_t)__builtin_ctz((unsigned)e->o.stripes);
	L->nlocks = e->o.mode == HOG_MODE_STRIPED ? (uint32_t)((L->D >> L->ks.stripe_shift) + 1) : 1;
	if (!(L->locks = aligned_alloc(64, L->nlocks * sizeof *L->locks)))
		return hog_err_set(e->err, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < L->nlocks; i++)
		atomic_init(&L->locks[i].v, 0);
	L->ks.locks = L->locks;
	if (te) {
		L->test_ids = malloc(te->nnz * sizeof *L->test_ids + 4);
		L->test_margins = malloc(te->n * sizeof *L->test_margins + 4);
		if (!L->test_ids || !L->test_margins)
			return hog_err_set(e->err, ENOMEM, "out of memory for the test set");
		for (uint64_t j = 0; j < te->nnz; j++)
			L->test_ids[j] = te->ids[j] < L->dim ? L->map[te->ids[j]] : UINT32_MAX;
	}
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
static int build_shard(hog_engine *e, eng_worker *ew, lin_worker *w)
{
	const lin_state *L = e->model;
	const hog_data *d = e->tr;
	uint64_t n0, n1;
	eng_worker_share(e, ew, d->n, &n0, &n1); /* with MPI, this rank's slice */
	const uint32_t *rows = L->perm + n0;
	uint64_t n = n1 - n0, nnz = 0, nnz_max = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = d->offsets[rows[i] + 1] - d->offsets[rows[i]];
		nnz += k;
		if (k > nnz_max)
			nnz_max = k;
	}
	ew->n = n;
	w->nnz = nnz;
	w->nnz_max = nnz_max;
	size_t bytes = n * 4 + (n + 1) * 8 + nnz * 4 + (d->vals ? nnz * 4 : 0) + n * 4 + 64 * 5;
	char *p = hog_topo_alloc_local(e->topo, bytes);
	if (!p)
		return ENOMEM;
	w->shard = p;
	w->shard_bytes = bytes;
#define TAKE(ptr, sz) do { ptr = (void *)p; p += ((sz) + 63) & ~(size_t)63; } while (0)
	TAKE(w->y, n * 4);
	TAKE(w->off, (n + 1) * 8);
	TAKE(w->ids, nnz * 4);
	if (d->vals)
		TAKE(w->xs, nnz * 4);
	TAKE(ew->order, n * 4);
#undef TAKE
	float *tmp = e->o.mode == HOG_MODE_BUFFERED ? malloc((nnz_max + 1) * 8) : NULL;
	if (e->o.mode == HOG_MODE_BUFFERED && !tmp)
		return ENOMEM;
	w->off[0] = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t r = rows[i];
		uint64_t lo = d->offsets[r], k = d->offsets[r + 1] - lo, at = w->off[i];
		w->y[i] = d->labels[r];
		w->off[i + 1] = at + k;
		for (uint64_t j = 0; j < k; j++)
			w->ids[at + j] = L->map[d->ids[lo + j]];
		if (d->vals)
			memcpy(w->xs + at, d->vals + lo, k * sizeof(float));
		if (e->o.mode == HOG_MODE_STRIPED) /* stripes must be locked in order */
			sort_row(w->ids + at, d->vals ? w->xs + at : NULL, k);
		else if (e->o.mode == HOG_MODE_BUFFERED) /* the hot coordinates lead */
			hot_first(w->ids + at, d->vals ? w->xs + at : NULL, k, L->ks.hot, tmp);
	}
	free(tmp);
	return 0;
}

static int lin_worker_init(hog_engine *e, eng_worker *ew)
{
	const lin_state *L = e->model;
	lin_worker *w = calloc(1, sizeof *w);
	if (!w)
		return ENOMEM;
	ew->m = w;
	int rc = build_shard(e, ew, w);
	if (rc)
		return rc;
	const uint32_t S = L->S;
	if (e->o.mode == HOG_MODE_BUFFERED) {
		w->k.hrec = hog_topo_alloc_local(e->topo, (size_t)L->ks.hot * S * 4);
		w->k.hbase = hog_topo_alloc_local(e->topo, (size_t)L->ks.hot * S * 4);
		if (!w->k.hrec || !w->k.hbase)
			return ENOMEM;
	}
	uint32_t K1 = (uint32_t)e->o.delay + 1;
	w->k.gsnap = w->gsnap_own = malloc((w->nnz_max + 1) * 4);
	if (!w->k.gsnap)
		return ENOMEM;
	if (e->o.delay) {
		w->q = malloc(K1 * sizeof *w->q);
		w->qsnap = malloc((size_t)K1 * (w->nnz_max + 1) * 4);
		if (!w->q || !w->qsnap)
			return ENOMEM;
	}
	return 0;
}

static void lin_worker_free(hog_engine *e, eng_worker *ew)
{
	const lin_state *L = e->model;
	lin_worker *w = ew->m;
	if (!w)
		return;
	if (w->shard)
		hog_topo_free(e->topo, w->shard, w->shard_bytes);
	if (w->k.hrec)
		hog_topo_free(e->topo, w->k.hrec, (size_t)L->ks.hot * L->S * 4);
	if (w->k.hbase)
		hog_topo_free(e->topo, w->k.hbase, (size_t)L->ks.hot * L->S * 4);
	free(w->gsnap_own);
	free(w->q);
	free(w->qsnap);
	free(w);
	ew->m = NULL;
}

/* ------------------------------------------------------------ model I/O */

/* The model as it stands, in the data set's feature order. */
static hog_model *lin_snapshot(const hog_engine *e)
{
	const lin_state *L = e->model;
	hog_model *m = hog_model_new(L->dim, e->o.loss, e->o.rule);
	if (!m)
		return NULL;
	const uint32_t S = L->S;
	for (uint64_t v = 0; v < L->dim; v++)
		for (uint32_t k = 0; k < S; k++)
			m->params[v * S + k] = ald(&L->P[(size_t)L->map[v] * S + k]);
	for (uint32_t k = 0; k < S; k++)
		m->params[L->dim * S + k] = ald(&L->P[k]);
	return m;
}

static int lin_restore(hog_engine *e, const hog_model *m)
{
	lin_state *L = e->model;
	if (m->dim != L->dim)
		return hog_err_set(e->err, HOG_EMISMATCH, "%s: the checkpoint is for %llu features; this data set has %llu",
		                   e->o.resume, (unsigned long long)m->dim, (unsigned long long)L->dim);
	const uint32_t S = L->S;
	for (uint64_t v = 0; v < L->dim; v++)
		for (uint32_t k = 0; k < S; k++)
			ast(&L->P[(size_t)L->map[v] * S + k], m->params[v * S + k]);
	for (uint32_t k = 0; k < S; k++)
		ast(&L->P[k], m->params[L->dim * S + k]);
	return 0;
}

/* MPI: the whole parameter vector, weights and the step rule's sums. Sending
 * only the coordinates the ranks touched since the last averaging costs an id
 * and a value (8 bytes) per touched coordinate and rank, against 4 bytes per
 * coordinate dense: it wins only when fewer than half of them change between
 * two averagings. Measured on the RCV1-shaped set: 20000 examples touch 99.4%
 * of the coordinates, 1000 examples 38% (bench/results/mpi.md), so dense. */
static size_t lin_shared_params(hog_engine *e, eng_span *sp, size_t cap)
{
	lin_state *L = e->model;
	if (cap >= 1)
		sp[0] = (eng_span){ (float *)L->P, (size_t)L->D * L->S };
	return 1;
}

/* ------------------------------------------------------------ evaluation */

/* The team computes the test margins, one slice each. */
static void lin_eval_slice(hog_engine *e, int k)
{
	lin_state *L = e->model;
	const hog_data *d = e->te;
	const uint32_t S = L->S;
	uint64_t a, b;
	eng_share(d->n, k, e->T, &a, &b);
	for (uint64_t i = a; i < b; i++) {
		float m = ald(&L->P[0]);
		for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
			if (L->test_ids[j] != UINT32_MAX)
				m += ald(&L->P[(size_t)L->test_ids[j] * S]) * (d->vals ? d->vals[j] : 1.0f);
		L->test_margins[i] = m;
	}
}

static void lin_epoch_stats(hog_engine *e, hog_epoch_stats *s)
{
	const lin_state *L = e->model;
	if (e->o.rule == HOG_RULE_SGD) {
		/* |what the bias should have moved - what it moved| over the total size of
		 * the changes made: the share of update mass lost to overwrites (float
		 * rounding alone leaves ~1e-6) */
		double want = 0, gross = 0, got = (double)ald(&L->P[0]) - L->bias_start;
		for (int q = 0; q < e->T; q++) {
			const lin_worker *w = e->w[q]->m;
			want += w->k.bias_sum;
			gross += w->k.bias_abs;
		}
		s->bias_lost = gross > 0 ? fabs(want - got) / gross : 0;
	}
	if (e->te) {
		hog_eval ev;
		hog_model_eval_margins(e->o.loss, L->test_margins, e->te->labels, e->te->n,
		                       e->te->meta.task == HOG_TASK_BINARY, &ev);
		s->test_loss = ev.loss;
		s->test_acc = ev.accuracy;
		s->test_auc = ev.auc;
		s->test_rmse = ev.rmse;
		s->test_mae = ev.mae;
	}
}

static int lin_check(hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err)
{
	if (tr->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "a linear model needs a sparse data set, not %s%s",
		                   hog_kind_name(tr->meta.kind),
		                   tr->meta.kind == HOG_KIND_RATINGS ? " (train ratings with --model mf)" : "");
	if (tr->meta.task == HOG_TASK_MULTICLASS)
		return hog_err_set(err, HOG_EMISMATCH, "the linear model takes binary or regression labels, "
		                   "not multiclass (%u classes)", tr->meta.classes);
	if (te && te->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "the test set is %s, not sparse", hog_kind_name(te->meta.kind));
	if (te && te->meta.task != tr->meta.task)
		return hog_err_set(err, HOG_EMISMATCH, "the test set's task is %s, the training set's %s",
		                   hog_task_name(te->meta.task), hog_task_name(tr->meta.task));
	if (te && te->dim > tr->dim)
		return hog_err_set(err, HOG_EMISMATCH, "the test set has %llu features, the training set %llu: "
		                   "import both with the same --dim", (unsigned long long)te->dim,
		                   (unsigned long long)tr->dim);
	if (tr->dim >= UINT32_MAX - 1)
		return hog_err_set(err, HOG_EMISMATCH, "data set dimension out of range (%llu features)",
		                   (unsigned long long)tr->dim);
	if (o->mode == HOG_MODE_BUFFERED && (o->rule == HOG_RULE_ADAREVISION || o->delay))
		return hog_err_set(err, HOG_ECONFIG, "buffered mode supports sgd and adagrad without --delay; "
		                   "use lockfree or atomic for adarevision or --delay");
	if ((o->loss == HOG_LOSS_LOGISTIC || o->loss == HOG_LOSS_HINGE) && tr->meta.task != HOG_TASK_BINARY)
		return hog_err_set(err, HOG_EMISMATCH, "%s loss needs binary labels; this data set's task is %s",
		                   hog_loss_name(o->loss), hog_task_name(tr->meta.task));
	if (o->lr == 0)
		o->lr = hog_default_lr(tr, o->rule);
	return 0;
}

const hog_trainer_ops hog_linear_trainer = {
	.name = "linear",
	.modes = (1u << HOG_MODE_COUNT) - 1, /* every common mode; not grid */
	.check = lin_check,
	.setup = lin_setup,
	.worker_init = lin_worker_init,
	.worker_free = lin_worker_free,
	.round = lin_round,
	.epoch_begin = lin_epoch_begin,
	.round_end = lin_round_end,
	.stop = lin_stop,
	.epoch_started = lin_epoch_started,
	.probe = lin_probe,
	.eval_slice = lin_eval_slice,
	.epoch_stats = lin_epoch_stats,
	.shared_params = lin_shared_params,
	.snapshot = lin_snapshot,
	.restore = lin_restore,
	.free = lin_free,
};
