/* File helpers shared by everything that writes files atomically (data sets,
 * models, checkpoints) or reads a user-named input: the temporary name beside
 * the target, the directory fsync that makes a rename durable, and the check
 * that an input is a file and not a directory or a FIFO; and the registry of
 * live temporary files that a signal handler can remove, with the clean-up of
 * temporaries that killed processes left behind. */
#include "sys/file.h"
#include "sys/err.h"
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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
	/* A FIFO with no writer would block open() forever, and a device or socket
	 * cannot be mapped or read twice: data sets, models, checkpoints and
	 * configuration files are read whole and must be regular files. */
	if (!S_ISREG(st.st_mode))
		return hog_err_set(err, HOG_EFORMAT, "%s: is a %s, not a regular file (this file cannot be "
		                   "read as a stream)", path, hog_file_type(st.st_mode));
	return 0;
}

void hog_map_release(const void *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(uintptr_t)(pg - 1), b = ((uintptr_t)p + len) & ~(uintptr_t)(pg - 1);
	if (b > a) /* advice: a refusal costs memory, never data */
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
}

void hog_huge_pages(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = 2u << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + len) & ~(huge - 1);
	if (p && b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
	(void)p, (void)len;
#endif
}

int hog_check_stream_input(const char *path, hog_err *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return hog_err_set(err, errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return hog_err_set(err, EISDIR, "%s: is a directory, not a file", path);
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return hog_err_set(err, HOG_EFORMAT, "%s: is a %s; give a regular file or a pipe", path,
		                   hog_file_type(st.st_mode));
	return 0;
}

const char *hog_file_type(unsigned mode)
{
	if (S_ISREG(mode)) return "regular file";
	if (S_ISDIR(mode)) return "directory";
	if (S_ISFIFO(mode)) return "FIFO (named pipe)";
	if (S_ISCHR(mode)) return "character device";
	if (S_ISBLK(mode)) return "block device";
	if (S_ISSOCK(mode)) return "socket";
	return "special file";
}

int hog_open_stream(const char *path, int wait_ms, hog_err *err)
{
	/* A FIFO's open() blocks until a writer opens the other end: open without
	 * blocking, then wait a bounded time for the first byte (or the writer's
	 * close), so a FIFO nobody writes to is an error, not a hang. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -hog_err_set(err, errno, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int k;
		while ((k = poll(&p, 1, wait_ms)) < 0 && errno == EINTR)
			;
		if (k == 0) {
			close(fd);
			return -hog_err_set(err, ETIMEDOUT, "%s: a FIFO with no writer: nothing arrived in %d s "
			                    "(start the writer first)", path, wait_ms / 1000);
		}
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* ------------------------------------------------------------ temporary files
 *
 * The registry below is the one piece of mutable global state in the library,
 * and it is global because signals are: a process has one SIGINT. Writers of
 * temporary files register them here; the command line's signal handler calls
 * hog_tmp_unlink_all(), which uses only unlink(), an async-signal-safe call, on
 * fixed buffers. A slot goes FREE -> BUSY (being filled) -> LIVE -> FREE, each
 * step an atomic store, so the handler never sees half a path. */

#define HOG_TMP_SLOTS 16
#define HOG_TMP_PATH 4096
enum { HOG_TMP_FREE, HOG_TMP_BUSY, HOG_TMP_LIVE };
static struct { int state; char path[HOG_TMP_PATH]; } hog_tmp_slots[HOG_TMP_SLOTS];

int hog_tmp_track(const char *path)
{
	if (strlen(path) >= HOG_TMP_PATH)
		return -1;
	for (int i = 0; i < HOG_TMP_SLOTS; i++)
		if (__atomic_load_n(&hog_tmp_slots[i].state, __ATOMIC_ACQUIRE) == HOG_TMP_LIVE &&
		    !strcmp(hog_tmp_slots[i].path, path))
			return i;
	for (int i = 0; i < HOG_TMP_SLOTS; i++) {
		int want = HOG_TMP_FREE;
		if (__atomic_compare_exchange_n(&hog_tmp_slots[i].state, &want, HOG_TMP_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED)) {
			strcpy(hog_tmp_slots[i].path, path);
			__atomic_store_n(&hog_tmp_slots[i].state, HOG_TMP_LIVE, __ATOMIC_RELEASE);
			return i;
		}
	}
	return -1; /* all slots taken: the file is still removed on errors, and as stale later */
}

void hog_tmp_untrack(int slot)
{
	if (slot >= 0 && slot < HOG_TMP_SLOTS)
		__atomic_store_n(&hog_tmp_slots[slot].state, HOG_TMP_FREE, __ATOMIC_RELEASE);
}

int hog_reserve(const char *path, uint64_t bytes)
{
	char *tmp = hog_tmp_path(path);
	if (!tmp)
		return ENOMEM;
	int slot = hog_tmp_track(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	int rc = fd < 0 ? errno : 0;
	if (fd >= 0) {
		do
			rc = bytes ? posix_fallocate(fd, 0, (off_t)bytes) : 0;
		while (rc == EINTR);
		if (rc == EOPNOTSUPP || rc == EINVAL) /* cannot allocate ahead here: nothing held, no error */
			rc = 0;
		if (close(fd) != 0 && !rc)
			rc = errno;
	}
	if (rc) {
		if (fd >= 0)
			unlink(tmp);
		hog_tmp_untrack(slot);
	}
	free(tmp);
	return rc;
}

void hog_reserve_drop(const char *path)
{
	char *tmp = hog_tmp_path(path);
	if (!tmp)
		return;
	int slot = hog_tmp_track(tmp); /* (its slot, when it holds one) */
	unlink(tmp);
	hog_tmp_untrack(slot);
	free(tmp);
}

int hog_tmp_unlink_all(void)
{
	int n = 0;
	for (int i = 0; i < HOG_TMP_SLOTS; i++)
		if (__atomic_load_n(&hog_tmp_slots[i].state, __ATOMIC_ACQUIRE) == HOG_TMP_LIVE &&
		    unlink(hog_tmp_slots[i].path) == 0)
			n++;
	return n;
}

/* @p path's folder (allocated: free it; "." without a '/'), *@p base its file
 * name in @p path, *@p slash the '/' in the copy (NULL: none). */
static char *tmp_dir(const char *path, const char **base, char **slash)
{
	char *dir = strdup(path);
	if (!dir)
		return NULL;
	*slash = strrchr(dir, '/');
	*base = *slash ? path + (*slash - dir) + 1 : path;
	if (*slash == dir)
		(*slash)[1] = 0;
	else if (*slash)
		**slash = 0;
	else
		strcpy(dir, ".");
	return dir;
}

/* The process id of entry @p n when it is BASE.tmp.PID (@p base, @p nb bytes),
 * another process's than this one, else 0. */
static long tmp_pid_of(const char *n, const char *base, size_t nb)
{
	if (strncmp(n, base, nb) || strncmp(n + nb, ".tmp.", 5))
		return 0;
	const char *p = n + nb + 5;
	char *end;
	errno = 0;
	const long pid = strtol(p, &end, 10);
	return *p && !*end && !errno && pid > 0 && pid != (long)getpid() ? pid : 0;
}

long hog_tmp_live_writer(const char *path)
{
	const char *base;
	char *slash, *dir = tmp_dir(path, &base, &slash);
	if (!dir)
		return 0;
	const size_t nb = strlen(base);
	DIR *d = opendir(dir);
	long live = 0, pid;
	struct dirent *e;
	while (d && !live && (e = readdir(d)))
		if ((pid = tmp_pid_of(e->d_name, base, nb)) && (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			live = pid;
	if (d)
		closedir(d);
	free(dir);
	return live;
}

int hog_tmp_remove_stale(const char *path, void (*fn)(void *ud, const char *file, long pid), void *ud)
{
	const char *base;
	char *slash, *dir = tmp_dir(path, &base, &slash);
	if (!dir)
		return ENOMEM;
	size_t nb = strlen(base);
	DIR *d = opendir(dir);
	if (!d) {
		free(dir);
		return 0; /* no directory: nothing stale, and the write itself will say why */
	}
	struct dirent *e;
	int removed = 0;
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		const long pid = tmp_pid_of(n, base, nb);
		/* Only a process that no longer exists: a live one (or one we may not
		 * signal, EPERM) may be writing it right now. */
		if (!pid || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char full[HOG_TMP_PATH];
		if ((size_t)snprintf(full, sizeof full, "%s%s%s", slash ? dir : "", slash ? "/" : "", n) >= sizeof full)
			continue;
		if (unlink(full) == 0) {
			removed++;
			if (fn)
				fn(ud, full, pid);
		}
	}
	closedir(d);
	free(dir);
	return removed;
}
