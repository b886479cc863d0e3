/* The mlp kind: fully connected ReLU layers with a softmax output (or one
 * sigmoid output for binary labels), its shapes in the model record, and the
 * forward pass that training, prediction and evaluation share.
 *
 * Shapes in hog_model (so that nparams() needs no parameter to read):
 *   shape[0]  input width (dense columns, or the sparse dimension)
 *   shape[1]  outputs: classes of the softmax, or 1 for one sigmoid output
 *   shape[2]  hidden widths 1..4, 16 bits each, low bits first (0 ends the list)
 *   shape[3]  hidden widths 5..8, likewise
 *   flags     HOG_MLP_SPARSE: trained on a sparse set (the first layer is a
 *             sparse-times-dense product); HOG_MLP_MOMENTUM: a velocity is kept
 *   aux       the sgd momentum
 *   loss      HOG_LOSS_SOFTMAX (classes outputs) or HOG_LOSS_LOGISTIC (1 output)
 * Parameters: layer by layer, W_l (n_l x n_{l+1}, row-major: row i holds input
 * i's weights to every unit, the layout a sparse first layer needs) then its
 * bias b_l (n_{l+1}); np floats in all. Then, when the step rule keeps state,
 * np more floats at the same offsets for each of its states
 * (hog_mlp_states()): the velocity (sgd with momentum), AdaGrad's sum of
 * squared gradients, or Adam's two moments (the mean, then the mean of the
 * squares). hog_model.stride is the rule's and says nothing about this layout.
 */
#ifndef HOG_MODEL_MLP_H
#define HOG_MODEL_MLP_H
#include "hogwild.h"
#include "model/model.h"

#define HOG_MLP_MAX_HIDDEN 8
#define HOG_MLP_MAX_WIDTH 65535u
#define HOG_MLP_SPARSE 1u
#define HOG_MLP_MOMENTUM 2u

typedef struct hog_backend hog_backend;

/* Blocks of np floats of step-rule state after the weights: Adam's two
 * moments, momentum's velocity or AdaGrad's sums, or none. */
static inline int hog_mlp_states(enum hog_rule rule, uint32_t flags)
{
	return rule == HOG_RULE_ADAM || rule == HOG_RULE_ADAMW ? 2
	       : rule == HOG_RULE_ADAGRAD || (flags & HOG_MLP_MOMENTUM) ? 1 : 0;
}

/* The layer table derived from a model's shapes. */
typedef struct hog_mlp_shape {
	int L;                                 /* weight layers: hidden + 1 */
	uint64_t n[HOG_MLP_MAX_HIDDEN + 2];    /* widths: n[0] input ... n[L] outputs */
	uint64_t woff[HOG_MLP_MAX_HIDDEN + 1]; /* where W_l starts */
	uint64_t boff[HOG_MLP_MAX_HIDDEN + 1]; /* where b_l starts */
	uint64_t np;                           /* weights and biases */
	uint64_t widest;                       /* the widest layer after the input */
	int sparse;                            /* HOG_MLP_SPARSE */
} hog_mlp_shape;

/* Packs the shapes of a model: @p nh hidden widths (each 1..65535). */
void hog_mlp_pack(uint64_t shape[4], uint64_t inputs, uint64_t outputs, const uint32_t *hidden, int nh);
/* The layer table of @p m's shapes; -1 when they are inconsistent. */
int hog_mlp_shape_of(const uint64_t shape[4], uint32_t flags, hog_mlp_shape *s);

/* One batch of input rows for the forward pass: dense rows (x: rows x n[0],
 * row-major) or a CSR block (offsets from 0, ids, vals or NULL for all ones). */
typedef struct hog_mlp_batch {
	int rows;
	const float *x;
	const uint32_t *offsets, *ids; /* backend buffers: device memory on a GPU */
	const float *vals;
	uint64_t nnz; /* offsets[rows] - offsets[0], known on the host (sparse input) */
} hog_mlp_batch;

/* The forward pass on backend @p b: A[l] (rows x n[l+1], backend buffers) gets
 * layer l's output, ReLU for hidden layers and the logits for the last. W is
 * the np weights (a backend buffer). Returns 0 or the backend's code. */
int hog_mlp_forward(hog_backend *b, const hog_mlp_shape *s, const float *W, const hog_mlp_batch *x,
                    float *const *A, hog_err *err);

/* The output layer's loss after hog_mlp_forward(): cross-entropy of the logits
 * A[L-1] (softmax, or the sigmoid with one output) against @p labels (classes,
 * 0/1 with one output; a backend buffer), its mean over the batch in *loss and
 * its gradient dLoss/dlogits in @p dZ (rows x outputs), which
 * hog_mlp_backward() reads as D[0]. @p weights (a backend buffer of rows
 * floats, or NULL for the mean): each row's factor in place of 1/rows, the
 * loss then sum_i weights[i] l_i (hog_backend_xent). */
int hog_mlp_loss(hog_backend *b, const hog_mlp_shape *s, int rows, float *const *A, const int32_t *labels,
                 const float *weights, float *dZ, double *loss, hog_err *err);
/* The output layer's class probabilities after hog_mlp_forward(), written over
 * the logits A[L-1] (rows x outputs). */
int hog_mlp_probs(hog_backend *b, const hog_mlp_shape *s, int rows, float *const *A, hog_err *err);

/* The backward pass after hog_mlp_forward(): D[0] holds dLoss/dlogits (rows x
 * outputs, as hog_mlp_loss() writes it); G (np floats, the parameters'
 * layout) gets the gradient of every W_l and b_l; D[0] and D[1] (rows x the
 * widest layer) are scratch. A sparse first layer adds its gradient into the
 * rows of W_0 the batch touches: those must be zero before (the others are not
 * written). Adds the products' floating-point operations to *flops (forward
 * and backward: the caller adds the forward's share). */
int hog_mlp_backward(hog_backend *b, const hog_mlp_shape *s, const float *W, const hog_mlp_batch *x,
                     float *const *A, float *const *D, float *G, uint64_t *flops, hog_err *err);

/* A worker's buffers on backend @p b (opened with hog_backend_open()), for
 * the trainer, which reaches the backend through this header only (cli ->
 * train -> model -> backend): memory for @p bytes, freed by
 * hog_mlp_buf_release(); copies in and out of it; and whether the buffers
 * are host memory that the host reads and writes directly (no copies then).
 * Return 0 or the backend's code with @p err set. */
int hog_mlp_buf_alloc(hog_backend *b, size_t bytes, void **out, hog_err *err);
void hog_mlp_buf_release(hog_backend *b, void *p);
int hog_mlp_buf_upload(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err);
int hog_mlp_buf_download(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err);
int hog_mlp_buf_host(const hog_backend *b);

/* Evaluation figures from class probabilities (n x outputs, as the output layer
 * gives them: softmax rows, or sigmoid(margin) with one output) and the labels
 * of @p d: loss = logloss = mean -log p(label), accuracy; binary sets with one
 * output also get the AUC. */
void hog_mlp_eval_probs(const float *prob, uint64_t outputs, const hog_data *d, hog_eval *ev);

/* The label of example @p i of @p d as an output class: multiclass labels as
 * they are, binary -1/+1 as 0/1. */
static inline int hog_mlp_class(const hog_data *d, uint64_t i)
{
	return d->meta.task == HOG_TASK_BINARY ? d->labels[i] > 0 : (int)d->labels[i];
}

#endif
