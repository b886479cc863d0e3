/* The mf model kind: its parameter count, which data sets it takes, predictions
 * and their figures (RMSE, MAE), and its part of hog_model_info. The layout and
 * the prediction are in mf.h; training is in train/mf_train.c. */
#include "model/mf.h"
#include "sys/err.h"
#include "sys/names.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

int hog_mf_layout_get(hog_mf_layout *l, const uint64_t shape[4], uint32_t flags, enum hog_rule rule)
{
	memset(l, 0, sizeof *l);
	l->users = shape[0];
	l->items = shape[1];
	l->k = shape[2];
	l->kp = shape[3];
	l->biases = (flags & HOG_MF_BIASES) != 0;
	l->adagrad = rule == HOG_RULE_ADAGRAD;
	if (l->k == 0 || l->k > HOG_MF_RANK_MAX || l->kp != hog_mf_pad(l->k) || l->users >= (1ull << 32) ||
	    l->items >= (1ull << 32) || (flags & ~HOG_MF_BIASES) || rule > HOG_RULE_ADAGRAD)
		return 0;
	uint64_t at = 0;
#define SEG(name, len) (l->name = at, at += hog_mf_pad(len))
	SEG(P, l->users * l->kp);
	SEG(Q, l->items * l->kp);
	l->bu = l->bi = l->gu = l->gi = l->gbu = l->gbi = UINT64_MAX;
	if (l->biases) {
		SEG(bu, l->users);
		SEG(bi, l->items);
	}
	if (l->adagrad) {
		SEG(gu, l->users);
		SEG(gi, l->items);
		if (l->biases) {
			SEG(gbu, l->users);
			SEG(gbi, l->items);
		}
	}
#undef SEG
	l->total = at;
	return 1;
}

int hog_mf_segments(const hog_mf_layout *l, int side, hog_mf_seg seg[4])
{
	const uint64_t rows = side ? l->items : l->users;
	const uint64_t at[4] = { side ? l->Q : l->P, side ? l->bi : l->bu, side ? l->gi : l->gu,
		                     side ? l->gbi : l->gbu };
	int n = 0;
	for (int s = 0; s < 4; s++)
		if (at[s] != UINT64_MAX) {
			const uint64_t per_row = s ? 1 : l->kp;
			seg[n++] = (hog_mf_seg){ at[s], hog_mf_pad(rows * per_row), rows, per_row };
		}
	return n;
}

void hog_mf_zero_users_outside(const hog_mf_layout *l, float *params, uint64_t lo, uint64_t hi)
{
	hog_mf_seg seg[4];
	int n = hog_mf_segments(l, 0, seg);
	lo = lo < l->users ? lo : l->users;
	hi = hi < lo ? lo : hi < l->users ? hi : l->users;
	for (int s = 0; s < n; s++) {
		float *p = params + seg[s].at;
		memset(p, 0, lo * seg[s].per_row * sizeof *p);
		memset(p + hi * seg[s].per_row, 0, (seg[s].len - hi * seg[s].per_row) * sizeof *p);
	}
}

uint64_t hog_mf_rank_ratings(const uint32_t *users, uint64_t n, uint64_t lo, uint64_t hi, uint32_t *out)
{
	uint64_t c = 0;
	for (uint64_t j = 0; j < n; j++)
		if (users[j] >= lo && users[j] < hi) {
			if (out)
				out[c] = (uint32_t)j;
			c++;
		}
	return c;
}

static uint64_t mf_nparams(const hog_model *m)
{
	hog_mf_layout l;
	return hog_mf_layout_get(&l, m->shape, m->flags, m->rule) ? l.total : 0;
}

static int mf_fits(const hog_model *m, const hog_data *d, hog_err *err)
{
	(void)m;
	if (d->meta.kind != HOG_KIND_RATINGS)
		return hog_err_set(err, HOG_EMISMATCH,
		                   "the model is mf (users x items factors) but the data set is %s, "
		                   "not ratings (user, item, rating)",
		                   hog_kind_name(d->meta.kind));
	/* users or items beyond the model's shapes are new ones: mu and the biases that exist */
	return 0;
}

static void mf_predict(const hog_model *m, const hog_data *d, float *out)
{
	hog_mf_layout l;
	if (!hog_mf_layout_get(&l, m->shape, m->flags, m->rule))
		return;
	float mu = (float)m->aux;
#pragma omp parallel for schedule(static) if (d->n > 100000)
	for (uint64_t j = 0; j < d->n; j++)
		out[j] = hog_mf_predict_one(&l, m->params, mu, d->users[j], d->items[j]);
}

static void mf_eval(const hog_model *m, const hog_data *d, const float *pred, hog_eval_acc *a)
{
	(void)m;
	hog_acc_ratings(a, pred, d->ratings, d->n);
}

static void mf_info(const hog_model *m, hog_model_info *info)
{
	info->users = m->shape[0];
	info->items = m->shape[1];
	info->rank = (uint32_t)m->shape[2];
	info->biases = (m->flags & HOG_MF_BIASES) != 0;
	info->mean = m->aux;
}

static void mf_rated(const hog_model *m, uint8_t *users, uint8_t *items)
{
	hog_mf_layout l;
	if (!hog_mf_layout_get(&l, m->shape, m->flags, m->rule))
		return;
	for (uint64_t u = 0; u < l.users; u++)
		users[u] = !hog_mf_row_unseen(m->params + l.P + u * l.kp, l.k);
	for (uint64_t i = 0; i < l.items; i++)
		items[i] = !hog_mf_row_unseen(m->params + l.Q + i * l.kp, l.k);
}

/* Dump records, segment by segment in the layout's order: "u ID f1..fk" per
 * user, "i ID f1..fk" per item, then with biases "bu ID b" and "bi ID b", with
 * adagrad "gu ID g" and "gi ID g" (and "gbu", "gbi" with biases). IDs are the
 * original ones when the model keeps its id maps (the u and i records carry
 * them), else the dense ids. */
static const char *const mf_tags[8] = { "u", "i", "bu", "bi", "gu", "gi", "gbu", "gbi" };

static int mf_maps(const hog_model *m)
{
	return m->user_ids && m->item_ids && m->nuser_ids == m->shape[0] && m->nitem_ids == m->shape[1];
}

static uint64_t mf_records(const hog_model *m)
{
	hog_mf_layout l;
	if (!hog_mf_layout_get(&l, m->shape, m->flags, m->rule))
		return 0;
	const uint64_t at[8] = { l.P, l.Q, l.bu, l.bi, l.gu, l.gi, l.gbu, l.gbi };
	uint64_t n = 0;
	for (int s = 0; s < 8; s++)
		n += at[s] == UINT64_MAX ? 0 : s & 1 ? l.items : l.users;
	return n;
}

static void mf_record(const hog_model *m, uint64_t r, hog_model_rec *rec)
{
	hog_mf_layout l;
	memset(rec, 0, sizeof *rec);
	if (!hog_mf_layout_get(&l, m->shape, m->flags, m->rule))
		return;
	const uint64_t at[8] = { l.P, l.Q, l.bu, l.bi, l.gu, l.gi, l.gbu, l.gbi };
	for (int s = 0; s < 8; s++) {
		const uint64_t rows = s & 1 ? l.items : l.users;
		if (at[s] == UINT64_MAX)
			continue;
		if (r >= rows) {
			r -= rows;
			continue;
		}
		uint64_t *ids = mf_maps(m) ? (s & 1 ? m->item_ids : m->user_ids) : NULL;
		snprintf(rec->tag, sizeof rec->tag, "%s", mf_tags[s]);
		rec->has_id = 1;
		rec->id = ids ? ids[r] : r;
		rec->id_slot = ids && s < 2 ? ids + r : NULL;
			rec->at = at[s] + r * (s < 2 ? l.kp : 1);
		rec->len = s < 2 ? l.k : 1;
		return;
	}
}

const hog_model_kind_ops hog_mf_kind = {
	.name = "mf",
	.nparams = mf_nparams,
	.fits = mf_fits,
	.predict = mf_predict,
	.eval = mf_eval,
	.info = mf_info,
	.rated = mf_rated,
	.records = mf_records,
	.record = mf_record,
};
