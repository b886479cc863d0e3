/* Fast, strict number parsing for the text importers. Each parser takes a pointer
 * into a NUL-terminated line, reads one number and returns the position after it,
 * or NULL when there is no valid number there. Decimal floats take Clinger's fast
 * path (an exact integer mantissa below 2^53 times an exact power of ten is
 * correctly rounded to double); anything else falls back to strtod. */
#ifndef HOG_DATA_PARSE_H
#define HOG_DATA_PARSE_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static inline int hog_is_space(char c) { return c == ' ' || c == '\t'; }

static inline const char *hog_skip_space(const char *p)
{
	while (hog_is_space(*p))
		p++;
	return p;
}

/* Unsigned decimal integer (no sign), at most 19 digits. */
static inline const char *hog_parse_u64(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = p;
	while ((unsigned)(*p - '0') < 10 && p - s < 19)
		v = v * 10 + (uint64_t)(*p++ - '0');
	if (p == s || (unsigned)(*p - '0') < 10)
		return NULL;
	*out = v;
	return p;
}

static const double hog_pow10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* A double: [+-]digits[.digits][(e|E)[+-]digits], or inf/nan words through strtod
 * (which the caller then rejects as not finite). */
static inline const char *hog_parse_f64(const char *p, double *out)
{
	const char *s = p;
	int neg = 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	uint64_t m = 0;
	int digits = 0, frac = 0;
	while ((unsigned)(*p - '0') < 10) {
		if (digits < 19) { m = m * 10 + (uint64_t)(*p - '0'); digits += m != 0; }
		else goto slow;
		p++;
	}
	const char *int_end = p;
	if (*p == '.') {
		p++;
		while ((unsigned)(*p - '0') < 10) {
			if (digits < 19) { m = m * 10 + (uint64_t)(*p - '0'); digits += m != 0; frac++; }
			else goto slow;
			p++;
		}
	}
	if (p == int_end + (*int_end == '.') && int_end == s + (s[0] == '-' || s[0] == '+'))
		goto slow; /* no digits at all: maybe inf or nan, else an error */
	int e = 0;
	if (*p == 'e' || *p == 'E')
		goto slow;
	e -= frac;
	if (m >= (1ull << 53) || e < -22 || e > 22)
		goto slow;
	double v = (double)m;
	v = e < 0 ? v / hog_pow10[-e] : v * hog_pow10[e];
	*out = neg ? -v : v;
	return p;
slow:;
	char *end;
	if (hog_is_space(*s) || *s == '\n' || *s == '\r' || *s == '\v' || *s == '\f')
		return NULL; /* strtod would skip it: "3: 5" is not "3:5" */
	*out = strtod(s, &end);
	return end == s ? NULL : end;
}

#endif
