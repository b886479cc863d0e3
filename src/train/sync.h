/* Synchronization for the worker team, built on C11 atomics: the one copy of
 * the relaxed float accessors and of the spin lock that the trainers' kernels
 * (kernel.h, mf_kernel.h, mlp_train.c) share.
 *
 * Why not `#pragma omp barrier` and pthread mutexes: libgomp synchronizes through
 * futexes that ThreadSanitizer cannot see, so every hand-over between workers at a
 * barrier would be reported as a race. These primitives use acquire/release
 * atomics, which TSan understands, and cost the same: a barrier is one fetch-add
 * and a spin (yielding when threads outnumber cores), a lock is one exchange.
 *
 * Interface:
 *   hog_barrier_init(b, n)       hog_barrier_wait(b)   (everything before it in any
 *                                thread happens-before everything after it in all)
 *   hog_spin_lock(l) / hog_spin_unlock(l)   test-and-test-and-set lock (a hog_spin,
 *                                alone on its cache line)
 *   hog_lock_int(l) / hog_unlock_int(l)     the same lock on a bare atomic_int (mf's
 *                                row locks: one int per row)
 *   ald(p) / ast(p, v)           relaxed load / store of an _Atomic float
 *   cas_add(p, d) / cas_max(p, v)  relaxed compare-and-swap add / raise; return
 *                                the value before
 * The accessors and the int lock are always inlined: they sit in the kernels'
 * hot loops (kernel.h's comment, THE RACE, says why relaxed order is enough).
 */
#ifndef HOG_TRAIN_SYNC_H
#define HOG_TRAIN_SYNC_H
#include <sched.h>
#include <stdatomic.h>

#if defined(__x86_64__) || defined(__i386__)
#define hog_cpu_relax() __builtin_ia32_pause()
#else
#define hog_cpu_relax() ((void)0)
#endif

#define HOG_RLX memory_order_relaxed
#define HOG_INLINE static inline __attribute__((always_inline))

HOG_INLINE float ald(const _Atomic float *p) { return atomic_load_explicit((_Atomic float *)p, HOG_RLX); }
HOG_INLINE void ast(_Atomic float *p, float v) { atomic_store_explicit(p, v, HOG_RLX); }

/* Adds d with a CAS loop; returns the value before. */
HOG_INLINE float cas_add(_Atomic float *p, float d)
{
	float o = ald(p);
	while (!atomic_compare_exchange_weak_explicit(p, &o, o + d, HOG_RLX, HOG_RLX))
		;
	return o;
}

/* Raises *p to at least v; returns the value before. */
HOG_INLINE float cas_max(_Atomic float *p, float v)
{
	float o = ald(p);
	while (o < v && !atomic_compare_exchange_weak_explicit(p, &o, v, HOG_RLX, HOG_RLX))
		;
	return o;
}

typedef struct hog_barrier {
	_Alignas(64) atomic_uint count;
	_Alignas(64) atomic_uint gen;
	unsigned n;
} hog_barrier;

static inline void hog_barrier_init(hog_barrier *b, unsigned n)
{
	atomic_init(&b->count, 0);
	atomic_init(&b->gen, 0);
	b->n = n;
}

static inline void hog_barrier_wait(hog_barrier *b)
{
	unsigned g = atomic_load_explicit(&b->gen, memory_order_acquire);
	if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) + 1 == b->n) {
		atomic_store_explicit(&b->count, 0, memory_order_relaxed);
		atomic_fetch_add_explicit(&b->gen, 1, memory_order_release);
		return;
	}
	for (unsigned spins = 0; atomic_load_explicit(&b->gen, memory_order_acquire) == g; spins++) {
		if (spins < 2000)
			hog_cpu_relax();
		else
			sched_yield();
	}
}

typedef struct hog_spin {
	_Alignas(64) atomic_int v;
} hog_spin;

HOG_INLINE void hog_lock_int(atomic_int *l)
{
	for (unsigned spins = 0;;) {
		if (!atomic_exchange_explicit(l, 1, memory_order_acquire))
			return;
		while (atomic_load_explicit(l, memory_order_relaxed)) {
			if (++spins < 1000)
				hog_cpu_relax();
			else
				sched_yield();
		}
	}
}

HOG_INLINE void hog_unlock_int(atomic_int *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

static inline void hog_spin_lock(hog_spin *l)
{
	hog_lock_int(&l->v);
}

static inline void hog_spin_unlock(hog_spin *l)
{
	hog_unlock_int(&l->v);
}

#endif
