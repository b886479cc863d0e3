/* The block codec: one block of a few thousand examples as flat little-endian
 * arrays behind a 64-byte header with a CRC-32 (hogwild-data(5) gives the layout
 * byte by byte). Decoding checks everything once so that readers need no checks. */
#ifndef HOG_DATA_BLOCK_H
#define HOG_DATA_BLOCK_H
#include "hogwild.h"

#define HOG_BLOCK_MAGIC 0x4B4C4248u /* the bytes "HBLK" */
#define HOG_BLOCK_HEADER 64
/* F_WEIGHTS: the block carries f32 weights[n] after its other arrays (a block
 * of a weighted set in which some example's weight is not 1; format version 2) */
enum { HOG_BLOCK_F_VALUES = 1u, HOG_BLOCK_F_U8 = 2u, HOG_BLOCK_F_WEIGHTS = 4u };

/** Bytes needed for a block; @p m is nnz (sparse), columns (dense) or unused. */
size_t hog_block_bytes(enum hog_kind kind, uint32_t n, uint64_t m, uint32_t flags);

/** Writes header and payload of @p b into @p buf (hog_block_bytes() long, 8-aligned),
 * then the checksum. */
void hog_block_encode(void *buf, const hog_block *b, uint32_t flags);

/** Checks a stored block against the data set's meta data and fills the view
 * @p b with pointers into @p buf, which must be 8-byte aligned.
 * @p expect_first is the global index its first example must have.
 * @return 0, HOG_EVERSION or HOG_ECORRUPT with the block number in err. */
int hog_block_decode(const void *buf, size_t len, uint64_t index, uint64_t expect_first,
                     const hog_meta *meta, hog_block *b, hog_err *err);

/** Reads the example count, first index, nnz-or-columns and flags of a block
 * without checking it (any pointer may be NULL). */
int hog_block_peek(const void *buf, size_t len, uint32_t *n, uint64_t *first, uint64_t *m, uint32_t *flags);

#endif
