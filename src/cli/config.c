/* Config files for the CLI: "-c FILE.ini" turns the file's keys into long
 * options placed before the command line's own, so that flags override the file
 * and the file overrides the defaults. See configs/ for commented examples. */
#include "cli/cli.h"
#include "cli/opts.h"
#include "sys/err.h"
#include "sys/ini.h"
#include <stdlib.h>
#include <string.h>

struct expand {
	const char *cmd;
	const struct option *lopts;
	const char *path;
	char **args;
	int n, cap;
	char seen[256][80];  /* "section/key" of the keys so far (a key given twice in a section: refused) */
	unsigned seen_at[256];
	int nseen;
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

/* Edit distance of two short names (for "did you mean"); large when long. */
static int distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 63 || m > 63)
		return 99;
	int d[64][64];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1; /* a swap of two letters */
			d[i][j] = v;
		}
	return d[n][m];
}

/* The sections a config file may hold: one per command that reads them. */
static const struct {
	const char *name;
	unsigned cmd;
} sections[] = { { "train", CLI_TRAIN }, { "compare", CLI_COMPARE }, { "tune", CLI_TUNE } };

/* "; did you mean 'X'?" for the closest of @p names (n of them, @p stride bytes
 * apart), when it is close; else "". */
static void suggest(char *out, size_t len, const char *word, const char *const *names, size_t n, size_t stride)
{
	const char *best = NULL;
	int bd = 3;
	for (size_t i = 0; i < n; i++) {
		const char *nm = *(const char *const *)((const char *)names + i * stride);
		int dd = distance(word, nm);
		if (dd < bd) {
			bd = dd;
			best = nm;
		}
	}
	if (best)
		snprintf(out, len, "; did you mean '%s'?", best);
	else
		out[0] = 0;
}

/* Is @p key an option of command @p cmd (a config file may not set --config)? */
static int takes_key(unsigned cmd, const char *key)
{
	for (size_t i = 0; i < cli_nopts; i++)
		if (cli_opt_takes(&cli_opts[i], cmd) && !strcmp(cli_opts[i].name, key))
			return strcmp(key, "config") != 0 && strcmp(key, "help") != 0;
	return 0;
}

/* The hint for a key command @p cmd (its name @p name) does not take: the
 * section of another command that takes it as it is (a key that named itself
 * as the nearest was said: "'rungs' is not an option of hogwild train; did you
 * mean 'rungs'?"), else the nearest of its own options. */
static void key_hint(char *out, size_t len, const char *key, const char *name)
{
	unsigned cmd = 0;
	for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
		if (!strcmp(sections[i].name, name))
			cmd = sections[i].cmd;
		else if (takes_key(sections[i].cmd, key)) {
			snprintf(out, len, " (it is hogwild %s's: put it in a [%s] section)", sections[i].name,
			         sections[i].name);
			return;
		}
	}
	const char *best = NULL;
	int bd = 3;
	for (size_t i = 0; i < cli_nopts; i++) {
		const int dd = cli_opt_takes(&cli_opts[i], cmd) ? distance(key, cli_opts[i].name) : 3;
		if (dd < bd) {
			bd = dd;
			best = cli_opts[i].name;
		}
	}
	if (best)
		snprintf(out, len, "; did you mean '%s'?", best);
	else
		out[0] = 0;
}

static int on_key(void *ud, const char *section, const char *key, const char *value, unsigned line, hog_err *err)
{
	struct expand *x = ud;
	char hint[96], sk[80];
	unsigned cmd = 0;
	/* (the last of two silently won: Python's configparser refuses it too) */
	snprintf(sk, sizeof sk, "%.30s/%.48s", section, key);
	for (int i = 0; i < x->nseen; i++)
		if (!strcmp(x->seen[i], sk))
			return hog_err_set(err, HOG_ECONFIG, "%s:%u: '%s' again%s%s%s (line %u gave it): give it once",
			                   x->path, line, key, *section ? " in [" : "", section, *section ? "]" : "",
			                   x->seen_at[i]);
	if (x->nseen < 256) {
		memcpy(x->seen[x->nseen], sk, sizeof sk);
		x->seen_at[x->nseen++] = line;
	}
	if (*section) {
		for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
			if (!strcmp(section, sections[i].name))
				cmd = sections[i].cmd;
		if (!cmd) {
			suggest(hint, sizeof hint, section, &sections[0].name, sizeof sections / sizeof *sections,
			        sizeof *sections);
			return hog_err_set(err, HOG_ECONFIG, "%s:%u: unknown section [%s] (sections: [train], [compare], [tune])%s",
			                   x->path, line, section, hint);
		}
		if (strcmp(section, x->cmd) != 0) { /* another command's: checked, not used */
			if (takes_key(cmd, key))
				return 0;
			key_hint(hint, sizeof hint, key, section);
			return hog_err_set(err, HOG_ECONFIG, "%s:%u: '%s' is not an option of hogwild %s%s", x->path, line,
			                   key, section, hint);
		}
	}
	const struct option *o = x->lopts;
	while (o->name && strcmp(o->name, key) != 0)
		o++;
	if (!o->name || !strcmp(key, "config") || !strcmp(key, "help")) {
		key_hint(hint, sizeof hint, key, x->cmd);
		return hog_err_set(err, HOG_ECONFIG, "%s:%u: '%s' is not an option of hogwild %s%s", x->path, line,
		                   key, x->cmd, hint);
	}
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
			if (i + 1 >= argc) {
				rc = cli_usage_error(cmd, NULL, "%s needs a file", a);
				break;
			}
			path = argv[i + 1];
		} else if (!strncmp(a, "--config=", 9)) {
			path = a + 9;
		} else if (a[0] == '-' && a[1] && a[1] != '-') { /* -qc FILE, -cFILE: getopt's reading of them */
			const char *f = a + 1;
			while (*f == 'q' || *f == 'h')
				f++;
			if (*f == 'c' && !f[1] && i + 1 >= argc) {
				rc = cli_usage_error(cmd, NULL, "%s needs a file", a);
				break;
			}
			if (*f == 'c')
				path = f[1] ? f + 1 : argv[i + 1];
		}
		if (path) {
			hog_err err = { 0 };
			x.path = path;
			if ((rc = hog_ini_parse(path, on_key, &x, &err)))
				rc = cli_fail(&err, rc);
		}
	}
	for (int i = 1; i < argc && !rc; i++) {
		if (!strcmp(argv[i], "--")) { /* the rest as given */
			for (; i < argc && !rc; i++)
				rc = push(&x, argv[i]) ? 1 : 0;
			break;
		}
		if (!strncmp(argv[i], "--", 2) && i + 1 < argc && cli_opt_optional_value(argv[i] + 2, argv[i + 1])) {
			/* `--normalize off`: getopt reads an optional value only after '=' */
			char *joined = malloc(strlen(argv[i]) + strlen(argv[i + 1]) + 2);
			if (!joined) {
				rc = 1;
				break;
			}
			sprintf(joined, "%s=%s", argv[i], argv[i + 1]);
			rc = push(&x, joined) ? 1 : 0;
			free(joined);
			i++;
			continue;
		}
		if (push(&x, argv[i]))
			rc = 1;
	}
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
