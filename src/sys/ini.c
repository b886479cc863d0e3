/* INI config files (see ini.h). */
#include "sys/ini.h"
#include "sys/file.h"
#include "sys/err.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int hog_ini_parse(const char *path, hog_ini_fn fn, void *ud, hog_err *err)
{
	int rc = hog_check_stream_input(path, err); /* a pipe (-c <(...)) streams */
	if (rc)
		return rc;
	int fd = hog_open_stream(path, 10000, err);
	if (fd < 0)
		return -fd;
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return hog_err_set(err, errno, "%s: %s", path, strerror(errno));
	}
	char buf[4096], section[128] = "";
	unsigned line = 0;
	while (fgets(buf, sizeof buf, f)) {
		line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			rc = hog_err_set(err, HOG_ECONFIG, "%s:%u: line too long", path, line);
			break;
		}
		char *s = trim(buf);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');
			if (!e || e[1]) {
				rc = hog_err_set(err, HOG_ECONFIG, "%s:%u: expected [section]", path, line);
				break;
			}
			*e = 0;
			snprintf(section, sizeof section, "%s", trim(s + 1));
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq) {
			rc = hog_err_set(err, HOG_ECONFIG, "%s:%u: expected key = value", path, line);
			break;
		}
		*eq = 0;
		char *key = trim(s), *val = trim(eq + 1);
		char *hash = NULL;
		if (*val == '"') {
			char *q = strchr(val + 1, '"');
			if (!q) {
				rc = hog_err_set(err, HOG_ECONFIG, "%s:%u: unterminated quote", path, line);
				break;
			}
			*q = 0;
			val++;
		} else if ((hash = strstr(val, " #")) || (hash = strstr(val, "\t#"))) {
			*hash = 0; /* comment after the value */
			val = trim(val);
		}
		if (!*key) {
			rc = hog_err_set(err, HOG_ECONFIG, "%s:%u: empty key", path, line);
			break;
		}
		if ((rc = fn(ud, section, key, val, line, err)))
			break;
	}
	fclose(f);
	return rc;
}
