/* The CLI's figures and names as text: numbers that may be missing (JSON's
 * null, the tables' "-"), JSON strings, and the class and category lists
 * that data info, model info, eval and predict print. */
#include "cli/cli.h"
#include <math.h>
#include <stdio.h>

void cli_json_num(FILE *f, const char *key, double v, int comma)
{
	if (isfinite(v))
		fprintf(f, "%s\"%s\":%.10g", comma ? "," : "", key, v);
	else
		fprintf(f, "%s\"%s\":null", comma ? "," : "", key);
}

const char *cli_fmt_num(char *buf, size_t n, const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, n, fmt, v);
	else
		snprintf(buf, n, "-");
	return buf;
}

void cli_json_classes(FILE *f, const char *names)
{
	fputs(",\"class_names\":[", f);
	size_t n;
	char name[256];
	const char *p;
	for (uint32_t k = 0; (p = hog_class_name(names, k, &n)); k++) {
		snprintf(name, sizeof name, "%.*s", (int)n, p);
		fputs(k ? "," : "", f);
		cli_json_str(f, name);
	}
	fputc(']', f);
}

void cli_names_rows(const char *class_names, const char *categories, uint64_t from)
{
	char line[240];
	if (class_names)
		printf("%-14s%s\n", "class names", cli_class_list(line, sizeof line, class_names));
	if (categories) {
		cli_categories(line, sizeof line, categories, from);
		printf("%-14s%s\n", "categories", line);
	}
}

void cli_categories(char *buf, size_t size, const char *names, uint64_t from)
{
	const uint32_t n = hog_class_count(names);
	size_t len;
	const char *first = hog_class_name(names, 0, &len);
	snprintf(buf, size, "%u, features %llu..%llu ('%.*s', ...)", n, (unsigned long long)from,
	         (unsigned long long)(from + n - 1), (int)(len > 60 ? 60 : len), first ? first : "");
}

const char *cli_class_list(char *buf, size_t size, const char *names)
{
	int at = 0;
	size_t n;
	uint32_t k = 0;
	const char *p;
	buf[0] = 0;
	for (; (p = hog_class_name(names, k, &n)) && at < (int)size - 60; k++)
		at += snprintf(buf + at, size - (size_t)at, "%s%u '%.*s'", k ? ", " : "", k, (int)(n > 40 ? 40 : n), p);
	if (k < hog_class_count(names))
		snprintf(buf + at, size - (size_t)at, ", ... (%u in all)", hog_class_count(names));
	return buf;
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}
