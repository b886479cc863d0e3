/* The dense compute backend (docs/architecture.md §8): an opaque hog_backend over a table of
 * function pointers, the ggml habit. A model (the MLP) calls the hog_backend_*
 * wrappers below; each forwards to the backend's table entry, and where an entry
 * is NULL ("not supported") falls back to the CPU implementation, staging the
 * operands through host memory when the backend's buffers are not host memory.
 *
 * Memory: every pointer an op takes is a *backend buffer*: memory from
 * hog_backend_alloc() (for the CPU backend any host memory will do). Buffers live
 * for the run; data moves with hog_backend_upload()/hog_backend_download().
 *
 * Layout: matrices are row-major with a leading dimension (the distance between
 * rows, in floats), as in cblas with CblasRowMajor. Elementwise ops take
 * contiguous arrays.
 *
 * Threads: a handle is used by one thread at a time; each worker opens its own
 * (the CPU one is a few bytes; a CUDA one owns a stream and a cuBLAS handle).
 * Ops may run asynchronously: results are visible after hog_backend_sync() or a
 * download (which synchronizes). Every op returns 0 or a HOG_E* code with detail
 * in err (HOG_ECUDA for a failed CUDA/cuBLAS call). Shapes that make no sense
 * (negative sizes, ld smaller than a row) and labels outside 0..classes-1 are
 * HOG_ECONFIG and HOG_EDATA: the library never aborts or prints. */
#ifndef HOG_BACKEND_H
#define HOG_BACKEND_H
#include "hogwild.h"
#include <stddef.h>
#include <stdint.h>

/** Activation functions. Backward passes take the activation's *output* y
 * (ReLU: y > 0 exactly where x > 0; sigmoid: y(1-y)), so a layer keeps one array. */
enum hog_act {
	HOG_ACT_NONE = 0,    /**< identity */
	HOG_ACT_RELU = 1,    /**< max(0, x) */
	HOG_ACT_SIGMOID = 2, /**< 1 / (1 + exp(-x)) */
};

/** The table a backend fills in. NULL entries fall back to the CPU op (see the
 * wrappers). `ctx` is the backend's own state. */
typedef struct hog_backend_ops {
	const char *name; /**< "cpu", "cuda" */
	/* lifetime */
	void (*free)(hog_backend *b);
	int (*sync)(hog_backend *b, hog_err *err);
	/* buffers; NULL alloc means buffers are host memory (malloc) */
	int (*alloc)(hog_backend *b, size_t bytes, void **out, hog_err *err);
	void (*release)(hog_backend *b, void *p);
	int (*upload)(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err);
	int (*download)(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err);
	/* operations: the same signatures as the wrappers below, minus the handle's table */
	int (*gemm)(hog_backend *b, int ta, int tb, int m, int n, int k, float alpha,
	            const float *A, int lda, const float *B, int ldb, float beta, float *C,
	            int ldc, hog_err *err);
	int (*bias_add)(hog_backend *b, int rows, int cols, float *X, const float *bias,
	                hog_err *err);
	int (*bias_grad)(hog_backend *b, int rows, int cols, const float *dY, float beta,
	                 float *db, hog_err *err);
	int (*act_fwd)(hog_backend *b, enum hog_act act, size_t n, const float *X, float *Y,
	               hog_err *err);
	int (*act_bwd)(hog_backend *b, enum hog_act act, size_t n, const float *Y,
	               const float *dY, float *dX, hog_err *err);
	int (*xent)(hog_backend *b, int rows, int classes, const float *Z, const int32_t *labels,
	            const float *weights, float *P, float *dZ, double *loss, hog_err *err);
	int (*spmm)(hog_backend *b, int rows, const uint32_t *offsets, const uint32_t *ids,
	            const float *vals, int n, const float *W, int ldw, float beta, float *Y,
	            int ldy, hog_err *err);
	int (*spmm_grad)(hog_backend *b, int rows, const uint32_t *offsets, const uint32_t *ids,
	                 const float *vals, int n, const float *dY, int ldy, float alpha,
	                 float *dW, int ldw, hog_err *err);
	int (*axpy)(hog_backend *b, size_t n, float alpha, const float *X, float *Y,
	            hog_err *err);
} hog_backend_ops;

/** The handle behind hogwild.h's opaque type. */
struct hog_backend {
	const hog_backend_ops *ops;
	void *ctx;        /**< the backend's state */
	unsigned flags;   /**< HOG_BACKEND_* from the open call */
	char device[32];  /**< "cpu", "cuda:0" */
	/* host staging for the CPU fallback of a non-host backend (grown as needed) */
	void *stage;
	size_t stage_size;
};

/** Wraps a table and a context into a handle (backends and tests use it). */
int hog_backend_wrap(hog_backend **out, const hog_backend_ops *ops, void *ctx,
                     const char *device, unsigned flags, hog_err *err);

/* ---- buffers ---- */
/** A buffer of @p bytes (64-byte aligned on the CPU). @return 0, ENOMEM or
 * HOG_ECUDA naming the bytes asked for. */
int hog_backend_alloc(hog_backend *b, size_t bytes, void **out, hog_err *err);
/** Frees a buffer from hog_backend_alloc(); NULL is fine. */
void hog_backend_release(hog_backend *b, void *p);
/** Host -> buffer, @p bytes. */
int hog_backend_upload(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err);
/** Buffer -> host, @p bytes; waits for the ops queued before it. */
int hog_backend_download(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err);
/** Waits for every queued op. */
int hog_backend_sync(hog_backend *b, hog_err *err);
/** 1 when buffers are plain host memory (the CPU backend). */
int hog_backend_is_host(const hog_backend *b);

/* ---- operations ---- */
/** C = alpha * op(A) * op(B) + beta * C, row-major; op(A) is m x k, op(B) k x n,
 * C m x n; @p ta / @p tb non-zero transpose A / B as stored (sgemm). With
 * beta == 0, C is not read (NaN in C does not propagate). */
int hog_backend_gemm(hog_backend *b, int ta, int tb, int m, int n, int k, float alpha,
                     const float *A, int lda, const float *B, int ldb, float beta, float *C,
                     int ldc, hog_err *err);
/** X[i][j] += bias[j] for a contiguous rows x cols matrix. */
int hog_backend_bias_add(hog_backend *b, int rows, int cols, float *X, const float *bias,
                         hog_err *err);
/** db[j] = beta * db[j] + sum_i dY[i][j] (the bias gradient; beta 1 accumulates,
 * 0 overwrites without reading db). */
int hog_backend_bias_grad(hog_backend *b, int rows, int cols, const float *dY, float beta,
                          float *db, hog_err *err);
/** Y = act(X), n values; Y may be X. */
int hog_backend_act_fwd(hog_backend *b, enum hog_act act, size_t n, const float *X, float *Y,
                        hog_err *err);
/** dX = dY * act'(x), computed from the output Y = act(x); dX may be dY. */
int hog_backend_act_bwd(hog_backend *b, enum hog_act act, size_t n, const float *Y,
                        const float *dY, float *dX, hog_err *err);
/** The output layer with cross-entropy, fused. Z: rows x classes logits.
 *  classes >= 2: P = softmax(Z) by row, loss = mean_i -log P[i][label_i],
 *                dZ = (P - onehot(label)) / rows (Eq. of the softmax-CE gradient);
 *  classes == 1: one logit per row, P = sigmoid(Z), binary cross-entropy with
 *                labels 0/1, dZ = (P - label) / rows.
 * @p weights (a buffer of rows floats, or NULL) replaces the mean's 1/rows by
 * row: loss = sum_i weights[i] l_i and row i of dZ is weights[i] times its
 * gradient (example weights: the caller normalizes them; NULL is the mean,
 * bit for bit as before weights existed).
 * P may be Z; dZ may be Z or P (it is written last). @p labels (int32 class
 * numbers in a buffer) may be NULL when neither dZ nor loss is wanted; @p dZ and
 * @p loss (a host double; the call then waits for the result) may be NULL.
 * A label outside 0..classes-1 is a programmer error (checked on the CPU). */
int hog_backend_xent(hog_backend *b, int rows, int classes, const float *Z,
                     const int32_t *labels, const float *weights, float *P, float *dZ, double *loss,
                     hog_err *err);
/** Sparse first layer: Y = beta * Y + X * W with X a CSR matrix of @p rows rows
 * (row i holds ids[offsets[i] .. offsets[i+1]-1], values vals[...] or 1 when
 * @p vals is NULL; offsets[0] need not be 0) and W a (max id + 1) x n matrix with
 * leading dimension ldw. Y: rows x n, leading dimension ldy. */
int hog_backend_spmm(hog_backend *b, int rows, const uint32_t *offsets, const uint32_t *ids,
                     const float *vals, int n, const float *W, int ldw, float beta, float *Y,
                     int ldy, hog_err *err);
/** Its weight gradient, scattered: dW[ids[p]][:] += alpha * vals[p] * dY[i][:] for
 * every nonzero p of row i. Only the rows of dW the batch touches change, so
 * alpha = -step applies an SGD step to W in place. */
int hog_backend_spmm_grad(hog_backend *b, int rows, const uint32_t *offsets,
                          const uint32_t *ids, const float *vals, int n, const float *dY,
                          int ldy, float alpha, float *dW, int ldw, hog_err *err);
/** Y += alpha * X, n values (gradient steps on weights that live in the backend). */
int hog_backend_axpy(hog_backend *b, size_t n, float alpha, const float *X, float *Y,
                     hog_err *err);

/* ---- a fully connected layer, composed from the ops above (dense.c) ---- */
/** Y = act(X W + bias): X rows x in, W in x out (row-major, ld out), bias out values
 * (NULL: none), Y rows x out (Y must not be X). */
int hog_backend_dense_fwd(hog_backend *b, int rows, int in, int out, const float *X,
                          const float *W, const float *bias, enum hog_act act, float *Y,
                          hog_err *err);
/** Its backward pass. @p Y is the forward output, @p dY the loss gradient with
 * respect to Y, overwritten with the gradient with respect to the pre-activation.
 * dW = beta dW + X^T dY', db = beta db + column sums of dY' (beta 0: overwrite,
 * 1: accumulate over batches), dX = dY' W^T (rows x in) for the layer below.
 * Any of dW, db, dX may be NULL (the first layer needs no dX). */
int hog_backend_dense_bwd(hog_backend *b, int rows, int in, int out, const float *X,
                          const float *W, enum hog_act act, const float *Y, float *dY,
                          float beta, float *dW, float *db, float *dX, hog_err *err);

/* ---- the CPU implementations (cpu.c): host pointers and shapes that the
 * hog_backend_* calls above have checked; cannot fail ---- */
void hog_cpu_gemm(int ta, int tb, int m, int n, int k, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc);
void hog_cpu_bias_add(int rows, int cols, float *X, const float *bias);
void hog_cpu_bias_grad(int rows, int cols, const float *dY, float beta, float *db);
void hog_cpu_act_fwd(enum hog_act act, size_t n, const float *X, float *Y);
void hog_cpu_act_bwd(enum hog_act act, size_t n, const float *Y, const float *dY, float *dX);
/* Returns the rows whose label is outside 0..classes-1 (skipped: no loss, no
 * gradient, no probabilities written). */
int hog_cpu_xent(int rows, int classes, const float *Z, const int32_t *labels, const float *weights,
                 float *P, float *dZ, double *loss);
/* @p bad rows of hog_cpu_xent as the error they are (HOG_EDATA), or 0. */
int hog_cpu_xent_bad(int bad, int classes, hog_err *err);
void hog_cpu_spmm(int rows, const uint32_t *offsets, const uint32_t *ids, const float *vals,
                  int n, const float *W, int ldw, float beta, float *Y, int ldy);
void hog_cpu_spmm_grad(int rows, const uint32_t *offsets, const uint32_t *ids,
                       const float *vals, int n, const float *dY, int ldy, float alpha,
                       float *dW, int ldw);
void hog_cpu_axpy(size_t n, float alpha, const float *X, float *Y);

/* ---- backends (registered in backend.c) ---- */
int hog_cpu_backend_open(hog_backend **out, unsigned flags, hog_err *err);

/* ---- OpenBLAS (blas.c) ---- */
/* hog_backend_blas_one_thread(), _core(), _describe(), _better_core() and
 * _tune() are public (hogwild.h): the command line calls them. */
/** OpenBLAS's thread count for a call (1 after hog_backend_blas_one_thread()). */
int hog_backend_blas_threads(void);
#endif
