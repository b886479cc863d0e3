/* A CSV line's fields (import_csv_fields.h): the splitter, quoting and
 * blanks, the separator's detection, and what a field holds. */
#include "data/import_csv_fields.h"
#include "data/parse.h"
#include <string.h>
#include <strings.h>

/* Blanks around a field: spaces and tabs, unless the tab is the separator. */
static int csv_pad(char ch, char sep) { return (ch == ' ' || ch == '\t') && ch != sep; }

/* Next field as [*s, *e), blanks trimmed; 0 when the line has no more fields. */
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
	*e = end;
	if (*p == sp->sep)
		p++;
	else
		sp->done = 1;
	sp->p = p;
	return 1;
}

/* 1 when [s, e) is nothing but a number. */
int csv_is_number(const char *s, const char *e)
{
	double v;
	const char *q = s < e ? hog_parse_f64(s, &v) : NULL;
	return q == e;
}

/* The separator most frequent in the first line, among ',', tab and ';';
 * 0 (blanks) when none of them occurs. */
char csv_detect_sep(const char *line)
{
	static const char cand[3] = { ',', '\t', ';' };
	size_t best = 0;
	char sep = 0;
	for (int k = 0; k < 3; k++) {
		size_t n = 0;
		for (const char *p = line; *p; p++)
			n += *p == cand[k];
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
