/* Compressed averaging of the MPI ranks' models: powersgd and top-k with
 * error feedback (compress.h says what and why). No MPI here: the sum is
 * cmp_sync()'s callback, so that tests can play the ranks. */
#include "train/compress.h"
#include "hogwild.h"
#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How much of a column Gram-Schmidt must leave, against its norm before, to
 * be kept: float P = M Q leaves ~1e-7 of a column that depends on the ones
 * before it (mf's padding columns, a rank above the change's). */
#define CMP_GS_KEEP 1e-4

static uint64_t mix(uint64_t *s) /* splitmix64, as eng_mix64 */
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static float unit_draw(uint64_t *s) /* uniform in [-1, 1) */
{
	return (float)((double)(mix(s) >> 11) * 0x1p-52 - 1.0);
}

/* Column j of the cols x r row-major Q drawn from the seed, the sync and j. */
static void draw_col(float *Q, size_t cols, uint32_t r, uint32_t j, uint64_t seed)
{
	uint64_t s = seed ^ ((uint64_t)j * 0x51ED27ull);
	for (size_t i = 0; i < cols; i++)
		Q[i * r + j] = unit_draw(&s);
}

void cmp_orthonormalise(float *P, size_t rows, uint32_t r)
{
	double *c = malloc((rows ? rows : 1) * sizeof *c);
	if (!c) { /* (no memory for the double column: in float) */
		for (uint32_t j = 0; j < r; j++)
			for (size_t i = 0; i < rows; i++)
				P[i * r + j] = 0;
		return;
	}
	for (uint32_t j = 0; j < r; j++) {
		double n0 = 0;
		for (size_t i = 0; i < rows; i++) {
			c[i] = P[i * r + j];
			n0 += c[i] * c[i];
		}
		for (int pass = 0; pass < 2; pass++)
			for (uint32_t q = 0; q < j; q++) {
				double d = 0;
				for (size_t i = 0; i < rows; i++)
					d += c[i] * P[i * r + q];
				for (size_t i = 0; i < rows; i++)
					c[i] -= d * P[i * r + q];
			}
		double n1 = 0;
		for (size_t i = 0; i < rows; i++)
			n1 += c[i] * c[i];
		const int keep = n0 > 0 && n1 > CMP_GS_KEEP * CMP_GS_KEEP * n0;
		const double inv = keep ? 1.0 / sqrt(n1) : 0.0;
		for (size_t i = 0; i < rows; i++)
			P[i * r + j] = (float)(c[i] * inv);
	}
	free(c);
}

int cmp_parse(const char *spec, int *scheme, uint32_t *R, double *F, char *why, size_t wlen)
{
	char *end;
	*R = 0;
	*F = 0;
	if (!strcmp(spec, "none")) {
		*scheme = HOG_COMPRESS_NONE;
		return 0;
	}
	if (!strncmp(spec, "powersgd:", 9)) {
		errno = 0;
		unsigned long v = strtoul(spec + 9, &end, 10);
		if (errno || end == spec + 9 || *end || spec[9] == '-' || v < 1 || v > 65535) {
			snprintf(why, wlen, "powersgd:R with a rank R of 1..65535");
			return -1;
		}
		*scheme = HOG_COMPRESS_POWERSGD;
		*R = (uint32_t)v;
		return 0;
	}
	if (!strncmp(spec, "topk:", 5)) {
		errno = 0;
		double v = strtod(spec + 5, &end);
		if (errno || end == spec + 5 || *end || !(v > 0 && v <= 1)) {
			snprintf(why, wlen, "topk:F with a fraction of the coordinates 0 < F <= 1");
			return -1;
		}
		*scheme = HOG_COMPRESS_TOPK;
		*F = v;
		return 0;
	}
	snprintf(why, wlen, "none, powersgd:R (a rank) or topk:F (a fraction)");
	return -1;
}

void cmp_free(cmp_state *c)
{
	for (size_t i = 0; c->sp && i < c->nspans; i++) {
		cmp_span *s = &c->sp[i];
		free(s->last);
		free(s->resid);
		free(s->P);
		free(s->Q);
		free(s->idx);
		free(s->mark);
	}
	free(c->sp);
	free(c->buf[0]);
	free(c->buf[1]);
	memset(c, 0, sizeof *c);
}

int cmp_init(cmp_state *c, int scheme, uint32_t R, double F, uint64_t seed, const cmp_shape *sh, size_t ns,
             char *why, size_t wlen)
{
	memset(c, 0, sizeof *c);
	c->scheme = scheme;
	c->R = R;
	c->F = F;
	c->seed = seed;
	c->nspans = ns;
	if (!(c->sp = calloc(ns ? ns : 1, sizeof *c->sp)))
		return ENOMEM;
	int matrices = 0;
	for (size_t i = 0; i < ns; i++) {
		cmp_span *s = &c->sp[i];
		s->n = sh[i].n;
		s->rows = sh[i].rows;
		s->cols = sh[i].cols;
		const int matrix = s->cols && s->rows && s->rows * s->cols == s->n;
		uint64_t r = R < s->rows ? R : s->rows;
		r = r < s->cols ? r : s->cols;
		matrices += matrix;
		/* (factors no smaller than the matrix: it goes whole, and exactly) */
		s->how = scheme == HOG_COMPRESS_POWERSGD && matrix && (s->rows + s->cols) * r < s->n ? CMP_PSGD
		         : scheme == HOG_COMPRESS_TOPK && s->n ? CMP_TOPK : CMP_WHOLE;
		if (s->how == CMP_TOPK) {
			double k = ceil(F * (double)s->n);
			s->k = k >= (double)s->n ? s->n : k < 1 ? 1 : (size_t)k;
		}
		if (s->how == CMP_WHOLE) {
			c->len[0] += scheme ? s->n : 0; /* (none: summed in place) */
			c->bytes += s->n * sizeof(float);
			continue;
		}
		if (!(s->last = malloc(s->n * sizeof(float))) || !(s->resid = calloc(s->n, sizeof(float))))
			return ENOMEM;
		memcpy(s->last, sh[i].p, s->n * sizeof(float));
		if (s->how == CMP_PSGD) {
			s->r = (uint32_t)r;
			if (!(s->P = calloc(s->rows * s->r, sizeof(float))) || !(s->Q = malloc(s->cols * s->r * sizeof(float))))
				return ENOMEM;
			for (uint32_t j = 0; j < s->r; j++)
				draw_col(s->Q, s->cols, s->r, j, seed ^ (0xC0DEull + i));
			c->len[0] += s->rows * s->r;
			c->len[1] += s->cols * s->r;
			c->bytes += (s->rows + s->cols) * s->r * sizeof(float);
		} else {
			if (!(s->idx = malloc(s->k * sizeof *s->idx)) || !(s->mark = calloc(s->n, 1)))
				return ENOMEM;
			c->len[0] += s->k;
			c->bytes += s->k * sizeof(float);
		}
	}
	if (scheme == HOG_COMPRESS_POWERSGD && !matrices) {
		snprintf(why, wlen, "powersgd compresses matrices and this model shares none (its parameters are "
		         "vectors): use topk:F");
		return EINVAL;
	}
	for (int b = 0; b < 2; b++)
		if (c->len[b] && !(c->buf[b] = malloc(c->len[b] * sizeof(float))))
			return ENOMEM;
	return 0;
}

/* ------------------------------------------------------------ top-k */

/* The k coordinates of this sync, the same on every rank: drawn at random
 * (without repeats) from the seed every rank shares and the sync's number;
 * idx in increasing order. */
static void topk_pick(const cmp_state *c, cmp_span *s, size_t span_no)
{
	if (s->k == s->n) {
		for (size_t j = 0; j < s->n; j++)
			s->idx[j] = j;
		return;
	}
	memset(s->mark, 0, s->n);
	uint64_t rs = c->seed ^ (c->syncs * 0x9E3779B97F4A7C15ull) ^ (span_no * 0xA5A5ull) ^ 0x70B4ull;
	for (size_t got = 0; got < s->k;) {
		size_t j = (size_t)(mix(&rs) % s->n);
		if (!s->mark[j])
			s->mark[j] = 1, got++;
	}
	size_t q = 0;
	for (size_t j = 0; j < s->n; j++)
		if (s->mark[j])
			s->idx[q++] = j;
}

/* ------------------------------------------------------------ the phases */

void cmp_pack0(cmp_state *c, const cmp_shape *sh)
{
	float *out = c->buf[0];
	for (size_t i = 0; i < c->nspans; i++) {
		cmp_span *s = &c->sp[i];
		const float *cur = sh[i].p;
		if (s->how == CMP_WHOLE) {
			if (c->scheme) {
				memcpy(out, cur, s->n * sizeof(float));
				out += s->n;
			}
			continue;
		}
		/* M = change since the last sync + residual: the rank's model is the
		 * last sync's plus its residual, so M is its whole distance from that */
		for (size_t j = 0; j < s->n; j++)
			s->resid[j] = cur[j] - s->last[j];
		if (s->how == CMP_TOPK) {
			topk_pick(c, s, i);
			for (size_t j = 0; j < s->k; j++) {
				out[j] = s->resid[s->idx[j]];
				s->resid[s->idx[j]] = 0;
			}
			out += s->k;
			continue;
		}
		const uint64_t redraw = c->seed ^ 0xC0DEull ^ (c->syncs + 1) * 0x2545F4914F6CDD1Dull ^ i;
		for (uint32_t j = 0; j < s->r; j++) { /* a column gone (to zero) is drawn again */
			int zero = 1;
			for (size_t q = 0; q < s->cols && zero; q++)
				zero = s->Q[q * s->r + j] == 0;
			if (zero)
				draw_col(s->Q, s->cols, s->r, j, redraw);
		}
		/* P = M Q */
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)s->rows, (int)s->r, (int)s->cols, 1.0f,
		            s->resid, (int)s->cols, s->Q, (int)s->r, 0.0f, out, (int)s->r);
		out += s->rows * s->r;
	}
}

void cmp_pack1(cmp_state *c)
{
	const float *in = c->buf[0];
	float *out = c->buf[1];
	for (size_t i = 0; i < c->nspans; i++) {
		cmp_span *s = &c->sp[i];
		if (s->how == CMP_WHOLE) {
			in += c->scheme ? s->n : 0;
			continue;
		}
		if (s->how == CMP_TOPK) {
			in += s->k;
			continue;
		}
		memcpy(s->P, in, s->rows * s->r * sizeof(float));
		in += s->rows * s->r;
		cmp_orthonormalise(s->P, s->rows, s->r);
		/* this rank's Q = M^T P, then the residual M - P Q^T */
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)s->cols, (int)s->r, (int)s->rows, 1.0f,
		            s->resid, (int)s->cols, s->P, (int)s->r, 0.0f, out, (int)s->r);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)s->rows, (int)s->cols, (int)s->r, -1.0f,
		            s->P, (int)s->r, out, (int)s->r, 1.0f, s->resid, (int)s->cols);
		out += s->cols * s->r;
	}
}

void cmp_apply(cmp_state *c, const cmp_shape *sh, int ranks)
{
	const float inv = 1.0f / (float)ranks;
	const float *in0 = c->buf[0], *in1 = c->buf[1];
	for (size_t i = 0; i < c->nspans; i++) {
		cmp_span *s = &c->sp[i];
		float *cur = sh[i].p;
		if (s->how == CMP_WHOLE) {
			if (c->scheme) {
				for (size_t j = 0; j < s->n; j++)
					cur[j] = in0[j] * inv;
				in0 += s->n;
			}
			continue;
		}
		if (s->how == CMP_TOPK) {
			for (size_t j = 0; j < s->k; j++)
				s->last[s->idx[j]] += in0[j] * inv;
			in0 += s->k;
		} else {
			in0 += s->rows * s->r;
			memcpy(s->Q, in1, s->cols * s->r * sizeof(float)); /* the shared Q: next sync's start */
			in1 += s->cols * s->r;
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)s->rows, (int)s->cols, (int)s->r, inv,
			            s->P, (int)s->r, s->Q, (int)s->r, 1.0f, s->last, (int)s->cols);
		}
		for (size_t j = 0; j < s->n; j++) /* the new shared model, plus what this rank kept */
			cur[j] = s->last[j] + s->resid[j];
	}
	c->syncs++;
}

int cmp_finish(cmp_state *c, const cmp_shape *sh, int ranks, cmp_sum_fn sum, void *ctx)
{
	if (!c->scheme)
		return 0;
	const float inv = 1.0f / (float)ranks;
	for (size_t i = 0; i < c->nspans; i++) {
		cmp_span *s = &c->sp[i];
		if (s->how == CMP_WHOLE)
			continue;
		int rc = sum(ctx, sh[i].p, s->n);
		if (rc)
			return rc;
		for (size_t j = 0; j < s->n; j++) {
			sh[i].p[j] *= inv;
			s->last[j] = sh[i].p[j];
			s->resid[j] = 0;
		}
	}
	return 0;
}

int cmp_sync(cmp_state *c, const cmp_shape *sh, int ranks, cmp_sum_fn sum, void *ctx)
{
	int rc;
	if (!c->scheme) { /* every span whole, summed in place */
		const float inv = 1.0f / (float)ranks;
		for (size_t i = 0; i < c->nspans; i++) {
			if ((rc = sum(ctx, sh[i].p, sh[i].n)))
				return rc;
			for (size_t j = 0; j < sh[i].n; j++)
				sh[i].p[j] *= inv;
		}
		c->syncs++;
		return 0;
	}
	cmp_pack0(c, sh);
	if (c->len[0] && (rc = sum(ctx, c->buf[0], c->len[0])))
		return rc;
	cmp_pack1(c);
	if (c->len[1] && (rc = sum(ctx, c->buf[1], c->len[1])))
		return rc;
	cmp_apply(c, sh, ranks);
	return 0;
}
