/* --compress's arithmetic (train/compress.c) with plain arrays, the ranks
 * played in one process: the sums the MPI_Allreduce would make are made here.
 * Error feedback carries the residual exactly (the applied mean changes over
 * the syncs plus the mean residual are the mean of the ranks' true changes),
 * full size equals uncompressed averaging, the ranks agree on the shared
 * model, the bytes per sync, Gram-Schmidt, and what the parser refuses. */
#include "hogwild.h"
#include "train/compress.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RANKS = 3, NS = 3, ROWS = 30, COLS = 20, NT = 100, NV = 7 };

static uint64_t rs = 42;
static float draw(void) /* [-1, 1) */
{
	rs = rs * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(rs >> 11) * 0x1p-52 - 1.0);
}

/* Rank r's model: a matrix, a vector top-k takes, a vector sent whole. */
typedef struct rank_model {
	float m[ROWS * COLS], t[NT], v[NV];
	cmp_shape sh[NS];
	cmp_state c;
} rank_model;

static void shapes(rank_model *x)
{
	x->sh[0] = (cmp_shape){ x->m, ROWS * COLS, ROWS, COLS };
	x->sh[1] = (cmp_shape){ x->t, NT, 0, 0 };
	x->sh[2] = (cmp_shape){ x->v, NV, 0, 0 };
}

/* The sum over the ranks of buffer b, into every rank's. */
static void allreduce(rank_model *x, int b)
{
	const size_t n = x[0].c.len[b];
	for (size_t j = 0; j < n; j++) {
		float s = 0;
		for (int r = 0; r < RANKS; r++)
			s += x[r].c.buf[b][j];
		for (int r = 0; r < RANKS; r++)
			x[r].c.buf[b][j] = s;
	}
}

static void sync_all(rank_model *x)
{
	for (int r = 0; r < RANKS; r++)
		cmp_pack0(&x[r].c, x[r].sh);
	allreduce(x, 0);
	for (int r = 0; r < RANKS; r++)
		cmp_pack1(&x[r].c);
	allreduce(x, 1);
	for (int r = 0; r < RANKS; r++)
		cmp_apply(&x[r].c, x[r].sh, RANKS);
}

/* Every span of every rank from the same start; @p scheme on the matrix
 * (powersgd) or on every span (topk). */
static void start(rank_model *x, const float *x0, int scheme, uint32_t R, double F)
{
	for (int r = 0; r < RANKS; r++) {
		shapes(&x[r]);
		memcpy(x[r].m, x0, sizeof x[r].m);
		memcpy(x[r].t, x0 + ROWS * COLS, sizeof x[r].t);
		memcpy(x[r].v, x0 + ROWS * COLS + NT, sizeof x[r].v);
		char why[128];
		CU_ASSERT_EQUAL_FATAL(cmp_init(&x[r].c, scheme, R, F, 77, x[r].sh, NS, why, sizeof why), 0);
	}
}

/* Syncs of random changes: the sum check of error feedback, and the ranks
 * agreeing on the shared model. */
static void ef_check(int scheme, uint32_t R, double F)
{
	enum { SYNCS = 12, N = ROWS * COLS + NT + NV };
	static rank_model x[RANKS];
	static float x0[N], truth[N]; /* truth: x0 + the mean of the ranks' true changes */
	for (int j = 0; j < N; j++)
		truth[j] = x0[j] = draw();
	start(x, x0, scheme, R, F);
	double worst = 0, agree = 0;
	for (int t = 0; t < SYNCS; t++) {
		for (int r = 0; r < RANKS; r++)
			for (int s = 0; s < NS; s++)
				for (size_t j = 0; j < x[r].sh[s].n; j++) {
					/* a change of low rank plus noise, as training makes */
					float d = 0.1f * draw() + (s == 0 ? 0.5f * draw() * (float)((j / COLS) % 3) : 0);
					x[r].sh[s].p[j] += d;
					truth[(s ? ROWS * COLS : 0) + (s == 2 ? NT : 0) + j] += d / RANKS;
				}
		sync_all(x);
		/* shared + mean residual = x0 + mean true change, at every sync */
		for (int s = 0; s < NS; s++) {
			const size_t base = (s ? ROWS * COLS : 0) + (s == 2 ? NT : 0);
			for (size_t j = 0; j < x[0].sh[s].n; j++) {
				double v = 0;
				for (int r = 0; r < RANKS; r++) /* each rank's model is shared + its residual */
					v += x[r].sh[s].p[j];
				v /= RANKS;
				double d = fabs(v - truth[base + j]);
				worst = d > worst ? d : worst;
				if (x[0].c.sp[s].last) /* the ranks hold one shared model */
					for (int r = 1; r < RANKS; r++) {
						double a = fabs((double)x[r].c.sp[s].last[j] - x[0].c.sp[s].last[j]);
						agree = a > agree ? a : agree;
					}
			}
		}
	}
	CU_ASSERT_TRUE(worst < 1e-4);
	CU_ASSERT_EQUAL(agree, 0.0);
	if (worst >= 1e-4 || agree != 0.0)
		fprintf(stderr, "\n  scheme %d: |shared + mean residual - mean truth| %g, ranks' shared models differ by %g\n",
		        scheme, worst, agree);
	/* the residual is not nothing: compression dropped something */
	double res = 0;
	for (int s = 0; s < NS; s++)
		for (size_t j = 0; x[0].c.sp[s].resid && j < x[0].c.sp[s].n; j++)
			res += fabs(x[0].c.sp[s].resid[j]);
	CU_ASSERT_TRUE(res > 1e-2);
	for (int r = 0; r < RANKS; r++)
		cmp_free(&x[r].c);
}

static void test_error_feedback_powersgd(void)
{
	ef_check(HOG_COMPRESS_POWERSGD, 2, 0);
}

static void test_error_feedback_topk(void)
{
	ef_check(HOG_COMPRESS_TOPK, 0, 0.1);
}

/* Full size (R = min(rows, cols), F = 1) against uncompressed averaging (the
 * mean of the ranks' models), sync after sync, every rank. */
static void full_check(int scheme, uint32_t R, double F)
{
	enum { N = ROWS * COLS + NT + NV };
	static rank_model x[RANKS], y[RANKS];
	static float x0[N];
	for (int j = 0; j < N; j++)
		x0[j] = draw();
	start(x, x0, scheme, R, F);
	start(y, x0, HOG_COMPRESS_NONE, 0, 0);
	double worst = 0;
	for (int t = 0; t < 5; t++) {
		for (int r = 0; r < RANKS; r++)
			for (int s = 0; s < NS; s++)
				for (size_t j = 0; j < x[r].sh[s].n; j++) {
					float d = 0.3f * draw();
					x[r].sh[s].p[j] += d;
					y[r].sh[s].p[j] += d;
				}
		sync_all(x);
		for (int s = 0; s < NS; s++) /* uncompressed: the mean, in place */
			for (size_t j = 0; j < y[0].sh[s].n; j++) {
				float sum = 0;
				for (int r = 0; r < RANKS; r++)
					sum += y[r].sh[s].p[j];
				for (int r = 0; r < RANKS; r++)
					y[r].sh[s].p[j] = sum * (1.0f / RANKS);
			}
		for (int r = 0; r < RANKS; r++)
			for (int s = 0; s < NS; s++)
				for (size_t j = 0; j < x[r].sh[s].n; j++) {
					double d = fabs((double)x[r].sh[s].p[j] - y[r].sh[s].p[j]);
					worst = d > worst ? d : worst;
				}
	}
	CU_ASSERT_TRUE(worst < 1e-5);
	if (worst >= 1e-5)
		fprintf(stderr, "\n  scheme %d at full size: %g from uncompressed averaging\n", scheme, worst);
	/* full size sends at least the whole model */
	CU_ASSERT_EQUAL(x[0].c.bytes, (uint64_t)N * 4);
	for (int r = 0; r < RANKS; r++) {
		cmp_free(&x[r].c);
		cmp_free(&y[r].c);
	}
}

static void test_full_size(void)
{
	full_check(HOG_COMPRESS_POWERSGD, COLS, 0);
	full_check(HOG_COMPRESS_POWERSGD, 1000, 0);
	full_check(HOG_COMPRESS_TOPK, 0, 1.0);
}

/* PowerSGD's own arithmetic: a mean change of rank <= R reaches the shared
 * model exactly (P spans it), even when the ranks' own changes differ. */
static void test_powersgd_low_rank_exact(void)
{
	static rank_model x[RANKS];
	static float x0[ROWS * COLS + NT + NV], U[RANKS][ROWS * 2], V[2 * COLS];
	start(x, x0, HOG_COMPRESS_POWERSGD, 3, 0);
	for (int j = 0; j < 2 * COLS; j++)
		V[j] = draw();
	for (int r = 0; r < RANKS; r++)
		for (int j = 0; j < ROWS * 2; j++)
			U[r][j] = draw();
	for (int r = 0; r < RANKS; r++) /* rank r's change U_r V: the sum has rank 2 */
		for (int i = 0; i < ROWS; i++)
			for (int j = 0; j < COLS; j++)
				x[r].m[i * COLS + j] += U[r][2 * i] * V[j] + U[r][2 * i + 1] * V[COLS + j];
	sync_all(x);
	double worst = 0;
	for (int i = 0; i < ROWS; i++)
		for (int j = 0; j < COLS; j++) {
			double mean = 0;
			for (int r = 0; r < RANKS; r++)
				mean += (U[r][2 * i] * V[j] + U[r][2 * i + 1] * V[COLS + j]) / (double)RANKS;
			double d = fabs(x[0].c.sp[0].last[i * COLS + j] - mean);
			worst = d > worst ? d : worst;
		}
	CU_ASSERT_TRUE(worst < 1e-4);
	/* bytes: P and Q of rank 3 for the matrix; the two vectors whole (no top-k here) */
	CU_ASSERT_EQUAL(x[0].c.bytes, (uint64_t)((ROWS + COLS) * 3 + NT + NV) * 4);
	for (int r = 0; r < RANKS; r++)
		cmp_free(&x[r].c);
}

static void test_bytes_topk(void)
{
	float a[1000] = { 0 }, b[10] = { 0 };
	cmp_shape sh[2] = { { a, 1000, 0, 0 }, { b, 10, 0, 0 } };
	cmp_state c;
	char why[128];
	CU_ASSERT_EQUAL_FATAL(cmp_init(&c, HOG_COMPRESS_TOPK, 0, 0.05, 1, sh, 2, why, sizeof why), 0);
	CU_ASSERT_EQUAL(c.bytes, (50 + 1) * 4); /* ceil(0.05 * 10) = 1 */
	cmp_free(&c);
	CU_ASSERT_EQUAL(cmp_init(&c, HOG_COMPRESS_POWERSGD, 4, 0, 1, sh, 2, why, sizeof why), EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "topk"));
	cmp_free(&c);
}

static void test_orthonormalise(void)
{
	enum { N = 40, R = 4 };
	float P[N * R];
	for (int i = 0; i < N; i++) {
		P[i * R + 0] = draw();
		P[i * R + 1] = draw();
		P[i * R + 2] = 2 * P[i * R + 0] - P[i * R + 1]; /* dependent: becomes zero */
		P[i * R + 3] = draw();
	}
	cmp_orthonormalise(P, N, R);
	for (int a = 0; a < R; a++)
		for (int b = 0; b < R; b++) {
			double d = 0;
			for (int i = 0; i < N; i++)
				d += (double)P[i * R + a] * P[i * R + b];
			double want = a == b && a != 2 ? 1 : 0;
			CU_ASSERT_DOUBLE_EQUAL(d, want, 1e-5);
		}
}

static void test_parse(void)
{
	int s;
	uint32_t R;
	double F;
	char why[128];
	CU_ASSERT_EQUAL(cmp_parse("none", &s, &R, &F, why, sizeof why), 0);
	CU_ASSERT_EQUAL(s, HOG_COMPRESS_NONE);
	CU_ASSERT_EQUAL(cmp_parse("powersgd:4", &s, &R, &F, why, sizeof why), 0);
	CU_ASSERT_TRUE(s == HOG_COMPRESS_POWERSGD && R == 4);
	CU_ASSERT_EQUAL(cmp_parse("topk:0.05", &s, &R, &F, why, sizeof why), 0);
	CU_ASSERT_TRUE(s == HOG_COMPRESS_TOPK && F == 0.05);
	CU_ASSERT_EQUAL(cmp_parse("topk:1", &s, &R, &F, why, sizeof why), 0);
	static const char *bad[] = { "powersgd:0", "powersgd:", "powersgd:-1", "powersgd:2x", "powersgd:70000",
		                         "topk:0", "topk:1.5", "topk:", "topk:-0.1", "topk:nan", "qsgd", "", "none:1" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CU_ASSERT_EQUAL(cmp_parse(bad[i], &s, &R, &F, why, sizeof why), -1);
}

int test_compress_register(void)
{
	CU_pSuite s = CU_add_suite("compress", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_error_feedback_powersgd);
	TU_ADD(s, test_error_feedback_topk);
	TU_ADD(s, test_full_size);
	TU_ADD(s, test_powersgd_low_rank_exact);
	TU_ADD(s, test_bytes_topk);
	TU_ADD(s, test_orthonormalise);
	TU_ADD(s, test_parse);
	return 0;
}
