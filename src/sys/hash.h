/* FNV-1a over bytes, for hashes that only need to tell things apart (a run's
 * options and training set in checkpoints, a split's input): not for tables,
 * not against an adversary. Continue a hash by passing the last value as @p h. */
#ifndef HOG_SYS_HASH_H
#define HOG_SYS_HASH_H
#include <stddef.h>
#include <stdint.h>

#define HOG_FNV0 0xCBF29CE484222325ull

static inline uint64_t hog_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001B3ull;
	return h;
}
#endif
