/* ROC AUC (model/evalacc.c) against the pair count written here: every
 * (positive, negative) pair, 1 when the positive's margin is above, a half
 * when they are equal. Margins drawn from a few values (ties in plenty),
 * with -0 and +0 among them, on sets below and above the size where the
 * sort turns from qsort to a radix sort; and chunked accumulation equal to
 * the whole. */
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t rng(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static double pairs(const float *m, const float *y, uint64_t n)
{
	double u = 0, np = 0, nn = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (y[i] > 0)
			np++;
		else
			nn++;
		if (y[i] <= 0)
			continue;
		for (uint64_t j = 0; j < n; j++)
			if (y[j] <= 0)
				u += m[i] > m[j] ? 1.0 : m[i] == m[j] ? 0.5 : 0.0;
	}
	return u / (np * nn);
}

static void test_auc_pairs(void)
{
	const uint64_t sizes[] = { 7, 300, 2047, 2048, 5000, 9001 };
	uint64_t s = 5;
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		const uint64_t n = sizes[k];
		float *m = malloc(n * sizeof *m), *y = malloc(n * sizeof *y);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_PTR_NOT_NULL_FATAL(y);
		for (uint64_t i = 0; i < n; i++) {
			y[i] = rng(&s) % 3 ? 1.0f : -1.0f;
			const uint64_t r = rng(&s) % 9;
			/* a few values, negative, both zeros, positive, tiny and huge */
			const float v[] = { -3.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 0.25f, 7.0f, 3e38f, -3e38f };
			m[i] = v[r] + (k % 2 ? (float)(rng(&s) % 4) : 0.0f) * (y[i] > 0 ? 0.5f : 0.25f);
		}
		hog_eval ev;
		CU_ASSERT_EQUAL(hog_model_eval_margins(HOG_LOSS_LOGISTIC, m, y, n, 1, &ev), 0);
		const double want = pairs(m, y, n);
		CU_ASSERT_DOUBLE_EQUAL(ev.auc, want, 1e-12);
		/* in chunks of 1000: the same figure */
		hog_eval_acc a;
		hog_eval ec;
		hog_acc_init(&a, HOG_LOSS_LOGISTIC, 1);
		for (uint64_t i = 0; i < n; i += 1000)
			hog_acc_margins(&a, m + i, y + i, n - i < 1000 ? n - i : 1000);
		hog_acc_finish(&a, &ec);
		CU_ASSERT_EQUAL(ec.auc, ev.auc);
		free(m);
		free(y);
	}
}

/* One class only: no pair, no AUC. */
static void test_auc_one_class(void)
{
	float m[3000], y[3000];
	for (int i = 0; i < 3000; i++) {
		m[i] = (float)(i % 17);
		y[i] = 1.0f;
	}
	hog_eval ev;
	CU_ASSERT_EQUAL(hog_model_eval_margins(HOG_LOSS_LOGISTIC, m, y, 3000, 1, &ev), 0);
	CU_ASSERT(isnan(ev.auc));
}

int test_auc_register(void)
{
	CU_pSuite s = CU_add_suite("auc", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_auc_pairs);
	TU_ADD(s, test_auc_one_class);
	return 0;
}
