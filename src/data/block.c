/* Block codec (see block.h and man/hogwild-data.5).
 *
 * Header, 64 bytes, little-endian:
 *   0 u32 magic "HBLK"   4 u16 version   6 u16 kind   8 u32 flags   12 u32 crc32
 *  16 u64 n             24 u64 nnz (sparse) | cols (dense) | 0 (ratings)
 *  32 u64 first example 40 f32 scale      44 u32 0     48 u64 payload bytes  56 u64 0
 * Payload: arrays, each padded to 8 bytes:
 *   sparse:  f32 labels[n], u32 offsets[n+1], u32 ids[nnz], f32 vals[nnz] (flag VALUES)
 *   ratings: u32 users[n], u32 items[n], f32 ratings[n]
 *   dense:   f32 labels[n], f32 x[n*cols] or u8 x[n*cols] (flag U8)
 *   then, any kind: f32 weights[n] (flag WEIGHTS; each finite and > 0)
 * A block with the WEIGHTS flag has version 2 in its header; every other block
 * is written with version 1, as before weights existed, so that an older reader
 * refuses a weighted block as "newer" instead of misreading its flags.
 * The CRC-32 (zlib's) covers the whole block with the crc field read as zero. */
#include "data/block.h"
#include "sys/err.h"
#include "sys/names.h"
#include <math.h>
#include <string.h>
#include <zlib.h>

static size_t pad8(size_t x) { return (x + 7) & ~(size_t)7; }

size_t hog_block_bytes(enum hog_kind kind, uint32_t n, uint64_t m, uint32_t flags)
{
	size_t s = HOG_BLOCK_HEADER;
	switch (kind) {
	case HOG_KIND_SPARSE:
		s += pad8(4 * (size_t)n) + pad8(4 * ((size_t)n + 1)) + pad8(4 * m);
		if (flags & HOG_BLOCK_F_VALUES)
			s += pad8(4 * m);
		break;
	case HOG_KIND_RATINGS:
		s += 3 * pad8(4 * (size_t)n);
		break;
	case HOG_KIND_DENSE:
		s += pad8(4 * (size_t)n) + pad8((flags & HOG_BLOCK_F_U8 ? 1 : 4) * (size_t)n * m);
		break;
	}
	if (flags & HOG_BLOCK_F_WEIGHTS)
		s += pad8(4 * (size_t)n);
	return s;
}

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static unsigned char *put_array(unsigned char *p, const void *src, size_t bytes)
{
	if (bytes)
		memcpy(p, src, bytes);
	memset(p + bytes, 0, pad8(bytes) - bytes);
	return p + pad8(bytes);
}

static uint32_t block_crc(const unsigned char *buf, size_t len)
{
	static const unsigned char zero[4];
	uLong c = crc32(0L, Z_NULL, 0);
	c = crc32(c, buf, 12);
	c = crc32(c, zero, 4);
	/* zlib's length is a uInt: feed large blocks in pieces */
	for (size_t off = 16; off < len;) {
		size_t k = len - off > (1u << 30) ? (1u << 30) : len - off;
		c = crc32(c, buf + off, (uInt)k);
		off += k;
	}
	return (uint32_t)c;
}

void hog_block_header(unsigned char *h, const hog_block *b, uint32_t flags, uint16_t ver, size_t total)
{
	uint64_t m = b->kind == HOG_KIND_SPARSE ? b->nnz : b->kind == HOG_KIND_DENSE ? b->cols : 0;
	memset(h, 0, HOG_BLOCK_HEADER);
	put32(h, HOG_BLOCK_MAGIC);
	uint16_t kind = (uint16_t)b->kind;
	memcpy(h + 4, &ver, 2);
	memcpy(h + 6, &kind, 2);
	put32(h + 8, flags);
	put64(h + 16, b->n);
	put64(h + 24, m);
	put64(h + 32, b->first);
	memcpy(h + 40, &b->scale, 4);
	put64(h + 48, total - HOG_BLOCK_HEADER);
}

void hog_block_seal(unsigned char *h, size_t total) { put32(h + 12, block_crc(h, total)); }

void hog_block_encode(void *buf, const hog_block *b, uint32_t flags)
{
	unsigned char *h = buf;
	uint64_t m = b->kind == HOG_KIND_SPARSE ? b->nnz : b->kind == HOG_KIND_DENSE ? b->cols : 0;
	size_t total = hog_block_bytes(b->kind, b->n, m, flags);
	hog_block_header(h, b, flags, flags & HOG_BLOCK_F_WEIGHTS ? HOG_FORMAT_WEIGHTS : 1, total);
	unsigned char *p = h + HOG_BLOCK_HEADER;
	size_t n = b->n;
	switch (b->kind) {
	case HOG_KIND_SPARSE:
		p = put_array(p, b->labels, 4 * n);
		p = put_array(p, b->offsets, 4 * (n + 1));
		p = put_array(p, b->ids, 4 * m);
		if (flags & HOG_BLOCK_F_VALUES)
			p = put_array(p, b->vals, 4 * m);
		break;
	case HOG_KIND_RATINGS:
		p = put_array(p, b->users, 4 * n);
		p = put_array(p, b->items, 4 * n);
		p = put_array(p, b->ratings, 4 * n);
		break;
	case HOG_KIND_DENSE:
		p = put_array(p, b->labels, 4 * n);
		if (flags & HOG_BLOCK_F_U8)
			p = put_array(p, b->xu8, n * m);
		else
			p = put_array(p, b->xf, 4 * n * m);
		break;
	}
	if (flags & HOG_BLOCK_F_WEIGHTS)
		p = put_array(p, b->weights, 4 * n);
	hog_block_seal(h, total);
}

size_t hog_block_stored_bytes(const void *buf, enum hog_kind kind, uint32_t n, uint64_t m, uint32_t flags)
{
	if (flags & HOG_BLOCK_F_PACKED)
		return hog_block_packed_bytes(buf, kind, n, m, flags);
	return hog_block_bytes(kind, n, m, flags);
}

int hog_block_peek(const void *buf, size_t len, uint32_t *n, uint64_t *first, uint64_t *m, uint32_t *flags)
{
	const unsigned char *h = buf;
	if (len < HOG_BLOCK_HEADER || get32(h) != HOG_BLOCK_MAGIC)
		return HOG_ECORRUPT;
	uint64_t nn = get64(h + 16);
	if (nn > UINT32_MAX)
		return HOG_ECORRUPT;
	if (n)
		*n = (uint32_t)nn;
	if (first)
		*first = get64(h + 32);
	if (m)
		*m = get64(h + 24);
	if (flags)
		*flags = get32(h + 8);
	return 0;
}

#define CORRUPT(...) hog_err_set(err, HOG_ECORRUPT, __VA_ARGS__)

static int check_floats(const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return (int)(i < INT32_MAX ? i : INT32_MAX) + 1;
	return 0;
}

int hog_block_decode(const void *buf, size_t len, uint64_t index, uint64_t expect_first,
                     const hog_meta *meta, hog_block *b, hog_blockbuf *bb, hog_err *err)
{
	const unsigned char *h = buf;
	if (((uintptr_t)buf & 7) != 0)
		return CORRUPT("block %llu: not 8-byte aligned in memory", (unsigned long long)index);
	if (len < HOG_BLOCK_HEADER)
		return CORRUPT("block %llu: %zu bytes, shorter than its header", (unsigned long long)index, len);
	if (get32(h) != HOG_BLOCK_MAGIC)
		return CORRUPT("block %llu: bad magic number", (unsigned long long)index);
	uint16_t ver, kind;
	memcpy(&ver, h + 4, 2);
	memcpy(&kind, h + 6, 2);
	if (ver > HOG_FORMAT_VERSION)
		return hog_err_set(err, HOG_EVERSION, "block %llu: format version %u, newer than %u",
		                   (unsigned long long)index, ver, HOG_FORMAT_VERSION);
	if (kind != meta->kind)
		return CORRUPT("block %llu: kind %u, data set says %u", (unsigned long long)index,
		               kind, (unsigned)meta->kind);
	uint32_t flags = get32(h + 8);
	uint64_t n = get64(h + 16), m = get64(h + 24), first = get64(h + 32);
	uint64_t payload = get64(h + 48);
	if (n == 0 || n > UINT32_MAX || m > (1ull << 40))
		return CORRUPT("block %llu: implausible counts (n=%llu, m=%llu)",
		               (unsigned long long)index, (unsigned long long)n, (unsigned long long)m);
	if (first != expect_first)
		return CORRUPT("block %llu: first example %llu, expected %llu", (unsigned long long)index,
		               (unsigned long long)first, (unsigned long long)expect_first);
	if (flags & ~(uint32_t)(HOG_BLOCK_F_VALUES | HOG_BLOCK_F_U8 | HOG_BLOCK_F_WEIGHTS | HOG_BLOCK_F_PACKED))
		return CORRUPT("block %llu: unknown flags 0x%x", (unsigned long long)index, flags);
	const int packed = (flags & HOG_BLOCK_F_PACKED) != 0;
	if (packed && (ver < HOG_FORMAT_PACKED || meta->version < HOG_FORMAT_PACKED || kind == HOG_KIND_DENSE))
		return CORRUPT("block %llu: packed in a version %u block of a version %u %s set: packed blocks are "
		               "version %d, sparse or ratings", (unsigned long long)index, ver, meta->version,
		               hog_kind_name((enum hog_kind)meta->kind), HOG_FORMAT_PACKED);
	if ((flags & HOG_BLOCK_F_WEIGHTS) && !meta->weighted)
		return CORRUPT("block %llu: example weights in a data set whose meta data says it has none",
		               (unsigned long long)index);
	size_t need = hog_block_stored_bytes(h, kind, (uint32_t)n, m, flags);
	if (need < HOG_BLOCK_HEADER || payload != need - HOG_BLOCK_HEADER || len != need)
		return CORRUPT("block %llu: %zu bytes, its counts need %zu", (unsigned long long)index, len, need);
	if (block_crc(h, len) != get32(h + 12))
		return CORRUPT("block %llu: checksum mismatch", (unsigned long long)index);

	memset(b, 0, sizeof *b);
	b->kind = kind;
	b->index = index;
	b->first = first;
	b->n = (uint32_t)n;
	const unsigned char *p = h + HOG_BLOCK_HEADER;
	int bad, rc;
	if (packed) {
		b->packed = 1;
		b->nnz = kind == HOG_KIND_SPARSE ? m : 0;
		if ((rc = hog_block_unpack(h, len, index, meta, b, bb, err)))
			return rc;
	}
	switch (kind) {
	case HOG_KIND_SPARSE: {
		b->nnz = m;
		if (packed)
			goto sparse_floats;
		b->labels = (const float *)p; p += pad8(4 * n);
		b->offsets = (const uint32_t *)p; p += pad8(4 * (n + 1));
		b->ids = (const uint32_t *)p; p += pad8(4 * m);
		if (flags & HOG_BLOCK_F_VALUES)
			b->vals = (const float *)p;
		if (b->offsets[0] != 0 || b->offsets[n] != m)
			return CORRUPT("block %llu: row offsets do not span its %llu nonzeros",
			               (unsigned long long)index, (unsigned long long)m);
		for (uint64_t i = 0; i < n; i++) {
			uint32_t lo = b->offsets[i], hi = b->offsets[i + 1];
			if (hi < lo || hi > m)
				return CORRUPT("block %llu, example %llu: bad row offset", (unsigned long long)index,
				               (unsigned long long)(first + i));
			for (uint32_t j = lo; j < hi; j++) {
				if (b->ids[j] >= meta->features || (j > lo && b->ids[j] <= b->ids[j - 1]))
					return CORRUPT("block %llu, example %llu: feature id %u out of range or order",
					               (unsigned long long)index, (unsigned long long)(first + i), b->ids[j]);
			}
		}
	sparse_floats:
		if (b->vals && (bad = check_floats(b->vals, m)))
			return CORRUPT("block %llu: value %d is not finite", (unsigned long long)index, bad - 1);
		if ((bad = check_floats(b->labels, n)))
			return CORRUPT("block %llu, example %llu: label is not finite", (unsigned long long)index,
			               (unsigned long long)(first + bad - 1));
		break;
	}
	case HOG_KIND_RATINGS:
		if (!packed) {
			b->users = (const uint32_t *)p; p += pad8(4 * n);
			b->items = (const uint32_t *)p; p += pad8(4 * n);
			b->ratings = (const float *)p;
		}
		for (uint64_t i = 0; i < n; i++)
			if (b->users[i] >= meta->users || b->items[i] >= meta->items)
				return CORRUPT("block %llu, rating %llu: user or item id out of range",
				               (unsigned long long)index, (unsigned long long)(first + i));
		if ((bad = check_floats(b->ratings, n)))
			return CORRUPT("block %llu, rating %llu: not finite", (unsigned long long)index,
			               (unsigned long long)(first + bad - 1));
		break;
	case HOG_KIND_DENSE:
		if (m != meta->features)
			return CORRUPT("block %llu: %llu columns, data set says %llu", (unsigned long long)index,
			               (unsigned long long)m, (unsigned long long)meta->features);
		if (!!(flags & HOG_BLOCK_F_U8) != !!meta->dense_u8)
			return CORRUPT("block %llu: value type differs from the data set's", (unsigned long long)index);
		b->cols = (uint32_t)m;
		memcpy(&b->scale, h + 40, 4);
		b->labels = (const float *)p; p += pad8(4 * n);
		if (flags & HOG_BLOCK_F_U8)
			b->xu8 = p;
		else {
			b->xf = (const float *)p;
			if ((bad = check_floats(b->xf, n * m)))
				return CORRUPT("block %llu: value %d is not finite", (unsigned long long)index, bad - 1);
		}
		if ((bad = check_floats(b->labels, n)))
			return CORRUPT("block %llu, example %llu: label is not finite", (unsigned long long)index,
			               (unsigned long long)(first + bad - 1));
		break;
	default:
		return CORRUPT("block %llu: unknown kind %u", (unsigned long long)index, kind);
	}
	if (flags & HOG_BLOCK_F_WEIGHTS) {
		if (!packed)
			b->weights = (const float *)(h + need - pad8(4 * n));
		for (uint64_t i = 0; i < n; i++)
			if (!(isfinite(b->weights[i]) && b->weights[i] > 0))
				return CORRUPT("block %llu, example %llu: weight %g is not a finite positive number",
				               (unsigned long long)index, (unsigned long long)(first + i), b->weights[i]);
	}
	return 0;
}
