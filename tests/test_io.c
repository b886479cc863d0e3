/* Tests of "never lose a byte" in the library (issue 9): the registry of live
 * temporary files and its async-signal-safe removal, the clean-up of stale
 * temporaries of dead processes, FIFO and device inputs (streamed or refused,
 * never waited on forever), writer blocks sized by bytes (a 2^24-pixel image),
 * a full disk named as ENOSPC, and the CSV/ratings importers' header handling
 * (byte-order mark, notes through the hook, --skip, one odd field is an error). */
#include "data/store.h"
#include "model/model.h"
#include "sys/file.h"
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ temporaries */

static void test_tmp_registry(void)
{
	char a[512], b[512];
	snprintf(a, sizeof a, "%s", tu_write("reg-a.tmp.1", "x", 1));
	snprintf(b, sizeof b, "%s", tu_write("reg-b.tmp.1", "y", 1));
	int sa = hog_tmp_track(a), sb = hog_tmp_track(b);
	CU_ASSERT(sa >= 0);
	CU_ASSERT(sb >= 0);
	CU_ASSERT_NOT_EQUAL(sa, sb);
	CU_ASSERT_EQUAL(hog_tmp_track(a), sa); /* one path, one slot (a reservation and its save) */
	hog_tmp_untrack(sb); /* b was renamed into place: it must survive */
	CU_ASSERT_EQUAL(hog_tmp_unlink_all(), 1);
	CU_ASSERT_FALSE(exists(a));
	CU_ASSERT_TRUE(exists(b));
	hog_tmp_untrack(sa);
	CU_ASSERT_EQUAL(hog_tmp_unlink_all(), 0);
	/* all slots taken: tracking says so (-1) instead of failing the write */
	int slots[64], n = 0;
	for (; n < 64; n++) {
		char name[64];
		snprintf(name, sizeof name, "never-made-%d", n);
		if ((slots[n] = hog_tmp_track(tu_path(name))) < 0)
			break;
	}
	CU_ASSERT(n > 1 && n < 64);
	for (int i = 0; i < n; i++)
		hog_tmp_untrack(slots[i]);
	hog_tmp_untrack(-1); /* harmless */
}

/* A writer's temporary file is in the registry while it is written, so that
 * the command line's signal handler (which calls hog_tmp_unlink_all() and dies
 * of the signal; tests/cli.sh sends the signals) removes it; after the commit
 * it is not. Done in-process: a signal in a forked child of a threaded test
 * runner hangs under ThreadSanitizer. */
static void test_tmp_writer_registered(void)
{
	const char *out = tu_path("sig.lmdb");
	char tmpname[600];
	snprintf(tmpname, sizeof tmpname, "%s.tmp.%ld", out, (long)getpid());
	hog_writer *w;
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE };
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, out, &o, &err), 0);
	uint32_t id = 1;
	CU_ASSERT_EQUAL(hog_writer_add_sparse(w, 1, &id, NULL, 1, &err), 0);
	CU_ASSERT_TRUE(exists(tmpname)); /* the write is under way */
	CU_ASSERT_EQUAL(hog_tmp_unlink_all(), 1); /* what the handler does */
	CU_ASSERT_FALSE(exists(tmpname));
	hog_writer_abort(w);
	CU_ASSERT_FALSE(exists(out));
	/* committed: renamed into place and out of the registry */
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, out, &o, &err), 0);
	CU_ASSERT_EQUAL(hog_writer_add_sparse(w, 1, &id, NULL, 1, &err), 0);
	CU_ASSERT_EQUAL(hog_writer_commit(w, &err), 0);
	CU_ASSERT_EQUAL(hog_tmp_unlink_all(), 0);
	CU_ASSERT_TRUE(exists(out));
	unlink(out);
}

static int stale_calls;
static long stale_pid;
static void on_stale(void *ud, const char *file, long pid)
{
	(void)ud;
	CU_ASSERT_PTR_NOT_NULL(strstr(file, "stale.lmdb.tmp."));
	stale_calls++;
	stale_pid = pid;
}

static void test_tmp_remove_stale(void)
{
	/* a shell that wrote its pid and exited, reaped by system(): kill(dead, 0)
	 * is ESRCH until the pid is reused (no fork here: the runner is threaded) */
	char pidfile[600];
	snprintf(pidfile, sizeof pidfile, "%s", tu_path("dead.pid"));
	CU_ASSERT_EQUAL_FATAL(tu_sh("sh -c 'echo $$' > '%s'", pidfile), 0);
	FILE *pf = fopen(pidfile, "r");
	long dead = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
	CU_ASSERT_EQUAL(fscanf(pf, "%ld", &dead), 1);
	fclose(pf);
	CU_ASSERT_FATAL(dead > 0);
	char name[128], live[128], other[128], self[128];
	snprintf(name, sizeof name, "stale.lmdb.tmp.%ld", dead);
	snprintf(live, sizeof live, "stale.lmdb.tmp.%ld", (long)getppid());
	snprintf(other, sizeof other, "stale.lmdbX.tmp.%ld", dead);
	snprintf(self, sizeof self, "stale.lmdb.tmp.%ld", (long)getpid());
	char pdead[600], plive[600], pother[600], pself[600], pjunk[600];
	snprintf(pdead, sizeof pdead, "%s", tu_write(name, "", 0));
	snprintf(plive, sizeof plive, "%s", tu_write(live, "", 0));
	snprintf(pother, sizeof pother, "%s", tu_write(other, "", 0));
	snprintf(pself, sizeof pself, "%s", tu_write(self, "", 0));
	snprintf(pjunk, sizeof pjunk, "%s", tu_write("stale.lmdb.tmp.12x", "", 0));
	stale_calls = 0;
	CU_ASSERT_EQUAL(hog_tmp_remove_stale(tu_path("stale.lmdb"), on_stale, NULL), 1);
	CU_ASSERT_EQUAL(stale_calls, 1);
	CU_ASSERT_EQUAL(stale_pid, dead);
	CU_ASSERT_FALSE(exists(pdead));
	CU_ASSERT_TRUE(exists(plive));  /* a running process may be writing it */
	CU_ASSERT_TRUE(exists(pother)); /* another output's */
	CU_ASSERT_TRUE(exists(pself));  /* our own */
	CU_ASSERT_TRUE(exists(pjunk));  /* not a pid */
	CU_ASSERT_EQUAL(hog_tmp_remove_stale(tu_path("no-dir/x.lmdb"), on_stale, NULL), 0);
	unlink(plive);
	unlink(pother);
	unlink(pself);
	unlink(pjunk);
}

/* ------------------------------------------------------------ FIFOs and devices */

static void *fifo_writer(void *path)
{
	int w = open(path, O_WRONLY); /* blocks until the importer opens its end */
	const char *text = "1 1:1\n-1 2:0.5\n1 3:2\n";
	int ok = w >= 0 && write(w, text, strlen(text)) == (ssize_t)strlen(text);
	if (w >= 0)
		close(w);
	return ok ? NULL : (void *)1;
}

static void test_fifo_inputs(void)
{
	const char *fifo = tu_path("in.fifo");
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0644), 0);
	hog_err err = { 0 };
	/* read whole (models, data sets, checkpoints): refused at once */
	CU_ASSERT_EQUAL(hog_check_regular_input(fifo, &err), HOG_EFORMAT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "FIFO"));
	CU_ASSERT_EQUAL(hog_check_regular_input("/dev/null", &err), HOG_EFORMAT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "character device"));
	/* streamed (text importers): a FIFO passes, a device does not */
	CU_ASSERT_EQUAL(hog_check_stream_input(fifo, &err), 0);
	CU_ASSERT_EQUAL(hog_check_stream_input("/dev/zero", &err), HOG_EFORMAT);
	/* no writer: an error after the wait, not a hang */
	double t0 = now();
	int fd = hog_open_stream(fifo, 200, &err);
	double dt = now() - t0;
	CU_ASSERT_EQUAL(fd, -ETIMEDOUT);
	CU_ASSERT(dt >= 0.15 && dt < 5);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no writer"));
	/* with a writer: the import streams it */
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, fifo_writer, (void *)fifo), 0);
	const char *out = tu_path("fifo.lmdb");
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM };
	CU_ASSERT_EQUAL(hog_import(&fifo, 1, out, &o, &err), 0);
	void *wrc;
	pthread_join(th, &wrc);
	CU_ASSERT_PTR_NULL(wrc);
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, out, &err), 0);
	CU_ASSERT_EQUAL(d->n, 3);
	CU_ASSERT_EQUAL(d->nnz, 3);
	CU_ASSERT_EQUAL(d->ids[2], 2);
	hog_data_free(d);
}

/* ------------------------------------------------------------ writer blocks by bytes */

static void test_writer_huge_rows(void)
{
	/* 2^24 columns of bytes: 16 MiB a row. 4096 rows a block would be 64 GiB;
	 * blocks are capped by bytes instead, so this opens and round-trips. */
	const char *out = tu_path("huge.lmdb");
	uint32_t m = 1u << 24;
	hog_writer_opts o = { .kind = HOG_KIND_DENSE, .features = m, .dense_u8 = 1, .dense_scale = 1.0f / 255,
	                      .task = HOG_TASK_MULTICLASS };
	hog_writer *w;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, out, &o, &err), 0);
	uint8_t *row = malloc(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(row);
	for (int r = 0; r < 5; r++) {
		for (uint32_t j = 0; j < m; j += 4099)
			row[j] = (uint8_t)(j * 7 + r);
		CU_ASSERT_EQUAL(hog_writer_add_dense(w, (float)(r % 3), NULL, row, &err), 0);
	}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	hog_store *s;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, out, &err), 0);
	const hog_meta *meta = hog_store_meta(s);
	CU_ASSERT_EQUAL(meta->examples, 5);
	CU_ASSERT_EQUAL(meta->blocks, 2); /* 64 MiB a block: 3 rows, then 2 */
	hog_block b;
	CU_ASSERT_EQUAL(hog_store_block(s, 1, &b, &err), 0);
	CU_ASSERT_EQUAL(b.first, 3);
	CU_ASSERT_EQUAL(b.n, 2);
	CU_ASSERT_EQUAL(b.xu8[(size_t)1 * m + 4099 * 5], (uint8_t)(4099 * 5 * 7 + 4));
	CU_ASSERT_EQUAL(b.labels[1], 1.0f);
	hog_store_close(s);
	free(row);
	unlink(out);
}

/* ------------------------------------------------------------ full disk */

static void test_full_disk_is_enospc(void)
{
	char dir[600];
	snprintf(dir, sizeof dir, "%s", tu_path("small-fs"));
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
	if (geteuid() != 0 || mount("tmpfs", dir, "tmpfs", 0, "size=1m") != 0) {
		fprintf(stderr, "\n  (full-disk test skipped: cannot mount a tmpfs here)\n");
		return;
	}
	char out[700];
	snprintf(out, sizeof out, "%s/full.lmdb", dir);
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .examples = 40000, .nnz_per_example = 20 };
	hog_err err = { 0 };
	int rc = hog_gen(out, &g, &err);
	CU_ASSERT_EQUAL(rc, ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "No space left on device"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "full.lmdb:")); /* the name given, not the temporary one */
	CU_ASSERT_PTR_NULL(strstr(err.msg, ".tmp."));
	CU_ASSERT_FALSE(exists(out));
	char cmd[800];
	snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
	CU_ASSERT_EQUAL(tu_sh("%s", cmd), 0); /* nothing left behind */
	umount(dir);
}

/* ------------------------------------------------------------ reserved saves */

static int reserved_epochs;
static void count_epoch(void *ud, const hog_epoch_stats *s)
{
	(void)ud;
	(void)s;
	reserved_epochs++;
}

/* A model of @p features features trained for 2 epochs with o.save = @p save:
 * hog_train's code, the model in *m. */
static int train_saving(uint64_t features, const char *name, const char *save, hog_model **m, hog_err *err)
{
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .examples = 2000, .features = features, .nnz_per_example = 10 };
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_gen(tu_path(name), &g, err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path(name), err), 0);
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.epochs = 2;
	o.threads = 2;
	o.save = save;
	o.on_epoch = count_epoch;
	reserved_epochs = 0;
	int rc = hog_train(d, NULL, &o, m, NULL, err);
	hog_data_free(d);
	return rc;
}

/* Saves that cannot fail late (issue 19): the space of --save is reserved
 * before the first epoch, so a full disk fails the run at its start, and a disk
 * that fills up while training cannot fail the save. */
static void test_save_reserved(void)
{
	char dir[600], path[700], other[700], tmp[800], fill[700];
	snprintf(dir, sizeof dir, "%s", tu_path("reserve-fs"));
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
	if (geteuid() != 0 || mount("tmpfs", dir, "tmpfs", 0, "size=1m") != 0) {
		fprintf(stderr, "\n  reserved saves: skipped (cannot mount a tmpfs here: not root)\n");
		return;
	}
	/* hog_reserve: the blocks are held, and a second reservation past the
	 * file system's size fails with nothing left behind */
	snprintf(path, sizeof path, "%s/a.model", dir);
	snprintf(other, sizeof other, "%s/b.model", dir);
	CU_ASSERT_EQUAL(hog_reserve(path, 600000), 0);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	struct stat st;
	CU_ASSERT_FATAL(stat(tmp, &st) == 0);
	CU_ASSERT(st.st_blocks * 512 >= 600000);
	CU_ASSERT_EQUAL(hog_reserve(other, 600000), ENOSPC);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", other, (long)getpid());
	CU_ASSERT_FALSE(exists(tmp));
	hog_reserve_drop(path);
	CU_ASSERT_EQUAL(tu_sh("test -z \"$(ls -A '%s')\"", dir), 0);

	/* a model larger than the free space: refused before the first epoch */
	hog_err err = { 0 };
	hog_model *m = NULL;
	snprintf(path, sizeof path, "%s/wide.model", dir);
	int rc = train_saving(400000, "reserve-wide.lmdb", path, &m, &err);
	CU_ASSERT_EQUAL(rc, ENOSPC);
	CU_ASSERT_EQUAL(reserved_epochs, 0);
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "wide.model: cannot reserve"));
	CU_ASSERT_EQUAL(tu_sh("test -z \"$(ls -A '%s')\"", dir), 0);

	/* one that fits, then a disk filled up behind the run: the save still
	 * goes through, into the space held for it, and the file is whole */
	snprintf(path, sizeof path, "%s/fit.model", dir);
	rc = train_saving(20000, "reserve-fit.lmdb", path, &m, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(reserved_epochs, 2);
	snprintf(fill, sizeof fill, "%s/fill", dir);
	CU_ASSERT_NOT_EQUAL(tu_sh("head -c 2000000 /dev/zero > '%s' 2>/dev/null", fill), 0); /* the disk is full */
	CU_ASSERT_EQUAL(hog_model_save(m, path, &err), 0);
	CU_ASSERT_FATAL(stat(path, &st) == 0);
	CU_ASSERT_EQUAL((uint64_t)st.st_size, hog_model_file_bytes(m, 0));
	hog_model *back = NULL;
	CU_ASSERT_EQUAL(hog_model_load(&back, path, &err), 0);
	hog_model_free(back);
	/* without a reservation the same save now fails, and says so */
	snprintf(other, sizeof other, "%s/unreserved.model", dir);
	CU_ASSERT_EQUAL(hog_model_save(m, other, &err), ENOSPC);
	CU_ASSERT_FALSE(exists(other));
	/* and a reservation not used is given back */
	hog_model_free(m);
	m = NULL;
	unlink(fill);
	snprintf(path, sizeof path, "%s/unused.model", dir);
	CU_ASSERT_EQUAL_FATAL(train_saving(20000, "reserve-fit2.lmdb", path, &m, &err), 0);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	CU_ASSERT_TRUE(exists(tmp));
	hog_model_unreserve(path);
	CU_ASSERT_FALSE(exists(tmp));
	hog_model_free(m);
	umount(dir);
}

/* ------------------------------------------------------------ headers */

static char notes[2048];
static void on_note(void *ud, const char *msg)
{
	(void)ud;
	size_t n = strlen(notes);
	snprintf(notes + n, sizeof notes - n, "%s\n", msg);
}

static int import_text(enum hog_format f, const char *name, const char *text, int header, uint64_t skip,
                       hog_data **d, hog_err *err)
{
	const char *in = tu_write(name, text, (size_t)-1);
	char out[600];
	snprintf(out, sizeof out, "%s.lmdb", in);
	hog_import_opts o = { .format = f, .header = header, .skip_lines = skip, .note = on_note };
	notes[0] = 0;
	memset(err, 0, sizeof *err);
	int rc = hog_import(&in, 1, out, &o, err);
	*d = NULL;
	if (rc == 0 && hog_data_load(d, out, err) != 0)
		return -1;
	return rc;
}

static void test_csv_headers(void)
{
	hog_data *d;
	hog_err err;
	/* a BOM before a data line: three examples, no header (no note of one; the
	 * label's column, a guess, is said) */
	CU_ASSERT_EQUAL_FATAL(import_text(HOG_FORMAT_CSV, "bom.csv", "\xef\xbb\xbf" "1,2,3\n0,1,0\n1,0,5\n", -1, 0, &d,
	                                  &err), 0);
	CU_ASSERT_EQUAL(d->n, 3);
	CU_ASSERT_EQUAL(d->labels[0], 1.0f);
	CU_ASSERT_EQUAL(d->vals[0], 2.0f);
	CU_ASSERT_PTR_NULL(strstr(notes, "header"" line"));
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "the label is column 0 (the first: the file has no header to name it"));
	hog_data_free(d);
	/* a header: skipped, and said so through the hook with FILE:LINE */
	CU_ASSERT_EQUAL_FATAL(import_text(HOG_FORMAT_CSV, "h.csv", "y,a,b\n1,2,3\n0,1,0\n", -1, 0, &d, &err), 0);
	CU_ASSERT_EQUAL(d->n, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "h.csv:1: a header line, skipped"));
	hog_data_free(d);
	/* one field that is not a number, empty or NA: an error where it is */
	CU_ASSERT_EQUAL(import_text(HOG_FORMAT_CSV, "na.csv", "1,NA,3\n0,1,0\n", -1, 0, &d, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "na.csv:1:3:"));
	CU_ASSERT_EQUAL(import_text(HOG_FORMAT_CSV, "e.csv", "1,,3\n0,1,0\n", -1, 0, &d, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "e.csv:1:3: no value in column 1 (''): a column of numbers"));
	/* --header yes: whatever the first line holds, its field count is not imposed */
	CU_ASSERT_EQUAL_FATAL(import_text(HOG_FORMAT_CSV, "w.csv", "569,30,malignant,benign\n1,2.5,3\n0,1,0\n", 1, 0,
	                                  &d, &err), 0);
	CU_ASSERT_EQUAL(d->n, 2);
	CU_ASSERT_EQUAL(d->dim, 2);
	CU_ASSERT_EQUAL(d->vals[1], 3.0f);
	CU_ASSERT_PTR_NULL(strstr(notes, "header line")); /* asked for: nothing to say of it */
	/* but which column is the label (its name not the first line's, which does not fit the lines) */
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "the label is column 0 (no column is named label"));
	hog_data_free(d);
	/* a detected header's count still is: a safety against a shifted file */
	CU_ASSERT_EQUAL(import_text(HOG_FORMAT_CSV, "c.csv", "a,b,c\n1,2\n", -1, 0, &d, &err), HOG_EDATA);
	/* --skip N: N lines (blank ones included) before the header is looked for */
	CU_ASSERT_EQUAL_FATAL(import_text(HOG_FORMAT_CSV, "s.csv", "title\n\n1,x\ny,a\n1,2\n0,1\n", -1, 3, &d, &err), 0);
	CU_ASSERT_EQUAL(d->n, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "s.csv:4: a header line"));
	hog_data_free(d);
	CU_ASSERT_EQUAL(import_text(HOG_FORMAT_CSV, "s2.csv", "title\n1,2\n0,1\n", -1, 1, &d, &err), 0);
	CU_ASSERT_EQUAL(d->n, 2);
	hog_data_free(d);
}

static void test_ratings_headers(void)
{
	hog_data *d;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(import_text(HOG_FORMAT_RATINGS, "r.csv", "userId,movieId,rating,timestamp\n1,2,5,9\n", -1, 0,
	                                  &d, &err), 0);
	CU_ASSERT_EQUAL(d->n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "r.csv:1: a header line, skipped"));
	hog_data_free(d);
	CU_ASSERT_EQUAL(import_text(HOG_FORMAT_RATINGS, "rna.txt", "NA 2 5\n1 2 5\n", -1, 0, &d, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rna.txt:1:1:"));
	CU_ASSERT_EQUAL(import_text(HOG_FORMAT_RATINGS, "rna2.txt", "1 NA 5\n1 2 5\n", -1, 0, &d, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rna2.txt:1:3:"));
	CU_ASSERT_EQUAL_FATAL(import_text(HOG_FORMAT_RATINGS, "rb.txt", "\xef\xbb\xbf" "1 2 5\n3 2 4\n", -1, 0, &d, &err),
	                      0);
	CU_ASSERT_EQUAL(d->n, 2);
	CU_ASSERT_EQUAL(notes[0], 0);
	hog_data_free(d);
	CU_ASSERT_EQUAL_FATAL(import_text(HOG_FORMAT_RATINGS, "rs.txt", "# MovieLens\n1 2 5\n", -1, 1, &d, &err), 0);
	CU_ASSERT_EQUAL(d->n, 1);
	hog_data_free(d);
}

int test_io_register(void)
{
	CU_pSuite s = CU_add_suite("io", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_tmp_registry);
	TU_ADD(s, test_tmp_writer_registered);
	TU_ADD(s, test_tmp_remove_stale);
	TU_ADD(s, test_fifo_inputs);
	TU_ADD(s, test_writer_huge_rows);
	TU_ADD(s, test_full_disk_is_enospc);
	TU_ADD(s, test_save_reserved);
	TU_ADD(s, test_csv_headers);
	TU_ADD(s, test_ratings_headers);
	return 0;
}
