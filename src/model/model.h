/* The model record every kind shares, the table of what each kind does with it
 * (predict, evaluate, check its shapes), and the one model file format.
 *
 * A model is a flat array of floats (params) whose layout its kind defines, the
 * shapes that fix that layout, and the hyper-parameters it was trained with.
 * Kinds are chosen through hog_model_kinds[] (model.c), never by `if (kind == ...)`
 * in shared code: a new kind is a new file with its table (the ggml habit).
 *
 * Checkpoint bookkeeping (worker positions inside an epoch, hashes of the data
 * set and options) belongs to the training engine: it travels beside the model
 * in the same file (hog_ckpt), not inside hog_model.
 */
#ifndef HOG_MODEL_MODEL_H
#define HOG_MODEL_MODEL_H
#include "hogwild.h"

#define HOG_MODEL_KIND_MAX 3

/* Floats per coordinate for each step rule (hog_model.stride): SGD keeps w;
 * AdaGrad w and the sum of squared gradients; AdaRevision x, g-bar, z and z'
 * side by side (one cache line holds four coordinates' records); Adam and
 * AdamW w and the two moments (the mlp's layout is its own: model/mlp.h). */
static inline uint32_t hog_rule_stride(enum hog_rule r)
{
	return r == HOG_RULE_SGD ? 1 : r == HOG_RULE_ADAGRAD ? 2 : r == HOG_RULE_ADAREVISION ? 4 : 3;
}

struct hog_model {
	enum hog_model_kind kind;
	enum hog_loss loss;
	enum hog_rule rule;
	enum hog_sched sched;
	uint32_t stride;     /* floats per coordinate record (the step rule's state) */
	union {
		uint64_t shape[4]; /* linear: dim; mf: users, items, rank, padded rank;
		                      mlp: inputs, outputs, hidden widths (mlp.h) */
		uint64_t dim;      /* linear: features (shape[0]) */
	};
	uint32_t flags;      /* mf: HOG_MF_BIASES; mlp: HOG_MLP_* */
	double aux;          /* mf: the global mean; mlp: the sgd momentum */
	uint64_t nparams;
	float *params;       /* the kind's layout (linear.h, mf.h) */
	float *weights;      /* linear: dim weights, made for hog_model_info_get */
	int epochs_done;
	uint64_t t;          /* examples processed in all, for the 1/t schedule */
	double lr, l2, beta, backoff, t0;
	uint64_t seed;
	uint64_t warmup;
	/* What the training set said about itself, kept so that a test set can be
	 * matched to it (hog_model_prepare); absent (0, NULL) in older files. */
	enum hog_task task;          /* the training set's task */
	uint64_t *user_ids, *item_ids; /* ratings: dense id -> original id */
	uint64_t nuser_ids, nitem_ids;
	char *columns;               /* csv: the training set's column names */
	char *class_names;           /* the training set's class names (hog_data.class_names), or NULL */
	char *categories;            /* its categories (hog_data.categories), or NULL */
	uint64_t category_from;      /* and the first one's feature id */
	uint32_t csv_label, csv_fields; /* csv: the training set's label field of its lines' fields (0, 0: unknown) */
	uint32_t vw_bits;            /* vw: the training set's hash bits (0: unknown) */
	char *split;                 /* the training set's split id (hog_data.split), or NULL */
	int neg_zero;                /* binary without class names: the training set's negatives were 0, not -1
	                                (predict --labels writes them so); 0 in older files */
};

/* Copies @p tr's task, id maps and column names into @p m (replacing any).
 * @return 0 or ENOMEM. */
int hog_model_set_origin(hog_model *m, const hog_data *tr);
/* The size of @p m's file (hog_model_save_ckpt with @p nworkers positions). */
uint64_t hog_model_file_bytes(const hog_model *m, uint32_t nworkers);

/* One record of a model's text dump (model/dump.c, hogwild(1) model dump): a
 * line "[TAG] [ID] V1 ... Vn" whose values are the n floats params[at..at+n). A kind lists its records through its table (records,
 * record), in the order of its layout; the dump writes them, and reading a dump
 * back fills them in a zeroed model of the same shapes. */
typedef struct hog_model_rec {
	char tag[8];       /* "" when the line starts with its id (a linear weight) */
	int has_id;
	uint64_t id;       /* the raw id printed (an original id where the model keeps a map) */
	uint64_t *id_slot; /* not NULL: the id is the model's map entry, which a dump read back sets */
	uint64_t at, len;  /* the values: params[at .. at+len) */
} hog_model_rec;

/* What a kind does with a model record. */
typedef struct hog_model_kind_ops {
	const char *name;
	/* Number of floats the shapes call for; 0 when the shapes are inconsistent. */
	uint64_t (*nparams)(const hog_model *m);
	/* Whether data set @p d can be used with @p m (kind, dimension, ids): 0 or
	 * HOG_EMISMATCH with both shapes named. */
	int (*fits)(const hog_model *m, const hog_data *d, hog_err *err);
	/* One prediction per example (fits() has passed). */
	void (*predict)(const hog_model *m, const hog_data *d, float *out);
	/* optional: class probabilities, d->n * classes (hog_model_info.classes) */
	void (*proba)(const hog_model *m, const hog_data *d, float *out);
	/* Adds the figures of @p d's examples, from the predictions of predict(),
	 * to @p a (hog_acc_margins(), _ratings() or _probs()). */
	void (*eval)(const hog_model *m, const hog_data *d, const float *pred, hog_eval_acc *a);
	/* The kind's part of hog_model_info. */
	void (*info)(const hog_model *m, hog_model_info *info);
	/* optional, kinds with users and items (hog_model_info.users): 1 in
	 * users[u] and items[i] for those the model has trained (the others are
	 * predicted as unseen), 0 elsewhere. */
	void (*rated)(const hog_model *m, uint8_t *users, uint8_t *items);
	/* The dump's records (hog_model_rec): how many, and record @p r of them. Every
	 * parameter is in one record; what no record holds (padding) is zero. */
	uint64_t (*records)(const hog_model *m);
	void (*record)(const hog_model *m, uint64_t r, hog_model_rec *rec);
} hog_model_kind_ops;

extern const hog_model_kind_ops hog_linear_kind, hog_mf_kind, hog_mlp_kind;

/* The table for @p kind, or NULL when the kind is unknown or not built. */
const hog_model_kind_ops *hog_model_kind_get(enum hog_model_kind kind);

/* A zeroed model of @p kind with the shapes set (nparams is derived). */
hog_model *hog_model_alloc(enum hog_model_kind kind, enum hog_loss loss, enum hog_rule rule,
                           const uint64_t shape[4], uint32_t flags);

/* The training engine's bookkeeping saved beside the model in a checkpoint. */
typedef struct hog_ckpt {
	int in_epoch;        /* 1: saved inside epoch epochs_done+1 at positions[] */
	uint32_t nworkers;
	uint64_t *positions; /* examples each worker had done in that epoch */
	uint64_t data_hash;  /* of the training set (counts and a sample of its contents) */
	uint64_t opts_hash;  /* of the options that change the result */
} hog_ckpt;

/* hog_model_save() with the engine's bookkeeping (@p ck may be NULL). */
int hog_model_save_ckpt(const hog_model *m, const hog_ckpt *ck, const char *path, hog_err *err);
/* hog_model_load() that also returns the bookkeeping (@p ck may be NULL; free
 * ck->positions). */
int hog_model_load_ckpt(hog_model **m, hog_ckpt *ck, const char *path, hog_err *err);

/* Evaluation figures summed example by example (evalacc.c): a set in chunks
 * gets the whole set's figures to the last bit. */
enum { HOG_ACC_MARGINS = 1, HOG_ACC_RATINGS, HOG_ACC_CLASSES };
struct hog_eval_acc {
	int mode, binary, oom, auc_oom;
	enum hog_loss loss;
	uint32_t classes;          /* HOG_ACC_CLASSES: the outputs */
	uint64_t n, right;
	double sl, sll, sse, sae;
	float *pos, *neg;          /* binary: the margins of the positives and the negatives (AUC) */
	uint64_t npos, nneg, cpos, cneg;
	const hog_model *m;        /* hog_model_eval_begin()'s */
	float *pred;
	uint64_t cap;
	uint64_t *cm;              /* confusion counts, C * C, or NULL */
	uint32_t C;
};
void hog_acc_init(hog_eval_acc *a, enum hog_loss loss, int binary);
/* Margins against labels: loss (a->loss), and log loss, accuracy and AUC when
 * binary, else squared and absolute errors. */
void hog_acc_margins(hog_eval_acc *a, const float *margins, const float *labels, uint64_t n);
/* Predicted ratings against true ones (mf). */
void hog_acc_ratings(hog_eval_acc *a, const float *pred, const float *ratings, uint64_t n);
/* Class probabilities (@p outputs a row; one: the sigmoid's) against d's labels (mlp). */
void hog_acc_probs(hog_eval_acc *a, const float *prob, uint64_t outputs, const hog_data *d);
/* The figures (and frees the AUC's margins). */
void hog_acc_finish(hog_eval_acc *a, hog_eval *ev);

/** Loss, accuracy and AUC (binary) or RMSE and MAE from precomputed margins. */
int hog_model_eval_margins(enum hog_loss loss, const float *margins, const float *labels, uint64_t n,
                           int binary, hog_eval *ev);

/* The model file's sections (model_sections.c): their bytes for @p m; them as
 * one buffer of *len bytes (NULL with *len 0 when there are none, NULL with
 * *len 1 when out of memory); and a file's @p len bytes of them read into @p m
 * (HOG_ECORRUPT naming @p path where one is damaged). */
uint64_t hog_model_sections_size(const hog_model *m);
unsigned char *hog_model_sections_build(const hog_model *m, uint64_t *len);
int hog_model_sections_parse(hog_model *m, const unsigned char *b, uint64_t len, const char *path, hog_err *err);

#endif
