/* The linear trainer's --delay K queue (linear_train.h): each example's update
 * is queued and written K examples later. The read and the write each take the
 * mode's locks on their own. Not specialized by loss and values: this path is
 * for studying step rules under delay. Per-example code, in one file: kernel.h's
 * read_margin and write_update inlined here, per mode and rule.
 */
#include "model/linear.h"
#include "train/engine.h"
#include "train/kernel.h"
#include "train/linear_train.h"
#include <stdint.h>

/* The write of a queued example under the mode's locks, and its delay when
 * the read was sampled. */
static void apply_pending(hog_engine *e, eng_worker *ew, pending *p, float *snap, float lr)
{
	const lin_state *L = e->model;
	lin_worker *w = ew->m;
	const enum hog_mode mode = e->o.mode == HOG_MODE_SERIAL ? HOG_MODE_LOCKFREE : e->o.mode;
	uint64_t lo = w->off[p->row];
	uint32_t nnz = (uint32_t)(w->off[p->row + 1] - lo);
	const uint32_t *ids = w->ids + lo;
	const float *xs = w->xs ? w->xs + lo : NULL;
	w->k.gsnap = snap;
	uint64_t applied = 0;
#define APPLY(M, R)                                                                                    \
	do {                                                                                               \
		lock_example(M, &L->ks, ids, nnz);                                                             \
		if (xs) write_update(M, R, 1, &L->ks, &w->k, ids, xs, nnz, 0, p->g, lr);                      \
		else write_update(M, R, 0, &L->ks, &w->k, ids, xs, nnz, 0, p->g, lr);                         \
		eng_count_applied(ew); /* inside the locks, as the read's count (read_pending) */             \
		applied = eng_team_applied(e);                                                                 \
		unlock_example(M, &L->ks, ids, nnz);                                                           \
	} while (0)
#define APPLY_R(M)                                                                 \
	do {                                                                           \
		switch (e->o.rule) {                                                       \
		case HOG_RULE_SGD: APPLY(M, HOG_RULE_SGD); break;                          \
		case HOG_RULE_ADAGRAD: APPLY(M, HOG_RULE_ADAGRAD); break;                  \
		case HOG_RULE_ADAREVISION: APPLY(M, HOG_RULE_ADAREVISION); break;          \
		default: break; /* (adam: the mlp's; the linear check refuses it) */      \
		}                                                                          \
	} while (0)
	switch (mode) {
	case HOG_MODE_ATOMIC: APPLY_R(HOG_MODE_ATOMIC); break;
	case HOG_MODE_STRIPED: APPLY_R(HOG_MODE_STRIPED); break;
	case HOG_MODE_LOCKED: APPLY_R(HOG_MODE_LOCKED); break;
	default: APPLY_R(HOG_MODE_LOCKFREE); break;
	}
	if (p->seen != UINT64_MAX)
		eng_note_delay(ew, applied - p->seen - 1);
}

/* The margin of @p row under the mode's locks; *seen (when not NULL): the
 * team's count at the read, taken inside the locks. */
static float read_pending(hog_engine *e, eng_worker *ew, uint32_t row, float *snap, uint64_t *seen)
{
	const lin_state *L = e->model;
	lin_worker *w = ew->m;
	const enum hog_mode mode = e->o.mode == HOG_MODE_SERIAL ? HOG_MODE_LOCKFREE : e->o.mode;
	uint64_t lo = w->off[row];
	uint32_t nnz = (uint32_t)(w->off[row + 1] - lo);
	const uint32_t *ids = w->ids + lo;
	const float *xs = w->xs ? w->xs + lo : NULL;
	w->k.gsnap = snap;
	float m = 0;
#define READ(M, R)                                                                         \
	do {                                                                                   \
		lock_example(M, &L->ks, ids, nnz);                                                 \
		if (seen)                                                                          \
			*seen = eng_team_applied(e);                                                   \
		m = xs ? read_margin(M, R, 1, &L->ks, &w->k, ids, xs, nnz, 0)                      \
		       : read_margin(M, R, 0, &L->ks, &w->k, ids, xs, nnz, 0);                     \
		unlock_example(M, &L->ks, ids, nnz);                                               \
	} while (0)
#define READ_R(M)                                                                  \
	do {                                                                           \
		switch (e->o.rule) { /* the rule sets the record stride: all three */      \
		case HOG_RULE_SGD: READ(M, HOG_RULE_SGD); break;                           \
		case HOG_RULE_ADAGRAD: READ(M, HOG_RULE_ADAGRAD); break;                   \
		case HOG_RULE_ADAREVISION: READ(M, HOG_RULE_ADAREVISION); break;           \
		default: break;                                                            \
		}                                                                          \
	} while (0)
	switch (mode) {
	case HOG_MODE_ATOMIC: READ_R(HOG_MODE_ATOMIC); break;
	case HOG_MODE_STRIPED: READ_R(HOG_MODE_STRIPED); break;
	case HOG_MODE_LOCKED: READ_R(HOG_MODE_LOCKED); break;
	default: READ_R(HOG_MODE_LOCKFREE); break;
	}
	return m;
}

void lin_drain_pending(hog_engine *e, eng_worker *ew, float lr)
{
	lin_worker *w = ew->m;
	const uint32_t K1 = (uint32_t)e->o.delay + 1;
	while (w->qlen) {
		uint32_t slot = (w->qhead + K1 - w->qlen) % K1;
		apply_pending(e, ew, &w->q[slot], w->qsnap + (size_t)slot * (w->nnz_max + 1), lr);
		w->qlen--;
	}
}

uint64_t lin_round_delayed(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to)
{
	lin_worker *w = ew->m;
	const uint32_t K1 = (uint32_t)e->o.delay + 1;
	const uint64_t T = (uint64_t)e->T * e->ranks, base = (uint64_t)epoch * e->tr->n;
	const enum hog_loss loss = e->o.loss;
	const lin_state *L = e->model;
	uint64_t i, c0 = L->ks.A ? lin_team_pos(e, ew, from) - from * T : 0;
	for (i = from; i < to; i++) {
		if ((i & 1023) == 0 && eng_stop_requested(e))
			break;
		float lr = eng_lr_at(e, epoch, base + i * T);
		if (L->ks.A && (i & 63) == 0)
			c0 = lin_team_pos(e, ew, i) - i * T;
		w->k.avg_c = (uint32_t)(c0 + i * T);
		w->k.avg_inv = 1.0f / (float)w->k.avg_c;
		uint32_t row = ew->order[i], slot = w->qhead;
		pending *p = &w->q[slot];
		float *snap = w->qsnap + (size_t)slot * (w->nnz_max + 1);
		p->row = row;
		p->seen = UINT64_MAX;
		float m = read_pending(e, ew, row, snap, (i & HOG_DELAY_SAMPLE_MASK) == 0 ? &p->seen : NULL);
		float y = w->y[row], wt = w->wt ? w->wt[row] : 1.0f;
		ew->loss += wt * hog_loss_value(loss, m, y);
		ew->wdone += wt;
		p->g = wt * hog_loss_deriv(loss, m, y);
		ew->units_done += w->off[row + 1] - w->off[row];
		w->qhead = (slot + 1) % K1;
		if (++w->qlen == K1) { /* the oldest has waited K further reads */
			uint32_t old = w->qhead; /* slot after the newest = oldest */
			apply_pending(e, ew, &w->q[old], w->qsnap + (size_t)old * (w->nnz_max + 1), lr);
			w->qlen--;
		}
	}
	ew->ex_done += i - from;
	return i;
}
