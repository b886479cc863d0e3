/* The writer's state (writer.c) and what its label logic (writer_labels.c:
 * the task from the labels, whole-number labels named by their values, the
 * counted-labels note) shares with it. */
#ifndef HOG_DATA_WRITER_IMPL_H
#define HOG_DATA_WRITER_IMPL_H
#include "data/store.h"
#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>

struct meta_kv { char *key, *val; size_t len; };

struct hog_writer {
	char *path, *tmp;
	int tmp_slot;           /* in the registry of live temporary files, or -1 */
	int finished;           /* hog_writer_finish done: the temporary file is complete */
	char source[256];       /* o.source, copied: meta "source" (%.255s) */
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi meta_dbi, blocks_dbi;
	hog_writer_opts o;
	uint32_t bmax;          /* examples per block */
	/* the block being filled */
	uint32_t n;
	uint64_t nnz, cap_nnz;
	int blk_vals;           /* some value in this block is not 1 */
	int blk_w;              /* some weight in this block is not 1 */
	float next_w;           /* hog_writer_set_weight(): the next example's weight */
	float *labels, *vals, *ratings, *xf, *weights;
	uint32_t *offsets, *ids, *users, *items;
	uint8_t *xu8;
	/* totals */
	uint64_t examples, total_nnz, blocks, max_id, max_user, max_item, positives;
	int any_id;
	size_t txn_bytes, committed, mapsize;
	double lmin, lmax, lsum, wsum;
	int weighted;           /* some example's weight is not 1 */
	int packed;             /* some block is packed (format version 3) */
	int all_pm1, all_01, all_small_int;
	uint64_t *seen;         /* each whole-number label value's examples, [v + 1] for v in -1..65535, */
	uint32_t nvals;         /* how many, */
	int all_int;            /* every label one of them */
	struct meta_kv *kv;
	size_t nkv;
};

/* Whether a meta entry @p key is set to be written. */
int w_meta_has(const hog_writer *w, const char *key);
/* A meta entry to write at the commit (a copy of @p len bytes). */
int w_meta_add(hog_writer *w, const char *key, const void *val, size_t len, hog_err *err);
/* ENOMEM, and an LMDB error, said with the writer's path. */
int w_oom(hog_writer *w, hog_err *err);
int w_lmdb(hog_writer *w, hog_err *err, int rc, const char *what);
/* Before a put of @p bytes: the map grown where it could fill; after it: the
 * transaction committed every TXN_BYTES. */
int w_room(hog_writer *w, size_t bytes, hog_err *err);
int w_wrote(hog_writer *w, size_t bytes, hog_err *err);

/* writer_labels.c: named_task's task for whole-number labels that are not
 * the classes 0..K-1 as they are (0: the labels stay); relabel_named puts the
 * written blocks in those classes; decide_task the set's task. */
enum hog_task named_task(const hog_writer *w);
int relabel_named(hog_writer *w, hog_err *err);
enum hog_task decide_task(const hog_writer *w, enum hog_task named);

#endif
