/* The Vowpal Wabbit text importer (data import --format vw).
 *
 * A line is "[label [importance]] ['tag]|ns[:scale] feature[:value] ... |ns2 ...":
 * the label part before the first '|' (a label, an optional importance weight
 * and an optional 'tag, or a tag without its ' that touches the bar, which is
 * ignored), then namespaces, each a '|', a name
 * (none: the default namespace) with an optional scale of its values, and its
 * features. A feature's id is VW's (vwhash.h): its name hashed with its
 * namespace's hash as the seed, kept to the low --bits bits; -q pairs add the
 * products of two namespaces' features (namespaces named by their first
 * letter, as VW's -q does). Features that land on one id in an example are
 * added together, as VW's weight would see them. An empty label part makes an
 * unlabelled line (a set is labelled throughout or not at all). An importance
 * weight is the example's weight (hog_writer_set_weight: finite and > 0; VW's
 * importance 0, an example that teaches nothing, is refused: leave it out). */
#include "data/import.h"
#include "data/parse.h"
#include "data/store.h"
#include "data/vwhash.h"
#include "sys/err.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VW_NS_MAX 256    /* namespaces in one line */

typedef struct vw_feat {
	uint32_t id;         /* the hash, before the mask */
	float v;
	unsigned char ns;    /* the namespace's first letter (' ' for the default) */
} vw_feat;

typedef struct vw_state {
	vw_feat *f;          /* the line's features */
	size_t nf, capf;
	uint32_t *ids;       /* the example written: ids and values, sorted */
	float *vals;
	size_t cap;
	int labelled;        /* -1 not known yet, 0 none, 1 labels */
	char where[300];
	uint32_t mask;
	unsigned char pairs[64][2];
	int npairs;
} vw_state;

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *q = realloc(*p, nc * size);
	if (!q)
		return ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

static int add_feat(vw_state *s, uint32_t id, float v, unsigned char ns)
{
	if (grow((void **)&s->f, &s->capf, s->nf + 1, sizeof *s->f))
		return ENOMEM;
	s->f[s->nf++] = (vw_feat){ .id = id, .v = v, .ns = ns };
	return 0;
}

static int cmp_feat(const void *a, const void *b)
{
	uint32_t x = ((const vw_feat *)a)->id, y = ((const vw_feat *)b)->id;
	return x < y ? -1 : x > y;
}

/* The -q pairs' features, then every feature masked, sorted and merged into
 * s->ids/vals; the example's nonzero count in *nnz. */
static int finish_example(vw_state *s, uint32_t *nnz)
{
	const size_t base = s->nf;
	for (int q = 0; q < s->npairs; q++) {
		const unsigned char a = s->pairs[q][0], b = s->pairs[q][1];
		for (size_t i = 0; i < base; i++) {
			if (s->f[i].ns != a)
				continue;
			for (size_t j = a == b ? i : 0; j < base; j++)
				if (s->f[j].ns == b && (a != b || j >= i) &&
				    add_feat(s, hog_vw_pair(s->f[i].id, s->f[j].id), s->f[i].v * s->f[j].v, 0))
					return ENOMEM;
		}
	}
	for (size_t i = 0; i < s->nf; i++)
		s->f[i].id &= s->mask;
	if (s->nf) /* (qsort of a NULL array is undefined, even empty) */
		qsort(s->f, s->nf, sizeof *s->f, cmp_feat);
	if (s->nf + 1 > s->cap) { /* (ids and vals share cap: vals follows ids' growth) */
		void *nv;
		if (grow((void **)&s->ids, &s->cap, s->nf + 1, 4) || !(nv = realloc(s->vals, s->cap * 4)))
			return ENOMEM;
		s->vals = nv;
	}
	uint32_t n = 0;
	for (size_t i = 0; i < s->nf; i++) {
		if (n && s->ids[n - 1] == s->f[i].id)
			s->vals[n - 1] += s->f[i].v;
		else {
			s->ids[n] = s->f[i].id;
			s->vals[n++] = s->f[i].v;
		}
	}
	*nnz = n;
	return 0;
}

/* The label part [p, bar): its label into *y and whether it has one; NULL
 * (and the message in why) when it is malformed. */
static const char *vw_label(vw_state *s, const hog_input *in, const char *p, const char *bar, double *y,
                            double *imp, char *why, size_t wlen)
{
	p = hog_skip_space(p);
	*y = 0;
	*imp = 1;
	/* a tag without its ' is a last token that touches the bar ("1 1.0 zebra|f ...", VW's own example;
	 * "zebra|f ..." alone: no label) */
	const char *const end = bar, *tag = bar;
	while (tag > p && !hog_is_space(tag[-1]))
		tag--;
	double t;
	const char *tq = tag < bar ? hog_parse_f64(tag, &t) : NULL;
	if (tag < bar && *tag != '\'' && (!tq || tq != bar))
		bar = tag; /* (the label part ends before it; a number touching the bar stays the label) */
	int has = p < bar && *p != '\'';
	if (has) {
		const char *q = hog_parse_f64(p, y);
		if (!q || (q < bar && !hog_is_space(*q) && *q != '\'')) {
			snprintf(why, wlen, "expected a numeric label before '|'");
			return NULL;
		}
		if (!isfinite(*y)) {
			snprintf(why, wlen, "label is not finite");
			return NULL;
		}
		p = hog_skip_space(q);
		if (p < bar && *p != '\'') {
			if (!(q = hog_parse_f64(p, imp)) || (q < bar && !hog_is_space(*q) && *q != '\'')) {
				snprintf(why, wlen, "expected a numeric importance weight after the label");
				return NULL;
			}
			if (!(isfinite(*imp) && *imp > 0 && isfinite((float)*imp) && (float)*imp > 0)) {
				snprintf(why, wlen, "importance weight %g: an example weight must be a finite number > 0", *imp);
				return NULL;
			}
			p = hog_skip_space(q);
		}
		if (p < bar && *p != '\'') {
			snprintf(why, wlen, "unexpected '%.20s' in the label part (label [importance] ['tag])", p);
			return NULL;
		}
	}
	if (s->labelled < 0) {
		s->labelled = has;
		snprintf(s->where, sizeof s->where, "%.200s:%llu", in->path, (unsigned long long)in->line);
	} else if (s->labelled != has) {
		snprintf(why, wlen, "%s, but %s %s (a set is labelled throughout or not at all)",
		         has ? "a label" : "no label", s->where, has ? "has none" : "has one");
		return NULL;
	}
	return end;
}

/* One namespace at @p p (just after its '|') up to the next '|' or the end. */
static const char *vw_namespace(vw_state *s, const char *p, char *why, size_t wlen)
{
	unsigned char ns = ' ';
	uint32_t seed = 0;
	float scale = 1;
	if (*p && !hog_is_space(*p) && *p != '|') { /* a name, maybe name:scale */
		const char *e = p;
		while (*e && !hog_is_space(*e) && *e != '|' && *e != ':')
			e++;
		ns = (unsigned char)*p;
		seed = hog_vw_hash(p, (size_t)(e - p), 0);
		if (*e == ':') {
			double v;
			const char *q = hog_parse_f64(e + 1, &v);
			if (!q || !(hog_is_space(*q) || *q == 0 || *q == '|') || !isfinite(v)) {
				snprintf(why, wlen, "expected a numeric scale after namespace '%.*s:'", (int)(e - p), p);
				return NULL;
			}
			scale = (float)v;
			e = q;
		}
		p = e;
	}
	for (p = hog_skip_space(p); *p && *p != '|'; p = hog_skip_space(p)) {
		const char *e = p, *colon = NULL;
		while (*e && !hog_is_space(*e) && *e != '|') {
			if (*e == ':')
				colon = e;
			e++;
		}
		double v = 1;
		const char *name_end = colon ? colon : e;
		if (colon) {
			const char *q = hog_parse_f64(colon + 1, &v);
			if (!q || q != e || !isfinite(v) || !isfinite((float)v)) {
				snprintf(why, wlen, "expected a numeric value after '%.*s:'", (int)(colon - p), p);
				return NULL;
			}
		}
		if (name_end == p) {
			snprintf(why, wlen, "a feature without a name");
			return NULL;
		}
		if (add_feat(s, hog_vw_hash(p, (size_t)(name_end - p), seed), (float)v * scale, ns)) {
			snprintf(why, wlen, "out of memory");
			return NULL;
		}
		p = e;
	}
	return p;
}

static int vw_file(hog_import_ctx *c, vw_state *s, const char *path, hog_writer *w, hog_err *err)
{
	hog_input in;
	int rc = hog_input_open(&in, path, c->o->max_line, err);
	if (rc)
		return rc;
	char *line, why[400];
	size_t len;
	uint64_t since = 0;
	while ((rc = hog_input_line(&in, &line, &len, err)) == 1) {
		const char *p = hog_skip_space(line);
		if (*p == 0 || *p == '#')
			continue;
		const char *bar = strchr(p, '|');
		double y, imp;
		const char *at = p;
		if (!bar) {
			snprintf(why, sizeof why, "no '|': a VW line is [label] |namespace features ...");
			goto bad;
		}
		if (!(p = vw_label(s, &in, p, bar, &y, &imp, why, sizeof why)))
			goto bad;
		s->nf = 0;
		while (*p == '|') {
			at = p;
			if (!(p = vw_namespace(s, p + 1, why, sizeof why)))
				goto bad;
		}
		uint32_t nnz;
		if (finish_example(s, &nnz)) {
			rc = hog_err_set(err, ENOMEM, "%s:%llu: out of memory", path, (unsigned long long)in.line);
			break;
		}
		if ((imp != 1 && (rc = hog_writer_set_weight(w, imp, err))) || (rc = hog_import_weight(c, w, err)))
			break;
		if (
		    (rc = hog_writer_add_sparse(w, (float)y, s->ids, s->vals, nnz, err))) {
			hog_err_prefix(err, "%s:%llu", path, (unsigned long long)in.line);
			break;
		}
		hog_import_tick(c, &in, len, &since);
		continue;
	bad:
		rc = hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: %s", in.path, (unsigned long long)in.line,
		                 (size_t)(at - line) + 1, why);
		break;
	}
	return hog_import_file_done(c, &in, rc);
}

/* -q's list: "ab,cd" (or "ab cd"), each a pair of namespace letters. */
static int vw_pairs(vw_state *s, const char *q, hog_err *err)
{
	for (const char *p = q ? q : ""; *p;) {
		if (*p == ',' || *p == ' ') {
			p++;
			continue;
		}
		if (!p[1] || p[1] == ',' || (p[2] && p[2] != ',' && p[2] != ' ') || s->npairs == 64)
			return hog_err_set(err, HOG_ECONFIG, "--quadratic '%s': pairs of two namespace letters, like ab,cd "
			                   "(64 at most)", q);
		s->pairs[s->npairs][0] = (unsigned char)p[0];
		s->pairs[s->npairs++][1] = (unsigned char)p[1];
		p += 2;
	}
	return 0;
}

int hog_import_vw(hog_import_ctx *c, hog_err *err)
{
	const uint32_t bits = c->o->vw_bits ? c->o->vw_bits : 18;
	if (bits > 31)
		return hog_err_set(err, HOG_ECONFIG, "--bits %u: 1 to 31", bits);
	vw_state s = { .labelled = c->o->no_label ? 0 : -1, .mask = (uint32_t)((1ull << bits) - 1) };
	int rc = vw_pairs(&s, c->o->vw_quadratic, err);
	if (rc)
		return rc;
	char src[256];
	hog_import_source(c, src, sizeof src);
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = c->o->task, .features = 1ull << bits,
	                       .block_examples = c->o->block_examples,
	                       .value_precision = c->o->value_precision, .raw_blocks = c->o->raw_blocks, .source = src };
	hog_writer *w;
	if ((rc = hog_writer_open(&w, c->out, &wo, err)))
		return rc;
	for (int i = 0; i < c->nin && !rc; i++)
		rc = vw_file(c, &s, c->in[i], w, err);
	if (s.labelled == 0)
		hog_writer_set_unlabelled(w);
	char nb[16]; /* (a set hashed into other bits is refused beside it: reconcile.c) */
	snprintf(nb, sizeof nb, "%u", bits);
	if (!rc)
		rc = hog_writer_meta_set(w, "vw_bits", nb, err);
	free(s.f);
	free(s.ids);
	free(s.vals);
	return hog_import_close(c, w, rc, err);
}
