/* MurmurHash3, the 32-bit x86 variant (Austin Appleby's public-domain
 * algorithm: 4-byte little-endian blocks mixed with two multiplies and a
 * rotation each, the tail, then the length and a final avalanche), and VW's
 * name rule on top of it (vwhash.h). tests/test_vw.c checks both against the
 * values VW's own tests give. */
#include "data/vwhash.h"
#include <string.h>

static inline uint32_t rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

uint32_t hog_murmur3_32(const void *s, size_t len, uint32_t seed)
{
	const uint8_t *p = s;
	const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
	uint32_t h = seed;
	size_t nblocks = len / 4;
	for (size_t i = 0; i < nblocks; i++) {
		uint32_t k = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
		             (uint32_t)p[4 * i + 3] << 24;
		k *= c1;
		k = rotl32(k, 15);
		k *= c2;
		h ^= k;
		h = rotl32(h, 13);
		h = h * 5 + 0xe6546b64u;
	}
	const uint8_t *tail = p + 4 * nblocks;
	uint32_t k = 0;
	switch (len & 3) {
	case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
	case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
	case 1:
		k ^= tail[0];
		k *= c1;
		k = rotl32(k, 15);
		k *= c2;
		h ^= k;
	}
	h ^= (uint32_t)len;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* VW trims bytes 0..0x20 (not those of multi-byte characters, >= 0x80). */
static int blank(char c)
{
	return (unsigned char)c <= 0x20;
}

uint32_t hog_vw_hash(const char *s, size_t len, uint32_t seed)
{
	while (len && blank(*s)) {
		s++;
		len--;
	}
	while (len && blank(s[len - 1]))
		len--;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return hog_murmur3_32(s, len, seed);
		v = 10 * v + (uint64_t)(s[i] - '0');
	}
	return (uint32_t)(v + seed);
}
