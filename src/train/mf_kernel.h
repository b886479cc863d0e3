/* The mf trainer's per-rating update, written once and specialized by the
 * compiler: mf_update() is always inlined with constant MODE, RULE and BIAS
 * into one round function per combination (mf_train.c), each compiled for
 * AVX-512, AVX2+FMA and the baseline (target_clones), so the loop over a row
 * has no branch on the mode and runs on whole vectors. How each mode shares
 * the rows (THE RACE) is documented in model/mf.h.
 *
 * Rows are kp floats (a multiple of 16), 64-byte aligned; the loops step by
 * one mf_v16 (GCC vector extension: one zmm, two ymm or four xmm). Lanes k..kp-1
 * are zero and stay zero, so no mask is needed.
 */
#ifndef HOG_TRAIN_MF_KERNEL_H
#define HOG_TRAIN_MF_KERNEL_H
#include "hogwild.h"
#include "train/sync.h"
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define MF_INLINE static inline __attribute__((always_inline))

typedef float mf_v16 __attribute__((vector_size(64), aligned(64)));
#define MF_V(ptr, d) (*(mf_v16 *)((ptr) + (d)))

/* What the kernel needs of the shared model. */
typedef struct mf_shared {
	float *P, *Q, *bu, *bi, *gu, *gi, *gbu, *gbi; /* segments of params (model/mf.h) */
	uint64_t k, kp;
	float mu, l2, inv_k;
	float cb;                     /* sgd: the biases' error weighed cb times (hog_mf_opts.bias_step; 1: as the
	                                 factors': the same bits) */
	atomic_int *ulock, *ilock;    /* striped: one per user row, one per item row (hog_lock_int:
	                                 a 64-byte hog_spin per row would cost 30 MB for
	                                 Netflix's users) */
	hog_spin *glock;              /* locked */
} mf_shared;

/* The shared accessors (sync.h) on float storage: the rows are plain floats
 * that the modes touch only through these. */
MF_INLINE float mf_ald(const float *p) { return ald((const _Atomic float *)p); }
MF_INLINE void mf_ast(float *p, float v) { ast((_Atomic float *)p, v); }
/* lockfree's row copies move two floats per relaxed atomic (8 bytes: still
 * never a torn float), half the scalar moves of one per float; may_alias makes
 * the 8-byte view of float storage legal. Rows are 64-byte aligned and kp is a
 * multiple of 16, so the pair at an odd k's end is in the row (its second lane
 * is padding: 0 read, 0 written back). */
typedef uint64_t __attribute__((may_alias)) mf_u64a;
MF_INLINE void mf_copy_in(float *dst, const float *src, uint64_t k)
{
	for (uint64_t d = 0; d < k; d += 2) {
		uint64_t v = __atomic_load_n((const mf_u64a *)(src + d), __ATOMIC_RELAXED);
		memcpy(dst + d, &v, sizeof v);
	}
}
MF_INLINE void mf_copy_out(float *dst, const float *src, uint64_t k)
{
	for (uint64_t d = 0; d < k; d += 2) {
		uint64_t v;
		memcpy(&v, src + d, sizeof v);
		__atomic_store_n((mf_u64a *)(dst + d), v, __ATOMIC_RELAXED);
	}
}

/* Adds d with a relaxed compare-and-swap loop: no concurrent add is lost. */
MF_INLINE void mf_cas_add(float *p, float d) { (void)cas_add((_Atomic float *)p, d); }

/* Sum of the 16 lanes, as a fixed tree (the same order on every run). */
typedef int32_t mf_v16i __attribute__((vector_size(64)));
MF_INLINE float mf_hsum(const mf_v16 *a)
{
	mf_v16 x = *a;
#ifdef __clang__ /* (the fuzzing build: clang spells GCC's __builtin_shuffle so) */
#define MF_SHUF(v, ...) __builtin_shufflevector(v, v, __VA_ARGS__)
#else
#define MF_SHUF(v, ...) __builtin_shuffle(v, (mf_v16i){ __VA_ARGS__ })
#endif
	x += MF_SHUF(x, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
	x += MF_SHUF(x, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11);
	x += MF_SHUF(x, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
#undef MF_SHUF
	return x[0] + x[1];
}

/* The locks of a rating of (u, i): striped, its user's row and item's row (the
 * user's first: no deadlock); locked, the one global lock; none otherwise. */
MF_INLINE void mf_lock_rating(const enum hog_mode MODE, const mf_shared *s, uint32_t u, uint32_t i)
{
	if (MODE == HOG_MODE_STRIPED) {
		hog_lock_int(&s->ulock[u]);
		hog_lock_int(&s->ilock[i]);
	}
	if (MODE == HOG_MODE_LOCKED)
		hog_spin_lock(s->glock);
}

MF_INLINE void mf_unlock_rating(const enum hog_mode MODE, const mf_shared *s, uint32_t u, uint32_t i)
{
	if (MODE == HOG_MODE_LOCKED)
		hog_spin_unlock(s->glock);
	if (MODE == HOG_MODE_STRIPED) {
		hog_unlock_int(&s->ilock[i]);
		hog_unlock_int(&s->ulock[u]);
	}
}

/* One SGD (or per-row AdaGrad) step on rating r of (u, i) of weight @p wt;
 * returns the weighted loss 0.5 wt e^2 before the step. cp, cq: kp-float
 * aligned scratch rows of the worker (lockfree and atomic), zero beyond k.
 * The weight multiplies the scalar error once (the loss's gradient is
 * -wt e q and -wt e p), never inside the loops over the factors; 1.0f (an
 * unweighted run) is exact, the steps bit for bit those of the kernel before
 * weights. The l2 terms are not weighted (as the linear model's). AdaGrad's
 * row accumulators sum the squares of the weighted gradient, the gradient of
 * the weighted loss (a rating of weight 2 adds 4 times the square its
 * unweighted self would). */
MF_INLINE float mf_update(const enum hog_mode MODE, const enum hog_rule RULE, const int BIAS,
                          const mf_shared *s, float *cp, float *cq, uint32_t u,
                          uint32_t i, float r, float wt, float lr)
{
	const int SHARED = MODE == HOG_MODE_LOCKFREE || MODE == HOG_MODE_ATOMIC;
	const int CAS = MODE == HOG_MODE_ATOMIC;
	const uint64_t kp = s->kp, k = s->k;
	float *p = s->P + (uint64_t)u * kp;
	float *q = s->Q + (uint64_t)i * kp;
	const float l2 = s->l2;

	mf_lock_rating(MODE, s, u, i);

	float *rp = p, *rq = q;
	if (SHARED) {
		mf_copy_in(cp, p, k);
		mf_copy_in(cq, q, k);
		rp = cp;
		rq = cq;
	}

	mf_v16 acc = { 0 };
	for (uint64_t d = 0; d < kp; d += 16)
		acc += MF_V(rp, d) * MF_V(rq, d);
	float pred = mf_hsum(&acc), bu = 0, bi = 0;
	if (BIAS) {
		bu = SHARED ? mf_ald(&s->bu[u]) : s->bu[u];
		bi = SHARED ? mf_ald(&s->bi[i]) : s->bi[i];
		pred += s->mu + bu + bi;
	}
	const float err = r - pred, e = wt * err;

	/* the factor steps: deltas into the copies (atomic), new values in place
	 * (the others: the copies for lockfree, the rows themselves when plain) */
	if (RULE == HOG_RULE_SGD) {
		for (uint64_t d = 0; d < kp; d += 16) {
			mf_v16 pv = MF_V(rp, d), qv = MF_V(rq, d);
			mf_v16 dp = lr * (e * qv - l2 * pv), dq = lr * (e * pv - l2 * qv);
			MF_V(rp, d) = CAS ? dp : pv + dp;
			MF_V(rq, d) = CAS ? dq : qv + dq;
		}
	} else { /* AdaGrad per row: step lr/sqrt(G) with G from before this rating */
		float gu = SHARED ? mf_ald(&s->gu[u]) : s->gu[u];
		float gi = SHARED ? mf_ald(&s->gi[i]) : s->gi[i];
		const float ep = lr / sqrtf(gu), eq = lr / sqrtf(gi);
		mf_v16 sp = { 0 }, sq = { 0 };
		for (uint64_t d = 0; d < kp; d += 16) {
			mf_v16 pv = MF_V(rp, d), qv = MF_V(rq, d);
			mf_v16 gp = l2 * pv - e * qv, gq = l2 * qv - e * pv;
			sp += gp * gp;
			sq += gq * gq;
			MF_V(rp, d) = CAS ? -ep * gp : pv - ep * gp;
			MF_V(rq, d) = CAS ? -eq * gq : qv - eq * gq;
		}
		float dgu = mf_hsum(&sp) * s->inv_k, dgi = mf_hsum(&sq) * s->inv_k;
		if (CAS) {
			mf_cas_add(&s->gu[u], dgu);
			mf_cas_add(&s->gi[i], dgi);
		} else if (SHARED) {
			mf_ast(&s->gu[u], gu + dgu);
			mf_ast(&s->gi[i], gi + dgi);
		} else {
			s->gu[u] = gu + dgu;
			s->gi[i] = gi + dgi;
		}
	}
	if (BIAS) {
		float dbu, dbi;
		if (RULE == HOG_RULE_SGD) {
			dbu = lr * (s->cb * e - l2 * bu); /* (a step cb times the factors' on the error, the same l2
			                                    * pull: with the defaults scaled for wide ratings, exactly
			                                    * the 0.5..5 run's in the ratings' units) */
			dbi = lr * (s->cb * e - l2 * bi);
		} else {
			float gbu = l2 * bu - e, gbi = l2 * bi - e;
			float Gu = SHARED ? mf_ald(&s->gbu[u]) : s->gbu[u];
			float Gi = SHARED ? mf_ald(&s->gbi[i]) : s->gbi[i];
			dbu = -(lr / sqrtf(Gu)) * gbu;
			dbi = -(lr / sqrtf(Gi)) * gbi;
			if (CAS) {
				mf_cas_add(&s->gbu[u], gbu * gbu);
				mf_cas_add(&s->gbi[i], gbi * gbi);
			} else if (SHARED) {
				mf_ast(&s->gbu[u], Gu + gbu * gbu);
				mf_ast(&s->gbi[i], Gi + gbi * gbi);
			} else {
				s->gbu[u] = Gu + gbu * gbu;
				s->gbi[i] = Gi + gbi * gbi;
			}
		}
		if (CAS) {
			mf_cas_add(&s->bu[u], dbu);
			mf_cas_add(&s->bi[i], dbi);
		} else if (SHARED) {
			mf_ast(&s->bu[u], bu + dbu);
			mf_ast(&s->bi[i], bi + dbi);
		} else {
			s->bu[u] = bu + dbu;
			s->bi[i] = bi + dbi;
		}
	}

	if (CAS) {
		for (uint64_t d = 0; d < k; d++) {
			mf_cas_add(p + d, cp[d]);
			mf_cas_add(q + d, cq[d]);
		}
	} else if (SHARED) {
		mf_copy_out(p, cp, k);
		mf_copy_out(q, cq, k);
	}

	mf_unlock_rating(MODE, s, u, i);
	return 0.5f * e * err;
}

#endif
