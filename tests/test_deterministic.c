/* Tests of the linear model's deterministic mode (src/train/linear_determ.c,
 * issue 25): the model files are the same bytes over 5 runs at 2 threads and
 * at 1, 2 and 4 threads (more than this machine's cores) for every step rule,
 * --l1 and --average; its arithmetic is a plain loop written here that runs
 * S = 3 shards one after another and merges their deltas in shard order (each
 * feature's summed times its factor from the data, the bias's averaged over the
 * shards that changed it); a run resumed from an epoch's
 * checkpoint at another thread count is the straight run; bad options are
 * refused. */
#include "hogwild.h"
#include "model/linear.h"
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t dt_mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#define DN 90   /* the plain loop's examples */
#define DD 20   /* ... features */
#define DK 4    /* ... nonzeros each */
static uint32_t dids[DN][DK];
static float dxs[DN][DK], dy[DN];
#define RD 60   /* the rows set's features (AdaGrad's plain loop): ... */
#define RK 12   /* ... binary nonzeros a row, a fifth of the rows each: a common direction */
static uint32_t rids[DN][RK];
static float rxs[DN][RK], ry[DN];

/* A plain loop's set: @p n rows of @p k nonzeros, flat arrays. */
typedef struct pset {
	int n, dim, k;
	const uint32_t *ids;
	const float *xs, *y;
} pset;

/* @p n examples of @p dim features, @p k nonzeros each (ascending ids, the
 * first one of the first 3 features: some are frequent). */
static hog_data *write_set_to(const char *name, uint64_t n, uint32_t dim, uint32_t k, uint64_t seed, uint32_t *kids,
                              float *kxs, float *ky, int binary)
{
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = HOG_TASK_BINARY, .features = dim };
	hog_writer *w;
	hog_err err;
	const char *path = tu_path(name);
	if (hog_writer_open(&w, path, &wo, &err))
		return NULL;
	uint32_t ids[64];
	float xs[64];
	for (uint64_t i = 0; i < n; i++) {
		float m = 0.2f;
		for (uint32_t q = 0; q < k; q++) {
			uint32_t span = dim / k;
			ids[q] = q * span + (uint32_t)(dt_mix(&seed) % (q || binary ? span : 3));
			xs[q] = binary ? 1.0f : (float)(dt_mix(&seed) % 1000) / 1000.0f;
			m += (ids[q] % 2 ? 1.0f : -1.0f) * xs[q];
		}
		float y = m > 0 ? 1.0f : -1.0f;
		if (kids && i < DN) {
			memcpy(kids + i * k, ids, k * sizeof *ids);
			memcpy(kxs + i * k, xs, k * sizeof *xs);
			ky[i] = y;
		}
		if (hog_writer_add_sparse(w, y, ids, xs, k, &err)) {
			hog_writer_abort(w);
			return NULL;
		}
	}
	hog_data *d = NULL;
	if (hog_writer_commit(w, &err) || hog_data_load(&d, path, &err))
		fprintf(stderr, "\n%s: %s\n", name, err.msg);
	return d;
}

static hog_data *write_set(const char *name, uint64_t n, uint32_t dim, uint32_t k, uint64_t seed, int keep)
{
	return write_set_to(name, n, dim, k, seed, keep ? &dids[0][0] : NULL, &dxs[0][0], dy, 0);
}

static hog_data *big, *tiny, *rows;

static int suite_init(void)
{
	big = write_set("det_big.lmdb", 3000, 400, 12, 5, 0);
	tiny = write_set("det_tiny.lmdb", DN, DD, DK, 9, 1);
	rows = write_set_to("det_rows.lmdb", DN, RD, RK, 11, &rids[0][0], &rxs[0][0], ry, 1);
	return !big || !tiny || !rows;
}

static int suite_clean(void)
{
	hog_data_free(big);
	hog_data_free(tiny);
	hog_data_free(rows);
	return 0;
}

static hog_train_opts det_opts(int threads, enum hog_rule rule)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = HOG_MODE_DETERMINISTIC;
	o.threads = threads;
	o.rule = rule;
	o.bind = HOG_BIND_NONE;
	o.epochs = 3;
	o.seed = 11;
	o.shards = 5;
	o.flush_every = 40;
	return o;
}

static hog_model *train(const hog_data *d, const hog_train_opts *o)
{
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = hog_train(d, NULL, o, &m, NULL, &err);
	if (rc)
		fprintf(stderr, "\ntrain: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return m;
}

/* 5 runs at 2 threads, and 1, 2 and 4 threads, for each rule, --l1, --average;
 * and the shards' changes kept both ways (a copy of the model per shard, which
 * the default picks for this 400-feature set, or a list of changed coordinates
 * per shard), at 2 threads and at 3: the same bits. */
static void test_threads_identical(void)
{
	const enum hog_rule rules[] = { HOG_RULE_SGD, HOG_RULE_ADAGRAD, HOG_RULE_ADAREVISION, HOG_RULE_SGD,
		                            HOG_RULE_ADAGRAD };
	for (int c = 0; c < 5; c++) {
		hog_train_opts o = det_opts(2, rules[c]);
		if (c == 3)
			o.linear.average = 1;
		if (c == 4)
			o.linear.l1 = 1e-3;
		hog_model *ref = train(big, &o);
		for (int run = 0; run < (c == 0 ? 4 : 0); run++) {
			hog_model *m = train(big, &o);
			CU_ASSERT(tu_same_model(ref, m));
			hog_model_free(m);
		}
		const int threads[] = { 1, 4 };
		for (int t = 0; t < 2; t++) {
			o.threads = threads[t];
			hog_model *m = train(big, &o);
			CU_ASSERT(tu_same_model(ref, m));
			if (!tu_same_model(ref, m))
				fprintf(stderr, "\ncase %d: %d threads differ from 2\n", c, threads[t]);
			hog_model_free(m);
		}
		o.threads = 2;
		/* the default is one of the two ways; the other, at 2, 1 and 3 threads */
		o.linear.det_dense = 1;
		hog_model *other = train(big, &o);
		const int dense = tu_same_model(ref, other);
		if (dense) {
			hog_model_free(other);
			o.linear.det_dense = -1;
			other = train(big, &o);
		}
		o.linear.det_dense = dense ? -1 : 1;
		CU_ASSERT(!tu_same_model(ref, other)); /* (two ways, not one path under two names) */
		for (int t = 1; t <= 3; t += 2) {
			o.threads = t;
			hog_model *m = train(big, &o);
			CU_ASSERT(tu_same_model(other, m));
			if (!tu_same_model(other, m))
				fprintf(stderr, "\ncase %d: %s at %d threads differ from 2\n", c, dense ? "lists" : "sums", t);
			hog_model_free(m);
		}
		/* ... agrees with the default to rounding */
		double worst = 0;
		for (uint64_t k = 0; k < ref->nparams; k++) {
			const double d = fabs((double)ref->params[k] - other->params[k]) / (1e-2 + fabs((double)ref->params[k]));
			worst = d > worst ? d : worst;
		}
		if (worst >= 1e-3)
			fprintf(stderr, "\ncase %d: the two ways differ by %g\n", c, worst);
		CU_ASSERT(worst < 1e-3);
		hog_model_free(other);
		o.linear.det_dense = 0;
		o.shards = 6; /* the shard count does change the model */
		hog_model *m6 = train(big, &o);
		CU_ASSERT(!tu_same_model(ref, m6));
		hog_model_free(m6);
		hog_model_free(ref);
	}
}

/* The plain loop: @p S shards (3: examples 0-29, 30-59, 60-89; 6: 0-14 ...: no
 * shuffle), rounds of K = 7 examples per shard from the round's model, deltas merged in shard
 * order; constant step, no l2. @p rule 0: the merge's rule (linear_determ.c):
 * a feature's deltas summed, each times its factor, the blend
 * (1 - e^-Sa) / (S (1 - e^-a)) of a = K p lr h x2 (p its share of the rows,
 * x2 its mean squared value, h = 1/4), all of them scaled by g where S times
 * the mean row's m^2-weighted factors (the bias 1/S) passes 1.5; the bias's
 * deltas divided by the number of shards that changed it. @p rule 1 sums
 * every delta, 2 divides each by that count (the rule before): to show that
 * the test tells the rules apart. @p avg (NULL: none): --average, the mean
 * over the last epoch's examples of the model each was computed from (the
 * round's model, once per example of the round in every shard). */
static void plain_loop_avg(float *w, double *avg, int rule, int S)
{
	const int K = 7, ns = DN / S;
	const float lr = 0.5f;
	double fac[DD], cnt[DD] = { 0 }, sq[DD] = { 0 }, sx[DD] = { 0 }, W = 0, Z = 1;
	for (int j = 0; j < DN; j++)
		for (int q = 0; q < DK; q++) {
			cnt[dids[j][q]] += 1;
			sq[dids[j][q]] += (double)dxs[j][q] * dxs[j][q];
			sx[dids[j][q]] += dxs[j][q];
		}
	for (int v = 0; v < DD; v++) {
		double a = K * (cnt[v] / DN) * 0.5 * 0.25 * (cnt[v] ? sq[v] / cnt[v] : 1), m = sx[v] / DN;
		fac[v] = a > 0 ? (1 - exp(-S * a)) / (S * (1 - exp(-a))) : 1;
		W += m * m * fac[v];
		Z += m * m;
	}
	if (1 + S * W > 1.5 * Z) /* (at 6 shards, not at 3) */
		for (int v = 0; v < DD; v++)
			fac[v] *= (1.5 * Z - 1) / (S * W);
	memset(w, 0, (DD + 1) * sizeof *w); /* w[DD]: the bias */
	if (avg)
		memset(avg, 0, (DD + 1) * sizeof *avg);
	for (int ep = 0; ep < 2; ep++)
		for (int r = 0; r * K < ns; r++) {
			float P0[DD + 1], d[6][DD + 1];
			int changed[6][DD + 1];
			memcpy(P0, w, sizeof P0);
			const int in_round = S * ((r + 1) * K < ns ? K : ns - r * K);
			for (int v = 0; avg && ep == 1 && v <= DD; v++)
				avg[v] += (double)in_round * P0[v] / (S * ns);
			for (int s = 0; s < S; s++) {
				float rec[DD + 1];
				memcpy(rec, P0, sizeof rec);
				for (int i = r * K; i < (r + 1) * K && i < ns; i++) {
					int j = s * ns + i;
					float m = rec[DD], loss;
					for (int q = 0; q < DK; q++)
						m += rec[dids[j][q]] * dxs[j][q];
					float g = hog_loss_both(HOG_LOSS_LOGISTIC, m, dy[j], &loss);
					rec[DD] = rec[DD] - lr * g;
					for (int q = 0; q < DK; q++)
						rec[dids[j][q]] = rec[dids[j][q]] - lr * (g * dxs[j][q]);
				}
				for (int v = 0; v <= DD; v++) { /* (a coordinate counts where its shard changed it) */
					d[s][v] = rec[v] - P0[v];
					changed[s][v] = memcmp(&rec[v], &P0[v], sizeof rec[v]) != 0;
				}
			}
			for (int v = 0; v <= DD; v++) {
				int c = 0;
				for (int s = 0; s < S; s++)
					c += changed[s][v];
				for (int s = 0; s < S; s++)
					if (changed[s][v])
						w[v] += rule == 0 && v < DD ? (float)fac[v] * d[s][v]
						        : rule == 1 || c < 2  ? d[s][v]
						                              : d[s][v] / (float)c;
			}
		}
}

static void plain_loop(float *w, int rule, int S)
{
	plain_loop_avg(w, NULL, rule, S);
}

/* The product's run of the plain loop: @p S shards, the sums (@p way 1) or the
 * lists (-1). */
static hog_train_opts plain_opts(int S, int way)
{
	hog_train_opts o = det_opts(2, HOG_RULE_SGD);
	o.shards = S;
	o.flush_every = 7;
	o.epochs = 2;
	o.no_shuffle = 1;
	o.sched = HOG_SCHED_CONSTANT;
	o.lr = 0.5;
	o.l2 = 0;
	o.linear.det_dense = way;
	return o;
}

/* The worst relative error of component @p c of the model's records (@p stride
 * floats each) against the plain loop's values, @p wf (float) or @p wd. */
static double worst_error(const hog_model *m, uint32_t stride, uint32_t c, const float *wf, const double *wd, int dim)
{
	double worst = 0;
	for (int v = 0; v <= dim; v++) {
		const double want = wf ? wf[v] : wd[v];
		const double e = fabs((double)m->params[(size_t)v * stride + c] - want) / (1e-3 + fabs(want));
		worst = e > worst ? e : worst;
	}
	return worst;
}

/* Within 1e-4 of the plain loop; else says which run was not. */
static void expect_close(double worst, const char *what, int S, int way)
{
	CU_ASSERT(worst < 1e-4);
	if (worst >= 1e-4)
		fprintf(stderr, "\n%s%d shards, %s: worst relative error %g\n", what, S, way > 0 ? "sums" : "lists", worst);
}

/* The plain loop at 3 shards and at 6 (where the mean row's cap scales the
 * features' factors), against the product's two ways (the sums, the lists)
 * and against the other rules. */
static void test_plain_loop(void)
{
	for (int S = 3, way = -1; S <= 6; S += 3 * (way > 0), way = -way) {
		float want[DD + 1], summed[DD + 1], mean[DD + 1];
		plain_loop(want, 0, S);
		plain_loop(summed, 1, S);
		plain_loop(mean, 2, S);
		hog_train_opts o = plain_opts(S, way);
		hog_model *m = train(tiny, &o);
		CU_ASSERT_EQUAL_FATAL(m->nparams, DD + 1);
		expect_close(worst_error(m, 1, 0, want, NULL, DD), "", S, way);
		double apart = 0, apart_mean = 0;
		for (int v = 0; v <= DD; v++) {
			apart += fabs((double)summed[v] - want[v]);
			apart_mean += fabs((double)mean[v] - want[v]);
		}
		CU_ASSERT(apart > 1e-2); /* the rule matters */
		CU_ASSERT(apart_mean > 1e-2);
		hog_model_free(m);
	}
}

/* The plain loop with AdaGrad (beta 1, lr 0.5, K = 7, no l2, @p S shards):
 * each shard steps from the round's model and accumulators, w -= lr gv /
 * (1 + sqrt(G)) after G += gv^2; at the merge a feature's changes are summed
 * times the blend of a = K p lr h x2 / (1 + sqrt(G)) at the round's G
 * (@p rule 0, the merge's rule), every changed feature's blend times the
 * round's g where the common direction would overshoot: the eta-and-m^2-
 * weighted mean of the changed features' blends and the bias's 1/S (eta =
 * 1 / (1 + sqrt(G)) at the round's G, m a feature's mean value) held to 3.5
 * times the blend of A = K h lr (eta_bias + sum m^2 eta); or the blend alone
 * (2, the rule before the cap: a9a swung at its second epoch); or divided by
 * the number of shards that changed it (1, the rule before that: on the
 * RCV1-shaped set, test loss 0.611 against serial's 0.323 after 5 epochs);
 * the bias's by that count; the accumulators' changes summed. Weights in @p w,
 * G in @p G (w[DD]: the bias); the rounds where g < 1 in *@p capped. */
static void plain_adagrad(const pset *ps, float lr, float *w, float *G, int rule, int S, int *capped)
{
	const int K = 7, ns = ps->n / S, D = ps->dim, k = ps->k;
	double a0[RD], cnt[RD] = { 0 }, sq[RD] = { 0 }, sx[RD] = { 0 };
	*capped = 0;
	for (int j = 0; j < ps->n * k; j++) {
		cnt[ps->ids[j]] += 1;
		sq[ps->ids[j]] += (double)ps->xs[j] * ps->xs[j];
		sx[ps->ids[j]] += ps->xs[j];
	}
	for (int v = 0; v < D; v++)
		a0[v] = K * (cnt[v] / ps->n) * lr * 0.25 * (cnt[v] ? sq[v] / cnt[v] : 1);
	memset(w, 0, (D + 1) * sizeof *w);
	memset(G, 0, (D + 1) * sizeof *G);
	for (int ep = 0; ep < 2; ep++)
		for (int r = 0; r * K < ns; r++) {
			float P0[RD + 1], G0[RD + 1], d[9][RD + 1], dG[9][RD + 1];
			int changed[9][RD + 1];
			memcpy(P0, w, sizeof P0);
			memcpy(G0, G, sizeof G0);
			for (int s = 0; s < S; s++) {
				float rec[RD + 1], acc[RD + 1];
				memcpy(rec, P0, sizeof rec);
				memcpy(acc, G0, sizeof acc);
				for (int i = r * K; i < (r + 1) * K && i < ns; i++) {
					const int j = s * ns + i;
					const uint32_t *ids = ps->ids + j * k;
					const float *xs = ps->xs + j * k;
					float m = rec[D], loss;
					for (int q = 0; q < k; q++)
						m += rec[ids[q]] * xs[q];
					const float g = hog_loss_both(HOG_LOSS_LOGISTIC, m, ps->y[j], &loss);
					acc[D] = acc[D] + g * g;
					rec[D] = rec[D] - lr / (1.0f + sqrtf(acc[D])) * g;
					for (int q = 0; q < k; q++) {
						const int v = (int)ids[q];
						const float gv = g * xs[q];
						acc[v] = acc[v] + gv * gv;
						rec[v] = rec[v] - lr / (1.0f + sqrtf(acc[v])) * gv;
					}
				}
				for (int v = 0; v <= D; v++) {
					d[s][v] = rec[v] - P0[v];
					dG[s][v] = acc[v] - G0[v];
					changed[s][v] = memcmp(&rec[v], &P0[v], sizeof rec[v]) || memcmp(&acc[v], &G0[v], sizeof acc[v]);
				}
			}
			float f[RD + 1];
			int c[RD + 1] = { 0 };
			double Wc = 0, Zc = 1.0 / (1.0 + sqrt((double)G0[D])), g = 1;
			for (int v = 0; v <= D; v++) {
				for (int s = 0; s < S; s++)
					c[v] += changed[s][v];
				const double a = v < D ? a0[v] / (1.0 + sqrt((double)G0[v])) : 0;
				f[v] = a > 1e-12 ? (float)(expm1(-S * a) / (S * expm1(-a))) : 1.0f;
				if (v < D && c[v]) {
					const double me = (sx[v] / ps->n) * (sx[v] / ps->n) / (1.0 + sqrt((double)G0[v]));
					Wc += me * f[v];
					Zc += me;
				}
			}
			const double A = K * 0.25 * lr * Zc, fc = expm1(-S * A) / (S * expm1(-A)),
			             eb = 1.0 / (1.0 + sqrt((double)G0[D]));
			if (rule == 0 && eb / S + Wc > 3.5 * fc * Zc && Wc > 0) {
				g = (3.5 * fc * Zc - eb / S) / Wc;
				g = g > 0 ? g : 0;
				++*capped;
			}
			for (int v = 0; v <= D; v++)
				for (int s = 0; s < S; s++)
					if (changed[s][v]) {
						w[v] += rule != 1 && v < D ? f[v] * (float)g * d[s][v] : c[v] < 2 ? d[s][v]
						                                                                : d[s][v] / (float)c[v];
						G[v] += dG[s][v];
					}
		}
}

/* The AdaGrad plain loop at 3 shards and at 6, against the product's two ways,
 * and against the rules before (the blend without the cap, the mean): on the
 * tiny set (the cap never binds: its bias outweighs its features' mean values)
 * and on the rows set at 3 shards and 9 (12 of 60 binary features a row: at 9
 * shards it binds in both rounds). */
static void test_plain_loop_adagrad(void)
{
	const pset sets[2] = { { DN, DD, DK, &dids[0][0], &dxs[0][0], dy }, { DN, RD, RK, &rids[0][0], &rxs[0][0], ry } };
	for (int k = 0; k < 2; k++)
		for (int S = 3, way = -1; S <= 3 + 3 * (k + 1); S += 3 * (k + 1) * (way > 0), way = -way) {
			const pset *ps = &sets[k];
			const float lr = 0.5f;
			float want[RD + 1], wantG[RD + 1], mean[RD + 1], meanG[RD + 1], blend[RD + 1], blendG[RD + 1];
			int capped, unused;
			plain_adagrad(ps, lr, want, wantG, 0, S, &capped);
			plain_adagrad(ps, lr, mean, meanG, 1, S, &unused);
			plain_adagrad(ps, lr, blend, blendG, 2, S, &unused);
			hog_train_opts o = plain_opts(S, way);
			o.rule = HOG_RULE_ADAGRAD;
			o.adagrad_beta = 1.0;
			o.lr = lr;
			hog_model *m = train(k ? rows : tiny, &o);
			CU_ASSERT_EQUAL_FATAL(m->nparams, 2 * ((uint64_t)ps->dim + 1));
			expect_close(worst_error(m, 2, 0, want, NULL, ps->dim), "adagrad, weights, ", S, way);
			expect_close(worst_error(m, 2, 1, wantG, NULL, ps->dim), "adagrad, G, ", S, way);
			double apart = 0, apart_blend = 0;
			for (int v = 0; v <= ps->dim; v++) {
				apart += fabs((double)mean[v] - want[v]);
				apart_blend += fabs((double)blend[v] - want[v]);
			}
			CU_ASSERT(apart > 1e-2); /* the rule matters */
			if (k && S == 9) {
				CU_ASSERT(capped > 0);
				CU_ASSERT(apart_blend > 1e-2); /* ... and so does the cap, where it binds */
			} else {
				CU_ASSERT_EQUAL(apart_blend, 0);
			}
			hog_model_free(m);
		}
}

/* --average: the model handed back is the plain loop's mean of the last
 * epoch's round models, each weighted by its examples (both ways, 3 shards and
 * 6); and not the last iterate. */
static void test_plain_loop_average(void)
{
	for (int S = 3, way = -1; S <= 6; S += 3 * (way > 0), way = -way) {
		float last[DD + 1];
		double want[DD + 1];
		plain_loop_avg(last, want, 0, S);
		hog_train_opts o = plain_opts(S, way);
		o.linear.average = 1;
		hog_model *m = train(tiny, &o);
		CU_ASSERT_EQUAL_FATAL(m->nparams, DD + 1);
		expect_close(worst_error(m, 1, 0, NULL, want, DD), "--average, ", S, way);
		double apart = 0;
		for (int v = 0; v <= DD; v++)
			apart += fabs((double)last[v] - want[v]);
		CU_ASSERT(apart > 1e-2); /* (the average is not the last iterate) */
		hog_model_free(m);
	}
}

/* Two epochs at 2 threads with a checkpoint, resumed at 3 to 4 epochs: the
 * straight 4-epoch run at 1 thread, bit for bit. */
static void test_resume(void)
{
	const enum hog_rule rules[] = { HOG_RULE_SGD, HOG_RULE_ADAREVISION };
	for (int c = 0; c < 2; c++) {
		hog_train_opts o = det_opts(1, rules[c]);
		o.epochs = 4;
		hog_model *straight = train(big, &o);
		const char *ck = tu_path("det.ckpt");
		o.threads = 2;
		o.epochs = 2;
		o.checkpoint = ck;
		hog_model_free(train(big, &o));
		o.threads = 3;
		o.epochs = 4;
		o.checkpoint = NULL;
		o.resume = ck;
		hog_model *resumed = train(big, &o);
		CU_ASSERT(tu_same_model(straight, resumed));
		hog_model_free(straight);
		hog_model_free(resumed);
	}
}

/* Stopped inside an epoch at 2 threads (every worker at the same round),
 * resumed at 3: the straight run (eng_load_resume takes the one position
 * when the worker count differs). */
static void test_stop_resume_other_threads(void)
{
	hog_train_opts o = det_opts(2, HOG_RULE_SGD);
	CU_ASSERT_EQUAL(tu_stop_resume_same(big, NULL, &o, 0, 3), 1);
}

static void test_refused(void)
{
	hog_err err = { 0 };
	hog_model *m = NULL;
	hog_train_opts o = det_opts(2, HOG_RULE_SGD);
	o.shards = -1;
	CU_ASSERT_EQUAL(hog_train(big, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--shards"));
	o = det_opts(2, HOG_RULE_SGD);
	o.delay = 2;
	CU_ASSERT_EQUAL(hog_train(big, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--delay"));
	CU_ASSERT_PTR_NULL(m);
}

int test_deterministic_register(void)
{
	CU_pSuite s = CU_add_suite("deterministic", suite_init, suite_clean);
	if (!s)
		return -1;
	TU_ADD(s, test_threads_identical);
	TU_ADD(s, test_plain_loop);
	TU_ADD(s, test_plain_loop_adagrad);
	TU_ADD(s, test_plain_loop_average);
	TU_ADD(s, test_resume);
	TU_ADD(s, test_stop_resume_other_threads);
	TU_ADD(s, test_refused);
	return 0;
}
