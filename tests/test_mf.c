/* Matrix factorization: the per-rating kernel against finite differences of
 * the MF loss and against a plain scalar AdaGrad written here; every mode's
 * update equal to serial's on one thread; the atomic write path losing no
 * update under two threads (a counting test); the grid scheduler never
 * letting two workers hold one row or column band (checked here with our own
 * counters, independently of the scheduler's self-check); and whole training
 * runs through the engine: serial bit-reproducible, every mode at 2 threads
 * within 1% of serial's test RMSE, unseen users and items, save/load and
 * resume round trips, and the wrong kind of data refused. */
#include "hogwild.h"
#include "model/mf.h"
#include "model/model.h"
#include "train/mf_grid.h"
#include "train/mf_kernel.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------- one user, one item */

#define K 5
#define KP 16

typedef struct toy {
	_Alignas(64) float P[KP], Q[KP];
	float bu, bi, gu, gi, gbu, gbi;
	atomic_int ul, il;
	hog_spin gl;
	mf_shared s;
	_Alignas(64) float cp[KP], cq[KP];
} toy;

static void toy_init(toy *t, float l2, float mu)
{
	memset(t, 0, sizeof *t);
	for (int d = 0; d < K; d++) {
		t->P[d] = 0.1f * (float)(d + 1) - 0.2f;
		t->Q[d] = 0.3f - 0.07f * (float)d;
	}
	t->bu = 0.25f;
	t->bi = -0.4f;
	t->gu = t->gi = t->gbu = t->gbi = 1.0f;
	atomic_init(&t->ul, 0);
	atomic_init(&t->il, 0);
	atomic_init(&t->gl.v, 0);
	t->s = (mf_shared){ .P = t->P, .Q = t->Q, .bu = &t->bu, .bi = &t->bi, .gu = &t->gu, .gi = &t->gi,
	                    .gbu = &t->gbu, .gbi = &t->gbi, .k = K, .kp = KP, .mu = mu, .l2 = l2,
	                    .inv_k = 1.0f / K, .cb = 1.0f, .ulock = &t->ul, .ilock = &t->il, .glock = &t->gl };
}

/* The MF objective of one rating of weight w, in double: 0.5 w e^2 + 0.5 l2
 * |params|^2 (the weight multiplies the error's term only). */
static double toy_f(const double *x, int bias, double mu, double l2, double r, double w)
{
	const double *p = x, *q = x + K;
	double dot = 0, reg = 0;
	for (int d = 0; d < K; d++) {
		dot += p[d] * q[d];
		reg += p[d] * p[d] + q[d] * q[d];
	}
	double pred = dot;
	if (bias) {
		pred += mu + x[2 * K] + x[2 * K + 1];
		reg += x[2 * K] * x[2 * K] + x[2 * K + 1] * x[2 * K + 1];
	}
	return 0.5 * w * (pred - r) * (pred - r) + 0.5 * l2 * reg;
}

static void toy_vec(const toy *t, double *x)
{
	for (int d = 0; d < K; d++) {
		x[d] = t->P[d];
		x[K + d] = t->Q[d];
	}
	x[2 * K] = t->bu;
	x[2 * K + 1] = t->bi;
}

/* An SGD step is old - lr * gradient at the old point: (old - new) / lr must
 * be the finite-difference gradient of the objective, for a rating of weight
 * 1 and of weight 2.5 (example weights, issue 24). */
static void test_gradient_fd(void)
{
	for (int c = 0; c < 4; c++) {
		const int bias = c & 1;
		const float lr = 0.01f, l2 = 0.05f, mu = 3.5f, r = 4.0f, wt = c < 2 ? 1.0f : 2.5f;
		toy t;
		toy_init(&t, l2, mu);
		double x[2 * K + 2], x1[2 * K + 2];
		toy_vec(&t, x);
		float loss = bias ? mf_update(HOG_MODE_SERIAL, HOG_RULE_SGD, 1, &t.s, t.cp, t.cq, 0, 0, r, wt, lr)
		                  : mf_update(HOG_MODE_SERIAL, HOG_RULE_SGD, 0, &t.s, t.cp, t.cq, 0, 0, r, wt, lr);
		toy_vec(&t, x1);
		/* the returned loss is the weighted squared error before the step */
		double f0 = toy_f(x, bias, mu, 0, r, wt);
		CU_ASSERT_DOUBLE_EQUAL(loss, f0, 1e-5 * (1 + f0));
		int n = bias ? 2 * K + 2 : 2 * K;
		for (int j = 0; j < n; j++) {
			const double h = 1e-5;
			double xp[2 * K + 2], xm[2 * K + 2];
			memcpy(xp, x, sizeof xp);
			memcpy(xm, x, sizeof xm);
			xp[j] += h;
			xm[j] -= h;
			double fd = (toy_f(xp, bias, mu, l2, r, wt) - toy_f(xm, bias, mu, l2, r, wt)) / (2 * h);
			double step = (x[j] - x1[j]) / lr;
			CU_ASSERT_DOUBLE_EQUAL(step, fd, 2e-4 * (1 + fabs(fd)));
		}
		/* padding lanes stay zero */
		for (int d = K; d < KP; d++)
			CU_ASSERT(t.P[d] == 0 && t.Q[d] == 0);
		if (!bias)
			CU_ASSERT(t.bu == 0.25f && t.bi == -0.4f);
	}
}

/* Per-row AdaGrad (LIBMF, Chin et al. 2015), by hand: steps lr/sqrt(G) with
 * G from before the rating, then G += mean of the row's squared gradient. */
static void test_adagrad_by_hand(void)
{
	const float lr = 0.1f, l2 = 0.05f, mu = 3.0f;
	const float rs[3] = { 4.0f, 1.0f, 5.0f };
	toy t;
	toy_init(&t, l2, mu);
	double p[K], q[K], bu = t.bu, bi = t.bi, G[4] = { 1, 1, 1, 1 };
	for (int d = 0; d < K; d++) {
		p[d] = t.P[d];
		q[d] = t.Q[d];
	}
	for (int it = 0; it < 3; it++) {
		mf_update(HOG_MODE_SERIAL, HOG_RULE_ADAGRAD, 1, &t.s, t.cp, t.cq, 0, 0, rs[it], 1.0f, lr);
		double dot = 0;
		for (int d = 0; d < K; d++)
			dot += p[d] * q[d];
		double e = rs[it] - (mu + bu + bi + dot), sp = 0, sq = 0;
		double gp[K], gq[K];
		for (int d = 0; d < K; d++) {
			gp[d] = l2 * p[d] - e * q[d];
			gq[d] = l2 * q[d] - e * p[d];
			sp += gp[d] * gp[d];
			sq += gq[d] * gq[d];
		}
		for (int d = 0; d < K; d++) {
			p[d] -= lr / sqrt(G[0]) * gp[d];
			q[d] -= lr / sqrt(G[1]) * gq[d];
		}
		double gbu = l2 * bu - e, gbi = l2 * bi - e;
		bu -= lr / sqrt(G[2]) * gbu;
		bi -= lr / sqrt(G[3]) * gbi;
		G[0] += sp / K;
		G[1] += sq / K;
		G[2] += gbu * gbu;
		G[3] += gbi * gbi;
	}
	for (int d = 0; d < K; d++) {
		CU_ASSERT_DOUBLE_EQUAL(t.P[d], p[d], 1e-5);
		CU_ASSERT_DOUBLE_EQUAL(t.Q[d], q[d], 1e-5);
	}
	CU_ASSERT_DOUBLE_EQUAL(t.bu, bu, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(t.bi, bi, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(t.gu, G[0], 1e-4);
	CU_ASSERT_DOUBLE_EQUAL(t.gi, G[1], 1e-4);
	CU_ASSERT_DOUBLE_EQUAL(t.gbu, G[2], 1e-4);
	CU_ASSERT_DOUBLE_EQUAL(t.gbi, G[3], 1e-4);
}

/* On one thread every mode is the same arithmetic as serial. */
static float toy_run(enum hog_mode mode, enum hog_rule rule, toy *t)
{
	static const float rs[4] = { 4, 2, 5, 3 };
	float loss = 0;
	for (int it = 0; it < 4; it++) {
#define ONE(M)                                                                                  \
	(rule == HOG_RULE_SGD ? mf_update(M, HOG_RULE_SGD, 1, &t->s, t->cp, t->cq, 0, 0, rs[it], 1.0f, 0.05f) \
	                      : mf_update(M, HOG_RULE_ADAGRAD, 1, &t->s, t->cp, t->cq, 0, 0, rs[it], 1.0f, 0.05f))
		switch (mode) {
		case HOG_MODE_SERIAL: loss += ONE(HOG_MODE_SERIAL); break;
		case HOG_MODE_LOCKFREE: loss += ONE(HOG_MODE_LOCKFREE); break;
		case HOG_MODE_ATOMIC: loss += ONE(HOG_MODE_ATOMIC); break;
		case HOG_MODE_STRIPED: loss += ONE(HOG_MODE_STRIPED); break;
		case HOG_MODE_LOCKED: loss += ONE(HOG_MODE_LOCKED); break;
		default: loss += ONE(HOG_MODE_GRID); break;
		}
#undef ONE
	}
	return loss;
}

static void test_modes_agree_one_thread(void)
{
	static const enum hog_mode modes[] = { HOG_MODE_LOCKFREE, HOG_MODE_ATOMIC, HOG_MODE_STRIPED,
	                                       HOG_MODE_LOCKED, HOG_MODE_GRID };
	for (int rule = 0; rule < 2; rule++) {
		toy ref, t;
		toy_init(&ref, 0.05f, 3.0f);
		float lref = toy_run(HOG_MODE_SERIAL, rule, &ref);
		for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
			toy_init(&t, 0.05f, 3.0f);
			float l = toy_run(modes[m], rule, &t);
			CU_ASSERT_DOUBLE_EQUAL(l, lref, 1e-6);
			for (int d = 0; d < KP; d++) {
				CU_ASSERT_DOUBLE_EQUAL(t.P[d], ref.P[d], 1e-6);
				CU_ASSERT_DOUBLE_EQUAL(t.Q[d], ref.Q[d], 1e-6);
			}
			CU_ASSERT_DOUBLE_EQUAL(t.bu, ref.bu, 1e-6);
			CU_ASSERT_DOUBLE_EQUAL(t.gu, ref.gu, 1e-6);
			/* the locks are free again */
			CU_ASSERT(atomic_load(&t.ul) == 0 && atomic_load(&t.il) == 0 && atomic_load(&t.gl.v) == 0);
		}
	}
}

/* atomic mode's write path (mf_cas_add, as the kernel applies every
 * coordinate's change): two threads add 1 to one row 200000 times each; the
 * row must count every add (floats are exact integers below 2^24). */
enum { COUNT_N = 200000 };

static void *count_thread(void *row)
{
	for (int it = 0; it < COUNT_N; it++)
		for (int d = 0; d < KP; d++)
			mf_cas_add((float *)row + d, 1.0f);
	return NULL;
}

/* (pthreads, not OpenMP, in these tests: ThreadSanitizer sees pthread_create
 * and join but not libgomp's futexes) */
static void test_atomic_counts(void)
{
	_Alignas(64) float row[KP] = { 0 };
	pthread_t th[2];
	for (int k = 0; k < 2; k++)
		CU_ASSERT_FATAL(pthread_create(&th[k], NULL, count_thread, row) == 0);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	for (int d = 0; d < KP; d++)
		CU_ASSERT_EQUAL(row[d], 2.0f * COUNT_N);
}

/* ------------------------------------------------------------- the grid */

/* Four workers hammer a 5 x 5 grid of uneven blocks. Each holder marks its row
 * and column band in counters of ours (a second holder would see a mark) and
 * writes plain data owned by its bands (ThreadSanitizer, under make tsan,
 * checks that ownership passes with happens-before). */
enum { GX_G = 5, GX_T = 4, GX_TAKES = 20000 };
typedef struct gx {
	hog_mf_grid g;
	uint64_t size[GX_G * GX_G];
	atomic_int rowmark[GX_G], colmark[GX_G], clash;
	atomic_uint_fast64_t got;
	uint64_t rowdata[GX_G], coldata[GX_G], done[GX_G * GX_G];
} gx;
typedef struct gx_arg {
	gx *x;
	int w;
} gx_arg;

static void *gx_thread(void *arg)
{
	gx *x = ((gx_arg *)arg)->x;
	const int w = ((gx_arg *)arg)->w, G = GX_G;
	uint64_t seed = 1000 + (uint64_t)w;
	for (int n = 0; n < GX_TAKES;) {
		uint64_t start, avail;
		int64_t b = hog_mf_grid_take(&x->g, w, &start, &avail);
		if (b < 0)
			continue;
		n++;
		int r = (int)(b / G), c = (int)(b % G);
		if (atomic_fetch_add(&x->rowmark[r], 1) != 0 || atomic_fetch_add(&x->colmark[c], 1) != 0)
			atomic_fetch_add(&x->clash, 1);
		if (b == 7 || avail == 0 || start + avail != x->size[b])
			atomic_fetch_add(&x->clash, 1);
		x->rowdata[r]++; /* plain: only the band's holder writes it */
		x->coldata[c]++;
		uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
		z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
		uint64_t todo = 1 + (z >> 40) % 40;
		if (todo > avail)
			todo = avail;
		x->done[b] += todo;
		atomic_fetch_sub(&x->rowmark[r], 1);
		atomic_fetch_sub(&x->colmark[c], 1);
		hog_mf_grid_give(&x->g, w, (uint64_t)b, todo);
		atomic_fetch_add(&x->got, 1);
	}
	return NULL;
}

static void test_grid_exclusive(void)
{
	enum { G = GX_G, T = GX_T, TAKES = GX_TAKES };
	gx *x = calloc(1, sizeof *x);
	CU_ASSERT_FATAL(x != NULL);
	uint64_t *size = x->size, *rowdata = x->rowdata, *coldata = x->coldata, *done = x->done;
	for (int b = 0; b < G * G; b++)
		size[b] = 50 + (uint64_t)(b * 37 % 101);
	size[7] = 0; /* an empty block is never handed out */
	hog_mf_grid *gp = &x->g;
	CU_ASSERT_FATAL(hog_mf_grid_init(gp, G, size, 42) == 0);
	for (int k = 0; k < G; k++) {
		atomic_init(&x->rowmark[k], 0);
		atomic_init(&x->colmark[k], 0);
	}
	atomic_init(&x->clash, 0);
	atomic_init(&x->got, 0);
	pthread_t th[T];
	gx_arg args[T];
	for (int k = 0; k < T; k++) {
		args[k] = (gx_arg){ x, k };
		CU_ASSERT_FATAL(pthread_create(&th[k], NULL, gx_thread, &args[k]) == 0);
	}
	for (int k = 0; k < T; k++)
		pthread_join(th[k], NULL);
	CU_ASSERT_EQUAL(atomic_load(&x->clash), 0);
	CU_ASSERT_EQUAL(gp->conflicts, 0);
	CU_ASSERT_EQUAL(atomic_load(&x->got), (uint64_t)T * TAKES);
	uint64_t rsum = 0, csum = 0;
	for (int k = 0; k < G; k++) {
		rsum += rowdata[k];
		csum += coldata[k];
	}
	CU_ASSERT_EQUAL(rsum, (uint64_t)T * TAKES);
	CU_ASSERT_EQUAL(csum, (uint64_t)T * TAKES);
	/* every block was worked (the even pace is checked on one thread below:
	 * here a worker descheduled while holding a block holds its bands back) */
	double lo = 1e30, hi = 0;
	for (int b = 0; b < G * G; b++) {
		CU_ASSERT_EQUAL(gp->done[b], done[b]);
		CU_ASSERT(gp->cursor[b] == (size[b] ? done[b] % size[b] : 0));
		if (!size[b])
			continue;
		double pass = (double)done[b] / (double)size[b];
		lo = pass < lo ? pass : lo;
		hi = pass > hi ? pass : hi;
	}
	CU_ASSERT(lo > 1.0 && hi >= lo);
	hog_mf_grid_free(gp);
	free(x);
}

/* One worker taking and giving back random amounts: the least worked block
 * always goes first, so every block's progress (in passes) stays within one
 * pass plus one visit of every other's. */
static void test_grid_even(void)
{
	enum { G = 4 };
	uint64_t size[G * G], start, avail, seed = 9;
	for (int b = 0; b < G * G; b++)
		size[b] = 30 + (uint64_t)(b * 53 % 71);
	hog_mf_grid g;
	CU_ASSERT_FATAL(hog_mf_grid_init(&g, G, size, 3) == 0);
	double worst = 0;
	for (int n = 0; n < 20000; n++) {
		int64_t b = hog_mf_grid_take(&g, 0, &start, &avail);
		CU_ASSERT_FATAL(b >= 0);
		uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
		z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
		uint64_t todo = 1 + (z >> 40) % 25;
		hog_mf_grid_give(&g, 0, (uint64_t)b, todo < avail ? todo : avail);
		double lo = 1e30, hi = 0;
		for (int k = 0; k < G * G; k++) {
			double pass = (double)g.done[k] / (double)size[k];
			lo = pass < lo ? pass : lo;
			hi = pass > hi ? pass : hi;
		}
		worst = hi - lo > worst ? hi - lo : worst;
	}
	CU_ASSERT(worst < 1.0); /* a visit of at most 25 ratings is under a pass of the smallest (30) */
	CU_ASSERT_EQUAL(g.conflicts, 0);
	hog_mf_grid_free(&g);
}

/* With G = 2, a worker holding block (0,0) leaves only (1,1) to another, and
 * nothing to a third; a wrong give is counted. */
static void test_grid_blocked(void)
{
	uint64_t size[4] = { 10, 10, 10, 10 }, start, avail;
	hog_mf_grid g;
	CU_ASSERT_FATAL(hog_mf_grid_init(&g, 2, size, 1) == 0);
	int64_t a = hog_mf_grid_take(&g, 0, &start, &avail);
	CU_ASSERT(a >= 0 && start == 0 && avail == 10);
	int64_t b = hog_mf_grid_take(&g, 1, &start, &avail);
	CU_ASSERT(b == 3 - a);
	CU_ASSERT(hog_mf_grid_take(&g, 2, &start, &avail) == -1);
	hog_mf_grid_give(&g, 0, (uint64_t)a, 4);
	hog_mf_grid_give(&g, 1, (uint64_t)b, 10);
	CU_ASSERT(g.cursor[b] == 0 && g.done[b] == 10 && g.cursor[a] == 4);
	CU_ASSERT_EQUAL(g.conflicts, 0);
	/* the least worked block is preferred: not a (4 done) nor b (10), a fresh one */
	int64_t c = hog_mf_grid_take(&g, 2, &start, &avail);
	CU_ASSERT_FATAL(c >= 0);
	CU_ASSERT(c != a && c != b && start == 0);
	hog_mf_grid_give(&g, 0, (uint64_t)c, 1); /* worker 0 does not hold it */
	CU_ASSERT_EQUAL(g.conflicts, 1);
	/* the last fresh block goes before the ones worked */
	int64_t d = hog_mf_grid_take(&g, 0, &start, &avail);
	CU_ASSERT(d == 3 - c && start == 0 && avail == 10);
	hog_mf_grid_free(&g);
}

static void test_layout(void)
{
	hog_mf_layout l;
	const uint64_t shape[4] = { 3, 2, 20, 32 };
	CU_ASSERT_FATAL(hog_mf_layout_get(&l, shape, HOG_MF_BIASES, HOG_RULE_ADAGRAD));
	CU_ASSERT_EQUAL(l.P, 0);
	CU_ASSERT_EQUAL(l.Q, 96);
	CU_ASSERT_EQUAL(l.bu, 160);
	CU_ASSERT_EQUAL(l.bi, 176);
	CU_ASSERT_EQUAL(l.gu, 192);
	CU_ASSERT_EQUAL(l.gbi, 240);
	CU_ASSERT_EQUAL(l.total, 256);
	CU_ASSERT(hog_mf_layout_get(&l, shape, 0, HOG_RULE_SGD) && l.total == 160 && l.bu == UINT64_MAX);
	const uint64_t bad[4] = { 3, 2, 20, 16 };
	CU_ASSERT(!hog_mf_layout_get(&l, bad, 0, HOG_RULE_SGD));
	/* unseen ids predict mu + the biases that exist */
	float params[256] = { 0 };
	hog_mf_layout_get(&l, shape, HOG_MF_BIASES, HOG_RULE_SGD);
	params[l.bu + 1] = 0.5f;
	params[l.bi + 0] = -0.25f;
	params[l.P + 1 * 32] = 2;
	params[l.Q + 0] = 3;
	CU_ASSERT_DOUBLE_EQUAL(hog_mf_predict_one(&l, params, 3.0f, 1, 0), 3.0 + 0.5 - 0.25 + 6, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(hog_mf_predict_one(&l, params, 3.0f, 7, 0), 3.0 - 0.25, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(hog_mf_predict_one(&l, params, 3.0f, 1, 9), 3.5, 1e-6);
}

/* ------------------------------------------------------ whole runs */

static hog_data *mf_tr, *mf_te, *mf_sparse;

static int mf_make(void)
{
	hog_err err;
	hog_gen_opts g = { .kind = HOG_KIND_RATINGS, .seed = 5, .examples = 60000, .users = 800, .items = 300,
	                   .rank = 5, .noise = 0.3 };
	const char *all = tu_path("mf_all.lmdb");
	char tr[512], te[512];
	snprintf(tr, sizeof tr, "%s", tu_path("mf_tr.lmdb"));
	snprintf(te, sizeof te, "%s", tu_path("mf_te.lmdb"));
	if (hog_gen(all, &g, &err) || hog_data_split(all, tr, te, 0.1, 3, &err) || hog_data_load(&mf_tr, tr, &err) ||
	    hog_data_load(&mf_te, te, &err)) {
		fprintf(stderr, "mf_make: %s\n", err.msg);
		return -1;
	}
	hog_gen_opts sp = { .kind = HOG_KIND_SPARSE, .seed = 2, .examples = 500, .features = 50, .nnz_per_example = 5 };
	const char *sd = tu_path("mf_sparse.lmdb");
	if (hog_gen(sd, &sp, &err) || hog_data_load(&mf_sparse, sd, &err)) {
		fprintf(stderr, "mf_make: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int mf_clean(void)
{
	hog_data_free(mf_tr);
	hog_data_free(mf_te);
	hog_data_free(mf_sparse);
	return 0;
}

static void mf_opts(hog_train_opts *o, enum hog_mode mode, enum hog_rule rule, int threads)
{
	hog_train_opts_init(o);
	o->model = HOG_MODEL_MF;
	o->mode = mode;
	o->rule = rule;
	o->threads = threads;
	o->mf.rank = 8;
	o->mf.biases = 1;
	o->epochs = 20; /* near convergence: seeds then move the test RMSE by ~0.2% */
	o->lr = rule == HOG_RULE_SGD ? 0.05 : 0;
	o->seed = 7;
	o->bind = HOG_BIND_NONE;
	o->round_examples = 4096;
}

static hog_model *mf_run(const hog_train_opts *o, hog_train_result *res)
{
	hog_err err;
	hog_model *m = NULL;
	int rc = hog_train(mf_tr, mf_te, o, &m, res, &err);
	if (rc)
		fprintf(stderr, "hog_train: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return m;
}

static void test_serial_reproducible(void)
{
	for (int rule = 0; rule < 2; rule++) {
		hog_train_opts o;
		hog_train_result r1, r2, r3;
		mf_opts(&o, HOG_MODE_SERIAL, rule, 1);
		o.epochs = 3;
		hog_model *a = mf_run(&o, &r1), *b = mf_run(&o, &r2);
		o.seed = 8;
		hog_model *c = mf_run(&o, &r3);
		CU_ASSERT_FATAL(a && b && c);
		CU_ASSERT_EQUAL(a->nparams, b->nparams);
		CU_ASSERT(memcmp(a->params, b->params, a->nparams * sizeof(float)) == 0);
		CU_ASSERT(memcmp(a->params, c->params, a->nparams * sizeof(float)) != 0);
		CU_ASSERT(r1.last.test_rmse == r2.last.test_rmse);
		/* training did something: well below predicting the mean (sd ~0.9) */
		CU_ASSERT(r1.last.test_rmse < 0.6);
		CU_ASSERT(r1.last.test_mae < r1.last.test_rmse && r1.last.test_mae > 0.1);
		CU_ASSERT_DOUBLE_EQUAL(r1.last.test_loss, 0.5 * r1.last.test_rmse * r1.last.test_rmse, 1e-9);
		CU_ASSERT(isnan(r1.last.test_acc) && isnan(r1.last.test_auc));
		/* the engine's figures agree with evaluating the model */
		hog_eval ev;
		hog_err err;
		CU_ASSERT_EQUAL(hog_model_eval(a, mf_te, &ev, &err), 0);
		CU_ASSERT_DOUBLE_EQUAL(ev.rmse, r1.last.test_rmse, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(ev.mae, r1.last.test_mae, 1e-9);
		hog_model_free(a);
		hog_model_free(b);
		hog_model_free(c);
	}
}

static void test_modes_match_serial(void)
{
	static const enum hog_mode modes[] = { HOG_MODE_LOCKFREE, HOG_MODE_ATOMIC, HOG_MODE_STRIPED,
	                                       HOG_MODE_LOCKED, HOG_MODE_GRID };
	for (int rule = 0; rule < 2; rule++) {
		hog_train_opts o;
		hog_train_result r;
		mf_opts(&o, HOG_MODE_SERIAL, rule, 1);
		hog_model *m = mf_run(&o, &r);
		hog_model_free(m);
		double ref = r.last.test_rmse;
		CU_ASSERT(ref < 0.5);
		for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
			mf_opts(&o, modes[k], rule, 2);
			m = mf_run(&o, &r);
			hog_model_free(m);
			CU_ASSERT_EQUAL(r.threads, 2);
			if (fabs(r.last.test_rmse - ref) > 0.01 * ref)
				fprintf(stderr, "mf %s %s: test RMSE %.5f, serial %.5f\n", hog_mode_name(modes[k]),
				        hog_rule_name(rule), r.last.test_rmse, ref);
			CU_ASSERT(fabs(r.last.test_rmse - ref) <= 0.01 * ref);
			CU_ASSERT(r.last.examples == mf_tr->n);
		}
	}
}

/* A training set whose last user and item have no rating, and a test set with
 * those and ids beyond the model: they get mu plus the biases that exist. */
static void test_unseen(void)
{
	hog_err err;
	const char *trp = tu_path("mf_unseen_tr.lmdb"), *tep = tu_path("mf_unseen_te.lmdb");
	hog_writer_opts wo = { .kind = HOG_KIND_RATINGS, .task = HOG_TASK_RATINGS, .users = 4, .items = 4 };
	hog_writer *w;
	CU_ASSERT_FATAL(hog_writer_open(&w, trp, &wo, &err) == 0);
	static const uint32_t U[] = { 0, 0, 1, 1, 2, 2, 0 }, I[] = { 0, 1, 1, 2, 0, 2, 2 };
	static const float R[] = { 5, 3, 4, 2, 1, 4, 3 };
	for (int j = 0; j < 7; j++)
		CU_ASSERT(hog_writer_add_rating(w, U[j], I[j], R[j], &err) == 0);
	CU_ASSERT_FATAL(hog_writer_commit(w, &err) == 0);
	hog_writer_opts wt = { .kind = HOG_KIND_RATINGS, .task = HOG_TASK_RATINGS, .users = 10, .items = 10 };
	CU_ASSERT_FATAL(hog_writer_open(&w, tep, &wt, &err) == 0);
	static const uint32_t TU[] = { 3, 0, 9, 3, 1 }, TI[] = { 0, 3, 1, 9, 1 };
	for (int j = 0; j < 5; j++)
		CU_ASSERT(hog_writer_add_rating(w, TU[j], TI[j], 3, &err) == 0);
	CU_ASSERT_FATAL(hog_writer_commit(w, &err) == 0);
	hog_data *tr, *te;
	CU_ASSERT_FATAL(hog_data_load(&tr, trp, &err) == 0 && hog_data_load(&te, tep, &err) == 0);
	for (int bias = 0; bias < 2; bias++) {
		hog_train_opts o;
		mf_opts(&o, HOG_MODE_SERIAL, HOG_RULE_SGD, 1);
		o.mf.biases = bias;
		o.lr = 0.05;
		hog_model *m = NULL;
		CU_ASSERT_FATAL(hog_train(tr, te, &o, &m, NULL, &err) == 0);
		float pred[5];
		CU_ASSERT_FATAL(hog_model_predict(m, te, pred, &err) == 0);
		hog_mf_layout l;
		CU_ASSERT_FATAL(hog_mf_layout_get(&l, m->shape, m->flags, m->rule));
		hog_model_info info;
		hog_model_info_get(m, &info);
		CU_ASSERT(info.kind == HOG_MODEL_MF && info.users == 4 && info.items == 4 && info.rank == 8 &&
		          info.biases == bias);
		double mu = 22.0 / 7;
		CU_ASSERT_DOUBLE_EQUAL(info.mean, mu, 1e-6);
		const float *bi = m->params + (bias ? l.bi : 0), *bu = m->params + (bias ? l.bu : 0);
		/* user 3 (no rating) x item 0; user 0 x item 3 (no rating); ids beyond */
		CU_ASSERT_DOUBLE_EQUAL(pred[0], bias ? mu + bi[0] : mu, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(pred[1], bias ? mu + bu[0] : mu, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(pred[2], bias ? mu + bi[1] : mu, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(pred[3], mu, 1e-6);
		/* a seen pair: p.q (plus mu and the biases with them) */
		const float *p1 = m->params + l.P + 1 * l.kp, *q1 = m->params + l.Q + 1 * l.kp;
		double dot = 0;
		for (uint64_t d = 0; d < l.k; d++)
			dot += (double)p1[d] * q1[d];
		CU_ASSERT(fabs(dot) > 1e-3);
		CU_ASSERT_DOUBLE_EQUAL(pred[4], (bias ? mu + bu[1] + bi[1] : 0) + dot, 1e-5);
		if (bias)
			CU_ASSERT(bu[3] == 0 && bi[3] == 0);
		for (uint64_t d = 0; d < l.kp; d++)
			CU_ASSERT(m->params[l.P + 3 * l.kp + d] == 0 && m->params[l.Q + 3 * l.kp + d] == 0);
		hog_model_free(m);
	}
	hog_data_free(tr);
	hog_data_free(te);
}

static void test_save_load_resume(void)
{
	hog_err err;
	hog_train_opts o;
	hog_train_result r;
	mf_opts(&o, HOG_MODE_SERIAL, HOG_RULE_ADAGRAD, 1);
	o.epochs = 4;
	hog_model *full = mf_run(&o, &r);
	CU_ASSERT_FATAL(full != NULL);
	/* save / load: the same numbers and shapes, the same predictions */
	const char *path = tu_path("mf.model");
	CU_ASSERT_FATAL(hog_model_save(full, path, &err) == 0);
	hog_model *back = NULL;
	CU_ASSERT_FATAL(hog_model_load(&back, path, &err) == 0);
	CU_ASSERT(back->kind == HOG_MODEL_MF && back->nparams == full->nparams && back->flags == full->flags &&
	          back->aux == full->aux && memcmp(back->shape, full->shape, sizeof full->shape) == 0);
	CU_ASSERT(memcmp(back->params, full->params, full->nparams * sizeof(float)) == 0);
	float *p1 = malloc(mf_te->n * sizeof *p1), *p2 = malloc(mf_te->n * sizeof *p2);
	CU_ASSERT_FATAL(p1 && p2);
	CU_ASSERT(hog_model_predict(full, mf_te, p1, &err) == 0 && hog_model_predict(back, mf_te, p2, &err) == 0);
	CU_ASSERT(memcmp(p1, p2, mf_te->n * sizeof *p1) == 0);
	free(p1);
	free(p2);
	hog_model_free(back);
	/* 2 epochs with a checkpoint, then resume to 4: the straight run, bit for bit */
	const char *ck = tu_path("mf.ckpt");
	o.epochs = 2;
	o.checkpoint = ck;
	hog_model *half = mf_run(&o, &r);
	hog_model_free(half);
	o.epochs = 4;
	o.checkpoint = NULL;
	o.resume = ck;
	hog_model *res = mf_run(&o, &r);
	CU_ASSERT_FATAL(res != NULL);
	CU_ASSERT(memcmp(res->params, full->params, full->nparams * sizeof(float)) == 0);
	CU_ASSERT_EQUAL(r.epochs_done, 4);
	hog_model_free(res);
	/* a checkpoint of another rank does not fit */
	o.mf.rank = 9;
	hog_model *bad = NULL;
	CU_ASSERT_NOT_EQUAL(hog_train(mf_tr, NULL, &o, &bad, NULL, &err), 0);
	hog_model_free(bad);
	hog_model_free(full);
}

/* data split --per-user: every user of the held-out side has ratings on the
 * training side (a plain split at 0.9 leaves some without), nothing is lost
 * or duplicated, and a sparse set is refused. */
static void test_split_per_user(void)
{
	hog_err err;
	const char *all = tu_path("mf_all.lmdb");
	char a[512], b[512], pa[512], pb[512];
	snprintf(a, sizeof a, "%s", tu_path("mf_pu_a.lmdb"));
	snprintf(b, sizeof b, "%s", tu_path("mf_pu_b.lmdb"));
	snprintf(pa, sizeof pa, "%s", tu_path("mf_pl_a.lmdb"));
	snprintf(pb, sizeof pb, "%s", tu_path("mf_pl_b.lmdb"));
	CU_ASSERT_FATAL(hog_data_split_users(all, a, b, 0.9, 4, &err) == 0);
	CU_ASSERT_FATAL(hog_data_split(all, pa, pb, 0.9, 4, &err) == 0);
	hog_data *d, *da, *db, *qa, *qb;
	CU_ASSERT_FATAL(hog_data_load(&d, all, &err) == 0 && hog_data_load(&da, a, &err) == 0 &&
	                hog_data_load(&db, b, &err) == 0 && hog_data_load(&qa, pa, &err) == 0 &&
	                hog_data_load(&qb, pb, &err) == 0);
	CU_ASSERT_EQUAL(da->n + db->n, d->n);
	CU_ASSERT(da->meta.users == d->meta.users && db->meta.items == d->meta.items);
	uint64_t U = d->meta.users;
	uint8_t *in_a = calloc(U, 1), *in_qa = calloc(U, 1);
	CU_ASSERT_FATAL(in_a && in_qa);
	for (uint64_t j = 0; j < da->n; j++)
		in_a[da->users[j]] = 1;
	for (uint64_t j = 0; j < qa->n; j++)
		in_qa[qa->users[j]] = 1;
	uint64_t lost = 0, lost_plain = 0, users = 0;
	for (uint64_t j = 0; j < db->n; j++)
		lost += !in_a[db->users[j]];
	for (uint64_t j = 0; j < qb->n; j++)
		lost_plain += !in_qa[qb->users[j]];
	for (uint64_t u = 0; u < U; u++)
		users += in_a[u];
	CU_ASSERT_EQUAL(lost, 0);
	CU_ASSERT(lost_plain > 0);
	/* A holds each user's first rating and about 10% of the rest */
	double rest = (double)(d->n - users), got = (double)(da->n - users);
	CU_ASSERT(got > 0.08 * rest && got < 0.12 * rest);
	free(in_a);
	free(in_qa);
	hog_data_free(d);
	hog_data_free(da);
	hog_data_free(db);
	hog_data_free(qa);
	hog_data_free(qb);
	hog_gen_opts sp = { .kind = HOG_KIND_SPARSE, .seed = 2, .examples = 100, .features = 50, .nnz_per_example = 5 };
	const char *sd = tu_path("mf_sp2.lmdb");
	CU_ASSERT_FATAL(hog_gen(sd, &sp, &err) == 0);
	CU_ASSERT_EQUAL(hog_data_split_users(sd, a, b, 0.5, 1, &err), HOG_ECONFIG);
	CU_ASSERT(strstr(err.msg, "ratings") != NULL);
}

static void test_refused(void)
{
	hog_err err;
	hog_train_opts o;
	hog_model *m = NULL;
	mf_opts(&o, HOG_MODE_LOCKFREE, HOG_RULE_SGD, 2);
	/* a sparse set given to mf, a ratings set given to linear */
	CU_ASSERT_EQUAL(hog_train(mf_sparse, NULL, &o, &m, NULL, &err), HOG_EMISMATCH);
	CU_ASSERT(strstr(err.msg, "ratings") && strstr(err.msg, "sparse"));
	CU_ASSERT_EQUAL(hog_train(mf_tr, mf_sparse, &o, &m, NULL, &err), HOG_EMISMATCH);
	CU_ASSERT(strstr(err.msg, "test set") != NULL);
	hog_train_opts lin;
	hog_train_opts_init(&lin);
	lin.threads = 1;
	CU_ASSERT_NOT_EQUAL(hog_train(mf_tr, NULL, &lin, &m, NULL, &err), 0);
	CU_ASSERT(strstr(err.msg, "ratings") != NULL);
	/* step rules and modes mf does not have */
	o.rule = HOG_RULE_ADAREVISION;
	CU_ASSERT_EQUAL(hog_train(mf_tr, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT(strstr(err.msg, "adarevision") != NULL);
	o.rule = HOG_RULE_SGD;
	o.mode = HOG_MODE_BUFFERED;
	CU_ASSERT_EQUAL(hog_train(mf_tr, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT(strstr(err.msg, "buffered") != NULL);
	o.mode = HOG_MODE_GRID;
	o.mf.grid = 1;
	CU_ASSERT_EQUAL(hog_train(mf_tr, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT(strstr(err.msg, "--grid 1") != NULL);
	o.mode = HOG_MODE_LOCKFREE;
	CU_ASSERT_EQUAL(hog_train(mf_tr, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	o.mf.grid = 0;
	o.loss = HOG_LOSS_HINGE;
	CU_ASSERT_EQUAL(hog_train(mf_tr, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	o.loss = HOG_LOSS_SQUARED;
	o.mf.rank = HOG_MF_RANK_MAX + 1;
	CU_ASSERT_EQUAL(hog_train(mf_tr, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT(m == NULL);
	/* an mf model evaluated on a sparse set */
	mf_opts(&o, HOG_MODE_SERIAL, HOG_RULE_SGD, 1);
	o.epochs = 1;
	CU_ASSERT_FATAL(hog_train(mf_tr, NULL, &o, &m, NULL, &err) == 0);
	hog_eval ev;
	CU_ASSERT_EQUAL(hog_model_eval(m, mf_sparse, &ev, &err), HOG_EMISMATCH);
	CU_ASSERT(strstr(err.msg, "mf") != NULL);
	hog_model_free(m);
}

int test_mf_register(void)
{
	CU_pSuite s = CU_add_suite("mf", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_layout);
	TU_ADD(s, test_gradient_fd);
	TU_ADD(s, test_adagrad_by_hand);
	TU_ADD(s, test_modes_agree_one_thread);
	TU_ADD(s, test_atomic_counts);
	TU_ADD(s, test_grid_exclusive);
	TU_ADD(s, test_grid_even);
	TU_ADD(s, test_grid_blocked);
	CU_pSuite t = CU_add_suite("mf_train", mf_make, mf_clean);
	if (!t)
		return -1;
	TU_ADD(t, test_serial_reproducible);
	TU_ADD(t, test_modes_match_serial);
	TU_ADD(t, test_unseen);
	TU_ADD(t, test_save_load_resume);
	TU_ADD(t, test_refused);
	TU_ADD(t, test_split_per_user);
	return 0;
}
