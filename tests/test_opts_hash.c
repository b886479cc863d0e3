/* The options hash a checkpoint carries (model file offset 168), compared on
 * resume and across MPI ranks (train/checkpoint.c). The formula of the
 * checkpoints already written is pinned here: the constants are what the
 * code of commit 7103803 computed for these option sets, so a checkpoint
 * written before the hash changes still resumes without --force. And the
 * defaults of each model's group of options, which its trainer fills. */
#include "hogwild.h"
#include "train/engine.h"
#include "util.h"
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
		CU_ASSERT_EQUAL(eng_opts_hash(&o, pins[i].ranks), pins[i].want);
	}
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
	return 0;
}
