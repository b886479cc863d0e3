/* The options hash a checkpoint carries (model file offset 168), compared on
 * resume and across MPI ranks (train/checkpoint.c): the engine hashes the
 * shared options and each trainer its own group (hog_trainer_ops.opts_hash),
 * so one model's option changes its hash and another model's does not. The
 * formula of the checkpoints written before that (eng_opts_hash_v1) is pinned:
 * the constants are what the code of commit 7103803 computed for these option
 * sets; such a checkpoint still resumes without --force, and one of other
 * options is still refused. And the defaults of each model's group of options,
 * which its trainer fills. */
#include "hogwild.h"
#include "model/model.h"
#include "train/engine.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The option sets, every field spelled out from zeros (not the library's
 * defaults, which may change without changing what was written). */
enum { SET_ZERO, SET_DEFAULTS, SET_LINEAR, SET_MF, SET_MLP, NSETS };

static hog_train_opts opts_set(int k)
{
	hog_train_opts o;
	memset(&o, 0, sizeof o);
	o.model = HOG_MODEL_LINEAR;
	o.mode = HOG_MODE_LOCKFREE;
	if (k == SET_ZERO)
		return o;
	o.linear.hot = -1; /* the library's defaults at 7103803 */
	o.linear.stripes = 64;
	o.mf.rank = 32;
	o.mlp.batch = 32;
	switch (k) {
	case SET_LINEAR:
		o.mode = HOG_MODE_BUFFERED;
		o.linear.hot = 100;
		o.flush_every = 512;
		o.delay = 3;
		o.linear.average = 1;
		o.normalize = HOG_NORMALIZE_ON;
		break;
	case SET_MF:
		o.model = HOG_MODEL_MF;
		o.mode = HOG_MODE_GRID;
		o.mf.rank = 16;
		o.mf.biases = 1;
		o.mf.grid = 5;
		o.shuffle_chunk = 8;
		break;
	case SET_MLP:
		o.model = HOG_MODEL_MLP;
		o.mlp.nlayers = 2;
		o.mlp.layers[0] = 64;
		o.mlp.layers[1] = 32;
		o.mlp.batch = 16;
		o.mlp.momentum = 0.9;
		o.no_shuffle = 1;
		o.sync_every = 1000;
		break;
	}
	return o;
}

/* The formula of the checkpoints written before each trainer hashed its own
 * options: pinned. */
static void test_opts_hash_legacy_pinned(void)
{
	static const struct {
		int set, ranks;
		uint64_t want;
	} pins[] = {
		{ SET_ZERO, 1, 0xa60cfd5e451de485ull },
		{ SET_DEFAULTS, 1, 0x334f4de624f5a3bdull },
		{ SET_LINEAR, 1, 0xd4cb9dde3da70defull },
		{ SET_MF, 1, 0x007a4335ce53b1d5ull },
		{ SET_MLP, 3, 0x8d2b135dff0a56d1ull },
		{ SET_MLP, 1, 0xf3575b5ab420d1abull },
	};
	for (size_t i = 0; i < sizeof pins / sizeof *pins; i++) {
		hog_train_opts o = opts_set(pins[i].set);
		CU_ASSERT_EQUAL(eng_opts_hash_v1(&o, pins[i].ranks), pins[i].want);
	}
}

/* One field of a group changed: a model's hash changes with its own group,
 * never with another model's. */
typedef struct {
	const hog_trainer_ops *ops;
	void (*bump)(hog_train_opts *o);
} bump_case;

static void bump_hot(hog_train_opts *o) { o->linear.hot = 7; }
static void bump_stripes(hog_train_opts *o) { o->linear.stripes = 128; }
static void bump_average(hog_train_opts *o) { o->linear.average = 1; }
static void bump_rank(hog_train_opts *o) { o->mf.rank = 8; }
static void bump_biases(hog_train_opts *o) { o->mf.biases = 1; }
static void bump_grid(hog_train_opts *o) { o->mf.grid = 9; }
static void bump_layers(hog_train_opts *o) { o->mlp.nlayers = 1; o->mlp.layers[0] = 16; }
static void bump_width(hog_train_opts *o) { o->mlp.layers[0] = 17; }
static void bump_batch(hog_train_opts *o) { o->mlp.batch = 8; }
static void bump_momentum(hog_train_opts *o) { o->mlp.momentum = 0.5; }

static void test_opts_hash_own_group(void)
{
	const bump_case bumps[] = {
		{ &hog_linear_trainer, bump_hot }, { &hog_linear_trainer, bump_stripes },
		{ &hog_linear_trainer, bump_average }, { &hog_mf_trainer, bump_rank },
		{ &hog_mf_trainer, bump_biases }, { &hog_mf_trainer, bump_grid },
		{ &hog_mlp_trainer, bump_layers }, { &hog_mlp_trainer, bump_batch },
		{ &hog_mlp_trainer, bump_momentum },
	};
	const hog_trainer_ops *const trainers[] = { &hog_linear_trainer, &hog_mf_trainer, &hog_mlp_trainer };
	for (size_t t = 0; t < 3; t++) {
		const hog_trainer_ops *ops = trainers[t];
		CU_ASSERT_PTR_NOT_NULL_FATAL(ops->opts_hash);
		hog_train_opts base;
		hog_train_opts_init(&base);
		base.model = ops->kind;
		for (int ranks = 1; ranks <= 2; ranks++) {
			const uint64_t h0 = eng_opts_hash(ops, &base, ranks);
			CU_ASSERT_EQUAL(eng_opts_hash(ops, &base, ranks), h0); /* (a pure function) */
			for (size_t b = 0; b < sizeof bumps / sizeof *bumps; b++) {
				hog_train_opts o = base;
				bumps[b].bump(&o);
				const uint64_t h = eng_opts_hash(ops, &o, ranks);
				if (bumps[b].ops == ops) {
					CU_ASSERT_NOT_EQUAL(h, h0);
				} else {
					CU_ASSERT_EQUAL(h, h0);
				}
			}
		}
		/* a width of a hidden layer the run has counts; one beyond them does not */
		hog_train_opts o = base;
		bump_layers(&o);
		const uint64_t h1 = eng_opts_hash(ops, &o, 1);
		bump_width(&o);
		CU_ASSERT(ops == &hog_mlp_trainer ? eng_opts_hash(ops, &o, 1) != h1 : eng_opts_hash(ops, &o, 1) == h1);
		o = base;
		o.mlp.layers[3] = 99;
		CU_ASSERT_EQUAL(eng_opts_hash(ops, &o, 1), eng_opts_hash(ops, &base, 1));
	}
}

/* The shared options change every model's hash; the MPI interval only on
 * several ranks, a chunk of 1 is none, and what the model header keeps (lr,
 * seed ...) or the run may change (threads, device) does not enter. */
static void test_opts_hash_shared(void)
{
	const hog_trainer_ops *const trainers[] = { &hog_linear_trainer, &hog_mf_trainer, &hog_mlp_trainer };
	for (size_t t = 0; t < 3; t++) {
		const hog_trainer_ops *ops = trainers[t];
		hog_train_opts base;
		hog_train_opts_init(&base);
		base.model = ops->kind;
		const uint64_t h0 = eng_opts_hash(ops, &base, 1);
		hog_train_opts o;
#define DIFFERS(field, value) do { o = base; o.field = value; CU_ASSERT_NOT_EQUAL(eng_opts_hash(ops, &o, 1), h0); } while (0)
#define SAME(field, value) do { o = base; o.field = value; CU_ASSERT_EQUAL(eng_opts_hash(ops, &o, 1), h0); } while (0)
		DIFFERS(mode, HOG_MODE_ATOMIC);
		DIFFERS(delay, 2);
		DIFFERS(flush_every, 100);
		DIFFERS(normalize, HOG_NORMALIZE_ON);
		DIFFERS(no_shuffle, 1);
		DIFFERS(shuffle_chunk, 64);
		SAME(shuffle_chunk, 1);
		SAME(sync_every, 1000);
		SAME(lr, 0.5);
		SAME(seed, 9);
		SAME(threads, 3);
		SAME(mlp.device, "cpu");
		SAME(linear.node_sync, 2);
		SAME(mlp.momentum_auto, 1);
#undef DIFFERS
#undef SAME
		o = base;
		o.sync_every = 1000;
		CU_ASSERT_NOT_EQUAL(eng_opts_hash(ops, &o, 2), eng_opts_hash(ops, &base, 2));
		CU_ASSERT_NOT_EQUAL(eng_opts_hash(ops, &base, 2), h0);
		CU_ASSERT_NOT_EQUAL(eng_opts_hash(ops, &base, 1), eng_opts_hash_v1(&base, 1));
	}
}

/* A checkpoint that carries the old formula's hash (as one written before
 * this version does) resumes without --force; one whose hash fits neither
 * formula is refused, naming the options. */
static void test_opts_hash_legacy_resume(void)
{
	hog_err err = { 0 };
	const char *data = tu_path("oh.lmdb"), *ck = tu_path("oh.ckpt");
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 3, .examples = 2000, .features = 200,
	                   .nnz_per_example = 10 };
	CU_ASSERT_EQUAL_FATAL(hog_gen(data, &g, &err), 0);
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, data, &err), 0);
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.threads = 1;
	o.bind = HOG_BIND_NONE;
	o.mode = HOG_MODE_SERIAL;
	o.epochs = 1;
	o.linear.average = 1; /* (the command line's default, which the old formula hashed for every model) */
	o.checkpoint = ck;
	hog_model *m = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m, NULL, &err), 0);
	hog_model_free(m);
	m = NULL;
	/* the checkpoint as the old version wrote it: its hash the old formula's */
	hog_model *ckm = NULL;
	hog_ckpt c;
	CU_ASSERT_EQUAL_FATAL(hog_model_load_ckpt(&ckm, &c, ck, &err), 0);
	const uint64_t v1 = eng_opts_hash_v1(&o, 1);
	CU_ASSERT_NOT_EQUAL(c.opts_hash, v1); /* (this version writes the new one) */
	hog_train_opts settled = o; /* (of the options as the run settles them: the default order's chunk) */
	settled.shuffle_chunk = HOG_SHUFFLE_CHUNK_DEFAULT;
	CU_ASSERT_EQUAL(c.opts_hash, eng_opts_hash(&hog_linear_trainer, &settled, 1));
	const uint64_t hashes[] = { v1, v1 ^ 1 };
	for (int k = 0; k < 2; k++) {
		c.opts_hash = hashes[k];
		CU_ASSERT_EQUAL_FATAL(hog_model_save_ckpt(ckm, &c, ck, &err), 0);
		hog_train_opts r = o;
		r.checkpoint = NULL;
		r.resume = ck;
		r.epochs = 2;
		int rc = hog_train(d, NULL, &r, &m, NULL, &err);
		if (k == 0) {
			CU_ASSERT_EQUAL(rc, 0);
			if (rc) {
				fprintf(stderr, "\nresume: %s\n", err.msg);
			}
		} else {
			CU_ASSERT_EQUAL(rc, HOG_EMISMATCH);
			CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "another mode"));
		}
		hog_model_free(m);
		m = NULL;
	}
	free(c.positions);
	hog_model_free(ckm);
	hog_data_free(d);
}

/* hog_train_opts_init(): every model's group gets its defaults from its own
 * trainer (hog_trainer_ops.opts_init), the values the library always had. */
static void test_opts_init_groups(void)
{
	hog_train_opts o;
	memset(&o, 0x5a, sizeof o);
	hog_train_opts_init(&o);
	CU_ASSERT_EQUAL(o.model, HOG_MODEL_LINEAR);
	CU_ASSERT_EQUAL(o.mode, HOG_MODE_LOCKFREE);
	CU_ASSERT_EQUAL(o.epochs, 20);
	CU_ASSERT_EQUAL(o.round_examples, 1u << 15);
	CU_ASSERT_EQUAL(o.delay, 0);
	CU_ASSERT_EQUAL(o.flush_every, 0);
	CU_ASSERT_EQUAL(o.linear.hot, -1);
	CU_ASSERT_EQUAL(o.linear.stripes, 64);
	CU_ASSERT_EQUAL(o.linear.node_sync, 0);
	CU_ASSERT_EQUAL(o.linear.average, 0);
	CU_ASSERT_EQUAL(o.mf.rank, 32);
	CU_ASSERT_EQUAL(o.mf.biases, 0);
	CU_ASSERT_EQUAL(o.mf.grid, 0);
	CU_ASSERT_EQUAL(o.mlp.batch, 32);
	CU_ASSERT_EQUAL(o.mlp.nlayers, 0);
	CU_ASSERT_EQUAL(o.mlp.momentum, 0);
	CU_ASSERT_EQUAL(o.mlp.momentum_auto, 0);
	CU_ASSERT_PTR_NULL(o.mlp.device);
}

int test_opts_hash_register(void)
{
	CU_pSuite s = CU_add_suite("opts_hash", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_opts_hash_legacy_pinned);
	TU_ADD(s, test_opts_init_groups);
	TU_ADD(s, test_opts_hash_own_group);
	TU_ADD(s, test_opts_hash_shared);
	TU_ADD(s, test_opts_hash_legacy_resume);
	return 0;
}
