/* LEGACY: the options hash of the checkpoints written before issue 20 (up to
 * commit 7103803), kept only so that those checkpoints still resume without
 * --force. eng_load_resume() accepts a checkpoint whose stored hash (model
 * file offset 168) is either eng_opts_hash() of this run's options or this
 * formula of them; nothing writes it any more.
 *
 * It hashes every model's options in one list, which is why the engine kept
 * naming them; since issue 20 the engine hashes the shared options and each
 * trainer adds its own (hog_trainer_ops.opts_hash). Do not change a byte of
 * it: tests/test_opts_hash.c pins its values, computed by the code of 7103803.
 * It may go once no checkpoint of that age is worth resuming. */
#include "train/engine.h"
#include "sys/hash.h"

/* The options that change the result and are not in the model header (which
 * keeps lr, l2, schedule, seed ... and is compared field by field). The rank
 * count and averaging interval of an MPI run, and --no-shuffle, enter only
 * when set, so checkpoints of single runs keep their hash. */
uint64_t eng_opts_hash_v1(const hog_train_opts *o, int ranks)
{
	int64_t v[] = { o->model, o->mode, o->linear.hot, o->flush_every, o->linear.stripes, o->mf.rank,
		            o->mf.biases, o->mf.grid, o->delay, o->mlp.batch, o->mlp.nlayers,
		            (int64_t)(o->mlp.momentum * 1e9) };
	uint64_t h = hog_fnv(hog_fnv(HOG_FNV0, v, sizeof v), o->mlp.layers, o->mlp.nlayers * sizeof *o->mlp.layers);
	if (o->no_shuffle)
		h = hog_fnv(h, "noshuffle", 9);
	if (o->shuffle_chunk > 1 && !o->no_shuffle) /* (hashed only when set: older checkpoints still fit) */
		h = hog_fnv(h, &o->shuffle_chunk, sizeof o->shuffle_chunk);
	if (ranks > 1) {
		int64_t m[] = { ranks, (int64_t)o->sync_every };
		h = hog_fnv(h, m, sizeof m);
	}
	int64_t later[] = { o->linear.average, o->normalize }; /* hashed only when set: older checkpoints still fit */
	return o->linear.average || o->normalize ? hog_fnv(h, later, sizeof later) : h;
}
