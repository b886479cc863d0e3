/* Tests of the model dump (model/dump.c, issue 24): every kind and step rule
 * dumped and read back gives the same file byte for byte (checkpoints inside
 * an epoch, id maps, column names and split ids included), and every kind of
 * bad dump is refused with FILE:LINE and what is wrong, writing nothing. */
#include "model/mf.h"
#include "model/mlp.h"
#include "model/model.h"
#include "util.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Random parameters in the kind's records (padding stays zero), as training leaves them. */
static void fill(hog_model *m, unsigned seed)
{
	const hog_model_kind_ops *k = hog_model_kind_get(m->kind);
	srand(seed);
	for (uint64_t r = 0; r < k->records(m); r++) {
		hog_model_rec rec;
		k->record(m, r, &rec);
		for (uint64_t j = 0; j < rec.len; j++)
			m->params[rec.at + j] = (float)(rand() - RAND_MAX / 2) / (float)(rand() % 1000 + 1) * 1e-3f;
	}
	m->lr = 0.1;
	m->l2 = 1e-6;
	m->beta = 1;
	m->backoff = 0.9;
	m->t0 = 1234.5;
	m->seed = 42;
	m->t = 99999;
	m->epochs_done = 3;
	m->sched = HOG_SCHED_INVT;
	m->warmup = 7;
}

static long fsize(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

static int same_file(const char *a, const char *b)
{
	return tu_sh("cmp -s '%s' '%s'", a, b) == 0;
}

/* Saves @p m (with @p ck), dumps it, reads the dump back: the same bytes. */
static void round_trip(hog_model *m, const hog_ckpt *ck, const char *name)
{
	char a[512], d[600], b[600];
	snprintf(a, sizeof a, "%s", tu_path(name));
	snprintf(d, sizeof d, "%s.dump", a);
	snprintf(b, sizeof b, "%s.back", a);
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_model_save_ckpt(m, ck, a, &err), 0);
	int fd = open(d, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(hog_model_dump(a, fd, &err), 0);
	close(fd);
	int rc = hog_model_undump(d, b, &err);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "\n%s: %s\n", name, err.msg);
	CU_ASSERT(fsize(a) > 0 && fsize(a) == fsize(b));
	CU_ASSERT(same_file(a, b));
}

static void test_dump_linear(void)
{
	const enum hog_rule rules[3] = { HOG_RULE_SGD, HOG_RULE_ADAGRAD, HOG_RULE_ADAREVISION };
	for (int i = 0; i < 3; i++) {
		const uint64_t shape[4] = { 37, 0, 0, 0 };
		hog_model *m = hog_model_alloc(HOG_MODEL_LINEAR, HOG_LOSS_LOGISTIC, rules[i], shape, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		fill(m, 1 + i);
		m->task = HOG_TASK_BINARY;
		m->split = strdup("pair=abc from=x.svm part=a");
		m->columns = strdup("y,a \\ b,c\nd"); /* a backslash and a newline survive */
		char name[32];
		snprintf(name, sizeof name, "lin%d.model", i);
		round_trip(m, NULL, name);
		hog_model_free(m);
	}
}

static void test_dump_mf(void)
{
	for (int biases = 0; biases < 2; biases++)
		for (int ada = 0; ada < 2; ada++) {
			const uint64_t shape[4] = { 11, 7, 5, hog_mf_pad(5) };
			hog_model *m = hog_model_alloc(HOG_MODEL_MF, HOG_LOSS_SQUARED, ada ? HOG_RULE_ADAGRAD : HOG_RULE_SGD,
			                               shape, biases ? HOG_MF_BIASES : 0);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			fill(m, 10 + biases * 2 + ada);
			m->aux = 3.25;
			m->task = HOG_TASK_RATINGS;
			if (biases) { /* id maps: original ids far from the dense ones */
				m->user_ids = calloc(11, 8);
				m->item_ids = calloc(7, 8);
				m->nuser_ids = 11;
				m->nitem_ids = 7;
				for (int u = 0; u < 11; u++)
					m->user_ids[u] = 1000000007ull * (u + 1);
				for (int i = 0; i < 7; i++)
					m->item_ids[i] = 90 - i;
			}
			char name[32];
			snprintf(name, sizeof name, "mf%d%d.model", biases, ada);
			round_trip(m, NULL, name);
			hog_model_free(m);
		}
}

static void test_dump_mlp(void)
{
	const uint32_t hidden[2] = { 6, 3 };
	for (int v = 0; v < 3; v++) {
		uint64_t shape[4];
		hog_mlp_pack(shape, 9, v == 2 ? 1 : 4, hidden, v);
		uint32_t flags = v == 1 ? HOG_MLP_MOMENTUM : HOG_MLP_SPARSE;
		hog_model *m = hog_model_alloc(HOG_MODEL_MLP, v == 2 ? HOG_LOSS_LOGISTIC : HOG_LOSS_SOFTMAX,
		                               v == 0 ? HOG_RULE_ADAGRAD : HOG_RULE_SGD, shape, flags);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		fill(m, 20 + v);
		m->aux = v == 1 ? 0.9 : 0;
		char name[32];
		snprintf(name, sizeof name, "mlp%d.model", v);
		round_trip(m, NULL, name);
		hog_model_free(m);
	}
}

/* A checkpoint written inside an epoch: its positions and hashes come back. */
static void test_dump_checkpoint(void)
{
	const uint64_t shape[4] = { 20, 0, 0, 0 };
	hog_model *m = hog_model_alloc(HOG_MODEL_LINEAR, HOG_LOSS_SQUARED, HOG_RULE_SGD, shape, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	fill(m, 5);
	uint64_t pos[3] = { 17, 0, 123456789012ull };
	hog_ckpt ck = { .in_epoch = 1, .nworkers = 3, .positions = pos, .data_hash = 0xfeedfacecafebeefull,
		            .opts_hash = 77 };
	round_trip(m, &ck, "ck.bin");
	hog_model *back;
	hog_ckpt bk;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_model_load_ckpt(&back, &bk, tu_path("ck.bin.back"), &err), 0);
	CU_ASSERT(bk.in_epoch == 1 && bk.nworkers == 3 && bk.positions[2] == pos[2] && bk.data_hash == ck.data_hash &&
	          bk.opts_hash == 77);
	free(bk.positions);
	hog_model_free(back);
	hog_model_free(m);
}

/* A small linear dump with one line replaced (@p line from 1, NULL: removed;
 * @p add: appended at the end), read back: the error's message. */
static const char base_dump[] =
	"hogwild-model-dump 1\nkind linear\nloss logistic\nrule sgd\nschedule constant\nshape 2 0 0 0\nflags 0\n"
	"aux 0\nepochs 1\nexamples 10\nlr 0.5\nl2 0\nbeta 1\nbackoff 0.9\nt0 1\nseed 1\nwarmup 0\ntask binary\n"
	"ids no\nrecords 3\n1 0.5\n2 -0.25\nbias 0.125\n";

static int bad(int line, const char *with, const char *add, const char *want_at, const char *want)
{
	char text[4096] = "", *at = text;
	const char *p = base_dump;
	for (int n = 1; *p; n++) {
		size_t l = strcspn(p, "\n") + 1;
		if (n != line)
			at += sprintf(at, "%.*s", (int)l, p);
		else if (with)
			at += sprintf(at, "%s\n", with);
		p += l;
	}
	if (add)
		sprintf(at, "%s", add);
	const char *d = tu_write("bad.dump", text, (size_t)-1);
	const char *out = tu_path("bad.model");
	unlink(out);
	hog_err err = { 0 };
	int rc = hog_model_undump(d, out, &err);
	char where[600];
	snprintf(where, sizeof where, "%s:%s", d, want_at);
	int ok = rc == HOG_EDATA && strstr(err.msg, where) && strstr(err.msg, want) && fsize(out) < 0;
	if (!ok)
		fprintf(stderr, "\nline %d '%s': rc %d, message '%s'\n", line, with ? with : "", rc, err.msg);
	return ok;
}

static void test_dump_bad(void)
{
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_model_undump(tu_write("good.dump", base_dump, (size_t)-1), tu_path("good.model"), &err), 0);
	CU_ASSERT(bad(1, "hogwild-model-dump 9", NULL, "1:", "version 9 is newer"));
	CU_ASSERT(bad(1, "hello", NULL, "1:", "not a hogwild model dump"));
	CU_ASSERT(bad(2, "kind tree", NULL, "2:", "kind: 'tree' is not one of linear, mf, mlp"));
	CU_ASSERT(bad(3, "loss nope", NULL, "3:", "loss: 'nope'"));
	CU_ASSERT(bad(6, "shape 2 0 0", NULL, "6:", "shape needs 4 values"));
	CU_ASSERT(bad(11, "lr -1", NULL, "11:", "lr: -1 is out of range"));
	CU_ASSERT(bad(11, "lr x", NULL, "11:", "lr: 'x' is not a finite number"));
	CU_ASSERT(bad(11, "lr 1 2", NULL, "11:", "lr: '2' after its value"));
	CU_ASSERT(bad(12, "l2 0\nl2 0", NULL, "13:", "'l2' is given twice"));
	CU_ASSERT(bad(12, "frob 1", NULL, "12:", "unknown header key 'frob'"));
	CU_ASSERT(bad(12, NULL, NULL, "19:", "the header lacks 'l2'"));
	CU_ASSERT(bad(19, "ids yes", NULL, "20:", "ids yes: a linear model of these shapes keeps no id maps"));
	CU_ASSERT(bad(20, "records 4", NULL, "20:", "records 4: the shapes call for 3"));
	CU_ASSERT(bad(6, "shape 2 1 0 0", NULL, "20:", "do not make a linear model"));
	CU_ASSERT(bad(6, "shape 400000000 0 0 0", NULL, "20:", "the dump is too short for the shapes its header gives"));
	CU_ASSERT(bad(21, "3 0.5", NULL, "21:", "id 3, expected 1"));
	CU_ASSERT(bad(22, "2 nan", NULL, "22:", "'nan' is not a finite number"));
	CU_ASSERT(bad(22, "2 0.5 0.5", NULL, "22:", "too many values, the record has 1"));
	CU_ASSERT(bad(22, "2", NULL, "22:", "too few values"));
	CU_ASSERT(bad(23, "bais 0.1", NULL, "23:", "expected a 'bias' record here, found 'bais'"));
	CU_ASSERT(bad(23, NULL, NULL, "22:", "the dump ends after 2 of its 3 records"));
	CU_ASSERT(bad(0, NULL, "1 0.5\n", "24:", "more lines after the last of the 3 records"));
	CU_ASSERT(bad(20, NULL, NULL, "20:", "unknown header key '1'"));
	char head[1024];
	snprintf(head, sizeof head, "%.*s", (int)(strstr(base_dump, "records") - base_dump), base_dump);
	const char *h = tu_write("head.dump", head, (size_t)-1);
	CU_ASSERT_EQUAL(hog_model_undump(h, tu_path("h.model"), &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "head.dump:19: the dump ends in its header (no 'records' line)"));
	const char *e = tu_write("empty.dump", "", 0);
	CU_ASSERT_EQUAL(hog_model_undump(e, tu_path("e.model"), &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "empty"));
}

/* An mf dump whose maps name one user twice: the second line is named. */
static void test_dump_bad_ids(void)
{
	const uint64_t shape[4] = { 3, 2, 1, hog_mf_pad(1) };
	hog_model *m = hog_model_alloc(HOG_MODEL_MF, HOG_LOSS_SQUARED, HOG_RULE_SGD, shape, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	m->user_ids = calloc(3, 8);
	m->item_ids = calloc(2, 8);
	m->nuser_ids = 3;
	m->nitem_ids = 2;
	m->user_ids[0] = 5;
	m->user_ids[1] = 6;
	m->user_ids[2] = 5;
	m->item_ids[1] = 1;
	hog_err err = { 0 };
	const char *a = tu_path("dup.model");
	CU_ASSERT_EQUAL_FATAL(hog_model_save(m, a, &err), 0);
	char d[600];
	snprintf(d, sizeof d, "%s.dump", a);
	int fd = open(d, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_EQUAL(hog_model_dump(a, fd, &err), 0);
	close(fd);
	/* records start after the header's 21 lines (20 keys, the layout note) */
	CU_ASSERT_EQUAL(hog_model_undump(d, tu_path("dup.back"), &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ".dump:24: id 5 is given twice (first on line 22)"));
	if (!strstr(err.msg, "(first on line 22)"))
		fprintf(stderr, "\n%s\n", err.msg);
	hog_model_free(m);
}

int test_dump_register(void)
{
	CU_pSuite s = CU_add_suite("dump", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_dump_linear);
	TU_ADD(s, test_dump_mf);
	TU_ADD(s, test_dump_mlp);
	TU_ADD(s, test_dump_checkpoint);
	TU_ADD(s, test_dump_bad);
	TU_ADD(s, test_dump_bad_ids);
	return 0;
}
