/* Config files for the CLI: "-c FILE.ini" turns the file's keys into long
 * options placed before the command line's own, so that flags override the file
 * and the file overrides the defaults. See configs/ for commented examples. */
#include "cli/cli.h"
#include "sys/err.h"
#include "sys/ini.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct expand {
	const char *cmd;
	const struct option *lopts;
	const char *path;
	char **args;
	int n, cap;
};

static int push(struct expand *x, const char *s)
{
	if (x->n + 2 > x->cap) {
		int cap = x->cap ? x->cap * 2 : 32;
		char **a = realloc(x->args, cap * sizeof *a);
		if (!a)
			return -1;
		x->args = a;
		x->cap = cap;
	}
	if (!(x->args[x->n] = strdup(s)))
		return -1;
	x->args[++x->n] = NULL;
	return 0;
}

static int on_key(void *ud, const char *section, const char *key, const char *value, unsigned line, hog_err *err)
{
	struct expand *x = ud;
	if (*section && strcmp(section, x->cmd) != 0)
		return 0; /* a section for another command */
	const struct option *o = x->lopts;
	while (o->name && strcmp(o->name, key) != 0)
		o++;
	if (!o->name || !strcmp(key, "config"))
		return hog_err_set(err, HOG_ECONFIG, "%s:%u: '%s' is not an option of hogwild %s", x->path, line,
		                   key, x->cmd);
	char opt[128];
	snprintf(opt, sizeof opt, "--%s", key);
	if (o->has_arg == no_argument) {
		if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1"))
			return push(x, opt) ? hog_err_set(err, HOG_ECONFIG, "out of memory") : 0;
		if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0"))
			return 0;
		return hog_err_set(err, HOG_ECONFIG, "%s:%u: '%s' takes yes or no, not '%s'", x->path, line, key, value);
	}
	if (o->has_arg == optional_argument) { /* --key=value: getopt takes no separate word */
		snprintf(opt, sizeof opt, "--%s=%s", key, value);
		return push(x, opt) ? hog_err_set(err, HOG_ECONFIG, "out of memory") : 0;
	}
	if (push(x, opt) || push(x, value))
		return hog_err_set(err, HOG_ECONFIG, "out of memory");
	return 0;
}

int cli_config_expand(const char *cmd, const struct option *lopts, int argc, char **argv, int *nargc,
                      char ***nargv)
{
	struct expand x = { .cmd = cmd, .lopts = lopts };
	if (push(&x, argv[0]))
		return 1;
	int rc = 0;
	for (int i = 1; i < argc && !rc; i++) {
		const char *a = argv[i], *path = NULL;
		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
			if (i + 1 >= argc)
				return cli_usage_error(cmd, NULL, "%s needs a file", a);
			path = argv[i + 1];
		} else if (!strncmp(a, "--config=", 9)) {
			path = a + 9;
		}
		if (path) {
			hog_err err = { 0 };
			x.path = path;
			if ((rc = hog_ini_parse(path, on_key, &x, &err)))
				rc = cli_fail(&err, rc);
		}
	}
	for (int i = 1; i < argc && !rc; i++)
		if (push(&x, argv[i]))
			rc = 1;
	if (rc) {
		cli_config_free(x.n, x.args);
		return rc;
	}
	*nargc = x.n;
	*nargv = x.args;
	return 0;
}

void cli_config_free(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

void cli_json_num(FILE *f, const char *key, double v, int comma)
{
	if (isfinite(v))
		fprintf(f, "%s\"%s\":%.10g", comma ? "," : "", key, v);
	else
		fprintf(f, "%s\"%s\":null", comma ? "," : "", key);
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
