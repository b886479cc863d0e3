/* The training commands' option table and what reads it (see opts.h). */
#include "cli/opts.h"
#include "model/model.h"
#include <stdarg.h>
#include <string.h>

#define K(k) (1u << HOG_MODEL_##k)
#define M(m) (1u << HOG_MODE_##m)
#define BOTH (CLI_TRAIN | CLI_COMPARE)
#define REQ required_argument
#define NO no_argument

/* A space the help text is not wrapped at (printed as a space). */
#define NBSP "\x01"

const cli_opt cli_opts[] = {
	{ "config", 'c', REQ, OPT_CONFIG, BOTH, 0, 0, COND_NONE, "FILE",
	  "INI file of options (flags given here override it)" },
	{ "data", 0, REQ, OPT_DATA, BOTH, 0, 0, COND_NONE, "D.lmdb", "training set (required)" },
	{ "test", 0, REQ, OPT_TEST, BOTH, 0, 0, COND_NONE, "T.lmdb", "test set, evaluated after every epoch (none)" },
	{ "model", 0, REQ, OPT_MODEL, BOTH, 0, 0, COND_NONE, "M", "linear | mf | mlp (linear; mf for ratings)" },
	{ "loss", 0, REQ, OPT_LOSS, BOTH, 0, 0, COND_NONE, "L",
	  "logistic | hinge | squared | softmax (from the labels: softmax for multiclass, squared for regression, "
	  "else logistic; mf takes squared only, the mlp logistic or softmax; softmax: multinomial logistic "
	  "regression with" NBSP "--model linear, which trains "
	  "as an mlp with no hidden layer)" },
	{ "mode", 0, REQ, OPT_MODE, CLI_TRAIN, 0, 0, COND_NONE, "M",
	  "{MODES} (lockfree: plain Hogwild!; buffered: lock-free with the hot coordinates kept per worker and "
	  "averaged in every K examples; replica: every coordinate in a private replica per worker, merged every "
	  "K examples; deterministic: a fixed count of logical shards merged in a fixed order, the same model "
	  "bit for bit for any --threads; auto: probe the model's modes on a sample, take the fastest that reaches serial's loss) "
	  "(the model's fastest measured mode: linear replica on a narrow model, buffered on a wide one (train "
	  "says which), lockfree with adarevision or --delay; mf grid; mlp lockfree; serial with --threads 1)" },
	{ "modes", 0, REQ, OPT_MODES, CLI_COMPARE, 0, 0, COND_NONE, "LIST",
	  "comma-separated modes to run, out of {MODES} (every mode the model takes); a serial run is always "
	  "made first, as the reference" },
	{ "mode", 0, REQ, OPT_MODES, CLI_COMPARE, 0, 0, COND_NONE, "LIST", NULL }, /* synonym of --modes */
	{ "threads", 0, REQ, OPT_THREADS, CLI_TRAIN, 0, 0, COND_NONE, "N",
	  "workers, pinned one per core (0: every core; serial: 1)" },
	{ "threads", 0, REQ, OPT_THREADS_LIST, CLI_COMPARE, 0, 0, COND_NONE, "LIST",
	  "thread counts, e.g. 1,2,4 (1, 2, 4, ... up to every core)" },
	{ "layers", 0, REQ, OPT_LAYERS, BOTH, K(MLP), 0, COND_MODEL_MLP, "W,W,...",
	  "widths of the ReLU hidden layers (none: softmax regression)" },
	{ "batch", 0, REQ, OPT_BATCH, BOTH, K(MLP), 0, COND_NONE, "B|auto",
	  "examples per mini-batch (32); auto: from 32, grown between epochs towards the measured gradient "
	  "noise scale, up to 1024, the step scaled to match (auto:MIN:MAX sets the bounds)" },
	{ "momentum", 0, REQ, OPT_MOMENTUM, BOTH, K(MLP), 0, COND_SGD, "MU",
	  "momentum, v=MU*v+g, w-=lr*v (0.9 with hidden layers, else 0)" },
	{ "lars", 0, REQ, OPT_LARS, BOTH, K(MLP), 0, COND_SGD, "ETA",
	  "LARS for large batches: each layer's weights step at lr*ETA*|w|/(|g|+l2*|w|), biases at lr; "
	  "typically ETA 0.001 with a larger --lr (0: off)" },
	{ "device", 0, REQ, OPT_DEVICE, BOTH, K(MLP), 0, COND_NONE, "D",
	  "cpu | cuda | cuda:N, the compute backend of every worker (cpu)" },
	{ "rank", 0, REQ, OPT_RANK, BOTH, K(MF), 0, COND_NONE, "K", "factors per user and item (32)" },
	{ "biases", 0, optional_argument, OPT_BIASES, BOTH, K(MF), 0, COND_NONE, "on|off",
	  "learn the global mean and user and item biases; bare: on (on: without them MovieLens's test RMSE was "
	  "0.873 against a bias-only model's 0.856, 0.847 with them; --biases=off is LIBMF's model)" },
	{ "grid", 0, REQ, OPT_GRID, BOTH, K(MF), M(GRID), COND_NONE, "G", "G x G blocks (0: 2*threads+1)" },
	{ "epochs", 0, REQ, OPT_EPOCHS, BOTH, 0, 0, COND_NONE, "N|auto",
	  "passes over the data (auto: 20, or for a small set of n examples 262144/n, at most 1000, with the "
	  "backoff stretched to match; compare: 20)" },
	{ "lr", 0, REQ, OPT_LR, BOTH, 0, 0, COND_NONE, "X",
	  "step size; alpha for adagrad/adarevision/adam (sgd: 1/(1+mean |x|^2), 0.5 for unit-norm rows; softmax: "
	  "B/(B+mean |x|^2) for batches of B; adagrad/adarevision: 0.1, with the squared loss the labels' standard "
	  "deviation if larger; adam/adamw: 0.001; mlp with --layers: sgd 0.05, adagrad 0.01; mf sgd: 0.03, divided by "
	  "the ratings' range over 4.5 where wider than 0.5..5)" },
	{ "schedule", 0, REQ, OPT_SCHEDULE, BOTH, 0, 0, COND_SGD, "S",
	  "constant | backoff | invt (backoff: lr * backoff^epoch)" },
	{ "backoff", 0, REQ, OPT_BACKOFF, BOTH, 0, 0, COND_BACKOFF, "B", "per-epoch factor of the schedule (0.9; for a small "
	  "set, whatever --epochs, that of --epochs auto's count: 0.9^(20/count))" },
	{ "t0", 0, REQ, OPT_T0, BOTH, 0, 0, COND_INVT, "N", "lr/(1+t/t0), t0 in examples (one epoch)" },
	{ "lr-scale", 0, REQ, OPT_LR_SCALE, BOTH, 0, 0, COND_NONE, "S",
	  "none | linear | sqrt: the step times the team's workers (threads x MPI ranks) or its square root, "
	  "with a warm-up of one epoch unless --warmup is given (none)" },
	{ "warmup", 0, REQ, OPT_WARMUP, BOTH, 0, 0, COND_NONE, "N",
	  "ramp the step size up over the first N examples (0)" },
	{ "l2", 0, REQ, OPT_L2, BOTH, 0, 0, COND_NONE, "X",
	  "lambda of (lambda/2)|w|^2 beside the mean loss (1e-6; mf: 0.05, per update on the rows it touches, "
	  "as LIBMF, times the ratings' range over 4.5 where wider than 0.5..5)" },
	{ "class-weight", 0, REQ, OPT_CLASS_WEIGHT, BOTH, K(LINEAR) | K(MLP), 0, COND_NONE, "SPEC",
	  "binary and multiclass sets: weights of the classes, multiplying the examples' own: balanced (n / "
	  "(classes * n_c), as scikit-learn's) or C=W,... (binary: 1 or pos, 0 or -1 or neg; multiclass: class "
	  "numbers; a set of class names: the names too; others weigh 1). Regression and ratings sets refuse it" },
	{ "l1", 0, REQ, OPT_L1, BOTH, K(LINEAR), 0, COND_NOT_ADAREV, "X",
	  "lambda of lambda|w|_1 beside the mean loss, the bias not regularized: a sparse model, most weights "
	  "exactly zero; each touch moves a weight step x X x n/d_v towards zero and stops there (0: off)" },
	{ "optimizer", 0, REQ, OPT_OPTIMIZER, BOTH, 0, 0, COND_NONE, "R",
	  "sgd | adagrad | adarevision | adam | adamw (sgd; adam and adamw for the mlp, with each worker's own "
	  "moments; adamw: --l2 as decoupled weight decay, w-=lr*l2*w)" },
	{ "adagrad-beta", 0, REQ, OPT_ADAGRAD_BETA, BOTH, 0, 0, COND_ADAPTIVE, "B",
	  "beta of lr/(beta+sqrt(sum g^2)) (1)" },
	{ "adam-beta1", 0, REQ, OPT_ADAM_BETA1, BOTH, K(MLP), 0, COND_ADAM, "B1", "decay of Adam's mean gradient (0.9)" },
	{ "adam-beta2", 0, REQ, OPT_ADAM_BETA2, BOTH, K(MLP), 0, COND_ADAM, "B2",
	  "decay of Adam's mean squared gradient (0.999)" },
	{ "adam-eps", 0, REQ, OPT_ADAM_EPS, BOTH, K(MLP), 0, COND_ADAM, "E",
	  "added to the root of Adam's second moment (1e-8)" },
	{ "average", 0, REQ, OPT_AVERAGE, BOTH, K(LINEAR), 0, COND_NONE, "on|off",
	  "the model is the average of the last epoch's iterates (averaged SGD), not the last iterate (on)" },
	{ "normalize", 0, optional_argument, OPT_NORMALIZE, BOTH, K(LINEAR) | K(MLP), 0, COND_NONE, "on|off|auto",
	  "scale each feature by 1/max|x| of the training set (for raw, unscaled values); the model keeps raw "
	  "units; bare: on; auto: on when some value is beyond [-1, 1] (auto)" },
	{ "delay", 0, REQ, OPT_DELAY, BOTH, K(LINEAR), M(SERIAL) | M(LOCKFREE) | M(ATOMIC) | M(STRIPED) | M(LOCKED),
	  COND_NONE, "K", "write each update K examples after its read (0)" },
	{ "measure-delay", 0, NO, OPT_MEASURE_DELAY, BOTH, K(LINEAR) | K(MF), 0, COND_NONE, NULL,
	  "sample updates landing between read and write (off; compare: always on)" },
	{ "hot", 0, REQ, OPT_HOT, BOTH, K(LINEAR), M(BUFFERED) | M(REPLICA), COND_NONE, "N",
	  "buffered: hot coordinates (auto: written once per flush); replica: the most frequent features "
	  "averaged at flushes besides the bias (0: none; the rest are summed)" },
	{ "flush-every", 0, REQ, OPT_FLUSH_EVERY, BOTH, K(LINEAR) | K(MLP), M(BUFFERED) | M(REPLICA) | M(DETERMINISTIC),
	  COND_NONE, "K",
	  "examples between flushes (buffered 1024, replica 16384; 4096 for replica with --average off; a narrow "
	  "model's replica sooner, 16 x its width in nonzeros; the linear model: at most a quarter of a worker's "
	  "share of an epoch); deterministic: each shard's examples in a "
	  "round (1024, at most a quarter of a shard's epoch)" },
	{ "shards", 0, REQ, OPT_SHARDS, BOTH, K(LINEAR) | K(MLP) | K(MF), M(DETERMINISTIC), COND_NONE, "N",
	  "logical shards, each its own slice of the examples, merged in shard order (mf: N x N blocks of "
	  "ratings, N at a time); the model depends on N, never on the thread count (16; below 16384 examples one "
	  "per 1024, at least 1)" },
	{ "node-sync", 0, REQ, OPT_NODE_SYNC, BOTH, K(LINEAR), M(REPLICA), COND_NONE, "K",
	  "on several NUMA nodes: flushes of a node's first worker between syncs of its node replica with the "
	  "global model, or off: no node replicas, one level as on one node (1)" },
	{ "stripe-size", 0, REQ, OPT_STRIPE_SIZE, BOTH, K(LINEAR), M(STRIPED), COND_NONE, "N",
	  "coordinates per lock, a power of two (64)" },
	{ "bind", 0, REQ, OPT_BIND, BOTH, 0, 0, COND_NONE, "B", "core | numa | none: pin workers with hwloc (core)" },
	{ "seed", 0, REQ, OPT_SEED, BOTH, 0, 0, COND_NONE, "S", "sharding and shuffling seed (1)" },
	{ "topology", 0, REQ, OPT_TOPOLOGY, BOTH, 0, 0, COND_NONE, "DESC",
	  "plan for an hwloc synthetic topology or XML file (this machine)" },
	{ "sync-every", 0, REQ, OPT_SYNC_EVERY, BOTH, 0, 0, COND_NONE, "K",
	  "MPI (mpirun -np N): examples per rank between averagings of the ranks' models; also at every "
	  "epoch's end (32768 x threads)" },
	{ "compress", 0, REQ, OPT_COMPRESS, BOTH, 0, 0, COND_NONE, "C",
	  "MPI (mpirun -np N): none | powersgd:R | topk:F: each rank sends its change since the last averaging "
	  "as rank-R factors of the model's matrices (mf's item factors, the mlp's weights; vectors whole) or "
	  "as a fraction F of every span's coordinates, what it drops kept for the next (error feedback) (none)" },
	{ "no-shuffle", 0, NO, OPT_NO_SHUFFLE, BOTH, 0, 0, COND_NONE, NULL,
	  "visit the examples in the data set's order every epoch" },
	{ "shuffle-chunk", 0, REQ, OPT_SHUFFLE_CHUNK, BOTH, K(LINEAR), 0, COND_NONE, "C",
	  "visit each worker's examples (dealt by a seeded shuffle) in chunks of C consecutive ones, the chunks "
	  "in a new random order every epoch: the rows stream from memory (default 256 with --average, else 1; 1: every example "
	  "shuffled, the default before, which a checkpoint written with it keeps)" },
	{ "quiet", 'q', NO, OPT_QUIET, BOTH, 0, 0, COND_NONE, NULL, "no progress line" },
	{ "strict", 0, NO, OPT_STRICT, BOTH, 0, 0, COND_TEST, NULL,
	  "refuse (exit 1) a test set that may hold training examples: a half of another split of the training "
	  "set's input, the training set's own half, the set it was cut from, a half of it, the training set "
	  "itself or a copy (off: a warning)" },
	/* train's own */
	{ "save", 0, REQ, OPT_SAVE, CLI_TRAIN, 0, 0, COND_NONE, "FILE",
	  "write the trained model here (atomically; when stopped by SIGINT/SIGTERM, the model trained so far). "
	  "Refused over a data set, a model of another kind or a file that is no model" },
	{ "checkpoint", 0, REQ, OPT_CHECKPOINT, CLI_TRAIN, 0, 0, COND_NONE, "FILE",
	  "write a checkpoint after every epoch and when stopped" },
	{ "checkpoint-every", 0, REQ, OPT_CHECKPOINT_EVERY, CLI_TRAIN, 0, 0, COND_CHECKPOINT, "SECONDS",
	  "also every SECONDS inside an epoch (0: off)" },
	{ "resume", 0, REQ, OPT_RESUME, CLI_TRAIN, 0, 0, COND_NONE, "FILE",
	  "continue from a checkpoint (same data and options)" },
	{ "force", 0, NO, OPT_FORCE, CLI_TRAIN, 0, 0, COND_RESUME, NULL,
	  "resume even when the data set or options differ from the checkpoint's (the model's shapes must "
	  "still fit)" },
	{ "metrics", 0, REQ, OPT_METRICS, CLI_TRAIN, 0, 0, COND_NONE, "FILE", "append one JSON line per epoch" },
	{ "diagnostics", 0, optional_argument, OPT_DIAGNOSTICS, CLI_TRAIN, K(LINEAR), 0, COND_NONE, "on|off",
	  "each epoch's gradient noise scale and nonzero weights in --metrics, measured by one thread "
	  "over a sample and the model at every epoch's end while the others wait; bare: on (on with --metrics)" },
	{ "stream", 0, NO, OPT_STREAM, CLI_TRAIN, K(LINEAR) | K(MF) | K(MLP), 0, COND_NONE, NULL, /* (the trainers' .streams) */
	  "train from the data set's blocks in place, for sets larger than memory: shuffled blocks, the page "
	  "cache reads; the --test/--validation set is read a chunk at a time too; mf: lockfree by default, not "
	  "grid; not deterministic (off)" },
	{ "keep-diverged", 0, NO, OPT_KEEP_DIVERGED, CLI_TRAIN, 0, 0, COND_SAVE, NULL,
	  "a run that diverges (exit 1: an epoch's training loss NaN, over 100 times an all-zero model's, or over "
	  "10 times the run's best epoch's and the zero model's) still writes its model to --save, to look at; "
	  "checkpoints never take the diverged state (off: nothing is saved)" },
	{ "validation", 0, REQ, OPT_VALIDATION, CLI_TRAIN, 0, 0, COND_NONE, "V",
	  "a held-out set evaluated after every epoch in the test columns, for --early-stop: a data set file, or "
	  "a fraction of --data (0.1: a tenth, drawn by --seed) that is then not trained on; --test is evaluated "
	  "once, at the end (none)" },
	{ "early-stop", 0, REQ, OPT_EARLY_STOP, CLI_TRAIN, 0, 0, COND_HELDOUT, "N",
	  "stop once the held-out loss (--validation, else --test) has not improved for N epochs, and keep the "
	  "best epoch's model (off)" },
	/* compare's own */
	{ "ranks", 0, REQ, OPT_RANKS, CLI_COMPARE, 0, 0, COND_NONE, "LIST",
	  "MPI rank counts, e.g. 1,2: under mpirun -np N (N at least the largest), each row runs on that many "
	  "ranks (1)" },
	{ "repeat", 0, REQ, OPT_REPEAT, CLI_COMPARE, 0, 0, COND_NONE, "R", "runs per cell, in rounds; times are medians (1; up to 7 when a run is short)" },
	{ "target-loss", 0, REQ, OPT_TARGET, CLI_COMPARE, 0, 0, COND_NONE, "X",
	  "report the time to reach this test loss (default: within 1% of the serial run's final test loss, or "
	  "train loss)" },
	{ "csv", 0, REQ, OPT_CSV, CLI_COMPARE, 0, 0, COND_NONE, "FILE", "also write the table as CSV" },
	{ "json", 0, REQ, OPT_JSON, CLI_COMPARE, 0, 0, COND_NONE, "FILE",
	  "also write every cell with its per-epoch figures as JSON" },
	{ "plot", 0, REQ, OPT_PLOT, CLI_COMPARE, 0, 0, COND_NONE, "PREFIX",
	  "write PREFIX-speedup.{png,svg} and PREFIX-loss.{png,svg} (needs gnuplot: apt-get install gnuplot-nox)" },
	/* tune's own, and its versions of train's options: the searched ones take lists and ranges */
	{ "test", 0, REQ, OPT_TEST, CLI_TUNE, 0, 0, COND_NONE, "T.lmdb",
	  "refused: tune chooses on held-out parts of --data (--folds, --validation); evaluate the saved model on a "
	  "test set with hogwild eval" },
	{ "mode", 0, REQ, OPT_MODE, CLI_TUNE, 0, 0, COND_NONE, "M",
	  "{MODES}: every trial's mode (serial with one thread a trial, else the model's fastest measured mode)" },
	{ "threads", 0, REQ, OPT_THREADS, CLI_TUNE, 0, 0, COND_NONE, "N",
	  "workers of each trial (1: as many trials at once as cores, each serial; more: cores/N trials at once)" },
	{ "teams", 0, REQ, OPT_TEAMS, CLI_TUNE, 0, 0, COND_NONE, "N",
	  "trials run at once (cores / --threads)" },
	{ "lr", 0, REQ, OPT_LR, CLI_TUNE, 0, 0, COND_NONE, "V",
	  "step sizes to try: a list 0.05,0.1, a range LO:HI[:N] of N values spaced evenly on a log scale (4), "
	  "or multiples of the model's default step, x0.25:x2 (x0.25,x0.5,x1,x2; mf x0.5:x2:3, mlp x0.5:x2:3)" },
	{ "l2", 0, REQ, OPT_L2, CLI_TUNE, 0, 0, COND_NONE, "V",
	  "L2 weights to try, as --lr (1e-7:1e-2:6; mf 0.025:0.1:3, times the ratings' range over 4.5 where wider "
	  "than 0.5..5; mlp 1e-6:1e-4:3)" },
	{ "l1", 0, REQ, OPT_L1, CLI_TUNE, K(LINEAR), 0, COND_NOT_ADAREV, "V", "L1 weights to try, as --lr (0: off)" },
	{ "rank", 0, REQ, OPT_RANK, CLI_TUNE, K(MF), 0, COND_NONE, "V", "ranks to try, as --lr (16,32,64)" },
	{ "layers", 0, REQ, OPT_LAYERS, CLI_TUNE, K(MLP), 0, COND_MODEL_MLP, "W/W,W",
	  "hidden layer widths to try, the choices separated by '/': 64/256/128,128 (none)" },
	{ "folds", 0, REQ, OPT_FOLDS, CLI_TUNE, 0, 0, COND_NONE, "K",
	  "k-fold cross-validation: every trial trains K times, each fold held out once (off: --validation 0.2)" },
	{ "validation", 0, REQ, OPT_VALIDATION, CLI_TUNE, 0, 0, COND_NONE, "V",
	  "the held-out set trials are judged on: a data set file, or a fraction of --data drawn by --seed (0.2)" },
	{ "early-stop", 0, REQ, OPT_EARLY_STOP, CLI_TUNE, 0, 0, COND_HELDOUT, "N",
	  "a trial stops once its held-out loss has not improved for N epochs, judged by its best epoch (off)" },
	{ "rungs", 0, REQ, OPT_RUNGS, CLI_TUNE, 0, 0, COND_NONE, "R",
	  "successive halving: R rounds, every trial at epochs/3^(R-1), the best third again at 3 times the epochs, "
	  "up to --epochs (1: a plain grid; default: up to 3, fewer for few trials)" },
	{ "budget", 0, REQ, OPT_BUDGET, CLI_TUNE, 0, 0, COND_NONE, "SECONDS",
	  "start no trial after SECONDS; the best finished one wins (none)" },
	{ "metric", 0, REQ, OPT_METRIC, CLI_TUNE, 0, 0, COND_NONE, "M",
	  "loss | acc | auc | rmse: what the best trial has best on the held-out examples (loss)" },
	{ "save", 0, REQ, OPT_SAVE, CLI_TUNE, 0, 0, COND_NONE, "FILE",
	  "retrain the best configuration on the whole of --data and write the model here" },
	{ "save-config", 0, REQ, OPT_SAVE_CONFIG, CLI_TUNE, 0, 0, COND_NONE, "FILE",
	  "write the best configuration as an INI file that 'hogwild train -c FILE' reads" },
	{ "json", 0, REQ, OPT_JSON, CLI_TUNE, 0, 0, COND_NONE, "FILE", "also write every trial as JSON" },
	{ "help", 'h', NO, OPT_HELP, BOTH, 0, 0, COND_NONE, NULL, "this text" },
};
const size_t cli_nopts = sizeof cli_opts / sizeof *cli_opts;

int cli_opt_takes(const cli_opt *op, unsigned cmd)
{
	if (op->cmds & cmd)
		return 1;
	if (cmd != CLI_TUNE || op->cmds != BOTH || op->id == OPT_STRICT) /* (tune has no --test to be strict of) */
		return 0;
	for (size_t i = 0; i < cli_nopts; i++) /* (an entry of tune's own comes first) */
		if (cli_opts[i].cmds == CLI_TUNE && (cli_opts[i].id == op->id || !strcmp(cli_opts[i].name, op->name)))
			return 0;
	return 1;
}

const cli_opt *cli_opt_find(unsigned cmd, int id)
{
	for (size_t i = 0; i < cli_nopts; i++)
		if (cli_opts[i].id == id && cli_opt_takes(&cli_opts[i], cmd))
			return &cli_opts[i];
	return NULL;
}

size_t cli_opt_getopt(unsigned cmd, struct option *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < cli_nopts && n + 1 < cap; i++)
		if (cli_opt_takes(&cli_opts[i], cmd))
			out[n++] = (struct option){ cli_opts[i].name, cli_opts[i].has_arg, NULL, cli_opts[i].id };
	out[n] = (struct option){ NULL, 0, NULL, 0 };
	return n;
}

/* Edit distance (insertions, deletions, substitutions, adjacent swaps) of
 * [a, a + n) and [b, b + m), both under 64 bytes; 99 beyond. */
static unsigned edit_distance(const char *a, size_t n, const char *b, size_t m)
{
	if (n >= 64 || m >= 64)
		return 99;
	unsigned d[64][64];
	for (size_t i = 0; i <= n; i++)
		for (size_t j = 0; j <= m; j++) {
			if (!i || !j) {
				d[i][j] = (unsigned)(i + j);
				continue;
			}
			unsigned v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			v = d[i - 1][j] + 1 < v ? d[i - 1][j] + 1 : v;
			v = d[i][j - 1] + 1 < v ? d[i][j - 1] + 1 : v;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m];
}

void cli_opt_suggest(const struct option *lo, const char *arg, char *buf, size_t size)
{
	/* other trainers' names (scikit-learn, fastText, LIBLINEAR, PyTorch) for options this one has */
	static const char *const alias[][2] = {
		{ "hidden", "layers" }, { "hidden-size", "layers" }, { "learning-rate", "lr" }, { "eta", "lr" },
		{ "alpha", "lr" }, { "iterations", "epochs" }, { "iter", "epochs" }, { "max-iter", "epochs" },
		{ "epoch", "epochs" }, { "jobs", "threads" }, { "workers", "threads" }, { "n-jobs", "threads" },
		{ "thread", "threads" }, { "lambda", "l2" }, { "reg", "l2" }, { "weight-decay", "l2" },
		{ "output", "save" }, { "out", "save" }, { "model-out", "save" }, { "dim", "rank" },
		{ "factors", "rank" }, { "k", "rank" }, { "eval", "test" }, { "valid", "validation" },
		{ "batch-size", "batch" }, { "verbose", "quiet" }, { "silent", "quiet" }, { "optim", "optimizer" },
		{ "label", "label-col" }, { "target", "label-col" }, { "delimiter", "delim" }, { "sep", "delim" },
		{ "separator", "delim" }, { "test-size", "fraction" }, { "ignore", "ignore-col" },
		{ "drop", "ignore-col" }, { "input", "data" },
	};
	*buf = 0;
	if (!arg || strncmp(arg, "--", 2))
		return;
	const char *w = arg + 2;
	const size_t n = strcspn(w, "=");
	char amb[200] = "";
	size_t k = 0, nmatch = 0;
	for (const struct option *o = lo; o->name; o++) /* an abbreviation of several (getopt's '?' too) */
		if (n && !strncmp(o->name, w, n) && k < sizeof amb) {
			k += (size_t)snprintf(amb + k, sizeof amb - k, "%s--%s", nmatch ? ", " : "", o->name);
			nmatch++;
		}
	if (nmatch > 1) {
		snprintf(buf, size, ": it abbreviates %s", amb);
		return;
	}
	const char *best = NULL;
	for (size_t i = 0; i < sizeof alias / sizeof *alias && !best; i++)
		if (edit_distance(w, n, alias[i][0], strlen(alias[i][0])) <= (n < 5 ? 0u : 1u)) /* (--hiden too) */
			for (const struct option *o = lo; o->name && !best; o++)
				if (!strcmp(o->name, alias[i][1]))
					best = o->name;
	unsigned bd = n < 5 ? 2 : 3; /* (the nearest, at most a letter off in a short name, two in a long one) */
	for (const struct option *o = best ? NULL : lo; o && o->name; o++) {
		const unsigned d = edit_distance(w, n, o->name, strlen(o->name));
		if (d < bd) {
			bd = d;
			best = o->name;
		}
	}
	if (best)
		snprintf(buf, size, ": did you mean --%s?", best);
}

/* ------------------------------------------------------------ words */

/* A growing string in a fixed buffer (truncated, always terminated). */
typedef struct sbuf {
	char *p;
	size_t len, n;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
	if (b->n >= b->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(b->p + b->n, b->len - b->n, fmt, ap);
	va_end(ap);
	if (w > 0)
		b->n += (size_t)w < b->len - b->n ? (size_t)w : b->len - b->n - 1;
}

/* "a", "a and b", "a, b and c" of the names whose bit is in @p mask. */
static void put_list(sbuf *b, unsigned mask, const char *(*name)(int), int hi)
{
	int total = 0, k = 0;
	for (int i = 0; i < hi; i++)
		total += (int)(mask >> i & 1u);
	for (int i = 0; i < hi; i++)
		if (mask >> i & 1u) {
			put(b, "%s%s", k == 0 ? "" : k == total - 1 ? " and " : ", ", name(i));
			k++;
		}
}

static const char *kind_word(int k) { return hog_model_kind_name((enum hog_model_kind)k); }
static const char *mode_word(int m) { return hog_mode_name((enum hog_mode)m); }
static const char *loss_word(int l) { return hog_loss_name((enum hog_loss)l); }

static const char *cond_words(enum cli_cond c)
{
	switch (c) {
	case COND_SGD: return "--optimizer sgd";
	case COND_ADAPTIVE: return "--optimizer adagrad or adarevision";
	case COND_ADAM: return "--optimizer adam or adamw";
	case COND_BACKOFF: return "--schedule backoff (the default) and --optimizer sgd";
	case COND_INVT: return "--schedule invt and --optimizer sgd";
	case COND_CHECKPOINT: return "--checkpoint (or --resume)";
	case COND_RESUME: return "--resume";
	case COND_MODEL_MLP: return "--model mlp";
	case COND_SAVE: return "--save";
	case COND_TEST: return "--test";
	case COND_HELDOUT: return "--test or --validation";
	case COND_NOT_ADAREV: return "--optimizer sgd or adagrad";
	case COND_NONE: break;
	}
	return "";
}

/* The kinds a trainer mask names: the mlp trains --loss softmax too. */
static void put_kinds(sbuf *b, unsigned kinds, enum cli_cond cond)
{
	put(b, "the ");
	put_list(b, kinds, kind_word, HOG_MODEL_KIND_MAX + 1);
	put(b, " model%s", (kinds & (kinds - 1)) ? "s" : "");
	if ((kinds & K(MLP)) && !(kinds & K(LINEAR)) && cond != COND_MODEL_MLP)
		put(b, " (and --loss softmax)");
}

void cli_opt_scope(const cli_opt *op, char *buf, size_t len)
{
	sbuf b = { buf, len, 0 };
	buf[0] = 0;
	if (op->kinds)
		put_kinds(&b, op->kinds, op->cond);
	if (op->modes) {
		put(&b, "%s", op->kinds ? ", " : "");
		put_list(&b, op->modes, mode_word, HOG_MODE_ALL);
		put(&b, " mode%s", (op->modes & (op->modes - 1)) ? "s" : "");
	}
	if (op->cond && op->cond != COND_MODEL_MLP)
		put(&b, "%swith %s", op->kinds || op->modes ? ", " : "", cond_words(op->cond));
}


/* "serial | lockfree | buffered (linear, mlp) | ...": every mode, with the
 * models that take it when not all of them do (from the trainers' tables). */
static void put_modes(sbuf *b)
{
	unsigned all = 0;
	for (int k = 0; k <= HOG_MODEL_KIND_MAX; k++)
		if (hog_model_kind_built((enum hog_model_kind)k))
			all |= 1u << k;
	for (int m = 0; m < HOG_MODE_ALL; m++) {
		unsigned takes = 0;
		for (int k = 0; k <= HOG_MODEL_KIND_MAX; k++)
			if ((all >> k & 1u) && (hog_model_kind_modes((enum hog_model_kind)k) >> m & 1u))
				takes |= 1u << k;
		put(b, "%s%s", m ? " | " : "", hog_mode_name((enum hog_mode)m));
		if (m != HOG_MODE_AUTO && takes != all && takes) {
			put(b, NBSP "(");
			for (int k = 0, n = 0; k <= HOG_MODEL_KIND_MAX; k++)
				if (takes >> k & 1u)
					put(b, "%s%s", n++ ? "," NBSP : "", kind_word(k));
			put(b, ")");
		}
	}
}

/* Where @p op applies, short, for its help line: "linear, mlp; buffered,
 * replica modes; --optimizer sgd". */
static void help_scope(const cli_opt *op, sbuf *b)
{
	const char *sep = "";
	if (op->kinds) {
		put_list(b, op->kinds, kind_word, HOG_MODEL_KIND_MAX + 1);
		if ((op->kinds & K(MLP)) && !(op->kinds & K(LINEAR)) && op->cond != COND_MODEL_MLP)
			put(b, ", --loss softmax");
		sep = "; ";
	}
	if (op->modes) {
		put(b, "%s", sep);
		put_list(b, op->modes, mode_word, HOG_MODE_ALL);
		put(b, " mode%s", (op->modes & (op->modes - 1)) ? "s" : "");
		sep = "; ";
	}
	if (op->cond && op->cond != COND_MODEL_MLP)
		put(b, "%swith %s", sep, cond_words(op->cond));
	if (op->kinds || op->modes || (op->cond && op->cond != COND_MODEL_MLP))
		put(b, ": ");
}

/* The help paragraph of @p op: its scope, then its text with {MODES} filled. */
static void help_text(const cli_opt *op, char *buf, size_t len)
{
	sbuf b = { buf, len, 0 };
	buf[0] = 0;
	help_scope(op, &b);
	const char *t = op->help, *at;
	while ((at = strstr(t, "{MODES}"))) {
		put(&b, "%.*s", (int)(at - t), t);
		put_modes(&b);
		t = at + 7;
	}
	put(&b, "%s", t);
}

#define HELP_COL 25
#define HELP_WIDTH 80

/* @p text from column @p col (the option's name written before it), words
 * wrapped at HELP_WIDTH, continuation lines at HELP_COL. */
static void put_wrapped(FILE *f, const char *p, int col)
{
	if (col >= HELP_COL - 1) {
		fputs("  ", f);
		col += 2;
	} else {
		fprintf(f, "%*s", HELP_COL - col, "");
		col = HELP_COL;
	}
	int first = 1;
	while (*p) {
		size_t w = strcspn(p, " ");
		if (!first && col + 1 + (int)w > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_COL, "");
			col = HELP_COL;
			first = 1;
		}
		if (!first) {
			fputc(' ', f);
			col++;
		}
		for (size_t j = 0; j < w; j++)
			fputc(p[j] == NBSP[0] ? ' ' : p[j], f);
		col += (int)w;
		first = 0;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void cli_opt_usage(FILE *f, unsigned cmd)
{
	for (size_t i = 0; i < cli_nopts; i++) {
		const cli_opt *op = &cli_opts[i];
		if (!cli_opt_takes(op, cmd) || !op->help)
			continue;
		char left[64], text[1024];
		const int opt = op->has_arg == optional_argument; /* --name[=VALUE] */
		int col = snprintf(left, sizeof left, "  %c%c%s--%s%s%s%s", op->short_name ? '-' : ' ',
		                   op->short_name ? op->short_name : ' ', op->short_name ? ", " : "  ", op->name,
		                   op->arg ? opt ? "[=" : " " : "", op->arg ? op->arg : "", opt ? "]" : "");
		fputs(left, f);
		help_text(op, text, sizeof text);
		put_wrapped(f, text, col);
	}
}

/* ------------------------------------------------------------ the check */

int cli_opt_optional_value(const char *name, const char *word)
{
	for (size_t i = 0; i < cli_nopts; i++) {
		const cli_opt *op = &cli_opts[i];
		if (op->has_arg != optional_argument || strcmp(op->name, name) || !op->arg)
			continue;
		size_t n = strlen(word);
		for (const char *v = op->arg; *v; v += strcspn(v, "|"), v += *v == '|')
			if (n && strcspn(v, "|") == n && !strncmp(v, word, n))
				return 1;
	}
	return 0;
}

unsigned cli_opt_train_modes(const hog_train_opts *o)
{
	return o->mode == HOG_MODE_AUTO ? hog_train_modes(o) : 1u << o->mode;
}

static int cond_holds(enum cli_cond c, const hog_train_opts *o, const cli_given *given)
{
	switch (c) {
	case COND_NONE: return 1;
	case COND_SGD: return o->rule == HOG_RULE_SGD;
	case COND_ADAPTIVE: return o->rule == HOG_RULE_ADAGRAD || o->rule == HOG_RULE_ADAREVISION;
	case COND_ADAM: return o->rule == HOG_RULE_ADAM || o->rule == HOG_RULE_ADAMW;
	case COND_BACKOFF: return o->rule == HOG_RULE_SGD && o->sched == HOG_SCHED_BACKOFF;
	case COND_INVT: return o->rule == HOG_RULE_SGD && o->sched == HOG_SCHED_INVT;
	case COND_CHECKPOINT: return o->checkpoint != NULL || o->resume != NULL;
	case COND_RESUME: return o->resume != NULL;
	case COND_MODEL_MLP: return o->model == HOG_MODEL_MLP;
	case COND_SAVE: return given->on[OPT_SAVE - OPT_FIRST];
	case COND_TEST: return given->on[OPT_TEST - OPT_FIRST];
	case COND_HELDOUT: return given->on[OPT_TEST - OPT_FIRST] || given->on[OPT_VALIDATION - OPT_FIRST];
	case COND_NOT_ADAREV: return o->rule == HOG_RULE_SGD || o->rule == HOG_RULE_ADAGRAD;
	}
	return 0;
}

/* What the run is, for the message: "the mf model", "--model linear --loss
 * softmax (the mlp's trainer)", and its modes. */
static void put_run(sbuf *b, const hog_train_opts *o, enum hog_model_kind kind, unsigned modes, int with_modes)
{
	if (kind == o->model)
		put(b, "the %s model", hog_model_kind_name(kind));
	else
		put(b, "--model %s --loss %s (which trains as the %s model)", hog_model_kind_name(o->model),
		    hog_loss_name(o->loss), hog_model_kind_name(kind));
	if (with_modes) {
		put(b, " in ");
		put_list(b, modes, mode_word, HOG_MODE_ALL);
		put(b, " mode%s", (modes & (modes - 1)) ? "s" : "");
	}
}

int cli_opt_check(unsigned cmd, const hog_train_opts *o, unsigned modes, const cli_given *given, char *msg,
                  size_t len)
{
	const enum hog_model_kind kind = hog_train_kind(o);
	const unsigned runs = modes & hog_train_modes(o); /* a mode the model lacks is refused later */
	msg[0] = 0;
	const unsigned losses = hog_model_kind_losses(o->model);
	if (given->on[OPT_LOSS - OPT_FIRST] && cli_opt_find(cmd, OPT_LOSS) && losses && !(losses >> o->loss & 1u)) {
		sbuf b = { msg, len, 0 };
		put(&b, "--loss %s does not apply to the %s model, which takes --loss ", hog_loss_name(o->loss),
		    hog_model_kind_name(o->model));
		put_list(&b, losses, loss_word, HOG_LOSS_SOFTMAX + 1);
		return OPT_LOSS;
	}
	for (int id = OPT_FIRST; id < OPT_LAST; id++) {
		const cli_opt *op = cli_opt_find(cmd, id);
		if (!op || !given->on[id - OPT_FIRST])
			continue;
		sbuf b = { msg, len, 0 };
		char scope[256];
		cli_opt_scope(op, scope, sizeof scope);
		if (op->kinds && !(op->kinds >> kind & 1u)) {
			put(&b, "--%s applies to %s, not to ", op->name, scope);
			put_run(&b, o, kind, runs, 0);
		} else if (op->modes && runs && !(op->modes & runs)) {
			put(&b, "--%s applies to ", op->name);
			put_list(&b, op->modes, mode_word, HOG_MODE_ALL);
			put(&b, " mode%s; ", (op->modes & (op->modes - 1)) ? "s" : "");
			put_run(&b, o, kind, runs, 1);
			put(&b, " would ignore it");
		} else if (!cond_holds(op->cond, o, given)) {
			put(&b, "--%s applies only with %s; without it the option would be ignored", op->name,
			    cond_words(op->cond));
			if (op->cond == COND_MODEL_MLP)
				put(&b, " (--loss softmax with --model linear trains an mlp without hidden layers)");
		} else {
			continue;
		}
		return id;
	}
	return -1;
}
