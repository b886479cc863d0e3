/* The per-example hot loop, written once and specialized by the compiler.
 *
 * process_example() is always inlined with constant MODE, RULE, LOSS and VALS
 * arguments into one function per combination (linear_train.c instantiates them), so the
 * loop over an example's nonzeros has no switch and no call through a pointer:
 * the mode, step rule and loss are chosen once per run. bench/results/ shows the
 * resulting instructions.
 *
 * The shared model P is an array of _Atomic float records, `stride` floats per
 * coordinate (see linear.h). Internal coordinate 0 is the bias, 1..dim are the
 * features renumbered by falling frequency, so the hottest coordinates share the
 * first cache lines and each example's hot coordinates come first in its row.
 *
 * THE RACE, documented in one place: in lockfree and buffered modes several
 * workers load and store the same coordinates with no ordering between them.
 * Every access is an atomic with memory_order_relaxed: a value is never torn and
 * never invented, but an update may be lost when two workers write one
 * coordinate at once (the Hogwild! trade, Niu et al. 2011). atomic mode replaces
 * the store by a compare-and-swap loop and loses nothing; striped and locked
 * take spinlocks (sync.h) around the whole read-compute-write of an example.
 */
#ifndef HOG_TRAIN_KERNEL_H
#define HOG_TRAIN_KERNEL_H
#include "model/linear.h"
#include "train/sync.h" /* ald, ast, cas_add, cas_max, HOG_INLINE, the spin lock */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>

/* What the kernel needs of the shared state. */
typedef struct kern_shared {
	_Atomic float *P;       /* (dim+1) records */
	const float *reg;       /* per coordinate: l2 * n / d_v (0 for the bias), clamped */
	hog_spin *locks;        /* striped: one per stripe; locked: locks[0] */
	uint32_t stripe_shift;  /* coordinates per stripe = 1 << shift */
	uint32_t hot;           /* buffered: coordinates 0..hot-1 are kept per worker */
	float beta;             /* AdaGrad / AdaRevision */
	_Atomic uint64_t *A;    /* --average: per coordinate (avg_touch); NULL when off */
	double *U;              /* --average in serial mode: per coordinate (avg_add) instead of A's
	                           words; NULL when off or another mode */
	const float *l1;        /* --l1: per coordinate l1 * n / d_v (0 for the bias); NULL when off */
	int prefetch;           /* ask for each example's reg and --average words while its margin is
	                           read (kern_prefetch_state): set when a tenth of the nonzeros or
	                           more fall on coordinates beyond the L2 cache (lin_prefetch_state) */
} kern_shared;

/* Replica mode's touched blocks: 16 floats, a cache line. */
#define KERN_TBLK_SHIFT 4
/* Modes whose worker keeps private records: buffered (the hot coordinates) and
 * replica (every coordinate: its own kernel, with no shared access at all
 * between flushes and the changed blocks marked) */
#define KERN_PRIVATE(MODE) ((MODE) == HOG_MODE_BUFFERED || (MODE) == HOG_MODE_REPLICA)
/* The mode a kernel uses for the shared model */
#define KERN_SHARED_MODE(MODE) (KERN_PRIVATE(MODE) ? HOG_MODE_LOCKFREE : (MODE))

/* What the kernel keeps per worker. */
typedef struct kern_worker {
	float *hrec, *hbase;    /* buffered: private records of the hot coordinates, and the
	                           shared values they started from at the last flush */
	uint8_t *tmark;         /* replica: 1 for each block of KERN_TBLK floats of hrec the worker
	                           changed since its last flush (the flush's sweep, linear_train.c);
	                           NULL when its flushes sweep the whole copy (lin_replica_marks) */
	float *gsnap;           /* adarevision: g-bar of each coordinate read, until written */
	double loss;            /* progressive loss of this epoch, but for lq (kern_loss_take) */
	double lq;              /* logistic: P - 1, P the product of (1 + e) over the unweighted
	                           examples' log1p(e) parts not yet in loss (process_example) */
	double bias_sum;        /* sgd: sum of the changes this worker made to the bias */
	double bias_abs;        /* ... and of their sizes */
	uint32_t avg_c;         /* --average: examples before this one in the epoch (all workers) */
	float avg_inv;          /* ... and 1 / avg_c */
	float avg_ramp;         /* replica's flushes: half the worker's interval since its last flush
	                           over avg_c (avg_touch_ramp); 0 elsewhere */
} kern_worker;

/* Averaged SGD kept sparse and lazy (Bottou's ASGD and Xu 2011 in the form
 * this model allows): a coordinate changes only when an example touches it (the
 * regularizer is applied per touch, l2 n / d_v), so its value is constant
 * between touches. Each coordinate keeps a = the mean of its iterates over the
 * first tau examples of the epoch, and tau, packed in one 64-bit word. Before an
 * example's update at time c (examples the team has done in the epoch), the
 * iterates since tau all held the value w read now:
 *     a <- a + (w - a) (c - tau) / c,   tau <- c
 * and at the end of the epoch (N examples) the average is a + (w - a)(N - tau)/N.
 * An update still touches only the example's coordinates (one more load and
 * store each, on a word of their own). The state restarts at every epoch: the
 * model handed back is the average of the last epoch's iterates (suffix
 * averaging, Rakhlin, Shamir & Sridharan 2012), not dragged by the first epochs'
 * poor weights.
 *
 * Why this form and not Xu's single accumulator U = sum(change x time), which
 * needs no tau: under the lockfree race a lost U write loses a term of size
 * change x time for good, and on the bias (written by every example) those
 * losses added up to a bias off by a visible amount (measured: test accuracy
 * 92.6 instead of 93.5 in one run of four). A lost (a, tau) write is made good
 * by the coordinate's next touch, which integrates from the older tau. */
HOG_INLINE uint64_t avg_pack(float a, uint32_t tau)
{
	union { float f; uint32_t u; } b = { .f = a };
	return (uint64_t)tau << 32 | b.u;
}

HOG_INLINE float avg_mean(uint64_t p)
{
	union { uint32_t u; float f; } b = { .u = (uint32_t)p };
	return b.f;
}

HOG_INLINE uint64_t avg_next(uint64_t o, float w, uint32_t c, float inv_c)
{
	uint32_t tau = (uint32_t)(o >> 32);
	float a = avg_mean(o);
	return avg_pack(a + (w - a) * ((float)(c - tau) * inv_c), c);
}

/* @p w: the coordinate's value before this example's update. */
HOG_INLINE void avg_touch(const enum hog_mode MODE, _Atomic uint64_t *p, float w, uint32_t c, float inv_c)
{
	uint64_t o = atomic_load_explicit(p, HOG_RLX);
	if (MODE == HOG_MODE_ATOMIC) {
		while (c > (uint32_t)(o >> 32) &&
		       !atomic_compare_exchange_weak_explicit(p, &o, avg_next(o, w, c, inv_c), HOG_RLX, HOG_RLX))
			;
	} else if (c > (uint32_t)(o >> 32)) { /* (a racing worker may have been later) */
		atomic_store_explicit(p, avg_next(o, w, c, inv_c), HOG_RLX);
	}
}

/* A flush's avg_touch (replica): the shared value @p w held since the last
 * change, then takes the worker's change @p d, which its private steps made a
 * little at a time over its interval since its last flush, not at once: as a
 * ramp over that interval, d times half its length in the mean over @p c
 * examples (@p ramp, half the interval over c). Without it each change counted
 * from its flush on, the mean lagged by half an interval, and with intervals
 * of a quarter of an epoch (a worker's share of a small set) the averaged model
 * was dragged to the epoch's start: 18,000 rows of the RCV1-shaped set, 2
 * epochs, test loss 0.4772 on one thread where serial's (the same iterates)
 * is 0.4559. */
HOG_INLINE void avg_touch_ramp(_Atomic uint64_t *p, float w, float d, uint32_t c, float inv_c, float ramp)
{
	const uint64_t o = atomic_load_explicit(p, HOG_RLX);
	if (c > (uint32_t)(o >> 32)) /* (a racing worker may have been later: its touch stands) */
		atomic_store_explicit(p, avg_pack(avg_mean(avg_next(o, w, c, inv_c)) + d * ramp, c), HOG_RLX);
}

/* The average over the epoch's @p N examples of a coordinate whose value is now @p w. */
static inline double avg_final(uint64_t p, float w, uint64_t N)
{
	uint64_t tau = p >> 32;
	double a = avg_mean(p);
	return tau >= N ? a : a + ((double)w - a) * (double)(N - tau) / (double)N;
}

/* Serial mode's form of the same average (and deterministic mode's merges',
 * linear_determ.c): Xu's single accumulator, which needs no time stamp because
 * nothing races with it. The iterate after example k is
 * w_end - (sum of the changes made after k), so the mean of the N iterates is
 *     w_end - U / N,   U = sum over the epoch's changes of c x change,
 * c the example's position in the epoch (as above: the iterates are the values
 * after examples 0..N-1). A change costs one multiply-add on a double of its
 * own, against the time stamp's load, compare, conversion, division by the
 * clock and packing. Not for the modes whose workers race (a lost write of U
 * is lost for good: see above), nor for MPI ranks, whose model averaging moves
 * the weights without a change counted here (lin_state.U, lin_setup). */
#define KERN_AVG_SUMS(MODE) ((MODE) == HOG_MODE_SERIAL)

/* @p c: the example's position, as a double. The change is exact (two floats'
 * difference in double), so the sum telescopes to the weight's. */
HOG_INLINE void avg_add(double *u, float w_old, float w_new, double c)
{
	*u += c * ((double)w_new - (double)w_old);
}

static inline double avg_final_sums(double u, float w, uint64_t N)
{
	return (double)w - u / (double)N;
}

/* --average's note of coordinate @p id's change from @p w to @p nw at the
 * example of position @p c (@p cd as a double, 1 / c @p inv_c): serial's sum,
 * or the time-stamped mean. */
HOG_INLINE void avg_note(const enum hog_mode MODE, _Atomic uint64_t *A, double *U, size_t id, float w, float nw,
                         uint32_t c, double cd, float inv_c)
{
	if (KERN_AVG_SUMS(MODE))
		avg_add(&U[id], w, nw, cd);
	else
		avg_touch(MODE, &A[id], w, c, inv_c);
}

/* One coordinate's update through the shared record (all modes but buffered's
 * hot part). gx is the loss gradient times x, r the regularizer's factor, gold the
 * g-bar read with the weights (AdaRevision). Under striped/locked the caller holds
 * the lock, and the relaxed loads and stores are plain moves. */
HOG_INLINE float upd_shared(const enum hog_mode MODE, const enum hog_rule RULE, _Atomic float *rec,
                            float gx, float r, float gold, float lr, float beta, float *nw)
{
	const int CAS = MODE == HOG_MODE_ATOMIC;
	if (RULE == HOG_RULE_SGD) {
		if (CAS) {
			float o = ald(rec);
			while (!atomic_compare_exchange_weak_explicit(rec, &o, *nw = o - lr * (gx + r * o), HOG_RLX, HOG_RLX))
				;
			return o;
		} else {
			float w = ald(rec);
			ast(rec, *nw = w - lr * (gx + r * w));
			return w;
		}
	} else if (RULE == HOG_RULE_ADAGRAD) {
		float w = ald(rec), gv = gx + r * w, G;
		if (CAS)
			G = cas_add(&rec[1], gv * gv) + gv * gv;
		else
			ast(&rec[1], G = ald(&rec[1]) + gv * gv);
		float eta = lr / (beta + sqrtf(G));
		if (CAS) {
			float o = cas_add(rec, -(eta * gv));
			*nw = o - eta * gv;
			return o;
		}
		ast(rec, *nw = ald(rec) - eta * gv);
		return w;
	} else { /* AdaRevision, docs/architecture.md §6 (McMahan & Streeter 2014, Algorithm 2) */
		float x = ald(rec), g = gx + r * x;
		float gbar = CAS ? cas_add(&rec[1], g) : ald(&rec[1]);
		if (!CAS)
			ast(&rec[1], gbar + g);
		float gbck = gbar - gold; /* gradients that landed here since our read */
		float dz = g * g + 2.0f * g * gbck, z;
		if (CAS)
			z = cas_add(&rec[2], dz) + dz;
		else
			ast(&rec[2], z = ald(&rec[2]) + dz);
		float zp_old = CAS ? cas_max(&rec[3], z) : ald(&rec[3]);
		float zp = zp_old > z ? zp_old : z; /* steps never grow */
		if (!CAS)
			ast(&rec[3], zp);
		float lr_old = lr / (beta + sqrtf(zp_old)), lr_new = lr / (beta + sqrtf(zp));
		float dx = -(lr_new * g) + (lr_old - lr_new) * gbck;
		if (CAS) {
			float o = cas_add(rec, dx);
			*nw = o + dx;
			return o;
		}
		ast(rec, *nw = ald(rec) + dx);
		return x;
	}
}

/* --l1: lambda |w|_1 beside the mean loss, kept sparse and lazy. The rule is
 * the proximal (soft-thresholding) step of FOBOS (Duchi & Singer 2009), applied
 * per touch as the l2 term is: after a coordinate's step of size eta (sgd: lr;
 * adagrad: its own lr / (beta + sqrt(G)), the diagonal composite mirror descent
 * of Duchi, Hazan & Singer 2011), its weight moves eta * t towards zero and
 * stops there, t = l1 * n / d_v (ks.l1): summed over an epoch's d_v touches it
 * is the penalty of n examples, as `reg` is for l2 (the truncated gradient of
 * Langford, Li & Zhang 2009 with gravity in the same per-touch units). Why this
 * rule and not the cumulative penalty (Tsuruoka et al. 2009) or FTRL-Proximal
 * (McMahan et al. 2013): it needs no state beyond the weight (no per-coordinate
 * clock or sums, so nothing more to race on, checkpoint or flush), it is the
 * same read-compute-write as the step itself (atomic mode folds it into the
 * CAS), and a weight it sets to zero is exactly zero until a gradient larger
 * than the threshold moves it. The bias is not regularized (t = 0). AdaRevision
 * is refused: its revisions of delayed gradients assume the unthresholded step. */
HOG_INLINE float l1_soft(float w, float t)
{
	/* w > t ? w - t : w < -t ? w + t : 0, without branches (whether a weight
	 * lands within the threshold is not predictable: measured 2.7 times the
	 * serial epoch with them); + 0.0f makes a zero +0, never -0 */
	return copysignf(fmaxf(fabsf(w) - t, 0.0f), w) + 0.0f;
}

/* upd_shared's sgd or adagrad step with the threshold @p t after it. Returns
 * the value before, and the value written in *@p nw. */
HOG_INLINE float upd_shared_l1(const enum hog_mode MODE, const enum hog_rule RULE, _Atomic float *rec, float gx,
                               float r, float t, float lr, float beta, float *nw)
{
	float o = ald(rec), eta = lr, gv = gx + r * o;
	if (RULE != HOG_RULE_SGD) { /* adagrad */
		float G;
		if (MODE == HOG_MODE_ATOMIC)
			G = cas_add(&rec[1], gv * gv) + gv * gv;
		else
			ast(&rec[1], G = ald(&rec[1]) + gv * gv);
		eta = lr / (beta + sqrtf(G));
	}
	if (MODE != HOG_MODE_ATOMIC) {
		ast(rec, *nw = l1_soft(o - eta * gv, eta * t));
		return o;
	}
	while (!atomic_compare_exchange_weak_explicit(
		rec, &o, *nw = l1_soft(o - eta * (RULE == HOG_RULE_SGD ? gx + r * o : gv), eta * t), HOG_RLX, HOG_RLX))
		;
	return o;
}

/* The same on a worker's private record, after upd_private's step. */
HOG_INLINE void l1_private(const enum hog_rule RULE, float *rec, float t, float lr, float beta)
{
	float eta = RULE == HOG_RULE_SGD ? lr : lr / (beta + sqrtf(rec[1]));
	rec[0] = l1_soft(rec[0], eta * t);
}

/* Buffered and replica flushes with --l1: a private copy (or node replica)
 * whose weight the threshold set to zero hands its change up as a move towards
 * zero that stops there: @p q, the shared value @p p plus that change, clipped
 * at zero on p's side (0 when p is 0). Summed whole, two workers that each
 * zeroed a weight from the same value would leave it at minus that value. */
HOG_INLINE float l1_hand_up(float p, float q)
{
	return p > 0.0f ? (q > 0.0f ? q : 0.0f) : p < 0.0f ? (q < 0.0f ? q : 0.0f) : 0.0f;
}

/* Buffered mode's hot coordinates: only the worker's private record changes; the
 * flush adds (record - base) to the shared one. */
HOG_INLINE void upd_private(const enum hog_rule RULE, float *rec, float gx, float r, float lr, float beta)
{
	float w = rec[0], gv = gx + r * w;
	if (RULE == HOG_RULE_SGD) {
		rec[0] = w - lr * gv;
	} else {
		float G = rec[1] + gv * gv;
		rec[1] = G;
		rec[0] = w - (lr / (beta + sqrtf(G))) * gv;
	}
}

HOG_INLINE void lock_example(const enum hog_mode MODE, const kern_shared *sh, const uint32_t *ids, uint32_t nnz)
{
	if (MODE == HOG_MODE_LOCKED)
		hog_spin_lock(&sh->locks[0]);
	if (MODE == HOG_MODE_STRIPED) { /* ids ascend, so stripes come in order: no deadlock */
		uint32_t last = 0;
		hog_spin_lock(&sh->locks[0]); /* the bias's stripe */
		for (uint32_t j = 0; j < nnz; j++) {
			uint32_t s = ids[j] >> sh->stripe_shift;
			if (s != last)
				hog_spin_lock(&sh->locks[last = s]);
		}
	}
}

HOG_INLINE void unlock_example(const enum hog_mode MODE, const kern_shared *sh, const uint32_t *ids, uint32_t nnz)
{
	if (MODE == HOG_MODE_LOCKED)
		hog_spin_unlock(&sh->locks[0]);
	if (MODE == HOG_MODE_STRIPED) {
		uint32_t last = 0;
		hog_spin_unlock(&sh->locks[0]);
		for (uint32_t j = 0; j < nnz; j++) {
			uint32_t s = ids[j] >> sh->stripe_shift;
			if (s != last)
				hog_spin_unlock(&sh->locks[last = s]);
		}
	}
}

/* The per-coordinate state an update reads beside the weight (the regularizer's
 * factor; --average's sum or time-stamped word, but in replica mode, which
 * averages at its flushes), asked for before the margin loop, so that its cache
 * misses overlap the weights' instead of following them one by one in the
 * update. On a model whose touched coordinates mostly miss the caches that was
 * three misses a nonzero against the plain loop's one: measured on 2 M
 * features (300,000 rows of 71 nonzeros, --average on), serial 1.82-1.95x
 * faster over six interleaved rounds (1.37-2.68x on 400,000 features); on
 * models that fit, the prefetches cost 7-13% (the RCV1-shaped, Zipf and a9a
 * sets), hence sh->prefetch. Buffered at 2 threads on the 2 M features (the
 * default mode there): 1.10-1.96x, median 1.86x, four rounds. */
HOG_INLINE void kern_prefetch_state(const enum hog_mode MODE, const kern_shared *sh, const uint32_t *ids,
                                    uint32_t nnz)
{
	const float *const reg = sh->reg;
	/* (replica's kernel touches neither: it averages at its flushes) */
	const double *const U = MODE == HOG_MODE_REPLICA ? NULL : sh->U;
	const _Atomic uint64_t *const A = MODE == HOG_MODE_REPLICA ? NULL : sh->A;
	if (U)
		for (uint32_t j = 0; j < nnz; j++) {
			__builtin_prefetch(&reg[ids[j]]);
			__builtin_prefetch(&U[ids[j]], 1);
		}
	else if (A)
		for (uint32_t j = 0; j < nnz; j++) {
			__builtin_prefetch(&reg[ids[j]]);
			__builtin_prefetch((const void *)&A[ids[j]], 1);
		}
	else
		for (uint32_t j = 0; j < nnz; j++)
			__builtin_prefetch(&reg[ids[j]]);
}

/* The margin's terms over nonzeros [j, k) of a worker's private records, in
 * two sums (the even and the odd nonzeros) added at the end: with one, each
 * nonzero waited for the add before it, and the dot product ran at an add's
 * latency a nonzero (two sums: replica 1.13x and 1.23x the speed at 1 thread on
 * the RCV1-shaped and Zipf sets; four: slower). */
HOG_INLINE float dot_private(const int VALS, const float *rec, uint32_t S, const uint32_t *ids, const float *xs,
                             uint32_t j, uint32_t k)
{
	float a = 0, b = 0;
	for (; j + 1 < k; j += 2) {
		a += rec[(size_t)ids[j] * S] * (VALS ? xs[j] : 1.0f);
		b += rec[(size_t)ids[j + 1] * S] * (VALS ? xs[j + 1] : 1.0f);
	}
	if (j < k)
		a += rec[(size_t)ids[j] * S] * (VALS ? xs[j] : 1.0f);
	return a + b;
}

/* The same over the shared model (relaxed loads). */
HOG_INLINE float dot_shared(const int VALS, _Atomic float *P, uint32_t S, const uint32_t *ids, const float *xs,
                            uint32_t j, uint32_t k)
{
	float a = 0, b = 0;
	for (; j + 1 < k; j += 2) {
		a += ald(&P[(size_t)ids[j] * S]) * (VALS ? xs[j] : 1.0f);
		b += ald(&P[(size_t)ids[j + 1] * S]) * (VALS ? xs[j + 1] : 1.0f);
	}
	if (j < k)
		a += ald(&P[(size_t)ids[j] * S]) * (VALS ? xs[j] : 1.0f);
	return a + b;
}

/* Reads the margin of one example: bias + sum of w_v x_v. Records g-bar snapshots
 * for AdaRevision. Returns the margin. */
HOG_INLINE float read_margin(const enum hog_mode MODE, const enum hog_rule RULE, const int VALS,
                             const kern_shared *sh, kern_worker *wk, const uint32_t *ids, const float *xs,
                             uint32_t nnz, uint32_t nhot)
{
	const uint32_t S = hog_rule_stride(RULE);
	_Atomic float *P = sh->P;
	float m;
	if (KERN_PRIVATE(MODE))
		m = wk->hrec[0];
	else
		m = ald(&P[0]);
	if (RULE == HOG_RULE_ADAREVISION)
		wk->gsnap[0] = ald(&P[1]);
	if (sh->prefetch)
		kern_prefetch_state(MODE, sh, ids, nnz);
	uint32_t j = 0;
	if (KERN_PRIVATE(MODE)) {
		m += dot_private(VALS, wk->hrec, S, ids, xs, 0, nhot);
		j = nhot;
	}
	m += dot_shared(VALS, P, S, ids, xs, j, nnz);
	if (RULE == HOG_RULE_ADAREVISION) /* (the words beside the weights just read) */
		for (; j < nnz; j++)
			wk->gsnap[j + 1] = ald(&P[(size_t)ids[j] * S + 1]);
	return m;
}

/* Applies the loss gradient g of one example to its coordinates. */
HOG_INLINE void write_update(const enum hog_mode MODE, const enum hog_rule RULE, const int VALS,
                             const kern_shared *sh, kern_worker *wk, const uint32_t *ids, const float *xs,
                             uint32_t nnz, uint32_t nhot, float g, float lr)
{
	const uint32_t S = hog_rule_stride(RULE);
	_Atomic float *P = sh->P;
	const float *reg = sh->reg;
	const float beta = sh->beta;
	_Atomic uint64_t *const A = sh->A;
	double *const U = sh->U;
	/* (the branch below: one the predictor always gets right) */
	const int AVG = KERN_AVG_SUMS(KERN_SHARED_MODE(MODE)) ? U != NULL : A != NULL;
	const float *const l1 = RULE == HOG_RULE_ADAREVISION ? NULL : sh->l1; /* (refused there) */
	const uint32_t c = wk->avg_c;
	const double cd = c;
	const float inv_c = wk->avg_inv;
	float nw;
	uint32_t j = 0;
	if (RULE == HOG_RULE_SGD) {
		wk->bias_sum += -(lr * g); /* what the bias should move by, to count lost updates */
		wk->bias_abs += fabsf(lr * g);
	}
	/* (A: a branch the predictor always gets right, rather than twice the rounds;
	 * buffered's hot coordinates change in the shared model only when flushed,
	 * and are averaged there) */
	if (KERN_PRIVATE(MODE)) {
		/* replica marks the blocks this example changes (the bias's: block 0), unless
		 * its flushes sweep the whole copy anyway (tmark NULL: lin_replica_marks) */
		uint8_t *const tm = MODE == HOG_MODE_REPLICA ? wk->tmark : NULL;
		if (tm)
			tm[0] = 1;
		upd_private(RULE, wk->hrec, g, 0.0f, lr, beta);
		if (l1) /* (loops apart, as below: a test per hot coordinate cost buffered ~4% without --l1) */
			for (; j < nhot; j++) {
				upd_private(RULE, wk->hrec + (size_t)ids[j] * S, g * (VALS ? xs[j] : 1.0f), reg[ids[j]], lr,
				            beta);
				l1_private(RULE, wk->hrec + (size_t)ids[j] * S, l1[ids[j]], lr, beta);
				if (tm)
					tm[((size_t)ids[j] * S) >> KERN_TBLK_SHIFT] = 1;
			}
		else if (tm) /* (a store a nonzero: 5% of replica's time on the RCV1-shaped set) */
			for (; j < nhot; j++) {
				upd_private(RULE, wk->hrec + (size_t)ids[j] * S, g * (VALS ? xs[j] : 1.0f), reg[ids[j]], lr,
				            beta);
				tm[((size_t)ids[j] * S) >> KERN_TBLK_SHIFT] = 1;
			}
		else
			for (; j < nhot; j++)
				upd_private(RULE, wk->hrec + (size_t)ids[j] * S, g * (VALS ? xs[j] : 1.0f), reg[ids[j]], lr,
				            beta);
	} else {
		float w = upd_shared(MODE, RULE, &P[0], g, 0.0f, RULE == HOG_RULE_ADAREVISION ? wk->gsnap[0] : 0.0f, lr, beta,
		                     &nw);
		if (AVG)
			avg_note(MODE, A, U, 0, w, nw, c, cd, inv_c);
	}
	if (l1) { /* --l1: the loop below with the threshold, kept apart so that the loop without it is
	           * the one it was (measured: a test per coordinate cost serial ~4%) */
		for (; j < nnz; j++) {
			uint32_t id = ids[j];
			float w = upd_shared_l1(KERN_SHARED_MODE(MODE), RULE, &P[(size_t)id * S],
			                        g * (VALS ? xs[j] : 1.0f), reg[id], l1[id], lr, beta, &nw);
			if (AVG)
				avg_note(KERN_SHARED_MODE(MODE), A, U, id, w, nw, c, cd, inv_c);
		}
		return;
	}
	for (; j < nnz; j++) {
		uint32_t id = ids[j];
		float w = upd_shared(KERN_SHARED_MODE(MODE), RULE, &P[(size_t)id * S],
		                     g * (VALS ? xs[j] : 1.0f), reg[id],
		                     RULE == HOG_RULE_ADAREVISION ? wk->gsnap[j + 1] : 0.0f, lr, beta, &nw);
		if (AVG)
			avg_note(KERN_SHARED_MODE(MODE), A, U, id, w, nw, c, cd, inv_c);
	}
}

/* The worker's progressive loss since the last take, and a fresh start. */
static inline double kern_loss_take(kern_worker *wk)
{
	const double l = wk->loss + log1p(wk->lq);
	wk->loss = wk->lq = 0;
	return l;
}

/* One example of weight @p wt (1.0f unweighted: the products are exact, the
 * results bit for bit those of the kernel before weights), read to write.
 * Returns nothing; adds its weighted loss to wk->loss. The weight scales the
 * loss's gradient once per example, never inside the loop over coordinates;
 * the regularizer's per-touch share is not weighted (the l2 of the objective
 * sum_i w_i loss_i / n + l2/2 |w|^2 is the same whatever the weights). */
HOG_INLINE void process_example(const enum hog_mode MODE, const enum hog_rule RULE, const enum hog_loss LOSS,
                                const int VALS, const kern_shared *sh, kern_worker *wk, const uint32_t *ids,
                                const float *xs, uint32_t nnz, float y, float wt, float lr)
{
	uint32_t nhot = 0;
	if (MODE == HOG_MODE_REPLICA) /* every coordinate private */
		nhot = nnz;
	else if (MODE == HOG_MODE_BUFFERED)
		while (nhot < nnz && ids[nhot] < sh->hot)
			nhot++;
	lock_example(MODE, sh, ids, nnz);
	float m = read_margin(MODE, RULE, VALS, sh, wk, ids, xs, nnz, nhot);
	float loss, g;
	if (LOSS == HOG_LOSS_LOGISTIC) { /* loss = max(z,0) + log1p(e), the log1p parts of unweighted
		                              * examples summed as the log of their product: a log1pf an
		                              * example was ~10% of replica's epoch on the RCV1-shaped set */
		float e;
		g = wt * hog_logistic_parts(m, y, &loss, &e);
		if (wt == 1.0f) {
			const double q = wk->lq; /* P (1 + e) - 1, P = 1 + q (each factor at most 2) */
			wk->lq = q + (1.0 + q) * e;
			if (wk->lq > 0x1p500) {
				wk->loss += log1p(wk->lq);
				wk->lq = 0;
			}
		} else
			loss += log1pf(e);
	} else
		g = wt * hog_loss_both(LOSS, m, y, &loss);
	wk->loss += wt * loss;
	write_update(MODE, RULE, VALS, sh, wk, ids, xs, nnz, nhot, g, lr);
	unlock_example(MODE, sh, ids, nnz);
}

#endif
