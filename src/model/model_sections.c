/* A model file's sections (model.c has the file's layout): what a model keeps
 * of its training set besides its parameters -- each a u32 tag, a u32 0, a u64
 * length L, L bytes and zeros to a multiple of 8. Tags: 1 the users' original
 * ids, 2 the items', 3 the column names, 4 the split id, 5 the class names, 6
 * the categories, 7 u64 1 where a binary set's negatives were 0, 8 u64 K and
 * u64 N where a CSV set's label was field K of N, 9 u64 B where a VW set's names
 * were hashed into B bits. A reader skips tags it does not know. */
#include "model/model.h"
#include "sys/err.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SEC_USER_IDS 1u
#define SEC_ITEM_IDS 2u
#define SEC_COLUMNS 3u
#define SEC_SPLIT 4u
#define SEC_CLASS_NAMES 5u
#define SEC_CATEGORIES 6u
#define SEC_NEG_ZERO 7u   /* u64 1: a binary training set's negatives were 0 (model.h, neg_zero) */
#define SEC_CSV_LABEL 8u  /* u64 csv_label, u64 csv_fields: the CSV training set's label column (model.h) */
#define SEC_VW_BITS 9u    /* u64 1..31: the VW training set's hash bits (model.h) */
#define SPLIT_MAX 256     /* the split id's text (data/store.h: 50 characters) */

static void w32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void w64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t r32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t r64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* Appends one section (tag, length, bytes, padding) at @p at; returns the new end. */
static uint64_t section_put(unsigned char *buf, uint64_t at, uint32_t tag, const void *p, uint64_t len)
{
	w32(buf + at, tag);
	w32(buf + at + 4, 0);
	w64(buf + at + 8, len);
	memcpy(buf + at + 16, p, len);
	uint64_t end = at + 16 + len;
	while (end & 7)
		buf[end++] = 0;
	return end;
}

/* Whether @p m keeps both id maps, each as long as its shape. */
static int sections_ids(const hog_model *m)
{
	return m->user_ids && m->item_ids && m->nuser_ids == m->shape[0] && m->nitem_ids == m->shape[1];
}

uint64_t hog_model_sections_size(const hog_model *m)
{
	uint64_t cl = m->columns ? strlen(m->columns) : 0, sl = m->split ? strlen(m->split) : 0,
	         nl = m->class_names ? strlen(m->class_names) : 0, gl = m->categories ? 8 + strlen(m->categories) : 0;
	return (sections_ids(m) ? 32 + 8 * (m->nuser_ids + m->nitem_ids) : 0) + (cl ? 16 + ((cl + 7) & ~7ull) : 0) +
	       (sl ? 16 + ((sl + 7) & ~7ull) : 0) + (nl ? 16 + ((nl + 7) & ~7ull) : 0) +
	       (gl ? 16 + ((gl + 7) & ~7ull) : 0) + (m->neg_zero ? 24 : 0) + (m->csv_fields ? 32 : 0) +
	       (m->vw_bits ? 24 : 0);
}

unsigned char *hog_model_sections_build(const hog_model *m, uint64_t *len)
{
	const int ids = sections_ids(m);
	uint64_t cl = m->columns ? strlen(m->columns) : 0, sl = m->split ? strlen(m->split) : 0;
	uint64_t n = hog_model_sections_size(m);
	*len = 0;
	if (!n)
		return NULL;
	unsigned char *b = malloc(n);
	if (!b) {
		*len = 1;
		return NULL;
	}
	uint64_t at = 0;
	if (ids) {
		at = section_put(b, at, SEC_USER_IDS, m->user_ids, 8 * m->nuser_ids);
		at = section_put(b, at, SEC_ITEM_IDS, m->item_ids, 8 * m->nitem_ids);
	}
	if (cl)
		at = section_put(b, at, SEC_COLUMNS, m->columns, cl);
	if (sl)
		at = section_put(b, at, SEC_SPLIT, m->split, sl);
	if (m->class_names)
		at = section_put(b, at, SEC_CLASS_NAMES, m->class_names, strlen(m->class_names));
	if (m->categories) { /* u64 the first one's feature id, then the names */
		const size_t gl = strlen(m->categories);
		unsigned char *g = malloc(8 + gl);
		if (!g) {
			free(b);
			*len = 1;
			return NULL;
		}
		for (int i = 0; i < 8; i++)
			g[i] = (unsigned char)(m->category_from >> (8 * i));
		memcpy(g + 8, m->categories, gl);
		at = section_put(b, at, SEC_CATEGORIES, g, 8 + gl);
		free(g);
	}
	if (m->neg_zero) {
		const unsigned char one[8] = { 1 };
		at = section_put(b, at, SEC_NEG_ZERO, one, 8);
	}
	if (m->csv_fields) {
		unsigned char lf[16];
		for (int i = 0; i < 8; i++) {
			lf[i] = (unsigned char)((uint64_t)m->csv_label >> (8 * i));
			lf[8 + i] = (unsigned char)((uint64_t)m->csv_fields >> (8 * i));
		}
		at = section_put(b, at, SEC_CSV_LABEL, lf, 16);
	}
	if (m->vw_bits) {
		unsigned char u[8] = { (unsigned char)m->vw_bits };
		at = section_put(b, at, SEC_VW_BITS, u, 8);
	}
	*len = at;
	return b;
}

/* Reads the sections of a file into @p m; a section of a known tag with the
 * wrong size, or one running past the end, is damage. */
int hog_model_sections_parse(hog_model *m, const unsigned char *b, uint64_t len, const char *path, hog_err *err)
{
	for (uint64_t at = 0; at < len;) {
		if (len - at < 16)
			return hog_err_set(err, HOG_ECORRUPT, "%s: model section at byte %llu is truncated", path,
			                   (unsigned long long)at);
		uint32_t tag = r32(b + at);
		uint64_t n = r64(b + at + 8), padded = (n + 7) & ~7ull;
		if (n > len - at - 16 || padded > len - at - 16)
			return hog_err_set(err, HOG_ECORRUPT, "%s: model section %u runs past the end", path, tag);
		const unsigned char *p = b + at + 16;
		if (tag == SEC_USER_IDS || tag == SEC_ITEM_IDS) {
			uint64_t want = tag == SEC_USER_IDS ? m->shape[0] : m->shape[1];
			uint64_t **dst = tag == SEC_USER_IDS ? &m->user_ids : &m->item_ids;
			if (n != 8 * want || *dst)
				return hog_err_set(err, HOG_ECORRUPT, "%s: the %s id map holds %llu bytes, the model has %llu %s",
				                   path, tag == SEC_USER_IDS ? "user" : "item", (unsigned long long)n,
				                   (unsigned long long)want, tag == SEC_USER_IDS ? "users" : "items");
			if (want && !(*dst = malloc(n)))
				return hog_err_set(err, ENOMEM, "%s: out of memory", path);
			if (want)
				memcpy(*dst, p, n);
			*(tag == SEC_USER_IDS ? &m->nuser_ids : &m->nitem_ids) = want;
		} else if (tag == SEC_COLUMNS) {
			if (m->columns || memchr(p, 0, n) || !(m->columns = malloc(n + 1)))
				return hog_err_set(err, m->columns ? HOG_ECORRUPT : ENOMEM, "%s: column names: %s", path,
				                   m->columns ? "damaged" : "out of memory");
			memcpy(m->columns, p, n);
			m->columns[n] = 0;
		} else if (tag == SEC_CLASS_NAMES) {
			if (m->class_names || !hog_class_names_ok((const char *)p, n))
				return hog_err_set(err, HOG_ECORRUPT, "%s: the class names (model section 5) are damaged", path);
			if (!(m->class_names = malloc(n + 1)))
				return hog_err_set(err, ENOMEM, "%s: out of memory", path);
			memcpy(m->class_names, p, n);
			m->class_names[n] = 0;
		} else if (tag == SEC_CATEGORIES) {
			const uint64_t from = n >= 8 ? r64(p) : 0;
			if (m->categories || n < 9 || !hog_class_names_ok((const char *)p + 8, n - 8) ||
			    from >= UINT32_MAX)
				return hog_err_set(err, HOG_ECORRUPT, "%s: the categories (model section 6) are damaged", path);
			if (!(m->categories = malloc(n - 7)))
				return hog_err_set(err, ENOMEM, "%s: out of memory", path);
			memcpy(m->categories, p + 8, n - 8);
			m->categories[n - 8] = 0;
			m->category_from = from;
		} else if (tag == SEC_NEG_ZERO) {
			if (n != 8 || r64(p) > 1)
				return hog_err_set(err, HOG_ECORRUPT, "%s: the training set's negative label (model section 7) "
				                   "is damaged", path);
			m->neg_zero = r64(p) == 1;
		} else if (tag == SEC_CSV_LABEL) {
			if (n != 16 || r64(p) >= r64(p + 8) || r64(p + 8) > UINT32_MAX)
				return hog_err_set(err, HOG_ECORRUPT, "%s: the training set's label column (model section 8) "
				                   "is damaged", path);
			m->csv_label = (uint32_t)r64(p);
			m->csv_fields = (uint32_t)r64(p + 8);
		} else if (tag == SEC_VW_BITS) {
			if (n != 8 || r64(p) < 1 || r64(p) > 31)
				return hog_err_set(err, HOG_ECORRUPT, "%s: the training set's VW hash bits (model section 9) are "
				                   "damaged", path);
			m->vw_bits = (uint32_t)r64(p);
		} else if (tag == SEC_SPLIT) {
			if (m->split || !n || n > SPLIT_MAX || memchr(p, 0, n))
				return hog_err_set(err, HOG_ECORRUPT, "%s: the training set's split id (model section 4, %llu "
				                   "bytes) is damaged", path, (unsigned long long)n);
			if (!(m->split = malloc(n + 1)))
				return hog_err_set(err, ENOMEM, "%s: out of memory", path);
			memcpy(m->split, p, n);
			m->split[n] = 0;
		}
		at += 16 + padded;
	}
	if ((m->user_ids != NULL) != (m->item_ids != NULL) && m->shape[0] && m->shape[1])
		return hog_err_set(err, HOG_ECORRUPT, "%s: the model has one id map of two", path);
	return 0;
}
