/* The grid scheduler of the mf trainer (FPSGD: Zhuang, Chin, Juan & Lin, "A
 * fast parallel SGD for matrix factorization in shared memory systems", RecSys
 * 2013; LIBMF's Scheduler). The rating matrix is cut into G x G blocks by row
 * band (users) and column band (items). A worker takes a block whose row band
 * and column band no other worker holds, works through part or all of the
 * block's ratings (in the block's fixed shuffled order, from where the last
 * holder stopped), and gives it back. With G >= T a free block always exists.
 * Among free blocks it takes the least updated (ratings done over ratings in
 * the block), ties broken at random, so the blocks advance evenly.
 *
 * Ownership passes through one spinlock (sync.h): everything a worker wrote
 * to its rows before hog_mf_grid_give happens-before what the next holder of
 * those bands reads after hog_mf_grid_take, so the kernel's plain loads and
 * stores are race-free (and ThreadSanitizer sees why).
 *
 * The scheduler checks its own invariant on every take and give (a held band
 * taken again, a band given back by a worker that does not hold it) and counts
 * violations in `conflicts`; the tests require 0. The cost is two compares
 * under a lock taken once per block visit.
 */
#ifndef HOG_TRAIN_MF_GRID_H
#define HOG_TRAIN_MF_GRID_H
#include "train/sync.h"
#include <stdint.h>

typedef struct hog_mf_grid {
	uint32_t G;
	hog_spin lock;
	int32_t *row_owner, *col_owner; /* G each: the worker holding the band, or -1 */
	uint64_t *size;                 /* G*G: ratings in the block */
	uint64_t *done;                 /* G*G: ratings processed in the block, in all */
	uint64_t *cursor;               /* G*G: where the next visit starts */
	uint64_t rng;                   /* tie-breaks (under the lock) */
	uint64_t conflicts;             /* invariant violations seen (under the lock) */
	uint64_t takes;                 /* blocks handed out */
} hog_mf_grid;

/* @p size: G*G block sizes (copied). @return 0 or ENOMEM. */
int hog_mf_grid_init(hog_mf_grid *g, uint32_t G, const uint64_t *size, uint64_t seed);
void hog_mf_grid_free(hog_mf_grid *g);

/* A free, non-empty, least updated block for worker @p w: its number, with
 * *start set to where this visit begins inside it and *avail to the ratings
 * left before the end of its current pass. -1 when none is free right now
 * (the caller retries). */
int64_t hog_mf_grid_take(hog_mf_grid *g, int w, uint64_t *start, uint64_t *avail);

/* Gives block @p b back after @p done ratings (at most *avail of the take). */
void hog_mf_grid_give(hog_mf_grid *g, int w, uint64_t b, uint64_t done);

#endif
