/* What `data import` says when --format is missing: the first input's first
 * bytes read for what they look like, so that the refusal names the format to
 * give. Only a hint: a set imported in a format guessed wrong (ratings read as
 * a CSV of features, say) would be a wrong data set that trains anyway. */
#include "cli/cli.h"
#include "data/input.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* 1 when the @p n bytes at @p t are "INDEX:" and something after it */
static int is_pair(const char *t, size_t n)
{
	size_t i = 0;
	while (i < n && isdigit((unsigned char)t[i]))
		i++;
	return i > 0 && i + 1 < n && t[i] == ':';
}

const char *cli_import_guess(const char *path, char *what, size_t size, const char **note)
{
	*note = "";
	struct stat st;
	if (!path || !strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
		return NULL; /* (a pipe read here would be read no more) */
	hog_input in; /* (plain or compressed, as the import reads it) */
	hog_err err = { 0 };
	char buf[4096];
	size_t n = 0;
	if (hog_input_open(&in, path, 0, &err))
		return NULL;
	int rc = hog_input_read(&in, buf, sizeof buf - 1, &n, &err);
	hog_input_close(&in);
	if (rc || n < 4)
		return NULL;
	buf[n] = 0;
	if (!buf[0] && !buf[1] && buf[2] == 8 && buf[3] >= 1 && buf[3] <= 3) {
		snprintf(what, size, "an IDX header (unsigned bytes, %d dimension%s)", buf[3], buf[3] > 1 ? "s" : "");
		*note = " (the images, then their labels' file, then the output)";
		return "idx";
	}
	if (memchr(buf, 0, (size_t)n))
		return NULL; /* (binary, and not IDX) */
	char *line = NULL; /* the first line with something on it, not a comment */
	for (char *p = buf; *p;) {
		char *nl = strchr(p, '\n'), *e = nl ? nl : p + strlen(p), *t = p;
		while (t < e && isspace((unsigned char)*t))
			t++;
		while (e > t && isspace((unsigned char)e[-1]))
			e--;
		if (t < e && *t != '#') {
			*e = 0;
			line = t;
			break;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!line)
		return NULL;
	char *hash = strchr(line, '#'); /* (LIBSVM's trailing comments) */
	snprintf(what, size, "'%.48s%s'", line, strlen(line) > 48 ? "..." : "");
	for (char *q = what; *q; q++) /* (a control byte would act on the terminal) */
		if (((unsigned char)*q < 0x20 && *q != '\t') || *q == 0x7f)
			*q = '?';
	if (strchr(line, '|'))
		return "vw";
	if (hash)
		*hash = 0;
	size_t tok = 0, pairs = 0;
	for (char *p = line; *p;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		char *t = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (p > t && tok++ > 0)
			pairs += is_pair(t, (size_t)(p - t)) || !strncmp(t, "qid:", 4);
	}
	if (tok >= 2 && pairs == tok - 1)
		return "libsvm";
	if (strstr(line, "::")) { /* (MovieLens 1M and 10M: user::item::rating::timestamp) */
		*note = " (MovieLens' user::item::rating::timestamp)";
		return "ratings";
	}
	if (strpbrk(line, ",;\t")) {
		if (strcasestr(line, "user") && (strcasestr(line, "item") || strcasestr(line, "movie")) &&
		    strcasestr(line, "rating")) {
			*note = " (its header line is found and skipped)";
			return "ratings";
		}
		*note = " (or --format ratings, if its rows are user, item, rating)";
		return "csv";
	}
	return NULL;
}
