/* Tests of mf's deterministic mode (src/train/mf_train.c, "Deterministic
 * mode"; issue 25): the model files are the same bytes over 5 runs at 2
 * threads and at 1, 2, 3 and 5 threads (more than this machine's cores), with
 * and without biases, for sgd and adagrad, and with example weights, and a set
 * handed over (its arrays put in block order in place) as a copied one; its
 * arithmetic is a plain loop written here that runs an epoch's strata one after
 * another, each stratum's blocks one after another, from the model of the epoch
 * before; a run stopped inside an epoch and resumed at another thread count is
 * the straight run; bad options are refused. */
#include "hogwild.h"
#include "model/mf.h"
#include "model/model.h"
#include "train/engine.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hog_data *rt, *rtw;

static int suite_init(void)
{
	hog_err err;
	hog_gen_opts g = { .kind = HOG_KIND_RATINGS, .seed = 11, .examples = 6000, .users = 150, .items = 90,
	                   .rank = 4, .noise = 0.3 };
	const char *p = tu_path("dmf.lmdb");
	if (hog_gen(p, &g, &err) || hog_data_load(&rt, p, &err)) {
		fprintf(stderr, "dmf: %s\n", err.msg);
		return -1;
	}
	/* the same ratings with a weight each (1, 2 or 0.5) */
	hog_writer_opts wo = { .kind = HOG_KIND_RATINGS, .task = HOG_TASK_REGRESSION, .users = rt->meta.users,
	                       .items = rt->meta.items };
	hog_writer *w;
	const char *pw = tu_path("dmfw.lmdb");
	if (hog_writer_open(&w, pw, &wo, &err))
		return -1;
	for (uint64_t j = 0; j < rt->n; j++) {
		const float wt = j % 3 == 0 ? 2.0f : j % 3 == 1 ? 1.0f : 0.5f;
		if (hog_writer_set_weight(w, wt, &err) || hog_writer_add_rating(w, rt->users[j], rt->items[j], rt->ratings[j], &err)) {
			hog_writer_abort(w);
			return -1;
		}
	}
	if (hog_writer_commit(w, &err) || hog_data_load(&rtw, pw, &err)) {
		fprintf(stderr, "dmf: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int suite_clean(void)
{
	hog_data_free(rt);
	hog_data_free(rtw);
	return 0;
}

static hog_train_opts dmf_opts(int threads, enum hog_rule rule, int biases)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = HOG_MODEL_MF;
	o.mode = HOG_MODE_DETERMINISTIC;
	o.rule = rule;
	o.threads = threads;
	o.mf.rank = 5; /* (padded to 16: the kernel's vectors) */
	o.mf.biases = biases;
	o.shards = 4;
	o.epochs = 3;
	o.seed = 3;
	o.bind = HOG_BIND_NONE;
	return o;
}

static hog_model *train(const hog_data *d, const hog_train_opts *o)
{
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = hog_train(d, NULL, o, &m, NULL, &err);
	if (rc)
		fprintf(stderr, "\n  hog_train: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return m;
}

static void test_threads_identical(void)
{
	for (int c = 0; c < 5; c++) {
		const enum hog_rule rule = c % 2 ? HOG_RULE_ADAGRAD : HOG_RULE_SGD;
		const hog_data *d = c == 4 ? rtw : rt;
		hog_train_opts o = dmf_opts(2, rule, c >= 2);
		if (c == 4)
			o.shards = 0; /* the default, 16 */
		hog_model *ref = train(d, &o);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
		for (int k = 0; k < 4; k++) { /* 5 runs at 2 threads */
			hog_model *m = train(d, &o);
			CU_ASSERT(tu_same_model(ref, m));
			hog_model_free(m);
		}
		static const int threads[] = { 1, 3, 5 };
		for (int k = 0; k < 3; k++) {
			o.threads = threads[k];
			hog_model *m = train(d, &o);
			if (!tu_same_model(ref, m))
				fprintf(stderr, "\n  case %d: %d threads differ from 2\n", c, threads[k]);
			CU_ASSERT(tu_same_model(ref, m));
			hog_model_free(m);
		}
		/* the model depends on the shards */
		o.shards = 3;
		hog_model *m = train(d, &o);
		CU_ASSERT(m && !tu_same_model(ref, m));
		hog_model_free(m);
		hog_model_free(ref);
	}
}

/* A set handed over (hog_train_consume: its own arrays put in block order in
 * place) trains the model a copied one does (hog_train), weighted too. */
static void test_in_place(void)
{
	static const char *const names[2] = { "dmf.lmdb", "dmfw.lmdb" };
	for (int k = 0; k < 2; k++) {
		hog_train_opts o = dmf_opts(2, HOG_RULE_SGD, 1);
		hog_model *a = train(k ? rtw : rt, &o), *b = NULL;
		hog_data *own = NULL;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL_FATAL(hog_data_load(&own, tu_path(names[k]), &err), 0);
		CU_ASSERT_EQUAL(hog_train_consume(own, NULL, &o, &b, NULL, &err), 0);
		CU_ASSERT(tu_same_model(a, b));
		hog_model_free(a);
		hog_model_free(b);
	}
}

/* --------------------------------------------------- the plain loop */

/* The blocks as the mode documents them (mf_train.c, mf_grid_build): users
 * and items each dealt to S bands by a seeded permutation (user at place j of
 * it in band j S / U), a rating in block (band of its user) S + (band of its
 * item); the ratings put in block order in place (each block's next free slot
 * takes the rating found there, or swaps it to the next free slot of its own
 * block), then each block shuffled once (Fisher-Yates, from the last place,
 * with the same stream). Fills at[] (the ratings' data indices by block) and
 * start[] (S*S + 1). */
static void blocks(const hog_data *d, uint32_t S, uint64_t seed, uint32_t *at, uint64_t *start)
{
	const uint64_t U = d->meta.users, I = d->meta.items, nb = (uint64_t)S * S;
	uint32_t *pu = malloc(U * sizeof *pu), *pi = malloc(I * sizeof *pi), *bu = malloc(U * 4), *bi = malloc(I * 4);
	uint64_t *next = calloc(nb + 1, sizeof *next);
	uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x6772696400ull;
	for (uint64_t j = 0; j < U; j++)
		pu[j] = (uint32_t)j;
	eng_shuffle_u32(pu, U, eng_mix64(&s));
	for (uint64_t j = 0; j < I; j++)
		pi[j] = (uint32_t)j;
	eng_shuffle_u32(pi, I, eng_mix64(&s));
	for (uint64_t j = 0; j < U; j++)
		bu[pu[j]] = (uint32_t)(j * S / U);
	for (uint64_t j = 0; j < I; j++)
		bi[pi[j]] = (uint32_t)(j * S / I);
#define KEY(t) ((uint64_t)bu[d->users[t]] * S + bi[d->items[t]])
	memset(start, 0, (nb + 1) * sizeof *start);
	for (uint64_t j = 0; j < d->n; j++) {
		at[j] = (uint32_t)j;
		start[KEY(j) + 1]++;
	}
	for (uint64_t b = 0; b < nb; b++)
		start[b + 1] += start[b];
	memcpy(next, start, (nb + 1) * sizeof *next);
	for (uint64_t b = 0; b < nb; b++)
		while (next[b] < start[b + 1]) {
			const uint64_t x = next[b], k = KEY(at[x]);
			const uint32_t t = at[x];
			at[x] = at[next[k]];
			at[next[k]++] = t;
		}
#undef KEY
	for (uint64_t b = 0; b < nb; b++)
		for (uint64_t j = start[b + 1] - start[b]; j > 1; j--) {
			uint64_t x = eng_mix64(&s) % j;
			uint32_t t = at[start[b] + j - 1];
			at[start[b] + j - 1] = at[start[b] + x];
			at[start[b] + x] = t;
		}
	free(pu);
	free(pi);
	free(bu);
	free(bi);
	free(next);
}

/* One epoch (number @p ep) of plain SGD or per-row AdaGrad on @p m's
 * parameters, in double: the strata in the order drawn from (seed, ep), stratum
 * f the blocks (r, (r + perm[f]) mod S), r = 0..S-1, each whole. */
static void plain_epoch(const hog_data *d, const hog_train_opts *o, hog_model *m, int ep, const uint32_t *at,
                        const uint64_t *start)
{
	const uint32_t S = (uint32_t)o->shards;
	hog_mf_layout l;
	CU_ASSERT_FATAL(hog_mf_layout_get(&l, m->shape, m->flags, m->rule));
	float *x = m->params;
	const double lr = o->lr, l2 = o->l2, mu = l.biases ? m->aux : 0;
	uint32_t perm[64];
	for (uint32_t k = 0; k < S; k++)
		perm[k] = k;
	uint64_t s = o->seed ^ 0x6D66646574000000ull;
	s = eng_mix64(&s) ^ (uint64_t)ep;
	eng_shuffle_u32(perm, S, eng_mix64(&s));
	for (uint32_t f = 0; f < S; f++)
		for (uint32_t r = 0; r < S; r++) {
			const uint64_t b = (uint64_t)r * S + (r + perm[f]) % S;
			for (uint64_t j = start[b]; j < start[b + 1]; j++) {
				const uint64_t t = at[j], u = d->users[t], i = d->items[t];
				const double wt = d->weights ? d->weights[t] : 1.0;
				float *p = x + l.P + u * l.kp, *q = x + l.Q + i * l.kp;
				double pred = mu;
				for (uint64_t c = 0; c < l.k; c++)
					pred += (double)p[c] * q[c];
				if (l.biases)
					pred += (double)x[l.bu + u] + x[l.bi + i];
				const double e = wt * (d->ratings[t] - pred);
				double dgu = 0, dgi = 0;
				const double su = l.adagrad ? lr / sqrt(x[l.gu + u]) : lr, si = l.adagrad ? lr / sqrt(x[l.gi + i]) : lr;
				for (uint64_t c = 0; c < l.k; c++) {
					const double gp = l2 * p[c] - e * q[c], gq = l2 * q[c] - e * p[c];
					dgu += gp * gp;
					dgi += gq * gq;
					p[c] = (float)(p[c] - su * gp);
					q[c] = (float)(q[c] - si * gq);
				}
				if (l.adagrad) {
					x[l.gu + u] = (float)(x[l.gu + u] + dgu / (double)l.k);
					x[l.gi + i] = (float)(x[l.gi + i] + dgi / (double)l.k);
				}
				if (l.biases) {
					const double gbu = l2 * x[l.bu + u] - e, gbi = l2 * x[l.bi + i] - e;
					const double tu = l.adagrad ? lr / sqrt(x[l.gbu + u]) : lr;
					const double ti = l.adagrad ? lr / sqrt(x[l.gbi + i]) : lr;
					if (l.adagrad) {
						x[l.gbu + u] = (float)(x[l.gbu + u] + gbu * gbu);
						x[l.gbi + i] = (float)(x[l.gbi + i] + gbi * gbi);
					}
					x[l.bu + u] = (float)(x[l.bu + u] - tu * gbu);
					x[l.bi + i] = (float)(x[l.bi + i] - ti * gbi);
				}
			}
		}
}

/* Epoch 3 from the product's model after 2 epochs, by the plain loop, against
 * the product's 3 epochs: within float rounding (the kernel sums a row's
 * products in 16 lanes); and no closer to the run of another stratum order
 * (the loop run with a seed the product did not use). */
static void test_plain_loop(void)
{
	for (int c = 0; c < 4; c++) {
		const hog_data *d = c == 3 ? rtw : rt;
		hog_train_opts o = dmf_opts(2, c == 1 ? HOG_RULE_ADAGRAD : HOG_RULE_SGD, c >= 2);
		o.sched = HOG_SCHED_CONSTANT;
		o.lr = c == 1 ? 0.1 : 0.02;
		o.l2 = 0.05;
		o.epochs = 2;
		hog_model *two = train(d, &o);
		o.epochs = 3;
		hog_model *three = train(d, &o);
		CU_ASSERT_PTR_NOT_NULL_FATAL(two);
		CU_ASSERT_PTR_NOT_NULL_FATAL(three);
		const uint32_t S = (uint32_t)o.shards;
		uint32_t *at = malloc(d->n * sizeof *at);
		uint64_t start[17];
		blocks(d, S, o.seed, at, start);
		CU_ASSERT_EQUAL(start[S * S], d->n);
		o.epochs = 2;
		hog_model *other = train(d, &o); /* (the same bits as two: the mode is deterministic) */
		CU_ASSERT_FATAL(tu_same_model(two, other));
		plain_epoch(d, &o, two, 2, at, start);
		plain_epoch(d, &o, other, 1, at, start); /* the strata in epoch 2's order, not epoch 3's */
		double dmax = 0, dother = 0; /* |a - b| / (1 + |a|), the largest */
		for (uint64_t j = 0; j < three->nparams; j++) {
			const double a = three->params[j];
			dmax = fmax(dmax, fabs(a - two->params[j]) / (1 + fabs(a)));
			dother = fmax(dother, fabs(a - other->params[j]) / (1 + fabs(a)));
		}
		if (!(dmax < 1e-5) || !(dother > 1e-2))
			fprintf(stderr, "\n  case %d: plain loop %g, another order %g\n", c, dmax, dother);
		CU_ASSERT(dmax < 1e-5);
		CU_ASSERT(dother > 1e-2);
		free(at);
		hog_model_free(two);
		hog_model_free(three);
		hog_model_free(other);
	}
}

/* ------------------------------------------------------- resume */

/* Stopped inside an epoch at 2 threads, resumed at 3 (and at the end of an
 * epoch at 1, resumed at 5): the straight run's model. */
static void test_resume(void)
{
	hog_train_opts o = dmf_opts(2, HOG_RULE_ADAGRAD, 1);
	o.epochs = 4;
	CU_ASSERT_EQUAL(tu_stop_resume_same(rt, NULL, &o, 0, 3), 1);
	o.threads = 1;
	hog_model *straight = train(rt, &o);
	const char *ck = tu_path("dmf.ckpt");
	o.epochs = 2;
	o.checkpoint = ck;
	hog_model_free(train(rt, &o));
	o.epochs = 4;
	o.threads = 5;
	o.checkpoint = NULL;
	o.resume = ck;
	hog_model *resumed = train(rt, &o);
	CU_ASSERT(tu_same_model(straight, resumed));
	hog_model_free(resumed);
	hog_model_free(straight);
}

static void test_refused(void)
{
	hog_err err = { 0 };
	hog_model *m = NULL;
	hog_train_opts o = dmf_opts(2, HOG_RULE_SGD, 0);
	o.shards = 5000;
	CU_ASSERT_EQUAL(hog_train(rt, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--shards"));
	o = dmf_opts(2, HOG_RULE_SGD, 0);
	o.sync_every = 1000;
	CU_ASSERT_EQUAL(hog_train(rt, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "MPI"));
	CU_ASSERT_PTR_NULL(m);
}

int test_deterministic_mf_register(void)
{
	CU_pSuite s = CU_add_suite("deterministic_mf", suite_init, suite_clean);
	if (!s)
		return -1;
	TU_ADD(s, test_threads_identical);
	TU_ADD(s, test_in_place);
	TU_ADD(s, test_plain_loop);
	TU_ADD(s, test_resume);
	TU_ADD(s, test_refused);
	return 0;
}
