/* Synchronization for the worker team, built on C11 atomics.
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
 *   hog_spin_lock(l) / hog_spin_unlock(l)   test-and-test-and-set lock on an atomic_int
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

static inline void hog_spin_lock(hog_spin *l)
{
	for (unsigned spins = 0;;) {
		if (!atomic_exchange_explicit(&l->v, 1, memory_order_acquire))
			return;
		while (atomic_load_explicit(&l->v, memory_order_relaxed)) {
			if (++spins < 1000)
				hog_cpu_relax();
			else
				sched_yield();
		}
	}
}

static inline void hog_spin_unlock(hog_spin *l)
{
	atomic_store_explicit(&l->v, 0, memory_order_release);
}

#endif
