/* A worker's share of a streamed training set (hog_train_stream; engine.h,
 * eng_stream), the same for every model: the blocks are dealt by a seeded
 * permutation (data order with --no-shuffle), a worker takes a contiguous
 * share of it (with MPI, of its rank's share), and each epoch visits its
 * blocks in an order drawn from (seed, epoch, worker), each block's examples in
 * an order drawn from (that, the block's place in the epoch). An epoch's
 * positions are runs of one block each (segments); the worker holds one block
 * decoded and the order of its examples only, so nothing it keeps grows with
 * the set. The round finds the segment of a position, has the model decode
 * the block when it is not the one held, draws the block's order, and runs the
 * model's in-memory round over the segment's positions (ew->order_at: the
 * position of ew->order[0]). Positions, orders and blocks are pure functions
 * of (seed, epoch, worker), so a run stopped inside an epoch resumes as the
 * straight one. */
#include "sys/err.h"
#include "train/engine.h"
#include <errno.h>
#include <stdlib.h>

void eng_stream_deal(uint32_t *bperm, uint64_t nb, const hog_train_opts *o)
{
	eng_deal(bperm, nb, o->no_shuffle, o->seed ^ 0xB10Cull);
}

int eng_stream_share(eng_stream *s, const hog_engine *e, eng_worker *ew, const uint32_t *bperm, uint64_t nb,
                     const hog_block *blocks)
{
	uint64_t b0, b1;
	eng_worker_share(e, ew, nb, &b0, &b1);
	s->blk = bperm + b0;
	s->n = b1 - b0;
	s->loaded = -1;
	if (!(s->first = malloc((s->n + 1) * sizeof *s->first)) || !(s->seg = malloc((s->n + 1) * sizeof *s->seg)))
		return ENOMEM;
	uint64_t n = 0, cap = 1;
	for (uint64_t j = 0; j < s->n; j++) {
		s->first[j] = n;
		n += blocks[s->blk[j]].n;
		cap = blocks[s->blk[j]].n > cap ? blocks[s->blk[j]].n : cap;
	}
	s->first[s->n] = n;
	ew->n = n;
	ew->order_at = 0;
	return (ew->order = malloc(cap * sizeof *ew->order)) ? 0 : ENOMEM;
}

void eng_stream_epoch(eng_stream *s, const hog_engine *e, const eng_worker *ew, int epoch)
{
	uint64_t seed = e->o.seed ^ 0x5EEDull;
	seed = eng_mix64(&seed) ^ ((uint64_t)epoch << 20) ^ (uint64_t)ew->id;
	s->eseed = eng_mix64(&seed);
	uint32_t *slots = (uint32_t *)s->seg; /* (room: a segment is larger than a slot) */
	for (uint64_t j = 0; j < s->n; j++)
		slots[j] = (uint32_t)j;
	if (!e->o.no_shuffle)
		eng_shuffle_u32(slots, s->n, eng_mix64(&seed));
	/* (filled back to front: slots[q] is read before seg[q] overwrites it) */
	uint64_t at = ew->n;
	for (uint64_t q = s->n; q-- > 0;) {
		const uint32_t j = slots[q];
		const uint64_t m = s->first[j + 1] - s->first[j];
		at -= m;
		s->seg[q] = (eng_seg){ .slot = j, .from = at, .to = at + m };
	}
	s->cur = 0;
	s->loaded = -1; /* (the orders are the epoch's: drawn again, with the block) */
}

uint64_t eng_stream_round(hog_engine *e, eng_worker *ew, eng_stream *s, int epoch, uint64_t from, uint64_t to,
                          eng_load_fn load, eng_round_fn fn)
{
	while (from < to) {
		while (s->cur + 1 < s->n && s->seg[s->cur].to <= from)
			s->cur++;
		while (s->cur > 0 && s->seg[s->cur].from > from) /* (resumed inside an epoch) */
			s->cur--;
		const eng_seg *g = &s->seg[s->cur];
		if (s->loaded != (int64_t)s->cur) {
			if (load(e, ew, g->slot))
				return from; /* (eng_fail: as a stop) */
			const uint64_t m = g->to - g->from;
			for (uint64_t i = 0; i < m; i++)
				ew->order[i] = (uint32_t)i;
			if (!e->o.no_shuffle) {
				uint64_t z = s->eseed ^ s->cur;
				eng_shuffle_u32(ew->order, m, eng_mix64(&z));
			}
			ew->order_at = g->from;
			s->loaded = (int64_t)s->cur;
		}
		const uint64_t end = g->to < to ? g->to : to, got = fn(e, ew, epoch, from, end);
		if (got < end)
			return got; /* a stop request */
		from = end;
	}
	return from;
}

int eng_stream_scan(hog_engine *e, hog_block *blocks, uint64_t nb, enum hog_kind kind, const char *what,
                    eng_visit_fn visit, void *ctx)
{
	hog_blockbuf bb = { 0 }; /* packed blocks: decoded one at a time, again by eng_stream_block() */
	uint64_t ex = 0;
	int rc = 0;
	for (uint64_t b = 0; b < nb && !rc; b++) {
		hog_block *k = &blocks[b];
		if ((rc = hog_store_block_buf(e->store, b, k, &bb, e->err)))
			break;
		if (k->kind != kind || k->first != ex)
			rc = hog_err_set(e->err, HOG_ECORRUPT, "block %llu does not follow on from the one before",
			                 (unsigned long long)b);
		else {
			ex += k->n;
			rc = visit(e, k, b, ctx);
		}
		hog_store_release(e->store, k);
		if (k->packed) /* (its arrays were bb's: only the counts are kept) */
			*k = (hog_block){ .kind = k->kind, .index = k->index, .first = k->first, .n = k->n, .nnz = k->nnz,
			                  .cols = k->cols, .packed = 1 };
	}
	hog_blockbuf_free(&bb);
	if (!rc && ex != e->tr->n)
		rc = hog_err_set(e->err, HOG_ECORRUPT, "the blocks hold %llu %s, the meta data says %llu",
		                 (unsigned long long)ex, what, (unsigned long long)e->tr->n);
	return rc;
}

const hog_block *eng_stream_block(hog_engine *e, const hog_block *b, hog_block *dec, hog_blockbuf *bb)
{
	if (!b->packed)
		return b;
	hog_err err = { 0 };
	int rc = hog_store_block_buf(e->store, b->index, dec, bb, &err);
	if (rc) {
		eng_fail(e, rc, err.msg); /* the team stops after this round */
		return NULL;
	}
	return dec;
}

void eng_stream_free(eng_stream *s)
{
	free(s->first);
	free(s->seg);
	s->first = NULL;
	s->seg = NULL;
}
