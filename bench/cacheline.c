/* The cost of moving one cache line between two cores, which bounds what
 * threads sharing a model can do (every result file records it: machine_header
 * in bench/common.sh). Two threads, pinned to CPUs A and B, hand one line back
 * and forth: A writes an odd number and waits for the next even one, B waits
 * for the odd one and writes the even. Each round trip moves the line twice; the
 * figure is the median over REPS runs of elapsed / (2 * round trips), in ns.
 *
 *   cacheline [A B [ROUNDS [REPS]]]     (default: CPUs 0 and 1, 200000, 5)
 * Prints: "cache-line transfer: 61.2 ns (CPU 0 <-> CPU 1, median of 5 runs)". */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(64) _Atomic long line;
static long rounds = 200000;

static int pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *responder(void *arg)
{
	if (pin(*(int *)arg))
		return (void *)1;
	for (long i = 0; i < rounds; i++) {
		while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&line, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int a = argc > 2 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
	if (argc > 3)
		rounds = atol(argv[3]);
	int reps = argc > 4 ? atoi(argv[4]) : 5;
	if (rounds < 1 || reps < 1 || reps > 99) {
		fprintf(stderr, "usage: cacheline [A B [ROUNDS [REPS 1..99]]]\n");
		return 2;
	}
	/* both CPUs must exist and be ours before the responder starts: a responder
	 * that cannot pin never answers, and the loop below would wait for ever */
	if (pin(b) || pin(a)) {
		fprintf(stderr, "cacheline: cannot run on CPUs %d and %d\n", a, b);
		return 1;
	}
	double ns[99];
	for (int r = 0; r < reps; r++) {
		atomic_store(&line, 0);
		pthread_t t;
		if (pthread_create(&t, NULL, responder, &b) || pin(a)) {
			fprintf(stderr, "cacheline: cannot run on CPUs %d and %d\n", a, b);
			return 1;
		}
		double t0 = now();
		for (long i = 0; i < rounds; i++) {
			atomic_store_explicit(&line, 2 * i + 1, memory_order_release);
			while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 2)
				;
		}
		double el = now() - t0;
		void *rc;
		pthread_join(t, &rc);
		if (rc) {
			fprintf(stderr, "cacheline: cannot pin to CPU %d\n", b);
			return 1;
		}
		ns[r] = el * 1e9 / (2.0 * rounds);
	}
	qsort(ns, reps, sizeof *ns, cmp);
	printf("cache-line transfer: %.1f ns (CPU %d <-> CPU %d, median of %d runs)\n", ns[reps / 2], a, b, reps);
	return 0;
}
