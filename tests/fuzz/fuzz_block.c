/* libFuzzer harness: the block decoder (hog_block_peek, hog_block_decode) on
 * one block, copied to 8-byte aligned memory as the store does. The data set's
 * meta data comes from the block header's kind and flags, so most inputs get
 * past the kind check; a decoded block is then read end to end, which the
 * sanitizers check against its claimed sizes. Each input is decoded twice: as
 * it is, and with its CRC recomputed, so that mutations reach the checks behind
 * the checksum. */
#include "fuzz.h"
#include "data/block.h"
#include <zlib.h>

static void decode(void *buf, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = aligned_alloc(8, (size + 8) & ~(size_t)7);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	decode(buf, size);
	if (size >= 16) { /* the format's CRC: the whole block, the crc field read as zero */
		memset(buf + 12, 0, 4);
		uint32_t c = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)size);
		memcpy(buf + 12, &c, 4);
		decode(buf, size);
	}
	free(buf);
	return 0;
}

static void decode(void *buf, size_t size)
{
	uint32_t n, flags;
	uint64_t first, m;
	hog_meta meta = { .version = HOG_FORMAT_VERSION, .kind = HOG_KIND_SPARSE, .features = 1000, .users = 100,
	                  .items = 100 };
	if (hog_block_peek(buf, size, &n, &first, &m, &flags) == 0) {
		uint16_t kind;
		memcpy(&kind, (const char *)buf + 6, 2);
		if (kind >= HOG_KIND_SPARSE && kind <= HOG_KIND_DENSE)
			meta.kind = (enum hog_kind)kind;
		meta.dense_u8 = (flags & HOG_BLOCK_F_U8) != 0;
		if (meta.kind == HOG_KIND_DENSE)
			meta.features = m;
	} else {
		first = 0;
	}
	hog_block b;
	hog_err err = { 0 };
	static hog_blockbuf bb; /* packed blocks (format version 3) decode into it */
	int rc = hog_block_decode(buf, size, 0, first, &meta, &b, &bb, &err);
	fz_check(rc, &err);
	if (rc == 0) { /* touch every array the block claims */
		volatile double sum = 0;
		const float *y = b.kind == HOG_KIND_RATINGS ? b.ratings : b.labels;
		for (uint32_t i = 0; i < b.n; i++)
			sum += y[i];
		if (b.weights)
			for (uint32_t i = 0; i < b.n; i++)
				sum += b.weights[i];
		if (b.kind == HOG_KIND_SPARSE)
			for (uint32_t i = 0; i <= b.n; i++)
				sum += b.offsets[i];
		if (b.kind == HOG_KIND_SPARSE)
			for (uint64_t j = 0; j < b.nnz; j++)
				sum += b.ids[j] + (b.vals ? b.vals[j] : 1);
		if (b.kind == HOG_KIND_RATINGS)
			for (uint32_t i = 0; i < b.n; i++)
				sum += b.users[i] + b.items[i];
		if (b.kind == HOG_KIND_DENSE)
			for (uint64_t j = 0; j < (uint64_t)b.n * b.cols; j++)
				sum += b.xu8 ? b.xu8[j] : b.xf[j];
		(void)sum;
	}
}
