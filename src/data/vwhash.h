/* Vowpal Wabbit's feature hashing (vwhash.c), so that `data import --format vw`
 * puts each feature where VW would: the 32-bit MurmurHash3 (x86) of a name,
 * seeded with its namespace's hash; a name of digits alone is its number plus
 * the seed; a quadratic pair (-q) is (h1 * 16777619) ^ h2; every index is kept
 * to its low --bits bits. man/hogwild-data.5 documents the rule. */
#ifndef HOG_DATA_VWHASH_H
#define HOG_DATA_VWHASH_H
#include <stddef.h>
#include <stdint.h>

/** MurmurHash3_x86_32 of @p len bytes at @p s with @p seed (VW's uniform_hash). */
uint32_t hog_murmur3_32(const void *s, size_t len, uint32_t seed);
/** VW's hash of a feature or namespace name: surrounding blanks and control
 * characters left out; digits alone are their number plus @p seed (modulo
 * 2^32); anything else hog_murmur3_32(name, seed). */
uint32_t hog_vw_hash(const char *s, size_t len, uint32_t seed);
/** The feature of a quadratic pair of features hashed @p a and @p b. */
static inline uint32_t hog_vw_pair(uint32_t a, uint32_t b)
{
	return (uint32_t)(a * 16777619u) ^ b;
}

#endif
