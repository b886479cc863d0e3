/* The CUDA backend: the table of backend.h on one NVIDIA GPU. sgemm is cuBLAS
 * (row-major by swapping the operands: C = A B row-major is C^T = B^T A^T in
 * cuBLAS's column-major view); bias, activations, softmax with cross-entropy and
 * the sparse first layer are small kernels here.
 *
 * Design: one handle = one device, one stream, one cuBLAS handle bound to that
 * stream, and a pinned staging buffer for copies; every op is queued on the
 * handle's stream, so a worker's ops run in order and two workers' handles can
 * overlap on the GPU. Buffers are cudaMalloc'd (never managed memory) and live
 * until released. The cuBLAS math mode is set explicitly: CUBLAS_DEFAULT_MATH
 * (full FP32) unless HOG_BACKEND_TF32 asks for TF32 tensor cores.
 *
 * Errors: a failing CUDA or cuBLAS call becomes HOG_ECUDA with the call and
 * CUDA's text; running out of device memory names the bytes asked for and what
 * was free. Kernel launch errors are caught with cudaGetLastError() after each
 * launch; faults inside a kernel surface at the next sync or download.
 *
 * Built into the plugin libhogwild-cuda.so (see cuda.h): everything here is
 * hidden but the entry point, and the library functions it needs come from the
 * host's table, H. */
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "backend/cuda.h"
#include "sys/err.h"
}

namespace {

const hog_cuda_host *H; /* set once by the entry point, before anything else runs */

struct cu_ctx {
	int dev;
	cudaStream_t stream;
	cublasHandle_t blas;
	void *pinned;         /* host staging for upload/download */
	size_t pinned_size;
	cudaEvent_t pinned_free; /* recorded after the last copy out of `pinned` */
	double *d_loss;       /* device scalar for the cross-entropy sum */
};

/* Copies larger than this go through the pinned buffer in pieces. */
const size_t CU_STAGE_MAX = (size_t)16 << 20;

int cu_fail(hog_err *err, cudaError_t e, const char *call)
{
	int rc = H->err_set(err, HOG_ECUDA, "CUDA %s: %s (%s)", call, cudaGetErrorString(e),
	                     cudaGetErrorName(e));
	(void)cudaGetLastError(); /* a non-sticky error must not reappear at the next call */
	return rc;
}

int cublas_fail(hog_err *err, cublasStatus_t s, const char *call)
{
	return H->err_set(err, HOG_ECUDA, "cuBLAS %s: %s (%s)", call, cublasGetStatusString(s),
	                   cublasGetStatusName(s));
}

#define CU(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
	return cu_fail(err, e_, #call); } while (0)
#define CB(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) \
	return cublas_fail(err, s_, #call); } while (0)
/* After a kernel launch: the configuration errors come back here. */
#define CU_LAUNCHED(name) do { cudaError_t e_ = cudaGetLastError(); if (e_ != cudaSuccess) \
	return cu_fail(err, e_, name "<<<>>>"); } while (0)
/* Every op starts here: the handle's device current for this thread. */
#define CU_ENTER(b) do { int rc_ = cu_enter(b, err); if (rc_) return rc_; } while (0)

cu_ctx *ctx_of(hog_backend *b)
{
	return (cu_ctx *)b->ctx;
}

/* Makes the handle's device current for this thread (cheap when it already is). */
int cu_enter(hog_backend *b, hog_err *err)
{
	CU(cudaSetDevice(ctx_of(b)->dev));
	return 0;
}

unsigned grid_for(size_t n, unsigned block)
{
	size_t g = (n + block - 1) / block;
	return g > 65535u * 16 ? 65535u * 16 : g ? (unsigned)g : 1u;
}

/* ---- kernels ---- */

__global__ void k_bias_add(size_t total, int cols, float *X, const float *bias)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
	     i += (size_t)gridDim.x * blockDim.x)
		X[i] += bias[i % cols];
}

/* Column sums: a block covers 32 columns with 8 lanes of rows, then reduces the
 * lanes in shared memory (reads are coalesced along a row). */
__global__ void k_bias_grad(int rows, int cols, const float *dY, float beta, float *db)
{
	__shared__ float part[8][33];
	int j = blockIdx.x * 32 + threadIdx.x;
	float s = 0;
	if (j < cols)
		for (int i = threadIdx.y; i < rows; i += 8)
			s += dY[(size_t)i * cols + j];
	part[threadIdx.y][threadIdx.x] = s;
	__syncthreads();
	if (threadIdx.y == 0 && j < cols) {
		for (int r = 1; r < 8; r++)
			s += part[r][threadIdx.x];
		db[j] = beta == 0 ? s : beta * db[j] + s;
	}
}

__global__ void k_act_fwd(int act, size_t n, const float *X, float *Y)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		float x = X[i];
		Y[i] = act == HOG_ACT_RELU ? (x > 0 ? x : 0)
		     : act == HOG_ACT_SIGMOID ? 1.0f / (1.0f + expf(-x)) : x;
	}
}

__global__ void k_act_bwd(int act, size_t n, const float *Y, const float *dY, float *dX)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		float y = Y[i], g = dY[i];
		dX[i] = act == HOG_ACT_RELU ? (y > 0 ? g : 0)
		      : act == HOG_ACT_SIGMOID ? g * y * (1 - y) : g;
	}
}

/* Softmax + cross-entropy, one block per row (the same equations as hog_cpu_xent:
 * -log p_y = log s - (z_y - m)). A label out of range makes the loss NaN.
 * W: the rows' weights in place of 1/rows (NULL: the mean). */
__global__ void k_softmax_xent(int rows, int classes, const float *Z, const int32_t *labels,
                               const float *W, float *P, float *dZ, double *loss)
{
	__shared__ float red[256];
	int i = blockIdx.x, t = threadIdx.x;
	const float *z = Z + (size_t)i * classes;
	float m = -INFINITY;
	for (int j = t; j < classes; j += blockDim.x)
		m = fmaxf(m, z[j]);
	red[t] = m;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (t < s)
			red[t] = fmaxf(red[t], red[t + s]);
		__syncthreads();
	}
	m = red[0];
	__syncthreads();
	/* the sum, and the sum without the label's term: p_y - 1 = -other / sum */
	int y = labels ? labels[i] : -1;
	int bad = labels && (y < 0 || y >= classes);
	float sum = 0, other = 0;
	for (int j = t; j < classes; j += blockDim.x) {
		float e = expf(z[j] - m);
		sum += e;
		other += j != y ? e : 0;
	}
	__shared__ float red2[256];
	red[t] = sum;
	red2[t] = other;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (t < s) {
			red[t] += red[t + s];
			red2[t] += red2[t + s];
		}
		__syncthreads();
	}
	sum = red[0];
	other = red2[0];
	float is = 1.0f / sum, inv = W ? W[i] : 1.0f / rows;
	if (t == 0 && loss) {
		double l = bad ? (double)NAN : log((double)sum) - ((double)z[y] - m);
		atomicAdd(loss, W ? inv * l : l);
	}
	for (int j = t; j < classes; j += blockDim.x) {
		float p = expf(z[j] - m) * is;
		if (P)
			P[(size_t)i * classes + j] = p;
		if (dZ)
			dZ[(size_t)i * classes + j] = (j == y ? -other * is : p) * inv;
	}
}

/* One logit per row: sigmoid and binary cross-entropy from the logit. */
__global__ void k_sigmoid_xent(int rows, const float *Z, const int32_t *labels, const float *W,
                               float *P, float *dZ, double *loss)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= rows)
		return;
	float z = Z[i], p = 1.0f / (1.0f + expf(-z));
	float y = labels && labels[i] > 0 ? 1.0f : 0.0f;
	if (loss) {
		double l = log1p(exp(-fabs((double)z))) + (z > 0 ? z : 0) - y * (double)z;
		atomicAdd(loss, W ? W[i] * l : l);
	}
	if (P)
		P[i] = p;
	if (dZ) { /* p - 1 = -1 / (1 + e^z): no cancellation where p rounds to 1 */
		float g = y > 0 ? -1.0f / (1.0f + expf(z)) : p;
		dZ[i] = W ? g * W[i] : g / rows;
	}
}

/* Sparse rows times W, one block per row, threads along the row of Y. */
__global__ void k_spmm(int rows, const uint32_t *off, const uint32_t *ids, const float *vals,
                       int n, const float *W, int ldw, float beta, float *Y, int ldy)
{
	int i = blockIdx.x;
	uint32_t p0 = off[i], p1 = off[i + 1];
	for (int j = threadIdx.x; j < n; j += blockDim.x) {
		float s = 0;
		for (uint32_t p = p0; p < p1; p++)
			s += (vals ? vals[p] : 1.0f) * W[(size_t)ids[p] * ldw + j];
		float *y = Y + (size_t)i * ldy + j;
		*y = beta == 0 ? s : beta * *y + s;
	}
}

/* The scatter of its weight gradient: rows of a batch may share ids, hence atomics. */
__global__ void k_spmm_grad(int rows, const uint32_t *off, const uint32_t *ids,
                            const float *vals, int n, const float *dY, int ldy, float alpha,
                            float *dW, int ldw)
{
	int i = blockIdx.x;
	for (uint32_t p = off[i]; p < off[i + 1]; p++) {
		float a = alpha * (vals ? vals[p] : 1.0f);
		float *d = dW + (size_t)ids[p] * ldw;
		for (int j = threadIdx.x; j < n; j += blockDim.x)
			atomicAdd(d + j, a * dY[(size_t)i * ldy + j]);
	}
}

__global__ void k_axpy(size_t n, float alpha, const float *X, float *Y)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		Y[i] += alpha * X[i];
}

/* ---- the table ---- */

void cu_free(hog_backend *b)
{
	cu_ctx *c = ctx_of(b);
	if (!c)
		return;
	cudaSetDevice(c->dev);
	if (c->stream)
		cudaStreamSynchronize(c->stream);
	if (c->blas)
		cublasDestroy(c->blas);
	if (c->d_loss)
		cudaFree(c->d_loss);
	if (c->pinned)
		cudaFreeHost(c->pinned);
	if (c->pinned_free)
		cudaEventDestroy(c->pinned_free);
	if (c->stream)
		cudaStreamDestroy(c->stream);
	free(c);
	b->ctx = NULL;
}

int cu_sync(hog_backend *b, hog_err *err)
{
	CU_ENTER(b);
	CU(cudaStreamSynchronize(ctx_of(b)->stream));
	return 0;
}

int cu_alloc(hog_backend *b, size_t bytes, void **out, hog_err *err)
{
	CU_ENTER(b);
	cudaError_t e = cudaMalloc(out, bytes ? bytes : 1);
	if (e == cudaErrorMemoryAllocation) {
		(void)cudaGetLastError();
		size_t fr = 0, tot = 0;
		cudaMemGetInfo(&fr, &tot);
		return H->err_set(err, HOG_ECUDA, "%s: out of device memory: asked for %zu bytes "
		                   "(%.1f MiB), %.1f MiB free of %.1f MiB", b->device, bytes,
		                   bytes / 1048576.0, fr / 1048576.0, tot / 1048576.0);
	}
	CU(e);
	return 0;
}

void cu_release(hog_backend *b, void *p)
{
	cudaSetDevice(ctx_of(b)->dev);
	cudaFree(p); /* synchronizes the device: release at the end of a run, not per batch */
}

/* Makes the pinned buffer at least `bytes` (at most CU_STAGE_MAX) large, after the
 * copies that still read it are done. */
int cu_pinned(cu_ctx *c, size_t bytes, hog_err *err)
{
	CU(cudaEventSynchronize(c->pinned_free));
	if (bytes <= c->pinned_size)
		return 0;
	if (c->pinned)
		CU(cudaFreeHost(c->pinned));
	c->pinned = NULL;
	c->pinned_size = 0;
	CU(cudaMallocHost(&c->pinned, bytes));
	c->pinned_size = bytes;
	return 0;
}

int cu_upload(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err)
{
	cu_ctx *c = ctx_of(b);
	CU_ENTER(b);
	for (size_t done = 0; done < bytes;) {
		size_t piece = bytes - done < CU_STAGE_MAX ? bytes - done : CU_STAGE_MAX;
		int rc = cu_pinned(c, piece, err); /* waits until the last piece has left */
		if (rc)
			return rc;
		memcpy(c->pinned, (const char *)src + done, piece);
		CU(cudaMemcpyAsync((char *)dst + done, c->pinned, piece, cudaMemcpyHostToDevice,
		                   c->stream));
		CU(cudaEventRecord(c->pinned_free, c->stream));
		done += piece;
	}
	return 0;
}

int cu_download(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err)
{
	cu_ctx *c = ctx_of(b);
	CU_ENTER(b);
	for (size_t done = 0; done < bytes;) {
		size_t piece = bytes - done < CU_STAGE_MAX ? bytes - done : CU_STAGE_MAX;
		int rc = cu_pinned(c, piece, err);
		if (rc)
			return rc;
		CU(cudaMemcpyAsync(c->pinned, (const char *)src + done, piece, cudaMemcpyDeviceToHost,
		                   c->stream));
		CU(cudaStreamSynchronize(c->stream));
		memcpy((char *)dst + done, c->pinned, piece);
		done += piece;
	}
	return 0;
}

int cu_gemm(hog_backend *b, int ta, int tb, int m, int n, int k, float alpha, const float *A,
            int lda, const float *B, int ldb, float beta, float *C, int ldc, hog_err *err)
{
	if (m == 0 || n == 0)
		return 0;
	CU_ENTER(b);
	/* row-major C (m x n) = op(A) op(B)  <=>  column-major C^T = op(B)^T op(A)^T */
	CB(cublasSgemm(ctx_of(b)->blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
	               n, m, k, &alpha, B, ldb, A, lda, &beta, C, ldc));
	return 0;
}

int cu_bias_add(hog_backend *b, int rows, int cols, float *X, const float *bias, hog_err *err)
{
	size_t total = (size_t)rows * cols;
	if (!total)
		return 0;
	CU_ENTER(b);
	k_bias_add<<<grid_for(total, 256), 256, 0, ctx_of(b)->stream>>>(total, cols, X, bias);
	CU_LAUNCHED("k_bias_add");
	return 0;
}

int cu_bias_grad(hog_backend *b, int rows, int cols, const float *dY, float beta, float *db,
                 hog_err *err)
{
	if (cols <= 0)
		return 0;
	CU_ENTER(b);
	k_bias_grad<<<(cols + 31) / 32, dim3(32, 8), 0, ctx_of(b)->stream>>>(rows, cols, dY, beta,
	                                                                       db);
	CU_LAUNCHED("k_bias_grad");
	return 0;
}

int cu_act_fwd(hog_backend *b, enum hog_act act, size_t n, const float *X, float *Y,
               hog_err *err)
{
	if (!n)
		return 0;
	CU_ENTER(b);
	k_act_fwd<<<grid_for(n, 256), 256, 0, ctx_of(b)->stream>>>((int)act, n, X, Y);
	CU_LAUNCHED("k_act_fwd");
	return 0;
}

int cu_act_bwd(hog_backend *b, enum hog_act act, size_t n, const float *Y, const float *dY,
               float *dX, hog_err *err)
{
	if (!n)
		return 0;
	CU_ENTER(b);
	k_act_bwd<<<grid_for(n, 256), 256, 0, ctx_of(b)->stream>>>((int)act, n, Y, dY, dX);
	CU_LAUNCHED("k_act_bwd");
	return 0;
}

int cu_xent(hog_backend *b, int rows, int classes, const float *Z, const int32_t *labels,
            const float *weights, float *P, float *dZ, double *loss, hog_err *err)
{
	cu_ctx *c = ctx_of(b);
	if (loss)
		*loss = 0;
	if (rows == 0)
		return 0;
	CU_ENTER(b);
	double *dl = loss ? c->d_loss : NULL;
	if (dl)
		CU(cudaMemsetAsync(dl, 0, sizeof *dl, c->stream));
	if (classes == 1)
		k_sigmoid_xent<<<(rows + 255) / 256, 256, 0, c->stream>>>(rows, Z, labels, weights, P, dZ, dl);
	else
		k_softmax_xent<<<rows, classes <= 32 ? 32 : classes <= 128 ? 128 : 256, 0,
		                 c->stream>>>(rows, classes, Z, labels, weights, P, dZ, dl);
	CU_LAUNCHED("k_softmax_xent");
	if (loss) {
		double sum;
		int rc = cu_download(b, &sum, dl, sizeof sum, err);
		if (rc)
			return rc;
		*loss = weights ? sum : sum / rows;
	}
	return 0;
}

int cu_spmm(hog_backend *b, int rows, const uint32_t *offsets, const uint32_t *ids,
            const float *vals, int n, const float *W, int ldw, float beta, float *Y, int ldy,
            hog_err *err)
{
	if (rows == 0 || n == 0)
		return 0;
	CU_ENTER(b);
	k_spmm<<<rows, n < 256 ? 32 * ((n + 31) / 32) : 256, 0, ctx_of(b)->stream>>>(
		rows, offsets, ids, vals, n, W, ldw, beta, Y, ldy);
	CU_LAUNCHED("k_spmm");
	return 0;
}

int cu_spmm_grad(hog_backend *b, int rows, const uint32_t *offsets, const uint32_t *ids,
                 const float *vals, int n, const float *dY, int ldy, float alpha, float *dW,
                 int ldw, hog_err *err)
{
	if (rows == 0 || n == 0)
		return 0;
	CU_ENTER(b);
	k_spmm_grad<<<rows, n < 256 ? 32 * ((n + 31) / 32) : 256, 0, ctx_of(b)->stream>>>(
		rows, offsets, ids, vals, n, dY, ldy, alpha, dW, ldw);
	CU_LAUNCHED("k_spmm_grad");
	return 0;
}

int cu_axpy(hog_backend *b, size_t n, float alpha, const float *X, float *Y, hog_err *err)
{
	if (!n)
		return 0;
	CU_ENTER(b);
	k_axpy<<<grid_for(n, 256), 256, 0, ctx_of(b)->stream>>>(n, alpha, X, Y);
	CU_LAUNCHED("k_axpy");
	return 0;
}

hog_backend_ops make_ops()
{
	hog_backend_ops o;
	memset(&o, 0, sizeof o);
	o.name = "cuda";
	o.free = cu_free;
	o.sync = cu_sync;
	o.alloc = cu_alloc;
	o.release = cu_release;
	o.upload = cu_upload;
	o.download = cu_download;
	o.gemm = cu_gemm;
	o.bias_add = cu_bias_add;
	o.bias_grad = cu_bias_grad;
	o.act_fwd = cu_act_fwd;
	o.act_bwd = cu_act_bwd;
	o.xent = cu_xent;
	o.spmm = cu_spmm;
	o.spmm_grad = cu_spmm_grad;
	o.axpy = cu_axpy;
	return o;
}

const hog_backend_ops cuda_ops = make_ops();

/* Opening steps in one place so a failure at any of them frees what came before. */
int cu_open_ctx(cu_ctx *c, hog_backend *b, unsigned flags, hog_err *err)
{
	CU(cudaSetDevice(c->dev));
	CU(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
	CU(cudaEventCreateWithFlags(&c->pinned_free, cudaEventDisableTiming));
	CU(cudaEventRecord(c->pinned_free, c->stream));
	CB(cublasCreate(&c->blas));
	CB(cublasSetStream(c->blas, c->stream));
	CB(cublasSetMathMode(c->blas, (flags & HOG_BACKEND_TF32) ? CUBLAS_TF32_TENSOR_OP_MATH
	                                                          : CUBLAS_DEFAULT_MATH));
	return cu_alloc(b, sizeof(double), (void **)&c->d_loss, err);
}

int cuda_gpus(hog_gpu *out, int max, int *count, char *why, size_t why_size)
{
	int n = 0;
	*count = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		/* no driver, no device: zero GPUs, and the reason for whoever asks */
		if (why && why_size)
			snprintf(why, why_size, "%s", cudaGetErrorString(e));
		(void)cudaGetLastError();
		return 0;
	}
	if (n == 0 && why && why_size)
		snprintf(why, why_size, "no CUDA device");
	for (int i = 0; i < n && i < max; i++) {
		cudaDeviceProp p;
		if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
			(void)cudaGetLastError();
			continue;
		}
		hog_gpu *g = &out[*count];
		memset(g, 0, sizeof *g);
		g->index = i;
		snprintf(g->name, sizeof g->name, "%.*s", (int)sizeof g->name - 1, p.name);
		g->memory = p.totalGlobalMem;
		g->major = p.major;
		g->minor = p.minor;
		g->multiprocessors = p.multiProcessorCount;
		(*count)++;
	}
	return 0;
}

int cuda_open(hog_backend **out, int ordinal, unsigned flags, hog_err *err)
{
	int n = 0;
	char dev[32];
	snprintf(dev, sizeof dev, "cuda:%d", ordinal);
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		return H->err_set(err, HOG_ECUDA, "device '%s': no usable GPU (cudaGetDeviceCount: "
		                   "%s)", dev, cudaGetErrorString(e));
	}
	if (ordinal >= n)
		return H->err_set(err, HOG_ECUDA, "device '%s': this machine has %d GPU%s", dev, n,
		                   n == 1 ? "" : "s");
	cu_ctx *c = (cu_ctx *)calloc(1, sizeof *c);
	if (!c)
		return H->err_set(err, ENOMEM, "device '%s': out of memory", dev);
	c->dev = ordinal;
	hog_backend *b = NULL;
	int rc = H->backend_wrap(&b, &cuda_ops, c, dev, flags, err);
	if (rc) {
		free(c);
		return rc;
	}
	if ((rc = cu_open_ctx(c, b, flags, err)) != 0) {
		H->err_prefix(err, "device '%s'", dev);
		H->backend_close(b);
		return rc;
	}
	*out = b;
	return 0;
}

} /* namespace */

extern "C" __attribute__((visibility("default")))
int hog_cuda_plugin_v1(const hog_cuda_host *host, hog_cuda_plugin *out, char *why, size_t why_size)
{
	if (host->abi != HOG_CUDA_PLUGIN_ABI || host->backend_size != sizeof(hog_backend) ||
	    host->ops_size != sizeof(hog_backend_ops) || host->err_size != sizeof(hog_err)) {
		snprintf(why, why_size, "built for another hogwild (the plugin is %s, plugin ABI %d; the "
		         "program is %s, ABI %d): rebuild both from one tree", HOG_VERSION_STRING,
		         HOG_CUDA_PLUGIN_ABI, host->abi == HOG_CUDA_PLUGIN_ABI ? host->version : "another",
		         host->abi);
		return -1;
	}
	H = host;
	out->version = HOG_VERSION_STRING;
	out->open = cuda_open;
	out->gpus = cuda_gpus;
	return 0;
}
