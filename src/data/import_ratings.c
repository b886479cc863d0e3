/* The ratings importer: one "user item rating [timestamp]" triple per line, as in
 * MovieLens u.data (tabs), ratings.csv (commas, with a header line), ml-1m's
 * ratings.dat ('::') or plain blank-separated text. The separator and a header are
 * detected from the first line unless the options fix them. User and item ids are
 * unsigned integers up to 2^63 and are renumbered to dense ranges 0..U-1 and
 * 0..I-1 in order of first appearance; the original ids go into the data set's id
 * maps ("users", "items") so that predictions can be reported in them. The
 * timestamp, when present, is not stored. A first line none of whose fields is
 * a number is a header, skipped with a note to the caller -- refused where its
 * names put the columns in another order (rat_header_misnamed); anything else that is
 * off is an error with FILE:LINE:COLUMN ("1,NA,5" is a bad line, not a header).
 * Blank lines and the --skip lines at the start of each file are skipped. */
#include "data/import.h"
#include "data/parse.h"
#include "sys/err.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAT_ID_MAX (1ull << 63)
#define RAT_EMPTY UINT32_MAX
/* The writer refuses the dense id UINT32_MAX, so at most that many ids. */
#define RAT_DENSE_MAX (UINT32_MAX - 1u)

/* Original id -> dense id: an open-addressing table (linear probing, at most half
 * full) of dense ids, whose keys live in the list of original ids itself, so
 * that the list is both the key store and the id map written at the end. */
typedef struct rat_map {
	uint32_t *slots;  /* dense id or RAT_EMPTY */
	size_t mask;      /* slots - 1 (a power of two minus one) */
	uint64_t *ids;    /* dense id -> original id */
	size_t n, cap;
} rat_map;

static uint64_t rat_hash(uint64_t x)
{
	/* the splitmix64 finalizer: every input bit moves every output bit */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int rat_map_init(rat_map *m)
{
	memset(m, 0, sizeof *m);
	m->cap = 1024;
	m->mask = 2 * m->cap - 1;
	m->slots = malloc((m->mask + 1) * sizeof *m->slots);
	m->ids = malloc(m->cap * sizeof *m->ids);
	if (!m->slots || !m->ids)
		return ENOMEM;
	memset(m->slots, 0xff, (m->mask + 1) * sizeof *m->slots);
	return 0;
}

static void rat_map_free(rat_map *m)
{
	free(m->slots);
	free(m->ids);
}

/* Doubles the table and the id list, reinserting every id. */
static int rat_map_grow(rat_map *m)
{
	size_t cap = m->cap * 2, mask = 2 * cap - 1;
	uint64_t *ids = realloc(m->ids, cap * sizeof *ids);
	if (!ids)
		return ENOMEM;
	m->ids = ids;
	uint32_t *slots = malloc((mask + 1) * sizeof *slots);
	if (!slots)
		return ENOMEM;
	memset(slots, 0xff, (mask + 1) * sizeof *slots);
	for (size_t d = 0; d < m->n; d++) {
		size_t h = rat_hash(m->ids[d]) & mask;
		while (slots[h] != RAT_EMPTY)
			h = (h + 1) & mask;
		slots[h] = (uint32_t)d;
	}
	free(m->slots);
	m->slots = slots;
	m->mask = mask;
	m->cap = cap;
	return 0;
}

/* The dense id of @p key, adding it when new. @return 0, ENOMEM, or ERANGE when
 * there are too many distinct ids. */
static int rat_map_get(rat_map *m, uint64_t key, uint32_t *dense)
{
	size_t h = rat_hash(key) & m->mask;
	for (uint32_t d; (d = m->slots[h]) != RAT_EMPTY; h = (h + 1) & m->mask)
		if (m->ids[d] == key) {
			*dense = d;
			return 0;
		}
	if (m->n == RAT_DENSE_MAX)
		return ERANGE;
	if (m->n == m->cap) {
		int rc = rat_map_grow(m);
		if (rc)
			return rc;
		h = rat_hash(key) & m->mask;
		while (m->slots[h] != RAT_EMPTY)
			h = (h + 1) & m->mask;
	}
	m->ids[m->n] = key;
	m->slots[h] = (uint32_t)m->n;
	*dense = (uint32_t)m->n++;
	return 0;
}

/* What is shared by the input files of one import. */
typedef struct rat_state {
	hog_import_ctx *c;
	hog_writer *w;
	const char *sep;   /* "::", "\t", ",", ";" or another one-char string; NULL: blanks */
	char sep1[2];
	int sep_known;
	rat_map users, items;
	double wmax;       /* --weight-col 3: the largest weight (timestamps taken for weights: warned of) */
} rat_state;

/* Blanks around a field: spaces and tabs, unless the tab is the separator. */
static int rat_pad(char ch, const char *sep) { return (ch == ' ' || ch == '\t') && !(sep && ch == sep[0]); }

/* Moves *pp past the separator after a field. @return 1 when another field
 * follows, 0 at the end of the line, -1 when something else is there. */
static int rat_sep(const char **pp, const char *sep)
{
	const char *p = *pp;
	if (!sep) {
		if (*p && !hog_is_space(*p))
			return -1;
		*pp = p = hog_skip_space(p);
		return *p != 0;
	}
	while (rat_pad(*p, sep))
		p++;
	if (*p == 0) {
		*pp = p;
		return 0;
	}
	size_t k = strlen(sep);
	if (strncmp(p, sep, k) != 0)
		return -1;
	for (p += k; rat_pad(*p, sep); p++)
		;
	*pp = p;
	return 1;
}

/* Parses an unsigned id at *pp (moved past it). @return NULL, or what is wrong. */
static const char *rat_parse_id(const char **pp, uint64_t *id)
{
	const char *p = *pp;
	if (*p == '-')
		return "is negative";
	const char *q = hog_parse_u64(p, id);
	if (!q) {
		while ((unsigned)(*p - '0') < 10)
			p++;
		return p - *pp >= 19 ? "is beyond 2^63" : "is not an unsigned integer";
	}
	if (*id > RAT_ID_MAX)
		return "is beyond 2^63";
	*pp = q;
	return NULL;
}

/* The separator of the first line: '::' (ml-1m), then tab, comma, semicolon;
 * NULL (blanks) when none occurs. */
static const char *rat_detect_sep(const char *line)
{
	if (strstr(line, "::"))
		return "::";
	if (strchr(line, '\t'))
		return "\t";
	if (strchr(line, ','))
		return ",";
	if (strchr(line, ';'))
		return ";";
	return NULL;
}

/* The length of the field at @p p (up to the separator, or a blank without
 * one; at most 40), for a message. */
static int rat_field_len(const char *p, const char *sep)
{
	const char *e = sep ? strstr(p, sep) : NULL;
	size_t n = e ? (size_t)(e - p) : strcspn(p, sep ? "\r\n" : " \t\r\n");
	return n > 40 ? 40 : (int)n;
}

/* A header line is one with some text and no field that is a number. */
static int rat_is_header(const char *p, const char *sep)
{
	size_t k = sep ? strlen(sep) : 0;
	int text = 0;
	while (*p) {
		while (hog_is_space(*p))
			p++;
		const char *s = p;
		while (*p && (sep ? strncmp(p, sep, k) != 0 : !hog_is_space(*p)))
			p++;
		const char *e = p;
		while (e > s && hog_is_space(e[-1]))
			e--;
		if (e - s >= 2 && *s == '"' && e[-1] == '"') /* ("1": a quoted number, as every field of a
			                                             * QUOTE_ALL file; it took the first line for a header) */
			s++, e--;
		double v;
		if (s < e && hog_parse_f64(s, &v) == e)
			return 0;
		text |= s < e;
		if (sep && *p)
			p += k;
	}
	return text;
}

/* Whether the lower-case field [s, e) has one of @p words in it. */
static int rat_names(const char *s, const char *e, const char *const *words)
{
	char f[64];
	size_t n = (size_t)(e - s) < sizeof f - 1 ? (size_t)(e - s) : sizeof f - 1;
	for (size_t k = 0; k < n; k++)
		f[k] = (char)(s[k] >= 'A' && s[k] <= 'Z' ? s[k] - 'A' + 'a' : s[k]);
	f[n] = 0;
	for (; *words; words++)
		if (strstr(f, *words))
			return 1;
	return 0;
}

/* A header whose names put the columns in another order than user, item,
 * rating (movieId before userId; a timestamp third): the fields are read by
 * position, so such a file was read with items as users, or timestamps as
 * ratings (training then gave NaN). 1 when it is so. */
static int rat_header_misnamed(const char *p, const char *sep)
{
	static const char *const user[] = { "user", "customer", "member", "reviewer", NULL };
	static const char *const item[] = { "item", "movie", "product", "book", "song", "track", "artist", "business",
		                                NULL };
	static const char *const when[] = { "time", "date", "stamp", NULL };
	const size_t k = sep ? strlen(sep) : 0;
	int bad = 0;
	for (int f = 0; f < 3 && *p; f++) {
		while (hog_is_space(*p) || *p == '"')
			p++;
		const char *s = p;
		while (*p && (sep ? strncmp(p, sep, k) != 0 : !hog_is_space(*p)))
			p++;
		const char *e = p;
		bad |= (f == 0 && rat_names(s, e, item) && !rat_names(s, e, user)) ||
		       (f == 1 && rat_names(s, e, user) && !rat_names(s, e, item)) || (f == 2 && rat_names(s, e, when));
		if (sep && *p)
			p += k;
	}
	return bad;
}

#define BAD(col, ...) do { \
	char what_[400]; snprintf(what_, sizeof what_, __VA_ARGS__); \
	rc = hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: %s", in.path, (unsigned long long)in.line, \
	                 (size_t)((col) - line) + 1, what_); \
	goto done; } while (0)

#define RAT_SHAPE "expected 'user item rating [timestamp]'"

/* Reads one ratings file into the writer. */
static int rat_file(rat_state *st, const char *path, hog_err *err)
{
	hog_import_ctx *c = st->c;
	hog_input in;
	int rc = hog_input_open(&in, path, c->o->max_line, err);
	if (rc)
		return rc;
	char *line;
	size_t len;
	uint64_t since_progress = 0;
	int first = 1;
	while ((rc = hog_input_line(&in, &line, &len, err)) == 1) {
		if (in.line <= c->o->skip_lines || *hog_skip_space(line) == 0)
			continue; /* skipped or blank line */
		if (!st->sep_known) {
			char d = c->o->delim;
			st->sep = d == 0 ? rat_detect_sep(line) : d == ':' ? "::" : d == ' ' ? NULL : st->sep1;
			st->sep1[0] = d;
			st->sep_known = 1;
		}
		const char *p = line;
		while (rat_pad(*p, st->sep))
			p++;
		if (first) {
			first = 0;
			if (c->o->header > 0)
				continue;
			if (c->o->header < 0 && rat_is_header(p, st->sep)) {
				if (rat_header_misnamed(p, st->sep))
					BAD(p, "the header '%.80s' names its columns in another order: --format ratings reads user, "
					    "item, rating (then a timestamp, or a weight with --weight-col 3) by position; put the "
					    "columns in that order", p);
				if (c->o->note) {
					char msg[200];
					snprintf(msg, sizeof msg, "%.80s:%llu: a header line, skipped: '%.40s%s' "
					         "(--header no reads it as data)", path, (unsigned long long)in.line, line,
					         len > 40 ? "..." : "");
					c->o->note(c->o->note_ud, msg);
				}
				continue;
			}
		}
		if (memchr(p, '"', len - (size_t)(p - line))) { /* "1","31","2.5": quotes around ids and numbers go */
			char *o = (char *)p;
			for (const char *r = p; *r; r++)
				if (*r != '"')
					*o++ = *r;
			*o = 0;
		}
		const char *at = p, *why;
		uint64_t u, i;
		uint32_t du, di;
		int more;
		/* (the field named: 'u17' or 'tt0114709' read only "user id is not an unsigned integer") */
		if ((why = rat_parse_id(&p, &u)) || (more = rat_sep(&p, st->sep)) < 0)
			BAD(at, "user id '%.*s' %s (ids are numbers: map names to numbers first)",
			    rat_field_len(at, st->sep), at,
			    why ? why : "is not an unsigned integer");
		if (!more)
			BAD(p, "missing item id: " RAT_SHAPE);
		at = p;
		if ((why = rat_parse_id(&p, &i)) || (more = rat_sep(&p, st->sep)) < 0)
			BAD(at, "item id '%.*s' %s (ids are numbers: map names to numbers first)",
			    rat_field_len(at, st->sep), at,
			    why ? why : "is not an unsigned integer");
		if (c->o->no_label && more)
			BAD(p, "a third field: --no-label reads 'user item' pairs without ratings");
		double r = 0, wt = 1;
		if (c->o->no_label)
			goto pair; /* no rating to read: stored as 0 */
		if (!more)
			BAD(p, "missing rating: " RAT_SHAPE " (pairs without ratings: --no-label)");
		at = p;
		const char *q = hog_parse_f64(p, &r);
		if (!q)
			BAD(at, "expected a numeric rating");
		p = q;
		if ((more = rat_sep(&p, st->sep)) < 0)
			BAD(at, "expected a numeric rating");
		if (!isfinite(r) || !isfinite((float)r))
			BAD(at, "rating is not finite");
		if (more && c->o->weight_given) { /* --weight-col 3: the fourth field is the example's weight */
			at = p;
			if (!(q = hog_parse_f64(p, &wt)))
				BAD(at, "expected a numeric weight in the fourth field (--weight-col 3)");
			p = q;
			if ((more = rat_sep(&p, st->sep)) != 0)
				BAD(at, more < 0 ? "expected a numeric weight in the fourth field (--weight-col 3)"
				                 : "too many fields: expected 'user item rating weight'");
			if (!(isfinite(wt) && wt > 0 && isfinite((float)wt) && (float)wt > 0))
				BAD(at, "weight %g: a weight must be a finite number > 0", wt);
			st->wmax = wt > st->wmax ? wt : st->wmax;
		} else if (!more && c->o->weight_given && !c->o->no_label) {
			BAD(p, "missing weight: --weight-col 3 reads 'user item rating weight'");
		}
		if (more) { /* a timestamp (or any fourth field), not stored */
			at = p;
			if (st->sep) {
				const char *next = strstr(p, st->sep);
				p = next ? next : p + strlen(p);
				const char *e = p;
				while (e > at && rat_pad(e[-1], st->sep))
					e--;
				if (e == at)
					BAD(at, "empty timestamp field");
			} else {
				while (*p && !hog_is_space(*p))
					p++;
			}
			if (rat_sep(&p, st->sep) != 0)
				BAD(p, "too many fields: " RAT_SHAPE);
		}
pair:
		if ((rc = rat_map_get(&st->users, u, &du)) || (rc = rat_map_get(&st->items, i, &di))) {
			rc = rc == ERANGE ? hog_err_set(err, HOG_EDATA, "%s:%llu: more than %u distinct ids", path,
			                                (unsigned long long)in.line, RAT_DENSE_MAX)
			                  : hog_err_set(err, rc, "%s:%llu: out of memory", path, (unsigned long long)in.line);
			goto done;
		}
		if ((wt != 1 && (rc = hog_writer_set_weight(st->w, wt, err))) || (rc = hog_import_weight(c, st->w, err)))
			goto done;
		if ((rc = hog_writer_add_rating(st->w, du, di, (float)r, err))) {
			hog_err_prefix(err, "%s:%llu", path, (unsigned long long)in.line);
			goto done;
		}
		hog_import_tick(c, &in, len, &since_progress);
	}
done:
	return hog_import_file_done(c, &in, rc);
}

int hog_import_ratings(hog_import_ctx *c, hog_err *err)
{
	char src[256];
	hog_import_source(c, src, sizeof src);
	hog_writer_opts wo = { .kind = HOG_KIND_RATINGS, .task = HOG_TASK_RATINGS, .unlabelled = c->o->no_label,
	                       .block_examples = c->o->block_examples,
	                       .value_precision = c->o->value_precision, .raw_blocks = c->o->raw_blocks, .source = src };
	rat_state st = { .c = c };
	int rc = hog_writer_open(&st.w, c->out, &wo, err);
	if (rc)
		return rc;
	if (rat_map_init(&st.users) || rat_map_init(&st.items))
		rc = hog_err_set(err, ENOMEM, "out of memory");
	for (int k = 0; k < c->nin && !rc; k++)
		rc = rat_file(&st, c->in[k], err);
	if (!rc && st.wmax >= 1e6 && c->o->note) { /* (MovieLens's fourth field as weights: training diverged) */
		char msg[300];
		snprintf(msg, sizeof msg, "warning: --weight-col 3: weights up to %.0f, timestamps more likely than "
		         "weights (a rating of such a weight counts as that many): without --weight-col the fourth "
		         "field is a timestamp, not stored", st.wmax);
		c->o->note(c->o->note_ud, msg);
	}
	if (!rc && hog_writer_count(st.w) &&
	    !(rc = hog_writer_idmap_set(st.w, "users", st.users.ids, st.users.n, err)))
		rc = hog_writer_idmap_set(st.w, "items", st.items.ids, st.items.n, err);
	rat_map_free(&st.users);
	rat_map_free(&st.items);
	return hog_import_close(c, st.w, rc, err);
}
