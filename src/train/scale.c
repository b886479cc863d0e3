/* Per-feature input scaling (--normalize), shared by every model that takes
 * features: the scale of a feature is the power of two that brings its largest
 * |value| over the training set into (1/2, 1]. Max-abs rather than
 * standardization: subtracting a mean would fill in every zero of a sparse row.
 * A power of two, so that scaling the inputs and unscaling the weights (the
 * model file holds weights for the raw features) is exact.
 *
 * HOG_NORMALIZE_AUTO scales every feature, as HOG_NORMALIZE_ON, when some
 * feature has values beyond [-1, 1] (raw measurements, pixels 0..255, counts:
 * the small columns of such a set are as unscaled as its large ones), or when
 * a column of a table -- a feature nonzero in half the examples or more, at
 * least 10 -- never reaches 1/128 (a quantity in other units: make_regression's
 * columns times 1e-3 and 1e-4 left a model at test RMSE 131 where least squares
 * reaches 1.01, scaled 1.009; a rare word's small TF-IDF is in too few rows to
 * count); and none otherwise, so that data already scaled (binary indicators,
 * unit-norm TF-IDF rows, pixels in [0, 1]) trains exactly as with
 * HOG_NORMALIZE_OFF.
 *
 * The linear model and the mlp also center, with --normalize on or auto, a feature that is
 * in every example and whose mean is over ENG_CENTER_RATIO times its standard
 * deviation (a year column, 2000 +- 1; a timestamp): max-abs scaling leaves
 * such a feature nearly a constant beside the bias, which SGD fits slowly (five
 * such columns, 4,000 rows: test RMSE 37.8 where least squares reaches 0.995).
 * It trains on (x - mean) times the scale of its largest |x - mean|; in every
 * example already, it stays as sparse as it was, and the bias takes the means
 * back when the model is handed over (linear_train.c, weight_of; the mlp's
 * first layer's biases, mlp_io.c, mlp_snapshot). The mlp could not use such
 * a column (a year and a timestamp beside two columns: test accuracy 52.5%,
 * 63.2% with a hidden layer of 32, where scikit-learn's MLP reached 99.3%;
 * centered 85.3% and 99.1%). */
#include "train/engine.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void eng_scales_from_max(float *mx, uint64_t n, int mode, uint64_t *changed, const uint64_t *cnt,
                         uint64_t examples)
{
	uint64_t c = 0;
	if (mode == HOG_NORMALIZE_AUTO) {
		int raw = 0;
		const uint64_t col = examples / 2 > 10 ? examples / 2 : 10; /* (a column's rows: half, at least 10) */
		for (uint64_t v = 0; v < n && !raw; v++)
			raw = mx[v] > 1.0f || (cnt && cnt[v] >= col && mx[v] > 0.0f && mx[v] < 1.0f / 128);
		mode = raw ? HOG_NORMALIZE_ON : HOG_NORMALIZE_OFF;
	}
	for (uint64_t v = 0; v < n; v++) {
		int ex = 0;
		float f = mx[v] > 0 && isfinite(mx[v]) ? frexpf(mx[v], &ex) : 0.0f; /* max = f 2^ex, f in [1/2, 1) */
		if (f == 0.0f || mode == HOG_NORMALIZE_OFF)
			mx[v] = 1.0f;
		else
			mx[v] = ldexpf(1.0f, f == 0.5f ? 1 - ex : -ex);
		c += mx[v] != 1.0f;
	}
	if (changed)
		*changed = c;
}

double *eng_feature_centers(const hog_data *d, uint64_t *ncentered)
{
	if (ncentered)
		*ncentered = 0;
	if (!d->vals || !d->ids || d->n < 10 || d->meta.kind != HOG_KIND_SPARSE)
		return NULL;
	double *st = calloc((d->dim + 1) * 3, sizeof *st); /* count, sum, sum of squares */
	if (!st)
		return NULL;
	for (uint64_t j = 0; j < d->nnz; j++) {
		const double x = (double)d->vals[j];
		double *f = st + (size_t)d->ids[j] * 3;
		f[0] += 1;
		f[1] += x;
		f[2] += x * x;
	}
	double *mu = NULL;
	uint64_t k = 0;
	for (uint64_t v = 0; v < d->dim; v++) {
		const double *f = st + v * 3;
		if (f[0] != (double)d->n) /* (in every example: its absent zeros would fill in) */
			continue;
		const double m = f[1] / f[0], var = f[2] / f[0] - m * m;
		if (!eng_far_from_zero(m, var))
			continue;
		if (!mu && !(mu = calloc(d->dim + 1, sizeof *mu)))
			break;
		mu[v] = m;
		k++;
	}
	free(st);
	if (ncentered)
		*ncentered = k;
	return mu;
}

float *eng_feature_scales(const hog_data *d, int mode, uint64_t *changed, const double *mu)
{
	float *s = calloc(d->dim + 1, sizeof *s);
	uint64_t *cnt = calloc(d->dim + 1, sizeof *cnt); /* (nonzero values: a table's columns, for auto) */
	if (!s || !cnt) {
		free(s);
		free(cnt);
		return NULL;
	}
	/* (a compare, not fmaxf: gcc calls libm's for it, a call a nonzero -- 0.2 s
	 * of one thread's setup on 50 M nonzeros; a NaN is skipped either way, and
	 * the maxima start at +0, never NaN) */
	if (d->meta.kind == HOG_KIND_DENSE && d->x)
		for (uint64_t i = 0; i < d->n; i++)
			for (uint64_t v = 0; v < d->dim; v++) {
				const float a = fabsf(d->x[i * d->dim + v]);
				s[v] = a > s[v] ? a : s[v];
				cnt[v] += a > 0.0f;
			}
	else if (d->vals && mu)
		for (uint64_t j = 0; j < d->nnz; j++) {
			const float a = (float)fabs((double)d->vals[j] - mu[d->ids[j]]);
			if (a > s[d->ids[j]])
				s[d->ids[j]] = a;
			cnt[d->ids[j]]++;
		}
	else if (d->vals)
		for (uint64_t j = 0; j < d->nnz; j++) {
			const float a = fabsf(d->vals[j]);
			if (a > s[d->ids[j]])
				s[d->ids[j]] = a;
			cnt[d->ids[j]]++;
		}
	eng_scales_from_max(s, d->dim + 1, mode, changed, cnt, d->n);
	free(cnt);
	return s;
}

double eng_mean_sq(const hog_data *d, const float *sc, const double *mu)
{
	double sq = 0;
	if (d->meta.kind == HOG_KIND_DENSE && d->x)
		for (uint64_t k = 0; k < d->n * d->dim; k++) {
			const double x = (double)d->x[k] * (sc ? sc[k % d->dim] : 1.0f);
			sq += x * x;
		}
	else if (d->vals)
		for (uint64_t j = 0; j < d->nnz; j++) {
			const double x = ((double)d->vals[j] - (mu ? mu[d->ids[j]] : 0.0)) * (sc ? sc[d->ids[j]] : 1.0f);
			sq += x * x;
		}
	else
		sq = (double)d->nnz; /* (binary: every value 1) */
	return sq / (double)(d->n ? d->n : 1);
}

void eng_moments_add(eng_moments *m, const float *y, const float *wt, uint64_t n)
{
	if (n && m->w == 0)
		m->k = y[0];
	for (uint64_t i = 0; i < n; i++) {
		const double w = wt ? (double)wt[i] : 1.0, d = (double)y[i] - m->k;
		m->w += w;
		m->s += w * d;
		m->ss += w * d * d;
	}
}

double eng_moments_mean(const eng_moments *m, double *sd)
{
	if (!(m->w > 0)) {
		*sd = 0;
		return 0;
	}
	const double a = m->s / m->w, var = m->ss / m->w - a * a;
	*sd = var > 0 ? sqrt(var) : 0;
	return m->k + a;
}

void eng_centered_note(const hog_train_opts *o, uint64_t nc)
{
	if (!nc || !o->on_note)
		return;
	char msg[256];
	snprintf(msg, sizeof msg, "normalize: %llu feature%s far from zero next to %s spread centered (the training "
	         "mean subtracted; the model keeps raw units; --normalize=off trains on the raw values)",
	         (unsigned long long)nc, nc == 1 ? "" : "s", nc == 1 ? "its" : "their");
	o->on_note(o->ud, msg);
}

void eng_scales_settle(hog_train_opts *o, uint64_t changed, uint64_t dim)
{
	if (!changed)
		o->normalize = HOG_NORMALIZE_OFF;
	if (!o->on_note || !changed || o->normalize != HOG_NORMALIZE_AUTO)
		return;
	char msg[256];
	snprintf(msg, sizeof msg, "normalize: values beyond [-1, 1], or columns that never reach 1/128: %llu of %llu "
	         "features scaled by 1/max|x| (the model keeps raw units; --normalize=off trains on the raw values)",
	         (unsigned long long)changed, (unsigned long long)dim);
	o->on_note(o->ud, msg);
}
