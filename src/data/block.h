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
/* F_PACKED: the block's ids and values are packed (block_pack.c: varints,
 * narrow values; format version 3); sparse and ratings blocks only */
enum { HOG_BLOCK_F_VALUES = 1u, HOG_BLOCK_F_U8 = 2u, HOG_BLOCK_F_WEIGHTS = 4u, HOG_BLOCK_F_PACKED = 8u };
#define HOG_BLOCK_VERSION_PACKED HOG_FORMAT_PACKED
/* How a packed block stores its values (header byte 44). */
enum { HOG_VC_F32 = 0, HOG_VC_F16 = 1, HOG_VC_BF16 = 2, HOG_VC_U8 = 3, HOG_VC_COUNT = 4 };

/** A block number as its LMDB key: 8 bytes, big-endian (keys sort as numbers). */
static inline void hog_block_key(uint64_t v, unsigned char k[8])
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		k[i] = (unsigned char)v;
}

/** Bytes needed for a block; @p m is nnz (sparse), columns (dense) or unused. */
size_t hog_block_bytes(enum hog_kind kind, uint32_t n, uint64_t m, uint32_t flags);

/** Writes header and payload of @p b into @p buf (hog_block_bytes() long, 8-aligned),
 * then the checksum. */
void hog_block_encode(void *buf, const hog_block *b, uint32_t flags);

/** Checks a stored block against the data set's meta data and fills the view
 * @p b with pointers into @p buf, which must be 8-byte aligned, or, for a packed
 * block, into @p bb, where it is decoded (valid until @p bb is used again; a
 * packed block with @p bb NULL is refused). @p expect_first is the global index
 * its first example must have.
 * @return 0, HOG_EVERSION, ENOMEM or HOG_ECORRUPT with the block number in err. */
int hog_block_decode(const void *buf, size_t len, uint64_t index, uint64_t expect_first,
                     const hog_meta *meta, hog_block *b, hog_blockbuf *bb, hog_err *err);

/** The length a block with these header counts must have: hog_block_bytes(),
 * or for a packed block (flag PACKED) what its header says (0: implausible). */
size_t hog_block_stored_bytes(const void *buf, enum hog_kind kind, uint32_t n, uint64_t m, uint32_t flags);

/* Writing a header (everything but the checksum) and sealing a block (the checksum). */
void hog_block_header(unsigned char *h, const hog_block *b, uint32_t flags, uint16_t version, size_t total);
void hog_block_seal(unsigned char *h, size_t total);

/* ---- the packed encoding (block_pack.c) */

/** What packing a block takes: its value code (and scale), its varint bytes
 * and its whole length. */
typedef struct hog_pack_plan {
	unsigned vcode;
	float scale;
	uint64_t varint_bytes;
	size_t bytes;
} hog_pack_plan;
/** Plans the packed encoding of @p b (sparse or ratings) with values at
 * precision @p prec (enum hog_value_precision): the narrowest value code that
 * holds every value exactly, or within its rounding where @p prec allows.
 * @return 0, or -1 for a kind that is not packed. */
int hog_block_pack_plan(const hog_block *b, uint32_t flags, int prec, hog_pack_plan *p);
/** Encodes @p b packed into @p buf (p->bytes long), checksum included. */
void hog_block_pack(void *buf, const hog_block *b, uint32_t flags, const hog_pack_plan *p);
/* The length a packed block's header asks for (0: implausible). */
size_t hog_block_packed_bytes(const void *buf, enum hog_kind kind, uint32_t n, uint64_t m, uint32_t flags);
/* Decodes a checked packed block's arrays into @p bb; b's counts are set. */
int hog_block_unpack(const unsigned char *h, size_t len, uint64_t index, const hog_meta *meta, hog_block *b,
                     hog_blockbuf *bb, hog_err *err);
/* @p bytes of @p bb (grown as needed), or NULL when memory is short. */
void *hog_blockbuf_get(hog_blockbuf *bb, size_t bytes);

/** Reads the example count, first index, nnz-or-columns and flags of a block
 * without checking it (any pointer may be NULL). */
int hog_block_peek(const void *buf, size_t len, uint32_t *n, uint64_t *first, uint64_t *m, uint32_t *flags);

#endif
