/* The store's insides, shared by store.c (open, read, verify) and load.c (the
 * whole set into memory): nothing else includes this. */
#ifndef HOG_DATA_STORE_IMPL_H
#define HOG_DATA_STORE_IMPL_H
#include "data/store.h"
#include <lmdb.h>

struct hog_store {
	char *path;
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi meta_dbi, blocks_dbi;
	hog_meta meta;
	void **copies; /* aligned copies of misaligned values, freed at close */
	size_t ncopies;
	void **block_copy; /* per block: its aligned copy, made once */
	hog_blockbuf *decoded; /* per packed block read by hog_store_block(): its arrays (NULL: none yet) */
	hog_block *decoded_view; /* and its view (.packed 0: not decoded yet) */
};

/* A stored value, 8-byte aligned: in place when LMDB put it on an aligned address
 * (overflow pages), else a copy kept until close. Small values sit unaligned in
 * leaf pages. @p block is the block number (its copy is made once), or
 * UINT64_MAX for other values. NULL when out of memory. */
const void *store_aligned(hog_store *s, const MDB_val *v, uint64_t block);

/* Walks every block in order with a cursor, checking that the blocks are numbered
 * 0, 1, 2... and that their examples follow on. Calls fn for each (a packed
 * block's view is valid during the call only). */
typedef int (*block_fn)(void *ud, const hog_block *b, hog_err *err);
int store_each(hog_store *s, block_fn fn, void *ud, hog_err *err);

#endif
