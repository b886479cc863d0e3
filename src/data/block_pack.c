/* The packed block encoding (format version 3; see block.h and hogwild-data(5)).
 *
 * A packed block has the flag PACKED and version 3 in its header; its header's
 * byte 40 holds the value scale (f32, value code U8), byte 44 the value code,
 * byte 56 the length of its varint section. Payload, without padding between
 * parts (the whole padded to 8 bytes with zeros):
 *   sparse:  f32 labels[n] | varints: n row lengths, then each row's ids as gaps
 *            (the first id, then id - previous id - 1) | values[nnz] (flag VALUES)
 *   ratings: varints: n users as zigzag deltas from the one before (from 0), then
 *            n items | values[n]
 *   then, any kind: f32 weights[n] (flag WEIGHTS)
 * Varints are LEB128 (7 bits a byte, low first, at most 5 bytes, < 2^32). Values
 * by the value code: f32 (4 bytes), f16 (2), bf16 (2), or a byte times the scale (1).
 * Decoding writes the same arrays a raw block holds into a caller's buffer. */
#include "data/block.h"
#include "sys/err.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const unsigned vc_width[HOG_VC_COUNT] = { 4, 2, 2, 1 };

/* ------------------------------------------------------------ half floats */

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* IEEE binary16 to float, exactly (every half is a float). */
static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0x1f)
		return bitsf(sign | 0x7f800000u | (m << 13));
	if (e)
		return bitsf(sign | ((e + 112) << 23) | (m << 13));
	/* zero or subnormal: m * 2^-24, exact in a float */
	float f = (float)m * 0x1p-24f;
	return sign ? -f : f;
}

/* float to binary16, rounding to nearest, ties to even (overflow: infinity). */
static uint16_t float_to_half(float f)
{
	uint32_t u = fbits(f), sign = (u >> 16) & 0x8000;
	uint32_t a = u & 0x7fffffffu;
	if (a >= 0x7f800000u) /* inf, nan */
		return (uint16_t)(sign | 0x7c00 | (a > 0x7f800000u ? 0x200 : 0));
	if (a >= 0x477ff000u) /* rounds to 65536 or more */
		return (uint16_t)(sign | 0x7c00);
	if (a < 0x38800000u) { /* below 2^-14: subnormal half, m * 2^-24 */
		float x = bitsf(a) * 0x1p24f; /* exact (power of two) */
		float r = nearbyintf(x);      /* ties to even in the default rounding mode */
		return (uint16_t)(sign | (uint32_t)r);
	}
	uint32_t mant = a & 0x7fffff, e = (a >> 23) - 112;
	uint32_t h = (e << 10) | (mant >> 13), rest = mant & 0x1fff;
	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++; /* a carry into the exponent is right */
	return (uint16_t)(sign | h);
}

static float bf16_to_float(uint16_t h) { return bitsf((uint32_t)h << 16); }

static uint16_t float_to_bf16(float f)
{
	uint32_t u = fbits(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

/* ------------------------------------------------------------ value codes */

static float u8_value(uint8_t k, float scale) { return (float)k * scale; }

/* Whether every value is a byte times @p s, exactly. */
static int fits_u8(const float *v, size_t m, float s)
{
	if (!(s > 0) || !isfinite(s))
		return 0;
	for (size_t j = 0; j < m; j++) {
		float k = nearbyintf(v[j] / s);
		if (!(k >= 0 && k <= 255) || fbits(u8_value((uint8_t)k, s)) != fbits(v[j]))
			return 0;
	}
	return 1;
}

/* Whether f16 (half = 1) or bf16 holds every value: exactly, or within its
 * rounding (relative 2^-11 or 2^-8) when @p lossy. */
static int fits_half(const float *v, size_t m, int half, int lossy)
{
	const float tol = half ? 0x1p-11f : 0x1p-8f;
	for (size_t j = 0; j < m; j++) {
		float d = half ? half_to_float(float_to_half(v[j])) : bf16_to_float(float_to_bf16(v[j]));
		if (lossy ? !(isfinite(d) && fabsf(d - v[j]) <= tol * fabsf(v[j])) : fbits(d) != fbits(v[j]))
			return 0;
	}
	return 1;
}

/* The smallest value code for @p v at @p prec, and the scale of U8. */
static unsigned choose_vcode(const float *v, size_t m, int prec, float *scale)
{
	*scale = 0;
	float lo = INFINITY;
	for (size_t j = 0; j < m; j++)
		if (v[j] > 0 && v[j] < lo)
			lo = v[j];
	/* a byte times a scale: the smallest positive value, or a power-of-two part of it */
	float s = isfinite(lo) ? lo : 1.0f;
	for (int t = 0; t < 4; t++, s *= 0.5f)
		if (fits_u8(v, m, s)) {
			*scale = s;
			return HOG_VC_U8;
		}
	if (fits_half(v, m, 1, prec == HOG_PREC_F16))
		return HOG_VC_F16;
	if (fits_half(v, m, 0, prec == HOG_PREC_BF16))
		return HOG_VC_BF16;
	return HOG_VC_F32;
}

static unsigned char *put_values(unsigned char *p, const float *v, size_t m, unsigned vc, float scale)
{
	for (size_t j = 0; j < m; j++) {
		uint16_t h;
		switch (vc) {
		case HOG_VC_U8: *p++ = (unsigned char)nearbyintf(v[j] / scale); break;
		case HOG_VC_F16: h = float_to_half(v[j]); memcpy(p, &h, 2); p += 2; break;
		case HOG_VC_BF16: h = float_to_bf16(v[j]); memcpy(p, &h, 2); p += 2; break;
		default: memcpy(p, &v[j], 4); p += 4; break;
		}
	}
	return p;
}

static void get_values(float *out, const unsigned char *p, size_t m, unsigned vc, float scale)
{
	uint16_t h;
	switch (vc) {
	case HOG_VC_U8:
		for (size_t j = 0; j < m; j++)
			out[j] = u8_value(p[j], scale);
		break;
	case HOG_VC_F16:
		for (size_t j = 0; j < m; j++, p += 2) {
			memcpy(&h, p, 2);
			out[j] = half_to_float(h);
		}
		break;
	case HOG_VC_BF16:
		for (size_t j = 0; j < m; j++, p += 2) {
			memcpy(&h, p, 2);
			out[j] = bf16_to_float(h);
		}
		break;
	default:
		memcpy(out, p, m * 4);
	}
}

/* ------------------------------------------------------------ varints */

static unsigned vlen(uint32_t x) { return x < (1u << 7) ? 1 : x < (1u << 14) ? 2 : x < (1u << 21) ? 3 : x < (1u << 28) ? 4 : 5; }

static unsigned char *vput(unsigned char *p, uint32_t x)
{
	while (x >= 0x80) {
		*p++ = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	*p++ = (unsigned char)x;
	return p;
}

/* Reads a varint from [*p, end): 0, or -1 when it runs past end, is longer
 * than 5 bytes or does not fit 32 bits. */
static int vget(const unsigned char **pp, const unsigned char *end, uint32_t *out)
{
	const unsigned char *p = *pp;
	if (p < end && *p < 0x80) { /* the common case: one byte */
		*out = *p;
		*pp = p + 1;
		return 0;
	}
	uint32_t x = 0;
	for (unsigned s = 0; s < 35; s += 7) {
		if (p == end)
			return -1;
		uint32_t c = *p++;
		if (s == 28 && c > 0x0f)
			return -1;
		x |= (c & 0x7f) << s;
		if (!(c & 0x80)) {
			*out = x;
			*pp = p;
			return 0;
		}
	}
	return -1;
}

static uint32_t zigzag(uint32_t d) { return (d << 1) ^ (uint32_t)-(int32_t)(d >> 31); }
static uint32_t unzigzag(uint32_t z) { return (z >> 1) ^ (uint32_t)-(int32_t)(z & 1); }

/* ------------------------------------------------------------ encoding */

static size_t pad8(size_t x) { return (x + 7) & ~(size_t)7; }

int hog_block_pack_plan(const hog_block *b, uint32_t flags, int prec, hog_pack_plan *p)
{
	memset(p, 0, sizeof *p);
	size_t n = b->n, vbytes = 0, nv = 0;
	const float *v = NULL;
	if (b->kind == HOG_KIND_SPARSE) {
		for (size_t i = 0; i < n; i++) {
			uint32_t lo = b->offsets[i], hi = b->offsets[i + 1];
			vbytes += vlen(hi - lo);
			for (uint32_t j = lo; j < hi; j++)
				vbytes += vlen(j > lo ? b->ids[j] - b->ids[j - 1] - 1 : b->ids[j]);
		}
		if (flags & HOG_BLOCK_F_VALUES) {
			v = b->vals;
			nv = b->nnz;
		}
	} else if (b->kind == HOG_KIND_RATINGS) {
		uint32_t prev = 0;
		for (size_t i = 0; i < n; i++) {
			vbytes += vlen(zigzag(b->users[i] - prev)) + vlen(b->items[i]);
			prev = b->users[i];
		}
		v = b->ratings;
		nv = n;
	} else {
		return -1; /* dense blocks are not packed */
	}
	p->vcode = nv ? choose_vcode(v, nv, prec, &p->scale) : HOG_VC_F32;
	p->varint_bytes = vbytes;
	p->bytes = HOG_BLOCK_HEADER + pad8((b->kind == HOG_KIND_SPARSE ? 4 * n : 0) + vbytes + nv * vc_width[p->vcode] +
	                                   (flags & HOG_BLOCK_F_WEIGHTS ? 4 * n : 0));
	return 0;
}

void hog_block_pack(void *buf, const hog_block *b, uint32_t flags, const hog_pack_plan *pl)
{
	unsigned char *h = buf, *p = h + HOG_BLOCK_HEADER;
	size_t n = b->n;
	memset(h, 0, pl->bytes);
	if (b->kind == HOG_KIND_SPARSE) {
		memcpy(p, b->labels, 4 * n);
		p += 4 * n;
		for (size_t i = 0; i < n; i++)
			p = vput(p, b->offsets[i + 1] - b->offsets[i]);
		for (size_t i = 0; i < n; i++)
			for (uint32_t j = b->offsets[i]; j < b->offsets[i + 1]; j++)
				p = vput(p, j > b->offsets[i] ? b->ids[j] - b->ids[j - 1] - 1 : b->ids[j]);
		if (flags & HOG_BLOCK_F_VALUES)
			p = put_values(p, b->vals, b->nnz, pl->vcode, pl->scale);
	} else {
		uint32_t prev = 0;
		for (size_t i = 0; i < n; i++) {
			p = vput(p, zigzag(b->users[i] - prev));
			prev = b->users[i];
		}
		for (size_t i = 0; i < n; i++)
			p = vput(p, b->items[i]);
		p = put_values(p, b->ratings, n, pl->vcode, pl->scale);
	}
	if (flags & HOG_BLOCK_F_WEIGHTS)
		memcpy(p, b->weights, 4 * n);
	hog_block_header(h, b, flags | HOG_BLOCK_F_PACKED, HOG_BLOCK_VERSION_PACKED, pl->bytes);
	memcpy(h + 40, &pl->scale, 4);
	uint32_t vc = pl->vcode;
	memcpy(h + 44, &vc, 4);
	uint64_t vb = pl->varint_bytes;
	memcpy(h + 56, &vb, 8);
	hog_block_seal(h, pl->bytes);
}

/* ------------------------------------------------------------ decoding */

size_t hog_block_packed_bytes(const void *buf, enum hog_kind kind, uint32_t n, uint64_t m, uint32_t flags)
{
	const unsigned char *h = buf;
	uint32_t vc;
	uint64_t vb;
	memcpy(&vc, h + 44, 4);
	memcpy(&vb, h + 56, 8);
	if (vc >= HOG_VC_COUNT || (kind != HOG_KIND_SPARSE && kind != HOG_KIND_RATINGS) || vb > (1ull << 40) ||
	    m > (1ull << 40))
		return 0;
	uint64_t nv = kind == HOG_KIND_RATINGS ? n : flags & HOG_BLOCK_F_VALUES ? m : 0;
	return HOG_BLOCK_HEADER + pad8((kind == HOG_KIND_SPARSE ? 4 * (size_t)n : 0) + vb + nv * vc_width[vc] +
	                               (flags & HOG_BLOCK_F_WEIGHTS ? 4 * (size_t)n : 0));
}

void *hog_blockbuf_get(hog_blockbuf *bb, size_t bytes)
{
	if (bytes > bb->cap) {
		void *q = realloc(bb->p, bytes);
		if (!q)
			return NULL;
		bb->p = q;
		bb->cap = bytes;
	}
	return bb->p;
}

void hog_blockbuf_free(hog_blockbuf *bb)
{
	if (!bb)
		return;
	free(bb->p);
	bb->p = NULL;
	bb->cap = 0;
}

#define CORRUPT(...) hog_err_set(err, HOG_ECORRUPT, __VA_ARGS__)

int hog_block_unpack(const unsigned char *h, size_t len, uint64_t index, const hog_meta *meta, hog_block *b,
                     hog_blockbuf *bb, hog_err *err)
{
	typedef unsigned long long ull;
	(void)len; /* checked against the header's counts by the caller */
	uint32_t vc, flags;
	uint64_t vb, n = b->n, m = b->kind == HOG_KIND_SPARSE ? b->nnz : 0;
	float scale;
	memcpy(&flags, h + 8, 4);
	memcpy(&scale, h + 40, 4);
	memcpy(&vc, h + 44, 4);
	memcpy(&vb, h + 56, 8);
	if (vc == HOG_VC_U8 && !(isfinite(scale) && scale > 0))
		return CORRUPT("block %llu: byte values with scale %g", (ull)index, scale);
	const int sparse = b->kind == HOG_KIND_SPARSE, vals = sparse ? (flags & HOG_BLOCK_F_VALUES) != 0 : 1;
	/* every varint takes a byte at least: counts the varint section cannot hold are damage,
	 * caught before they size the buffer (the caller checked vb against the block's length) */
	if (vb < (sparse ? n + m : 2 * n))
		return CORRUPT("block %llu: %llu bytes of packed ids cannot hold %llu %s", (ull)index, (ull)vb,
		               (ull)(sparse ? n + m : 2 * n), sparse ? "row lengths and feature ids" : "user and item ids");
	size_t words = sparse ? n + (n + 1) + m + (vals ? m : 0) : 3 * n;
	if (flags & HOG_BLOCK_F_WEIGHTS)
		words += n;
	uint32_t *out = bb ? hog_blockbuf_get(bb, 4 * words + 4) : NULL;
	if (!out)
		return hog_err_set(err, bb ? ENOMEM : HOG_ECORRUPT, "block %llu: %s", (ull)index,
		                   bb ? "out of memory decoding it" : "packed, with nowhere to decode it");
	const unsigned char *p = h + HOG_BLOCK_HEADER, *end;
	if (sparse) {
		float *labels = (float *)out;
		uint32_t *off = out + n, *ids = off + n + 1;
		memcpy(labels, p, 4 * n);
		p += 4 * n;
		end = p + vb;
		off[0] = 0;
		for (size_t i = 0; i < n; i++) {
			uint32_t k;
			if (vget(&p, end, &k) || k > m - off[i])
				return CORRUPT("block %llu, example %llu: bad row length in the packed ids", (ull)index,
				               (ull)(b->first + i));
			off[i + 1] = off[i] + k;
		}
		if (off[n] != m)
			return CORRUPT("block %llu: row lengths add up to %u, not its %llu nonzeros", (ull)index, off[n], (ull)m);
		for (size_t i = 0; i < n; i++) {
			uint64_t id = 0;
			for (uint32_t j = off[i]; j < off[i + 1]; j++) {
				uint32_t g;
				if (vget(&p, end, &g))
					return CORRUPT("block %llu, example %llu: damaged packed feature id", (ull)index,
					               (ull)(b->first + i));
				id = j > off[i] ? id + 1 + g : g;
				if (id >= meta->features)
					return CORRUPT("block %llu, example %llu: feature id %llu out of range", (ull)index,
					               (ull)(b->first + i), (ull)id);
				ids[j] = (uint32_t)id;
			}
		}
		b->labels = labels;
		b->offsets = off;
		b->ids = ids;
		out = ids + m;
		if (vals) {
			b->vals = (float *)out;
			out += m;
		}
	} else {
		uint32_t *users = out, *items = out + n, prev = 0;
		end = p + vb;
		for (size_t i = 0; i < n; i++) {
			uint32_t z;
			if (vget(&p, end, &z) || (prev += unzigzag(z)) >= meta->users)
				return CORRUPT("block %llu, rating %llu: damaged or out of range packed user", (ull)index,
				               (ull)(b->first + i));
			users[i] = prev;
		}
		for (size_t i = 0; i < n; i++)
			if (vget(&p, end, &items[i]) || items[i] >= meta->items)
				return CORRUPT("block %llu, rating %llu: damaged or out of range packed item", (ull)index,
				               (ull)(b->first + i));
		b->users = users;
		b->items = items;
		b->ratings = (float *)(out + 2 * n);
		out += 3 * n;
	}
	if (p != end)
		return CORRUPT("block %llu: %llu bytes of its packed ids left over", (ull)index, (ull)(end - p));
	size_t nv = sparse ? (vals ? m : 0) : n;
	if (nv)
		get_values((float *)(sparse ? b->vals : b->ratings), p, nv, vc, scale);
	p += nv * vc_width[vc];
	if (flags & HOG_BLOCK_F_WEIGHTS) {
		memcpy(out, p, 4 * n);
		b->weights = (float *)out;
	}
	return 0;
}
