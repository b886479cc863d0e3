/* The command line's side of "never lose a byte": output paths are checked
 * before any work starts (the directory exists and takes a new file, the target
 * is not a directory), temporaries that a killed run left behind are removed,
 * a signal during a data command removes the temporary file being written, and
 * standard output is flushed and closed with its errors checked at exit. A
 * reader that closes the pipe early (`| head`) ends the output quietly with
 * status 0: what it did not read it did not want, and dying by SIGPIPE in the
 * middle of a command could leave temporary files behind. */
#include "cli/cli.h"
#include "model/model.h"
#include "sys/file.h"
#include "sys/mpi.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "dir" of "dir/name" ("." for "name", "/" for "/name") into buf. */
static void files_dir(const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s", path);
	char *slash = strrchr(buf, '/');
	if (slash == buf)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(buf, size, ".");
}

static void files_stale_note(void *ud, const char *file, long pid)
{
	fprintf(stderr, "hogwild %s: removed %s, a temporary file left by process %ld (no longer running)\n",
	        (const char *)ud, file, pid);
}

void cli_remove_stale(const char *cmd, const char *path)
{
	hog_tmp_remove_stale(path, files_stale_note, (void *)cmd);
}

int cli_check_output(const char *cmd, const char *opt, const char *path, int append)
{
	char dir[4096], probe[4200];
	struct stat st;
	const char *o = opt ? opt : "", *sep = opt ? " " : "";
	if (!*path) {
		fprintf(stderr, "hogwild %s: %s%sempty file name\n", cmd, o, sep);
		return EXIT_USAGE;
	}
	if (strlen(path) >= sizeof dir - 64) {
		fprintf(stderr, "hogwild %s: %s%s%.80s...: file name too long\n", cmd, o, sep, path);
		return EXIT_USAGE;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "hogwild %s: %s%s%s: is a directory; give a file name\n", cmd, o, sep, path);
		return 1;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (append)
			return 0; /* /dev/null, a FIFO, a terminal: opened for writing as they are */
		/* a rename would replace the device or FIFO itself (as root, /dev/null) */
		fprintf(stderr, "hogwild %s: %s%s%s: is a %s; this output is written to a temporary file and "
		        "renamed, so it must be a regular file\n", cmd, o, sep, path, hog_file_type(st.st_mode));
		return 1;
	}
	files_dir(path, dir, sizeof dir);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "hogwild %s: %s%s%s: directory %s %s\n", cmd, o, sep, path, dir,
		        errno == ENOENT ? "does not exist" : !S_ISDIR(st.st_mode) ? "is not a directory" : strerror(errno));
		return 1;
	}
	/* The one sure test of "a new file can be made here" (read-only mounts,
	 * permissions, ACLs, quotas at zero): make one. */
	snprintf(probe, sizeof probe, "%s.tmp.%ld", path, (long)getpid());
	int slot = hog_tmp_track(probe); /* a signal handler of ours removes it too */
	int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int e = errno;
	if (fd >= 0) {
		close(fd);
		unlink(probe);
	}
	hog_tmp_untrack(slot);
	if (fd < 0 && e != EEXIST) {
		fprintf(stderr, "hogwild %s: %s%s%s: cannot write in %s: %s\n", cmd, o, sep, path, dir, strerror(e));
		return 1;
	}
	cli_remove_stale(cmd, path);
	return 0;
}

int cli_write_atomic(const char *cmd, const char *outp, int (*fill)(void *ud, int fd, hog_err *err), void *ud,
                     const char *write_prefix)
{
	char *tmp = hog_tmp_path(outp);
	if (!tmp) {
		fprintf(stderr, "hogwild %s: out of memory\n", cmd);
		return 1;
	}
	int slot = hog_tmp_track(tmp); /* before the file exists: the handler removes it */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "hogwild %s: %s: %s\n", cmd, outp, strerror(errno));
		hog_tmp_untrack(slot);
		free(tmp);
		return 1;
	}
	/* errors of our own are put into err as the library would, for cli_fail;
	 * they name the file the user gave, not the temporary one */
	hog_err err = { 0 };
	int rc = fill(ud, fd, &err);
	if (rc > 0 && !strncmp(err.msg, write_prefix, strlen(write_prefix)))
		snprintf(err.msg, sizeof err.msg, "%.600s: %s", outp, strerror(rc));
	if (rc == 0 && fsync(fd) != 0) {
		rc = errno;
		snprintf(err.msg, sizeof err.msg, "%.600s: cannot sync: %s", outp, strerror(rc));
	}
	if (close(fd) != 0 && rc == 0) {
		rc = errno;
		snprintf(err.msg, sizeof err.msg, "%.600s: %s", outp, strerror(rc));
	}
	if (rc == 0 && rename(tmp, outp) != 0) {
		rc = errno;
		snprintf(err.msg, sizeof err.msg, "%.600s: cannot rename into place: %s", outp, strerror(rc));
	}
	if (rc)
		unlink(tmp);
	hog_tmp_untrack(slot);
	free(tmp);
	if (rc)
		return cli_fail(&err, rc);
	hog_fsync_dir(outp);
	return 0;
}

/* What an existing regular file holds, from its first bytes: an LMDB file (a
 * data set: the meta page's magic 0xBEEFC0DE at byte 16, as lmdb_check.c reads
 * it), a hogwild model or checkpoint (magic "HOGMODEL", its kind at byte 12),
 * nothing (empty), or something else. */
enum { HELD_NOTHING, HELD_OTHER, HELD_DATA, HELD_MODEL };

static int files_held(const char *path, unsigned *kind)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return HELD_NOTHING; /* gone, or unreadable: the write will say */
	ssize_t n = read(fd, h, sizeof h);
	close(fd);
	if (n <= 0)
		return HELD_NOTHING;
	if (n >= 20 && (h[16] | h[17] << 8 | h[18] << 16 | (unsigned)h[19] << 24) == 0xBEEFC0DEu)
		return HELD_DATA;
	if (n >= 16 && !memcmp(h, "HOGMODEL", 8)) {
		*kind = h[12] | h[13] << 8 | h[14] << 16 | (unsigned)h[15] << 24;
		return HELD_MODEL;
	}
	return HELD_OTHER;
}

int cli_file_kind(const char *path)
{
	unsigned kind = 0;
	const int h = files_held(path, &kind);
	return h == HELD_DATA ? 1 : h == HELD_MODEL ? 2 : 0;
}

int cli_check_replace(const char *cmd, const char *opt, const char *path, int kind)
{
	struct stat st;
	unsigned held_kind = 0;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0; /* (cli_check_output judges what is not a regular file) */
	const int held = files_held(path, &held_kind);
	const char *o = opt ? opt : "", *sep = opt ? " " : "";
	if (held == HELD_DATA)
		fprintf(stderr, "hogwild %s: %s%s%s is a data set (LMDB); not replacing it: give another file "
		        "name\n", cmd, o, sep, path);
	else if (held == HELD_MODEL && kind == 0)
		fprintf(stderr, "hogwild %s: %s%s%s is a hogwild model file; not replacing it: give another "
		        "file name\n", cmd, o, sep, path);
	else if (held == HELD_MODEL && (int)held_kind != kind)
		fprintf(stderr, "hogwild %s: %s%s%s holds a model of kind %s and this run makes one of kind %s; "
		        "not replacing it: give another file name, or remove it first\n", cmd, o, sep, path,
		        hog_model_kind_name((enum hog_model_kind)held_kind), hog_model_kind_name((enum hog_model_kind)kind));
	else if (held == HELD_OTHER && kind > 0)
		fprintf(stderr, "hogwild %s: %s%s%s exists and is not a hogwild model; not replacing it: give "
		        "another file name, or remove it first\n", cmd, o, sep, path);
	else
		return 0;
	return 1;
}

int cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!strcmp(a, b))
		return 1;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_check_checkpoint(const char *cmd, const char *path, const char *resume)
{
	/* another run checkpointing to the same file, started before either wrote one (its space held as
	 * PATH.tmp.PID): the two would overwrite each other's, the last one's winning */
	const long other = hog_mpi_launched() ? 0 : hog_tmp_live_writer(path); /* (MPI: rank 0 writes for all) */
	if (other) {
		fprintf(stderr, "hogwild %s: --checkpoint %s: another process (%ld) is writing it (%s.tmp.%ld); two "
		        "runs on one checkpoint file would overwrite each other's: give this one another name\n", cmd, path,
		        other, path, other);
		return 1;
	}
	if ((resume && cli_same_file(resume, path)) || cli_file_kind(path) != 2)
		return 0;
	hog_model *m = NULL;
	hog_ckpt ck = { 0 };
	hog_err err = { 0 };
	if (hog_model_load_ckpt(&m, &ck, path, &err))
		return 0; /* (a damaged file: replaced, as before) */
	hog_model_info info;
	hog_model_info_get(m, &info);
	if (ck.data_hash || ck.in_epoch)
		fprintf(stderr, "hogwild %s: --checkpoint %s holds a run's checkpoint (%s epoch %d); not replacing it: "
		        "--resume %s continues that run, or remove the file to start over\n", cmd, path,
		        ck.in_epoch ? "inside" : "at the end of", info.epochs_done + ck.in_epoch, path);
	else /* (a finished model: the first checkpoint written would replace it for good) */
		fprintf(stderr, "hogwild %s: --checkpoint %s is a saved model (train --save, %d epochs), not a checkpoint; "
		        "not replacing it: give --checkpoint another file name, or remove it first\n", cmd, path,
		        info.epochs_done);
	free(ck.positions);
	hog_model_free(m);
	return 1;
}

/* 1 when line @p s is one that predict writes: numbers separated by single
 * spaces (margins, probabilities, labels, "user item rating"), or a class's
 * name among @p names (NULL: none). */
static int files_pred_line(const char *s, const char *names)
{
	int ok = *s != 0;
	for (const char *t = s; ok && *t;) {
		char *e;
		if (isspace((unsigned char)*t))
			ok = 0; /* (strtod would skip it) */
		else if ((void)strtod(t, &e), e == t || (*e && (*e != ' ' || !e[1])))
			ok = 0;
		else
			t = *e ? e + 1 : e;
	}
	const size_t n = strlen(s);
	size_t len;
	for (uint32_t k = 0; !ok && names && k < hog_class_count(names); k++) {
		const char *name = hog_class_name(names, k, &len);
		ok = name && len == n && !memcmp(name, s, n);
	}
	return ok;
}

int cli_check_predictions(const char *cmd, const char *path, const char *pairs, const char *names)
{
	struct stat st;
	char buf[4097];
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0; /* (cli_check_output judges what is not a regular file) */
	if (pairs && cli_same_file(pairs, path)) {
		fprintf(stderr, "hogwild %s: --out %s is the --pairs file this run reads; not replacing it: give "
		        "another file name\n", cmd, path);
		return 1;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0; /* empty, or unreadable: the write will say */
	buf[n] = 0;
	const int whole = (off_t)n >= st.st_size, binary = memchr(buf, 0, (size_t)n) != NULL;
	uint64_t line = 0;
	const char *bad = NULL;
	for (char *p = buf, *nl; !binary && *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')) && !whole)
			break; /* (the line the buffer's end cuts is not judged) */
		if (nl)
			*nl = 0;
		line++;
		if (!files_pred_line(p, names))
			bad = p;
		if (bad || !nl)
			break;
	}
	if (!binary && !bad)
		return 0;
	char shown[64];
	snprintf(shown, sizeof shown, "%.40s%s", bad ? bad : "", bad && strlen(bad) > 40 ? "..." : "");
	for (char *q = shown; *q; q++) /* (a control byte would act on the terminal) */
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	if (binary)
		fprintf(stderr, "hogwild %s: --out %s exists and is not text, so no predictions; not replacing it: "
		        "give another file name, or remove it first\n", cmd, path);
	else
		fprintf(stderr, "hogwild %s: --out %s exists and does not look like predictions (line %llu: '%s'); "
		        "not replacing it: give another file name, or remove it first\n", cmd, path,
		        (unsigned long long)line, shown);
	return 1;
}

int cli_check_input(const char *cmd, const char *what, const char *path)
{
	hog_err err = { 0 };
	if (hog_check_regular_input(path, &err) == 0)
		return 0;
	fprintf(stderr, "hogwild %s: %s%s%s\n", cmd, what ? what : "", what ? " " : "", err.msg);
	return 1;
}

/* Removes the temporary files being written, says so, then dies of the signal
 * with the default action, so the parent sees 128+signal (130, 143) the usual
 * way. Only async-signal-safe calls: unlink (in hog_tmp_unlink_all), write,
 * signal, raise. */
static void files_on_signal(int sig)
{
	int n = hog_tmp_unlink_all();
	static const char removed[] = "hogwild: stopped by a signal; the files it was writing were removed, "
	                              "nothing was put in place\n";
	static const char none[] = "hogwild: stopped by a signal\n";
	ssize_t w = n > 0 ? write(STDERR_FILENO, removed, sizeof removed - 1) : write(STDERR_FILENO, none, sizeof none - 1);
	(void)w;
	signal(sig, SIG_DFL);
	raise(sig);
}

void cli_catch_cleanup_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = files_on_signal;
	sigfillset(&sa.sa_mask); /* no second signal inside the handler */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int cli_stdout_gone(void)
{
	struct stat st;
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	if (fstat(STDOUT_FILENO, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return 0;
	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

int cli_close_stdout(int rc)
{
	errno = 0;
	int bad = fflush(stdout) != 0 || ferror(stdout);
	int e = errno, gone = bad && cli_stdout_gone(); /* before fclose closes the descriptor */
	if (fclose(stdout) != 0 && !bad) {
		bad = 1;
		e = errno;
		gone = e == EPIPE;
	}
	if (!bad)
		return rc;
	if (e == EPIPE || gone)
		return rc; /* the reader closed the pipe: its choice, not an error */
	fprintf(stderr, "hogwild: standard output: %s\n", e ? strerror(e) : "write error");
	return rc ? rc : 1;
}

int cli_refuse_unlabelled(const char *cmd, const char *path, const hog_data *d)
{
	hog_data *h = NULL;
	hog_err err = { 0 };
	if (!d && hog_data_load_header(&h, path, &err))
		return 0; /* (a set that cannot be read is refused when it is loaded, with its message) */
	const int none = (d ? d : h)->meta.unlabelled;
	hog_data_free(h);
	if (none)
		fprintf(stderr, "hogwild %s: %s has no labels (imported with --no-label, or LIBSVM lines without "
		        "them): %s needs labelled examples; predict takes such a set\n", cmd, path, cmd);
	return none;
}
