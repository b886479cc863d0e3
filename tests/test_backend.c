/* The dense backends (src/backend/) against plain C reference loops written
 * here in double precision, ggml's test-backend-ops habit: every op of every
 * compiled backend on fixed and random shapes (odd sizes, a batch of 1, a large
 * one), ld padding that must stay untouched, in-place calls, and the backward
 * ops against finite differences of the forward ones.
 *
 * Backends under test: "cpu"; "staged", a test-only table with device-like
 * buffers and every op NULL, so each op goes through the CPU fallback with its
 * operands staged through host memory; and "cuda" (FP32 and TF32) where a GPU is
 * visible, else the suite prints "skipped: no GPU". Tolerances are normalized
 * mean squared errors: CPU near-exact; CUDA <= 5e-4 for gemm and <= 1e-6 for
 * elementwise work (ggml's thresholds); NaN or Inf anywhere fails. */
#include "backend/backend.h"
#include "backend/cuda.h"
#include "sys/err.h"
#include "util.h"
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the backends ---- */

static int st_alloc(hog_backend *b, size_t bytes, void **out, hog_err *err)
{
	(void)b, (void)err;
	*out = malloc(bytes ? bytes : 1);
	return *out ? 0 : -1;
}

static void st_release(hog_backend *b, void *p)
{
	(void)b;
	free(p);
}

static int st_copy(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err)
{
	(void)b, (void)err;
	memcpy(dst, src, bytes);
	return 0;
}

/* Buffers that are "not host memory" (alloc is set) and no ops at all. */
static const hog_backend_ops staged_ops = {
	.name = "staged",
	.alloc = st_alloc,
	.release = st_release,
	.upload = st_copy,
	.download = st_copy,
};

typedef struct {
	hog_backend *b;
	const char *name;
	double tol_gemm, tol_elem;
} tb;

static tb backends[4];
static int nbackends;

static int backend_suite_init(void)
{
	hog_err err = { 0 };
	nbackends = 0;
	if (hog_backend_open(&backends[0].b, "cpu", 0, &err))
		return -1;
	backends[nbackends++] = (tb){ backends[0].b, "cpu", 1e-10, 1e-12 };
	hog_backend *s;
	if (hog_backend_wrap(&s, &staged_ops, NULL, "staged", 0, &err))
		return -1;
	backends[nbackends++] = (tb){ s, "staged", 1e-10, 1e-12 };
	hog_gpu g[4];
	int n = 0;
	char why[256] = "";
	hog_backend_gpus(g, 4, &n, why, sizeof why);
	if (n > 0) {
		hog_backend *c, *t;
		if (hog_backend_open(&c, "cuda", 0, &err) ||
		    hog_backend_open(&t, "cuda", HOG_BACKEND_TF32, &err)) {
			fprintf(stderr, "\ntest_backend: %s\n", err.msg);
			return -1;
		}
		backends[nbackends++] = (tb){ c, "cuda", 5e-4, 1e-6 };
		backends[nbackends++] = (tb){ t, "cuda-tf32", 5e-4, 1e-6 };
		fprintf(stderr, "\ntest_backend: cuda on %s (%d.%d, %.1f GiB)\n", g[0].name,
		        g[0].major, g[0].minor, g[0].memory / 1073741824.0);
	} else {
		fprintf(stderr, "\ntest_backend: cuda %s: skipped: no GPU (%s)\n",
		        hog_backend_has_cuda() ? "plugin loaded" : "no plugin", why);
	}
	return 0;
}

static int backend_suite_clean(void)
{
	for (int i = 0; i < nbackends; i++)
		hog_backend_close(backends[i].b);
	nbackends = 0;
	return 0;
}

/* ---- helpers ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static float frand(void) /* uniform in [-1, 1) */
{
	return (float)((rng_next() >> 40) * (2.0 / 16777216.0) - 1.0);
}

static int irand(int lo, int hi) /* lo..hi inclusive */
{
	return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1));
}

static float *rand_vec(size_t n, float scale)
{
	float *v = malloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = frand() * scale;
	return v;
}

static void *dev_from(hog_backend *b, const void *host, size_t bytes)
{
	hog_err err = { 0 };
	void *d = NULL;
	CU_ASSERT_FATAL(hog_backend_alloc(b, bytes, &d, &err) == 0);
	CU_ASSERT_FATAL(hog_backend_upload(b, d, host, bytes, &err) == 0);
	return d;
}

static void dev_to(hog_backend *b, void *host, const void *d, size_t bytes)
{
	hog_err err = { 0 };
	CU_ASSERT_FATAL(hog_backend_download(b, host, d, bytes, &err) == 0);
}

/* Normalized mean squared error of got against want; fails on NaN/Inf or above tol. */
static int check_close(const char *what, const tb *t, const float *got, const double *want,
                       size_t n, double tol)
{
	double num = 0, den = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(got[i])) {
			fprintf(stderr, "\n%s on %s: value %zu is %g\n", what, t->name, i, got[i]);
			CU_FAIL("NaN or Inf in a backend result");
			return 0;
		}
		double d = got[i] - want[i];
		num += d * d;
		den += want[i] * want[i];
	}
	double e = num / (den > 1e-30 ? den : 1e-30);
	if (!(e <= tol))
		fprintf(stderr, "\n%s on %s: nmse %.3g > %.3g (n=%zu)\n", what, t->name, e, tol, n);
	CU_ASSERT(e <= tol);
	return e <= tol;
}

/* ---- gemm ---- */

static void gemm_case(const tb *t, int ta, int tb_, int m, int n, int k, float alpha, float beta,
                      int pad)
{
	int ar = ta ? k : m, ac = ta ? m : k, br = tb_ ? n : k, bc = tb_ ? k : n;
	int lda = ac + pad, ldb = bc + pad, ldc = n + pad;
	size_t sa = (size_t)ar * lda, sb = (size_t)br * ldb, sc = (size_t)m * ldc;
	float *A = rand_vec(sa, 1), *B = rand_vec(sb, 1), *C = rand_vec(sc, 1);
	if (beta == 0) /* beta 0: C must not be read, so NaN must not come through */
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++)
				C[(size_t)i * ldc + j] = NAN;
	double *want = malloc((sc ? sc : 1) * sizeof *want);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < ldc; j++) {
			if (j >= n) { /* the ld gap must stay as it was */
				want[(size_t)i * ldc + j] = C[(size_t)i * ldc + j];
				continue;
			}
			double s = 0;
			for (int p = 0; p < k; p++)
				s += (double)(ta ? A[(size_t)p * lda + i] : A[(size_t)i * lda + p]) *
				     (tb_ ? B[(size_t)j * ldb + p] : B[(size_t)p * ldb + j]);
			want[(size_t)i * ldc + j] = alpha * s + (beta == 0 ? 0 : beta * C[(size_t)i * ldc + j]);
		}
	hog_backend *b = t->b;
	hog_err err = { 0 };
	float *dA = dev_from(b, A, sa * 4), *dB = dev_from(b, B, sb * 4), *dC = dev_from(b, C, sc * 4);
	CU_ASSERT_FATAL(hog_backend_gemm(b, ta, tb_, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc,
	                                 &err) == 0);
	dev_to(b, C, dC, sc * 4);
	char what[96];
	snprintf(what, sizeof what, "gemm %c%c m=%d n=%d k=%d pad=%d beta=%g", ta ? 'T' : 'N',
	         tb_ ? 'T' : 'N', m, n, k, pad, beta);
	check_close(what, t, C, want, sc, t->tol_gemm);
	hog_backend_release(b, dA);
	hog_backend_release(b, dB);
	hog_backend_release(b, dC);
	free(A), free(B), free(C), free(want);
}

static void test_backend_gemm_shapes(void)
{
	/* the MLP's shapes (784-256-256-10 at batch 1/32/128), odd ones, a large one */
	static const int shapes[][3] = {
		{ 1, 1, 1 }, { 1, 10, 784 }, { 32, 256, 784 }, { 128, 10, 256 }, { 7, 13, 5 },
		{ 33, 17, 65 }, { 1, 256, 256 }, { 256, 784, 32 }, { 512, 512, 512 },
	};
	for (int bi = 0; bi < nbackends; bi++)
		for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
			for (int tr = 0; tr < 4; tr++)
				gemm_case(&backends[bi], tr & 1, tr >> 1, shapes[s][0], shapes[s][1],
				          shapes[s][2], 1.0f, tr == 3 ? 0.5f : 0.0f, s & 1 ? 3 : 0);
}

static void test_backend_gemm_random(void)
{
	for (int bi = 0; bi < nbackends; bi++)
		for (int r = 0; r < 24; r++)
			gemm_case(&backends[bi], irand(0, 1), irand(0, 1), irand(1, 70), irand(1, 70),
			          irand(1, 90), frand() * 2, r % 3 ? frand() : 0.0f, irand(0, 5));
}

/* ---- bias ---- */

static void test_backend_bias(void)
{
	static const int shapes[][2] = { { 1, 1 }, { 1, 256 }, { 32, 10 }, { 7, 33 }, { 513, 257 } };
	for (int bi = 0; bi < nbackends; bi++) {
		const tb *t = &backends[bi];
		hog_backend *b = t->b;
		hog_err err = { 0 };
		for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
			int rows = shapes[s][0], cols = shapes[s][1];
			size_t n = (size_t)rows * cols;
			float *X = rand_vec(n, 2), *v = rand_vec(cols, 1), *db = rand_vec(cols, 1);
			double *want = malloc(n * sizeof *want), *wdb = malloc(cols * sizeof *wdb);
			for (size_t i = 0; i < n; i++)
				want[i] = (double)X[i] + v[i % cols];
			float *dX = dev_from(b, X, n * 4), *dv = dev_from(b, v, cols * 4);
			float *ddb = dev_from(b, db, cols * 4);
			CU_ASSERT_FATAL(hog_backend_bias_add(b, rows, cols, dX, dv, &err) == 0);
			float *got = malloc(n * 4);
			dev_to(b, got, dX, n * 4);
			check_close("bias_add", t, got, want, n, t->tol_elem);
			/* column sums of X, accumulated onto 0.5 * db */
			for (int j = 0; j < cols; j++) {
				double sum = 0;
				for (int i = 0; i < rows; i++)
					sum += X[(size_t)i * cols + j];
				wdb[j] = 0.5 * db[j] + sum;
			}
			hog_backend_upload(b, dX, X, n * 4, &err);
			CU_ASSERT_FATAL(hog_backend_bias_grad(b, rows, cols, dX, 0.5f, ddb, &err) == 0);
			dev_to(b, db, ddb, cols * 4);
			/* a sum of `rows` floats: its rounding grows with rows */
			check_close("bias_grad beta=0.5", t, db, wdb, cols, t->tol_elem * (rows > 100 ? 10 : 1));
			for (int j = 0; j < cols; j++) {
				double sum = 0;
				for (int i = 0; i < rows; i++)
					sum += X[(size_t)i * cols + j];
				wdb[j] = sum;
				db[j] = NAN; /* beta 0 must not read db */
			}
			hog_backend_upload(b, ddb, db, cols * 4, &err);
			CU_ASSERT_FATAL(hog_backend_bias_grad(b, rows, cols, dX, 0.0f, ddb, &err) == 0);
			dev_to(b, db, ddb, cols * 4);
			check_close("bias_grad beta=0", t, db, wdb, cols, t->tol_elem * (rows > 100 ? 10 : 1));
			hog_backend_release(b, dX);
			hog_backend_release(b, dv);
			hog_backend_release(b, ddb);
			free(X), free(v), free(db), free(want), free(wdb), free(got);
		}
	}
}

/* ---- activations ---- */

static double act_ref(enum hog_act a, double x)
{
	return a == HOG_ACT_RELU ? (x > 0 ? x : 0) : a == HOG_ACT_SIGMOID ? 1 / (1 + exp(-x)) : x;
}

static double act_dref(enum hog_act a, double y)
{
	return a == HOG_ACT_RELU ? (y > 0) : a == HOG_ACT_SIGMOID ? y * (1 - y) : 1;
}

static void test_backend_act(void)
{
	static const size_t sizes[] = { 1, 7, 256, 1000, 100003 };
	static const enum hog_act acts[] = { HOG_ACT_NONE, HOG_ACT_RELU, HOG_ACT_SIGMOID };
	for (int bi = 0; bi < nbackends; bi++) {
		const tb *t = &backends[bi];
		hog_backend *b = t->b;
		hog_err err = { 0 };
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
			for (int a = 0; a < 3; a++) {
				size_t n = sizes[s];
				float *X = rand_vec(n, 6), *G = rand_vec(n, 1), *Y = malloc(n * 4);
				double *want = malloc(n * sizeof *want);
				float *dX = dev_from(b, X, n * 4), *dG = dev_from(b, G, n * 4);
				float *dY = dev_from(b, X, n * 4);
				/* out of place, then in place (Y == X) */
				CU_ASSERT_FATAL(hog_backend_act_fwd(b, acts[a], n, dX, dY, &err) == 0);
				CU_ASSERT_FATAL(hog_backend_act_fwd(b, acts[a], n, dX, dX, &err) == 0);
				for (size_t i = 0; i < n; i++)
					want[i] = act_ref(acts[a], X[i]);
				dev_to(b, Y, dY, n * 4);
				check_close("act_fwd", t, Y, want, n, t->tol_elem);
				dev_to(b, Y, dX, n * 4);
				check_close("act_fwd in place", t, Y, want, n, t->tol_elem);
				/* backward from the output Y, in place on the gradient */
				for (size_t i = 0; i < n; i++)
					want[i] = G[i] * act_dref(acts[a], Y[i]);
				CU_ASSERT_FATAL(hog_backend_act_bwd(b, acts[a], n, dX, dG, dG, &err) == 0);
				dev_to(b, Y, dG, n * 4);
				check_close("act_bwd", t, Y, want, n, t->tol_elem);
				hog_backend_release(b, dX);
				hog_backend_release(b, dG);
				hog_backend_release(b, dY);
				free(X), free(G), free(Y), free(want);
			}
	}
}

/* ---- softmax / sigmoid with cross-entropy ---- */

static double xent_ref(int rows, int k, const float *Z, const int32_t *lab, double *P, double *dZ)
{
	double loss = 0;
	for (int i = 0; i < rows; i++) {
		const float *z = Z + (size_t)i * k;
		if (k == 1) {
			/* -log p = log(1 + e^-z), -log(1 - p) = log(1 + e^z); p - 1 = -1/(1 + e^z) */
			double z0 = z[0], p = 1 / (1 + exp(-z0));
			int y = lab[i] > 0;
			P[i] = p;
			dZ[i] = (y ? -1 / (1 + exp(z0)) : p) / rows;
			loss += y ? log1p(exp(-z0)) : log1p(exp(z0));
			continue;
		}
		double m = z[0], s = 0;
		for (int j = 1; j < k; j++)
			m = fmax(m, z[j]);
		for (int j = 0; j < k; j++)
			s += exp(z[j] - m);
		double other = 0; /* p_y - 1 = -(sum of the others) / s, exact where p_y ~ 1 */
		for (int j = 0; j < k; j++) {
			P[(size_t)i * k + j] = exp(z[j] - m) / s;
			dZ[(size_t)i * k + j] = P[(size_t)i * k + j] / rows;
			other += j != lab[i] ? exp(z[j] - m) : 0;
		}
		dZ[(size_t)i * k + lab[i]] = -other / s / rows;
		loss -= log(P[(size_t)i * k + lab[i]]);
	}
	return loss / rows;
}

static void xent_case(const tb *t, int rows, int k, float scale)
{
	hog_backend *b = t->b;
	hog_err err = { 0 };
	size_t n = (size_t)rows * k;
	float *Z = rand_vec(n, scale), *got = malloc(n * 4);
	int32_t *lab = malloc(rows * sizeof *lab);
	for (int i = 0; i < rows; i++)
		lab[i] = k == 1 ? irand(0, 1) : irand(0, k - 1);
	double *P = malloc(n * sizeof *P), *dZ = malloc(n * sizeof *dZ);
	double want = xent_ref(rows, k, Z, lab, P, dZ), loss = -1;
	float *dz = dev_from(b, Z, n * 4), *dp = dev_from(b, Z, n * 4), *dg = dev_from(b, Z, n * 4);
	int32_t *dl = dev_from(b, lab, rows * sizeof *lab);
	CU_ASSERT_FATAL(hog_backend_xent(b, rows, k, dz, dl, NULL, dp, dg, &loss, &err) == 0);
	char what[64];
	snprintf(what, sizeof what, "xent rows=%d classes=%d", rows, k);
	CU_ASSERT(fabs(loss - want) <= 1e-5 * fmax(1, fabs(want)));
	if (!(fabs(loss - want) <= 1e-5 * fmax(1, fabs(want))))
		fprintf(stderr, "\n%s on %s: loss %.9g, want %.9g\n", what, t->name, loss, want);
	dev_to(b, got, dp, n * 4);
	check_close(what, t, got, P, n, t->tol_elem);
	dev_to(b, got, dg, n * 4);
	check_close(what, t, got, dZ, n, t->tol_elem);
	/* in place: P and then dZ over Z; no labels for probabilities alone */
	CU_ASSERT_FATAL(hog_backend_xent(b, rows, k, dz, dl, NULL, dz, dz, NULL, &err) == 0);
	dev_to(b, got, dz, n * 4);
	check_close("xent in place", t, got, dZ, n, t->tol_elem);
	CU_ASSERT_FATAL(hog_backend_xent(b, rows, k, dp, NULL, NULL, dp, NULL, NULL, &err) == 0);
	hog_backend_release(b, dz);
	hog_backend_release(b, dp);
	hog_backend_release(b, dg);
	hog_backend_release(b, dl);
	free(Z), free(got), free(lab), free(P), free(dZ);
}

static void test_backend_xent(void)
{
	static const int shapes[][2] = { { 1, 10 }, { 1, 1 }, { 32, 10 }, { 7, 2 }, { 128, 1 },
	                                 { 33, 3 }, { 5, 1000 }, { 512, 10 } };
	for (int bi = 0; bi < nbackends; bi++)
		for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
			xent_case(&backends[bi], shapes[s][0], shapes[s][1], 4);
			xent_case(&backends[bi], shapes[s][0], shapes[s][1], 40); /* saturated */
		}
}

/* ---- the sparse first layer ---- */

typedef struct {
	int rows, nnz, dim;
	uint32_t *off, *ids;
	float *vals;
} csr;

/* Random CSR rows over `dim` features; offsets start at `base` (a slice of a block). */
static csr csr_rand(int rows, int dim, int maxrow, uint32_t base)
{
	csr c = { rows, 0, dim, malloc((rows + 1) * 4), NULL, NULL };
	c.off[0] = base;
	for (int i = 0; i < rows; i++)
		c.off[i + 1] = c.off[i] + (uint32_t)irand(0, maxrow);
	size_t total = c.off[rows];
	c.nnz = (int)(total - base);
	c.ids = malloc((total + 1) * 4); /* +1: uploads take one spare */
	c.vals = malloc((total + 1) * 4);
	c.ids[total] = 0;
	c.vals[total] = 0;
	for (size_t p = 0; p < total; p++) {
		c.ids[p] = (uint32_t)irand(0, dim - 1); /* repeats across rows on purpose */
		c.vals[p] = frand();
	}
	return c;
}

static void spmm_case(const tb *t, int rows, int dim, int n, int maxrow, int with_vals)
{
	hog_backend *b = t->b;
	hog_err err = { 0 };
	csr c = csr_rand(rows, dim, maxrow, (uint32_t)irand(0, 9));
	const float *vals = with_vals ? c.vals : NULL;
	int ldw = n + 1, ldy = n + 2;
	size_t sw = (size_t)dim * ldw, sy = (size_t)rows * ldy, total = c.off[rows];
	float *W = rand_vec(sw, 1), *Y = rand_vec(sy, 1), *G = rand_vec(sy, 1);
	double *want = malloc((sw > sy ? sw : sy) * sizeof *want);
	float beta = 0.25f, alpha = -0.5f;
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < ldy; j++) {
			double s = j < n ? beta * Y[(size_t)i * ldy + j] : Y[(size_t)i * ldy + j];
			for (uint32_t p = c.off[i]; j < n && p < c.off[i + 1]; p++)
				s += (vals ? vals[p] : 1.0) * W[(size_t)c.ids[p] * ldw + j];
			want[(size_t)i * ldy + j] = s;
		}
	uint32_t *doff = dev_from(b, c.off, (rows + 1) * 4), *dids = dev_from(b, c.ids, total * 4 + 4);
	float *dvals = vals ? dev_from(b, vals, total * 4 + 4) : NULL;
	float *dW = dev_from(b, W, sw * 4), *dY = dev_from(b, Y, sy * 4), *dG = dev_from(b, G, sy * 4);
	CU_ASSERT_FATAL(hog_backend_spmm(b, rows, doff, dids, dvals, n, dW, ldw, beta, dY, ldy,
	                                 &err) == 0);
	dev_to(b, Y, dY, sy * 4);
	char what[80];
	snprintf(what, sizeof what, "spmm rows=%d dim=%d n=%d vals=%d", rows, dim, n, with_vals);
	check_close(what, t, Y, want, sy, t->tol_elem * 10);
	/* the scatter: W += alpha X^T G, only rows the batch touches change */
	for (size_t q = 0; q < sw; q++)
		want[q] = W[q];
	for (int i = 0; i < rows; i++)
		for (uint32_t p = c.off[i]; p < c.off[i + 1]; p++)
			for (int j = 0; j < n; j++)
				want[(size_t)c.ids[p] * ldw + j] +=
					alpha * (vals ? vals[p] : 1.0) * G[(size_t)i * ldy + j];
	CU_ASSERT_FATAL(hog_backend_spmm_grad(b, rows, doff, dids, dvals, n, dG, ldy, alpha, dW, ldw,
	                                      &err) == 0);
	dev_to(b, W, dW, sw * 4);
	snprintf(what, sizeof what, "spmm_grad rows=%d dim=%d n=%d vals=%d", rows, dim, n, with_vals);
	check_close(what, t, W, want, sw, t->tol_elem * 10);
	hog_backend_release(b, doff);
	hog_backend_release(b, dids);
	hog_backend_release(b, dvals);
	hog_backend_release(b, dW);
	hog_backend_release(b, dY);
	hog_backend_release(b, dG);
	free(c.off), free(c.ids), free(c.vals), free(W), free(Y), free(G), free(want);
}

static void test_backend_spmm(void)
{
	for (int bi = 0; bi < nbackends; bi++) {
		spmm_case(&backends[bi], 1, 1, 1, 1, 1);
		spmm_case(&backends[bi], 1, 50, 256, 20, 0);
		spmm_case(&backends[bi], 32, 1000, 64, 40, 1);
		spmm_case(&backends[bi], 17, 7, 33, 12, 1); /* many repeated ids */
		spmm_case(&backends[bi], 200, 5000, 300, 60, 0);
		for (int r = 0; r < 6; r++)
			spmm_case(&backends[bi], irand(1, 40), irand(1, 300), irand(1, 70), irand(0, 30),
			          r & 1);
	}
}

/* The scatter is the transpose of the product: <G, X W> = <X^T G, W> (adjoint). */
static void test_backend_spmm_adjoint(void)
{
	const tb *t = &backends[0];
	hog_err err = { 0 };
	csr c = csr_rand(20, 100, 15, 0);
	int n = 9;
	float *W = rand_vec(100 * n, 1), *G = rand_vec(20 * n, 1), *Y = malloc(20 * n * 4);
	float *dW = calloc(100 * n, 4);
	CU_ASSERT_FATAL(hog_backend_spmm(t->b, 20, c.off, c.ids, c.vals, n, W, n, 0, Y, n, &err) == 0);
	CU_ASSERT_FATAL(hog_backend_spmm_grad(t->b, 20, c.off, c.ids, c.vals, n, G, n, 1, dW, n,
	                                      &err) == 0);
	double l = 0, r = 0;
	for (int q = 0; q < 20 * n; q++)
		l += (double)G[q] * Y[q];
	for (int q = 0; q < 100 * n; q++)
		r += (double)dW[q] * W[q];
	CU_ASSERT_DOUBLE_EQUAL(l, r, 1e-4 * fmax(1, fabs(l)));
	free(c.off), free(c.ids), free(c.vals), free(W), free(G), free(Y), free(dW);
}

static void test_backend_axpy(void)
{
	for (int bi = 0; bi < nbackends; bi++) {
		const tb *t = &backends[bi];
		hog_err err = { 0 };
		size_t n = 70001;
		float *X = rand_vec(n, 1), *Y = rand_vec(n, 1);
		double *want = malloc(n * sizeof *want);
		for (size_t i = 0; i < n; i++)
			want[i] = Y[i] - 0.125 * X[i];
		float *dX = dev_from(t->b, X, n * 4), *dY = dev_from(t->b, Y, n * 4);
		CU_ASSERT_FATAL(hog_backend_axpy(t->b, n, -0.125f, dX, dY, &err) == 0);
		dev_to(t->b, Y, dY, n * 4);
		check_close("axpy", t, Y, want, n, t->tol_elem);
		hog_backend_release(t->b, dX);
		hog_backend_release(t->b, dY);
		free(X), free(Y), free(want);
	}
}

/* ---- finite differences: backward ops against their forward ops ---- */

/* L(x) = sum_i c_i act(x_i); dL/dx_i from act_bwd vs a central difference. */
static void fd_act(enum hog_act act)
{
	for (int bi = 0; bi < nbackends; bi++) {
		const tb *t = &backends[bi];
		hog_backend *b = t->b;
		hog_err err = { 0 };
		enum { N = 40 };
		float x[N], c[N], y[N], g[N], yp[N], ym[N];
		for (int i = 0; i < N; i++) {
			x[i] = frand() * 3;
			if (fabsf(x[i]) < 0.05f) /* keep away from ReLU's kink */
				x[i] = 0.5f;
			c[i] = frand();
		}
		float *dx = dev_from(b, x, sizeof x), *dy = dev_from(b, x, sizeof x);
		float *dc = dev_from(b, c, sizeof c);
		CU_ASSERT_FATAL(hog_backend_act_fwd(b, act, N, dx, dy, &err) == 0);
		CU_ASSERT_FATAL(hog_backend_act_bwd(b, act, N, dy, dc, dc, &err) == 0);
		dev_to(b, g, dc, sizeof g);
		const float h = 1e-2f;
		for (int i = 0; i < N; i++) {
			float xp[N], xm[N];
			memcpy(xp, x, sizeof x);
			memcpy(xm, x, sizeof x);
			xp[i] += h;
			xm[i] -= h;
			hog_backend_upload(b, dx, xp, sizeof xp, &err);
			hog_backend_act_fwd(b, act, N, dx, dy, &err);
			dev_to(b, yp, dy, sizeof yp);
			hog_backend_upload(b, dx, xm, sizeof xm, &err);
			hog_backend_act_fwd(b, act, N, dx, dy, &err);
			dev_to(b, ym, dy, sizeof ym);
			double lp = 0, lm = 0;
			for (int j = 0; j < N; j++)
				lp += (double)c[j] * yp[j], lm += (double)c[j] * ym[j];
			double fd = (lp - lm) / (2.0 * h);
			if (fabs(fd - g[i]) > 1e-3)
				fprintf(stderr, "\nfd act %d on %s: x=%g analytic %g fd %g\n", act, t->name,
				        x[i], g[i], fd);
			CU_ASSERT(fabs(fd - g[i]) <= 1e-3);
		}
		(void)y;
		hog_backend_release(b, dx);
		hog_backend_release(b, dy);
		hog_backend_release(b, dc);
	}
}

static void test_backend_fd_relu(void)
{
	fd_act(HOG_ACT_RELU);
}

static void test_backend_fd_sigmoid(void)
{
	fd_act(HOG_ACT_SIGMOID);
}

/* The fused gradient dZ against central differences of the mean loss, or
 * with @p weighted of the weighted sum (example weights: the rows' factors);
 * and factors 1/rows giving the mean's gradient bit for bit. */
static void fd_xent(int rows, int k, int weighted)
{
	for (int bi = 0; bi < nbackends; bi++) {
		const tb *t = &backends[bi];
		hog_backend *b = t->b;
		hog_err err = { 0 };
		size_t n = (size_t)rows * k;
		float *Z = rand_vec(n, 3), *g = malloc(n * 4);
		int32_t *lab = malloc(rows * 4);
		for (int i = 0; i < rows; i++)
			lab[i] = k == 1 ? irand(0, 1) : irand(0, k - 1);
		float *wt = malloc(rows * 4), *g1 = malloc(n * 4);
		for (int i = 0; i < rows; i++)
			wt[i] = weighted ? 0.25f + 2.0f * (float)irand(0, 8) / 8 : 1.0f / rows;
		float *dz = dev_from(b, Z, n * 4), *dg = dev_from(b, Z, n * 4), *dw = dev_from(b, wt, rows * 4);
		int32_t *dl = dev_from(b, lab, rows * 4);
		float *W = weighted ? dw : NULL;
		double loss;
		CU_ASSERT_FATAL(hog_backend_xent(b, rows, k, dz, dl, W, NULL, dg, &loss, &err) == 0);
		dev_to(b, g, dg, n * 4);
		if (!weighted && (k > 1 || hog_backend_is_host(b))) { /* the mean's factor given as weights: the
			same bits (but CUDA's logistic divides by rows where a factor multiplies) */
			CU_ASSERT_FATAL(hog_backend_xent(b, rows, k, dz, dl, dw, NULL, dg, NULL, &err) == 0);
			dev_to(b, g1, dg, n * 4);
			CU_ASSERT(memcmp(g, g1, n * 4) == 0);
		}
		const float h = 1e-2f;
		for (size_t q = 0; q < n; q++) {
			double lp, lm;
			float z0 = Z[q];
			Z[q] = z0 + h;
			hog_backend_upload(b, dz, Z, n * 4, &err);
			hog_backend_xent(b, rows, k, dz, dl, W, NULL, NULL, &lp, &err);
			Z[q] = z0 - h;
			hog_backend_upload(b, dz, Z, n * 4, &err);
			hog_backend_xent(b, rows, k, dz, dl, W, NULL, NULL, &lm, &err);
			Z[q] = z0;
			double fd = (lp - lm) / (2.0 * h);
			if (fabs(fd - g[q]) > 2e-4 + 1e-2 * fabs(g[q]))
				fprintf(stderr, "\nfd xent %dx%d%s on %s: [%zu] analytic %g fd %g\n", rows, k,
				        weighted ? " weighted" : "", t->name, q, g[q], fd);
			CU_ASSERT(fabs(fd - g[q]) <= 2e-4 + 1e-2 * fabs(g[q]));
		}
		hog_backend_release(b, dz);
		hog_backend_release(b, dg);
		hog_backend_release(b, dl);
		hog_backend_release(b, dw);
		free(Z), free(g), free(lab), free(wt), free(g1);
	}
}

static void test_backend_fd_softmax(void)
{
	for (int w = 0; w < 2; w++) {
		fd_xent(3, 5, w);
		fd_xent(1, 10, w);
		fd_xent(4, 2, w);
	}
}

static void test_backend_fd_logistic(void)
{
	fd_xent(6, 1, 0);
	fd_xent(6, 1, 1);
}

/* Softmax over two logits (0, z) is the logistic loss of z. */
static void test_backend_softmax2_is_logistic(void)
{
	hog_err err = { 0 };
	enum { R = 9 };
	float z2[2 * R], z1[R], p2[2 * R], p1[R];
	int32_t lab[R];
	for (int i = 0; i < R; i++) {
		z1[i] = frand() * 5;
		z2[2 * i] = 0;
		z2[2 * i + 1] = z1[i];
		lab[i] = i & 1;
	}
	double l1, l2;
	hog_backend *b = backends[0].b;
	CU_ASSERT_FATAL(hog_backend_xent(b, R, 1, z1, lab, NULL, p1, NULL, &l1, &err) == 0);
	CU_ASSERT_FATAL(hog_backend_xent(b, R, 2, z2, lab, NULL, p2, NULL, &l2, &err) == 0);
	CU_ASSERT_DOUBLE_EQUAL(l1, l2, 1e-6);
	for (int i = 0; i < R; i++)
		CU_ASSERT_DOUBLE_EQUAL(p1[i], p2[2 * i + 1], 1e-6);
}


/* ---- a whole network against finite differences ---- */

/* X (R x I) -> dense ReLU (H) -> dense (C) -> softmax cross-entropy. Parameters and
 * the input live in one host array theta = [W1 b1 W2 b2 X] mirrored on the device. */
enum { NR = 3, NI = 5, NH = 4, NC = 3 };
enum { OW1 = 0, OB1 = OW1 + NI * NH, OW2 = OB1 + NH, OB2 = OW2 + NH * NC, OX = OB2 + NC,
       NTHETA = OX + NR * NI };

typedef struct {
	float *th, *h1, *z, *dz, *dh, *g; /* device: theta, activations, gradients */
	int32_t *lab;
} net;

static double net_loss(hog_backend *b, net *n, int grad, hog_err *err)
{
	double loss = 0;
	float *th = n->th, *g = n->g;
	CU_ASSERT_FATAL(hog_backend_dense_fwd(b, NR, NI, NH, th + OX, th + OW1, th + OB1,
	                                      HOG_ACT_RELU, n->h1, err) == 0);
	CU_ASSERT_FATAL(hog_backend_dense_fwd(b, NR, NH, NC, n->h1, th + OW2, th + OB2,
	                                      HOG_ACT_NONE, n->z, err) == 0);
	CU_ASSERT_FATAL(hog_backend_xent(b, NR, NC, n->z, n->lab, NULL, NULL, grad ? n->dz : NULL, &loss,
	                                 err) == 0);
	if (grad) {
		CU_ASSERT_FATAL(hog_backend_dense_bwd(b, NR, NH, NC, n->h1, th + OW2, HOG_ACT_NONE, n->z,
		                                      n->dz, 0, g + OW2, g + OB2, n->dh, err) == 0);
		CU_ASSERT_FATAL(hog_backend_dense_bwd(b, NR, NI, NH, th + OX, th + OW1, HOG_ACT_RELU,
		                                      n->h1, n->dh, 0, g + OW1, g + OB1, g + OX,
		                                      err) == 0);
	}
	return loss;
}

static net net_on(hog_backend *b, const float *theta, const int32_t *lab)
{
	net n = { dev_from(b, theta, NTHETA * 4), dev_from(b, theta, NR * NH * 4), dev_from(b, theta, NR * NC * 4),
	          dev_from(b, theta, NR * NC * 4), dev_from(b, theta, NR * NH * 4), dev_from(b, theta, NTHETA * 4),
	          dev_from(b, lab, NR * sizeof *lab) };
	return n;
}

static void net_free(hog_backend *b, net *n)
{
	void *bufs[] = { n->th, n->h1, n->z, n->dz, n->dh, n->g, n->lab };
	for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
		hog_backend_release(b, bufs[i]);
}

/* Each backend's analytic gradient against central differences of the loss.
 * The differences are taken on the backend itself, except under TF32: its
 * products carry 10 mantissa bits, so a difference of two losses at +-1e-3 is
 * mostly rounding (seen on an H200: 15% off); there the differences come from
 * the CPU backend and the gradient is held to TF32's own accuracy. */
static void test_backend_fd_network(void)
{
	for (int bi = 0; bi < nbackends; bi++) {
		const tb *t = &backends[bi];
		hog_backend *b = t->b;
		const int tf32 = strstr(t->name, "tf32") != NULL;
		hog_backend *fb = tf32 ? backends[0].b : b; /* where the differences are taken */
		hog_err err = { 0 };
		float *theta = rand_vec(NTHETA, 1), *g = malloc(NTHETA * 4);
		int32_t lab[NR];
		for (int i = 0; i < NR; i++)
			lab[i] = irand(0, NC - 1);
		net n = net_on(b, theta, lab), f = tf32 ? net_on(fb, theta, lab) : n;
		net_loss(b, &n, 1, &err);
		dev_to(b, g, n.g, NTHETA * 4);
		const float h = 1e-3f;
		const double abs_tol = tf32 ? 2e-3 : 5e-4, rel_tol = tf32 ? 2e-2 : 2e-2;
		int bad = 0;
		for (int q = 0; q < NTHETA; q++) {
			float v = theta[q];
			theta[q] = v + h;
			hog_backend_upload(fb, f.th, theta, NTHETA * 4, &err);
			double lp = net_loss(fb, &f, 0, &err);
			theta[q] = v - h;
			hog_backend_upload(fb, f.th, theta, NTHETA * 4, &err);
			double lm = net_loss(fb, &f, 0, &err);
			theta[q] = v;
			double fd = (lp - lm) / (2.0 * h);
			if (fabs(fd - g[q]) > abs_tol + rel_tol * fabs(g[q])) {
				fprintf(stderr, "\nfd network on %s: theta[%d] analytic %g fd %g\n", t->name, q,
				        g[q], fd);
				bad++;
			}
		}
		CU_ASSERT(bad == 0);
		net_free(b, &n);
		if (tf32)
			net_free(fb, &f);
		free(theta), free(g);
	}
}

/* The layer helpers are the ops they are made of: dense_fwd against a loop. */
static void test_backend_dense_fwd(void)
{
	for (int bi = 0; bi < nbackends; bi++) {
		const tb *t = &backends[bi];
		hog_err err = { 0 };
		int R = 33, I = 70, O = 21;
		float *X = rand_vec(R * I, 1), *W = rand_vec(I * O, 1), *bias = rand_vec(O, 1);
		float *Y = malloc(R * O * 4);
		double *want = malloc(R * O * sizeof *want);
		for (int i = 0; i < R; i++)
			for (int j = 0; j < O; j++) {
				double z = bias[j];
				for (int p = 0; p < I; p++)
					z += (double)X[i * I + p] * W[p * O + j];
				want[i * O + j] = z > 0 ? z : 0;
			}
		float *dX = dev_from(t->b, X, R * I * 4), *dW = dev_from(t->b, W, I * O * 4);
		float *db = dev_from(t->b, bias, O * 4), *dY = dev_from(t->b, Y, R * O * 4);
		CU_ASSERT_FATAL(hog_backend_dense_fwd(t->b, R, I, O, dX, dW, db, HOG_ACT_RELU, dY,
		                                      &err) == 0);
		dev_to(t->b, Y, dY, R * O * 4);
		check_close("dense_fwd", t, Y, want, R * O, t->tol_gemm);
		hog_backend_release(t->b, dX);
		hog_backend_release(t->b, dW);
		hog_backend_release(t->b, db);
		hog_backend_release(t->b, dY);
		free(X), free(W), free(bias), free(Y), free(want);
	}
}

/* ---- opening, devices, OpenBLAS ---- */

/* Shapes that make no sense and labels out of range are errors the caller
 * gets back (the library never aborts): nothing is written. */
static void test_backend_bad_calls(void)
{
	hog_err err = { 0 };
	hog_backend *b = NULL;
	CU_ASSERT_FATAL(hog_backend_open(&b, "cpu", 0, &err) == 0);
	float A[6] = { 1, 2, 3, 4, 5, 6 }, B[6] = { 1, 1, 1, 1, 1, 1 }, C[4] = { 7, 7, 7, 7 };
	CU_ASSERT_EQUAL(hog_backend_gemm(b, 0, 0, 2, 2, 3, 1, A, 2, B, 2, 0, C, 2, &err), HOG_ECONFIG); /* lda < k */
	CU_ASSERT(strstr(err.msg, "gemm") != NULL);
	CU_ASSERT_EQUAL(hog_backend_gemm(b, 0, 0, -1, 2, 3, 1, A, 3, B, 2, 0, C, 2, &err), HOG_ECONFIG);
	CU_ASSERT_EQUAL(C[0], 7);
	CU_ASSERT_EQUAL(hog_backend_gemm(b, 0, 0, 2, 2, 3, 1, A, 3, B, 2, 0, C, 2, &err), 0); /* and the right one */
	CU_ASSERT_EQUAL(C[0], 6);
	CU_ASSERT_EQUAL(C[3], 15);
	float Z[6] = { 0 }, P[6], dZ[6];
	int32_t lab[2] = { 1, 3 }; /* 3 of 3 classes: out of range */
	double loss = -1;
	CU_ASSERT_EQUAL(hog_backend_xent(b, 2, 3, Z, lab, NULL, P, dZ, &loss, &err), HOG_EDATA);
	CU_ASSERT(strstr(err.msg, "1 labels outside 0..2") != NULL);
	CU_ASSERT_EQUAL(hog_backend_xent(b, 2, 3, Z, NULL, NULL, P, dZ, NULL, &err), HOG_ECONFIG); /* a gradient, no labels */
	CU_ASSERT_EQUAL(hog_backend_xent(b, -1, 3, Z, lab, NULL, P, NULL, NULL, &err), HOG_ECONFIG);
	lab[1] = 2;
	CU_ASSERT_EQUAL(hog_backend_xent(b, 2, 3, Z, lab, NULL, P, dZ, &loss, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(loss, log(3.0), 1e-6);
	uint32_t off[2] = { 0, 1 }, ids[1] = { 0 };
	float W[4] = { 1, 2, 3, 4 }, Y[2] = { 0 };
	CU_ASSERT_EQUAL(hog_backend_spmm(b, 1, off, ids, NULL, 2, W, 1, 0, Y, 2, &err), HOG_ECONFIG); /* ldw < n */
	CU_ASSERT(strstr(err.msg, "spmm") != NULL);
	CU_ASSERT_EQUAL(hog_backend_spmm_grad(b, 1, off, ids, NULL, 2, Y, 1, 1, W, 2, &err), HOG_ECONFIG);
	CU_ASSERT_EQUAL(W[0], 1);
	hog_backend_close(b);
}

static void test_backend_open(void)
{
	hog_err err = { 0 };
	hog_backend *b = (hog_backend *)&err;
	CU_ASSERT(hog_backend_open(&b, "gpu", 0, &err) == HOG_ECONFIG);
	CU_ASSERT(b == NULL);
	CU_ASSERT(strstr(err.msg, "'gpu'") != NULL);
	CU_ASSERT(hog_backend_open(&b, "cuda:", 0, &err) == HOG_ECONFIG);
	CU_ASSERT(hog_backend_open(&b, "cuda:x", 0, &err) == HOG_ECONFIG);
	CU_ASSERT(hog_backend_open(&b, "cuda:-1", 0, &err) == HOG_ECONFIG);
	CU_ASSERT(hog_backend_open(&b, "cpu", 0, &err) == 0);
	CU_ASSERT_STRING_EQUAL(hog_backend_name(b), "cpu");
	CU_ASSERT(hog_backend_is_host(b));
	hog_backend_close(b);
	hog_backend_close(NULL);

	hog_gpu g[8];
	int n = -1;
	char why[256] = "";
	CU_ASSERT(hog_backend_gpus(g, 8, &n, why, sizeof why) == 0);
	CU_ASSERT(n >= 0 && n <= 8);
	int rc = hog_backend_open(&b, "cuda", 0, &err);
	if (!hog_backend_has_cuda()) { /* no plugin: where it was looked for, or why it did not load */
		CU_ASSERT(n == 0);
		CU_ASSERT(strstr(why, HOG_CUDA_PLUGIN_FILE) != NULL);
		CU_ASSERT(rc == HOG_ENOTSUP);
		CU_ASSERT(strstr(err.msg, "device 'cuda'") != NULL);
		CU_ASSERT(strstr(err.msg, HOG_CUDA_PLUGIN_FILE) != NULL);
	} else if (n == 0) {
		CU_ASSERT(why[0] != 0);
		CU_ASSERT(rc == HOG_ECUDA);
		CU_ASSERT(strstr(err.msg, "cuda:0") != NULL);
	} else {
		CU_ASSERT(rc == 0);
		CU_ASSERT_STRING_EQUAL(hog_backend_name(b), "cuda:0");
		CU_ASSERT(!hog_backend_is_host(b));
		CU_ASSERT(g[0].memory > 0 && g[0].major >= 3 && g[0].name[0]);
		/* out of device memory names the bytes */
		void *p = NULL;
		size_t huge = (size_t)1 << 50;
		CU_ASSERT(hog_backend_alloc(b, huge, &p, &err) == HOG_ECUDA);
		CU_ASSERT(strstr(err.msg, "1125899906842624 bytes") != NULL);
		hog_backend_close(b);
		CU_ASSERT(hog_backend_open(&b, "cuda:99", 0, &err) == HOG_ECUDA);
	}
}

/* The plugin loader's refusals, each naming the file: none there, a library
 * that is no plugin; and the plugin's own check of the program it is loaded
 * into (another ABI, another size of a shared structure), called here on the
 * built plugin ($HOG_CUDA_PLUGIN, set by make test-unit) when there is one. */
static void test_backend_plugin_refusals(void)
{
	hog_cuda_plugin p;
	hog_err err = { 0 };
	const char *none = tu_path("no-such-plugin.so");
	CU_ASSERT_EQUAL(hog_cuda_plugin_load(none, &p, &err), HOG_ENOTSUP);
	CU_ASSERT(strstr(err.msg, none) && strstr(err.msg, "No such file"));
	CU_ASSERT(p.open == NULL);
	CU_ASSERT_EQUAL(hog_cuda_plugin_load("libz.so.1", &p, &err), HOG_ENOTSUP);
	CU_ASSERT(strstr(err.msg, "libz.so.1 is not a hogwild CUDA plugin (it has no hog_cuda_plugin_v1)") != NULL);

	const char *path = getenv("HOG_CUDA_PLUGIN");
	void *h = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!h) {
		fprintf(stderr, "\n  plugin ABI checks: skipped (no plugin built: %s)\n", path ? dlerror() : "HOG_CUDA_PLUGIN unset");
		return;
	}
	void *sym = dlsym(h, HOG_CUDA_PLUGIN_ENTRY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sym);
	hog_cuda_plugin_entry entry;
	memcpy(&entry, &sym, sizeof entry);
	hog_cuda_host good = { HOG_CUDA_PLUGIN_ABI, HOG_VERSION_STRING, sizeof(hog_backend), sizeof(hog_backend_ops),
		               sizeof(hog_err), hog_err_set, hog_err_prefix, hog_backend_wrap, hog_backend_close };
	char why[256];
	hog_cuda_host bad = good;
	bad.abi++;
	CU_ASSERT_EQUAL(entry(&bad, &p, why, sizeof why), -1);
	CU_ASSERT(strstr(why, "built for another hogwild") != NULL);
	bad = good;
	bad.ops_size += 8;
	CU_ASSERT_EQUAL(entry(&bad, &p, why, sizeof why), -1);
	bad = good;
	bad.backend_size -= 8;
	CU_ASSERT_EQUAL(entry(&bad, &p, why, sizeof why), -1);
	memset(&p, 0, sizeof p);
	CU_ASSERT_EQUAL(entry(&good, &p, why, sizeof why), 0);
	CU_ASSERT(p.open && p.gpus && p.version && !strcmp(p.version, HOG_VERSION_STRING));
	/* the loader itself on the same file */
	CU_ASSERT_EQUAL(hog_cuda_plugin_load(path, &p, &err), 0);
	dlclose(h);
}

/* A CPU run never asks for the plugin: training an mlp on "cpu" leaves the
 * loader's count as it was, while asking for "cuda" moves it. */
static void test_backend_cpu_never_asks(void)
{
	const char *path = tu_path("cpu_only.lmdb");
	hog_gen_opts g = { .kind = HOG_KIND_DENSE, .seed = 3, .examples = 300, .features = 6 };
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_gen(path, &g, &err), 0);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, path, &err), 0);
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = HOG_MODEL_MLP;
	o.mlp.layers[0] = 4;
	o.mlp.nlayers = 1;
	o.epochs = 1;
	o.threads = 2;
	o.bind = HOG_BIND_NONE;
	unsigned before = hog_cuda_plugin_lookups();
	hog_model *m = NULL;
	CU_ASSERT_EQUAL(hog_train(d, NULL, &o, &m, NULL, &err), 0);
	hog_model_free(m);
	CU_ASSERT_EQUAL(hog_cuda_plugin_lookups(), before);
	hog_backend *b = NULL;
	if (hog_backend_open(&b, "cuda", 0, &err) == 0)
		hog_backend_close(b);
	CU_ASSERT(hog_cuda_plugin_lookups() > before);
	hog_data_free(d);
}

static void test_backend_blas(void)
{
	/* backends opened: OpenBLAS must run one thread inside each worker */
	CU_ASSERT(hog_backend_blas_threads() == 1);
	CU_ASSERT(hog_backend_blas_core()[0] != 0);
	char line[256];
	hog_backend_blas_describe(line, sizeof line);
	CU_ASSERT(strncmp(line, "OpenBLAS", 8) == 0);
	CU_ASSERT(strstr(line, hog_backend_blas_core()) != NULL);
	CU_ASSERT(strstr(line, "1 thread per worker") != NULL);
	/* a better core is offered only in place of a generic one */
	const char *better = hog_backend_blas_better_core();
	if (better)
		CU_ASSERT(!strcmp(better, "SKYLAKEX") || !strcmp(better, "HASWELL"));
}

/* Two workers, each with its own handle, at the same time: each gets its own
 * exact result (OpenBLAS's single-thread path shares no buffers across calls). */
typedef struct {
	int seed, ok;
} worker_arg;

static void *gemm_worker(void *arg)
{
	worker_arg *a = arg;
	hog_backend *b;
	hog_err err = { 0 };
	enum { M = 96, N = 80, K = 70 };
	float *A = malloc(M * K * 4), *B = malloc(K * N * 4), *C = malloc(M * N * 4);
	for (int i = 0; i < M * K; i++)
		A[i] = (float)((i * 7 + a->seed) % 13) - 6;
	for (int i = 0; i < K * N; i++)
		B[i] = (float)((i * 5 + a->seed) % 11) - 5;
	a->ok = hog_backend_open(&b, "cpu", 0, &err) == 0;
	for (int rep = 0; a->ok && rep < 50; rep++) {
		hog_backend_gemm(b, 0, 0, M, N, K, 1, A, K, B, N, 0, C, N, &err);
		for (int i = 0; i < M && a->ok; i += 7)
			for (int j = 0; j < N; j += 5) {
				double s = 0; /* small integers: the float result is exact */
				for (int p = 0; p < K; p++)
					s += (double)A[i * K + p] * B[p * N + j];
				if (C[i * N + j] != (float)s)
					a->ok = 0;
			}
	}
	hog_backend_close(b);
	free(A), free(B), free(C);
	return NULL;
}

static void test_backend_threads(void)
{
	pthread_t th[2];
	worker_arg a[2] = { { 1, 0 }, { 2, 0 } };
	for (int i = 0; i < 2; i++)
		CU_ASSERT_FATAL(pthread_create(&th[i], NULL, gemm_worker, &a[i]) == 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT(a[0].ok && a[1].ok);
	CU_ASSERT(hog_backend_blas_threads() == 1);
}

int test_backend_register(void)
{
	CU_pSuite s = CU_add_suite("backend", backend_suite_init, backend_suite_clean);
	if (!s)
		return -1;
	TU_ADD(s, test_backend_open);
	TU_ADD(s, test_backend_bad_calls);
	TU_ADD(s, test_backend_plugin_refusals);
	TU_ADD(s, test_backend_cpu_never_asks);
	TU_ADD(s, test_backend_gemm_shapes);
	TU_ADD(s, test_backend_gemm_random);
	TU_ADD(s, test_backend_bias);
	TU_ADD(s, test_backend_act);
	TU_ADD(s, test_backend_xent);
	TU_ADD(s, test_backend_spmm);
	TU_ADD(s, test_backend_spmm_adjoint);
	TU_ADD(s, test_backend_axpy);
	TU_ADD(s, test_backend_fd_relu);
	TU_ADD(s, test_backend_fd_sigmoid);
	TU_ADD(s, test_backend_fd_softmax);
	TU_ADD(s, test_backend_fd_logistic);
	TU_ADD(s, test_backend_softmax2_is_logistic);
	TU_ADD(s, test_backend_dense_fwd);
	TU_ADD(s, test_backend_fd_network);
	TU_ADD(s, test_backend_blas);
	TU_ADD(s, test_backend_threads);
	return 0;
}
