/* File helpers shared by everything that writes files atomically (data sets,
 * models, checkpoints) or reads a user-named input: the temporary name beside
 * the target, the directory fsync that makes a rename durable, and the check
 * that an input is a file and not a directory. */
#include "sys/file.h"
#include "sys/err.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

char *hog_tmp_path(const char *path)
{
	size_t n = strlen(path) + 32;
	char *t = malloc(n);
	if (t)
		snprintf(t, n, "%s.tmp.%ld", path, (long)getpid());
	return t;
}

int hog_fsync_dir(const char *path)
{
	char *dir = strdup(path);
	if (!dir)
		return ENOMEM;
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY), rc = 0;
	if (fd < 0 || fsync(fd) != 0)
		rc = errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc == EINVAL ? 0 : rc; /* some file systems cannot sync directories */
}

int hog_check_regular_input(const char *path, hog_err *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return hog_err_set(err, errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return hog_err_set(err, EISDIR, "%s: is a directory, not a file", path);
	return 0;
}

void hog_map_release(const void *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(uintptr_t)(pg - 1), b = ((uintptr_t)p + len) & ~(uintptr_t)(pg - 1);
	if (b > a) /* advice: a refusal costs memory, never data */
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
}
