/* A CSV line's fields (import_csv_fields.h): the splitter, quoting and
 * blanks, the separator's detection, and what a field holds. */
#include "data/import_csv_fields.h"
#include "data/parse.h"
#include <string.h>
#include <strings.h>

/* Blanks around a field: spaces and tabs, unless the tab is the separator. */
static int csv_pad(char ch, char sep) { return (ch == ' ' || ch == '\t') && ch != sep; }

/* Next field as [*s, *e), blanks trimmed and the quotes of a quoted field
 * without a quote inside removed ("5.1": 5.1); 0 when the line has no more
 * fields. */
int csv_next(csv_split *sp, const char **s, const char **e)
{
	if (sp->done)
		return 0;
	const char *p = sp->p;
	if (!sp->sep) {
		p = hog_skip_space(p);
		if (!*p) {
			sp->done = 1;
			return 0;
		}
		*s = p;
		while (*p && !hog_is_space(*p))
			p++;
		*e = p;
		sp->p = p;
		return 1;
	}
	while (csv_pad(*p, sp->sep))
		p++;
	*s = p;
	if (*p == '"') { /* RFC 4180 quoting: "" inside stands for one quote */
		for (p++; *p; p++) {
			if (*p == '"' && p[1] != '"')
				break;
			if (*p == '"')
				p++;
		}
		if (*p)
			p++;
	}
	while (*p && *p != sp->sep)
		p++;
	const char *end = p;
	while (end > *s && csv_pad(end[-1], sp->sep))
		end--;
	if (end - *s >= 2 && **s == '"' && end[-1] == '"' && !memchr(*s + 1, '"', (size_t)(end - *s - 2))) {
		(*s)++; /* "5.1" is 5.1, as RFC 4180 has it (a file that quotes every field); "a ""b""" stays quoted */
		end--;
	}
	*e = end;
	if (*p == sp->sep)
		p++;
	else
		sp->done = 1;
	sp->p = p;
	return 1;
}

/* Whether [s, c) is an integer part with points between groups of three
 * digits ("-1.234.567"), or none. */
static int csv_grouped(const char *s, const char *c)
{
	s += *s == '-' || *s == '+';
	const char *pt = memchr(s, '.', (size_t)(c - s));
	if (!pt)
		return 1;
	if (pt == s || pt - s > 3)
		return 0;
	for (const char *p = pt; p < c; p += 4)
		if (*p != '.' || c - p < 4 || (unsigned)(p[1] - '0') > 9 || (unsigned)(p[2] - '0') > 9 ||
		    (unsigned)(p[3] - '0') > 9)
			return 0;
	return 1;
}

const char *csv_parse(const char *s, const char *e, char sep, double *v)
{
	const char *q = hog_parse_f64(s, v);
	if (!q || q == e || sep == ',' || q >= e || e - s > 63)
		return q;
	const char *c = memchr(q, ',', (size_t)(e - q)); /* (after "1.234" of "1.234,5": the comma) */
	if (!c || c == s || (unsigned)(c[-1] - '0') > 9 || (unsigned)(c[1] - '0') > 9 || !csv_grouped(s, c))
		return q; /* (a decimal comma has a digit on each side, and before it points only between thousands) */
	char buf[64];
	size_t n = 0;
	for (const char *p = s; p < e; p++)
		if (*p != '.')
			buf[n++] = p == c ? '.' : *p;
	buf[n] = 0;
	const char *r = hog_parse_f64(buf, v);
	return r == buf + n ? e : q;
}

int csv_is_number(const char *s, const char *e, char sep)
{
	double v;
	return s < e && csv_parse(s, e, sep, &v) == e;
}

/* The separator most frequent in the first line, among ',', tab and ';' (a
 * comma counting for none where each is between two digits and the line has a
 * ';' or a tab: a decimal mark); 0 (blanks) when none of them occurs. */
char csv_detect_sep(const char *line)
{
	static const char cand[3] = { ',', '\t', ';' };
	size_t best = 0, decimal = 0, other = 0;
	char sep = 0;
	for (const char *p = line; *p; p++) /* (commas between digits, in a line with ';' or a tab: decimal marks) */
		if (*p == ',')
			*(p > line && (unsigned)(p[-1] - '0') < 10 && (unsigned)(p[1] - '0') < 10 ? &decimal : &other) += 1;
	for (int k = 0; k < 3; k++) {
		size_t n = 0;
		for (const char *p = line; *p; p++)
			n += *p == cand[k];
		if (k == 0 && !other && decimal && (strchr(line, ';') || strchr(line, '\t')))
			n = 0; /* "1,5;2,25;1": a ';' file with decimal commas */
		if (n > best) {
			best = n;
			sep = cand[k];
		}
	}
	return sep;
}

int csv_name_is(const char *s, const char *e, const char *name)
{
	size_t n = strlen(name);
	return (size_t)(e - s) == n && !strncasecmp(s, name, n);
}

/* How files say "no value": NA, N/A, null, None, nil, ? or - (any case). */
int csv_is_missing(const char *s, const char *e)
{
	static const char *const marks[] = { "na", "n/a", "null", "none", "nil", "?", "-", NULL };
	for (int k = 0; marks[k]; k++)
		if (csv_name_is(s, e, marks[k]))
			return 1;
	return 0;
}
