/* portkern: a portable GPU kernel layer for LLM inference.
 *
 * One C API routes GEMM, tiled attention and fused elementwise ops to a
 * CUDA, HIP, OpenCL or CPU reference backend. Every call returns a
 * pk_status; nothing aborts or prints. Ops are asynchronous on the
 * context's queue; pk_finish waits and reports device-side failures.
 *
 * Conventions
 *  - Tensors are descriptors (pk_tensor): buffer, byte offset, dtype, shape,
 *    strides in elements. Strides may be any non-negative value; a stride of
 *    0 broadcasts where an op says broadcasting is allowed. Strides are
 *    never negative.
 *  - Storage dtypes are f32, f16 and bf16; arithmetic and accumulation are
 *    always f32 (the reference backend accumulates in f64).
 *  - An output tensor shares no byte with any other operand of the call
 *    unless an op says so (GEMM's C may be exactly D; bias_act's out and
 *    chain's out may be exactly an input: same buffer, offset, dtype, shape
 *    and strides; RoPE is in place), and no two elements of an output share
 *    a byte. Both are checked (PK_ERR_INVALID_ARGUMENT): operands of one
 *    buffer pass when their byte ranges are apart or when a common row
 *    period puts them in disjoint columns (slices of one wider matrix, the
 *    slots of a fused QKV tensor); other interleavings are refused even
 *    when they would not collide. An output's dims, sorted by stride, must
 *    each step past what the smaller ones reach.
 *  - Work is bounded by memory: a reduction (GEMM's K, attention's Skv)
 *    must be stored by at least one of its inputs (not broadcast with
 *    stride 0 by both), so no call can ask for more work than its buffers
 *    describe. Attention's batch, sequence and head counts and RoPE's S are
 *    at most 2^31 - 1 (PK_ERR_BAD_SIZE).
 *  - A pk_buffer is a handle: one that was freed, or whose context was
 *    closed, is recognised by every call (PK_ERR_INVALID_ARGUMENT), also
 *    after later allocations (a handle value comes back only after 2^32
 *    reuses of its slot in the process-wide table).
 *  - On any error status the outputs are not touched.
 *
 * Threads
 *  - Any function may be called from any thread. Calls on different
 *    contexts need no lock, on every backend, also when the contexts are
 *    on one device: each has its own queue, compiled programs and kernel
 *    objects, scratch memory and last error. The first use of a backend
 *    (loading its module and runtime) and of an op (building or loading
 *    its kernels) may happen on several threads at once.
 *  - A context, and its buffers' uploads, downloads, copies and fills, is
 *    used by one thread at a time: calls on one context from two threads
 *    at once must be serialised by the caller. A context may move from
 *    one thread to another (handed over with a mutex or a queue). One
 *    context per thread is the model; open several to run in parallel.
 *  - pk_free, pk_buffer_size and pk_buffer_context may be called from any
 *    thread (buffer handles live in one locked table), but freeing a buffer
 *    that another thread is passing to a call, or whose queued work has
 *    not finished, is the caller's race. pk_alloc is a call on its
 *    context, and so is pk_free of a managed DLPack import (it waits for
 *    the context's queue before the deleter runs).
 *  - pk_last_error(ctx) is that context's own message, pk_last_error(NULL)
 *    the calling thread's: a failure never shows in another thread's or
 *    another context's message.
 *  - Device listing (pk_device_count, pk_device_info_get,
 *    pk_backend_unavailable_reason), names and host conversions are
 *    thread-safe. pk_close must not overlap any other call on its context
 *    or buffers.
 *  - PORTKERN_* environment variables are read during calls: do not
 *    change the environment (setenv) while other threads call portkern.
 *  - CUDA, and HIP on NVIDIA: contexts on one device share the device's
 *    primary CUDA context, which each call makes current on the calling
 *    thread (and leaves current). A device fault in one of them is sticky
 *    for all: every context on that device then fails.
 */
#ifndef PORTKERN_H
#define PORTKERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PK_VERSION_MAJOR 0
#define PK_VERSION_MINOR 1
#define PK_VERSION_PATCH 0
#define PK_VERSION (PK_VERSION_MAJOR * 10000 + PK_VERSION_MINOR * 100 + PK_VERSION_PATCH)

#if defined(_WIN32)
#define PK_API __declspec(dllexport)
#else
#define PK_API __attribute__((visibility("default")))
#endif

/* The library's version, as PK_VERSION encodes it; a program built against
 * one header can check the library it runs with. */
PK_API int pk_version(void);
PK_API const char *pk_version_string(void);

/* ---------------------------------------------------------------- status */

typedef enum pk_status {
    PK_SUCCESS = 0,
    PK_ERR_NULL_ARGUMENT,      /* a required handle or pointer is NULL */
    PK_ERR_INVALID_ARGUMENT,   /* a value is outside its domain (an enum, eps <= 0, ...) */
    PK_ERR_DTYPE_MISMATCH,     /* dtypes of the operands do not fit together */
    PK_ERR_SHAPE_MISMATCH,     /* shapes do not fit together, or a size is not supported */
    PK_ERR_BAD_SIZE,           /* a negative size or stride, or one whose product overflows */
    PK_ERR_OUT_OF_BOUNDS,      /* an offset, stride or range reaches past its buffer */
    PK_ERR_MISALIGNED,         /* a byte offset is not a multiple of the element size */
    PK_ERR_WRONG_CONTEXT,      /* a buffer belongs to another context */
    PK_ERR_OUT_OF_MEMORY,      /* the device (or host) could not allocate */
    PK_ERR_UNSUPPORTED,        /* valid, but this backend/device does not implement it */
    PK_ERR_NO_DEVICE,          /* no such backend or device index */
    PK_ERR_BACKEND_UNAVAILABLE,/* the backend's module or runtime could not be loaded */
    PK_ERR_BUILD_FAILED,       /* device code failed to build or load */
    PK_ERR_DEVICE_FAILURE,     /* the device reported a failure running work */
    PK_ERR_CONTEXT_LOST,       /* an earlier failure left the context unusable */
    PK_ERR_INTERNAL,           /* a bug in portkern: please report it */
    PK_STATUS_COUNT
} pk_status;

/* A static name for a status ("PK_ERR_SHAPE_MISMATCH"); never NULL. */
PK_API const char *pk_status_string(pk_status s);

/* ---------------------------------------------------------------- handles */

typedef struct pk_context pk_context; /* one device on one backend, with its queue */
typedef struct pk_buffer pk_buffer;   /* device memory owned by one context */

/* The message of the last failed call on this context, or, for ctx == NULL,
 * of the last failed call on this thread that had no context (pk_open,
 * device listing, calls with a NULL context). Empty string if none. The
 * pointer stays valid until the next call on the same context/thread. */
PK_API const char *pk_last_error(const pk_context *ctx);

/* ---------------------------------------------------------------- devices */

typedef enum pk_backend {
    PK_BACKEND_AUTO = 0, /* CUDA, then HIP, then OpenCL GPU, then OpenCL CPU, then ref */
    PK_BACKEND_REF,      /* CPU, plain C, float64 accumulation: the oracle */
    PK_BACKEND_OPENCL,
    PK_BACKEND_CUDA,
    PK_BACKEND_HIP,
    PK_BACKEND_COUNT
} pk_backend;

/* "auto", "ref", "opencl", "cuda", "hip"; NULL for an unknown value. */
PK_API const char *pk_backend_name(pk_backend b);
/* Parses a backend name; returns PK_ERR_INVALID_ARGUMENT for an unknown one. */
PK_API pk_status pk_backend_from_name(const char *name, pk_backend *out);

typedef struct pk_device_info {
    pk_backend backend;
    int index;                 /* device index within the backend */
    char name[256];
    char vendor[128];
    char driver[128];          /* driver / platform version */
    uint64_t global_mem_bytes;
    uint64_t local_mem_bytes;  /* shared/local memory per work-group */
    int compute_units;
    int simd_width;            /* warp or wavefront width; 1 if not known */
    int is_cpu;
    int native_fp16;           /* fp16 arithmetic in hardware (cl_khr_fp16, ...) */
    int native_bf16;
    int matrix_units;          /* tensor cores / matrix cores in use by portkern */
} pk_device_info;

/* Loads the backend (once) and counts its devices. A backend that cannot be
 * loaded gives count 0 and PK_ERR_BACKEND_UNAVAILABLE, with the reason in
 * pk_last_error(NULL) and in pk_backend_unavailable_reason(). */
PK_API pk_status pk_device_count(pk_backend b, int *count);
PK_API pk_status pk_device_info_get(pk_backend b, int index, pk_device_info *info);
/* Why backend b has no usable device, or NULL if it has one. Static storage. */
PK_API const char *pk_backend_unavailable_reason(pk_backend b);

/* Opens device `index` of backend b. For PK_BACKEND_AUTO the index is
 * ignored, and the PORTKERN_BACKEND environment variable ("ref", "opencl",
 * "cuda", "hip", optionally "opencl:1") overrides the automatic order. */
PK_API pk_status pk_open(pk_backend b, int index, pk_context **out);
PK_API pk_status pk_close(pk_context *ctx); /* waits, frees every buffer left */
PK_API pk_status pk_context_info(const pk_context *ctx, pk_device_info *info);
/* Waits for all queued work; reports a device-side failure of any of it. */
PK_API pk_status pk_finish(pk_context *ctx);

/* ---------------------------------------------------------------- memory */

/* bytes > 0. Device memory is not initialised. */
PK_API pk_status pk_alloc(pk_context *ctx, size_t bytes, pk_buffer **out);
PK_API pk_status pk_free(pk_buffer *buf);
PK_API size_t pk_buffer_size(const pk_buffer *buf);
PK_API pk_context *pk_buffer_context(const pk_buffer *buf);
/* Blocking host<->device copies, ordered after all work queued before. */
PK_API pk_status pk_upload(pk_buffer *dst, size_t dst_offset, const void *src, size_t bytes);
PK_API pk_status pk_download(pk_buffer *src, size_t src_offset, void *dst, size_t bytes);
/* Queued device-to-device copy; both buffers of the same context. The
 * ranges must not overlap unless they are the same range. */
PK_API pk_status pk_copy(pk_buffer *dst, size_t dst_offset, pk_buffer *src,
                         size_t src_offset, size_t bytes);
/* Queued fill with a repeated pattern of 1, 2 or 4 bytes; offset and bytes
 * are multiples of pattern_size. */
PK_API pk_status pk_fill(pk_buffer *dst, size_t offset, size_t bytes,
                         const void *pattern, size_t pattern_size);

/* ---------------------------------------------------------------- the caller's memory and queues
 *
 * portkern inside another program: a context on the caller's queue, a
 * buffer over the caller's memory, and each one's native handle back.
 * Native handles, by backend:
 *              memory                          queue
 *   CUDA       CUdeviceptr                     CUstream (0: the legacy default stream)
 *   HIP        hipDeviceptr_t (device address) hipStream_t (0: the null stream)
 *   OpenCL     cl_mem                          cl_command_queue (in order)
 *   ref        host address                    none
 * CUDA contexts (and HIP on NVIDIA) use the device's primary CUDA context,
 * the one the runtime API and PyTorch use: a stream or memory of another
 * CUDA context is refused. */

/* Opens device `index` of backend b (not AUTO) on the caller's queue: every
 * op, copy and fill of the context is queued there, in order with the
 * caller's own work, so no synchronisation between the two is needed. The
 * context does not own the queue: pk_close waits for it and leaves it. The
 * queue must belong to that device (CUDA: the primary context's; OpenCL:
 * the device's, in-order; its cl_context becomes the context's); ref has
 * no queue and takes only NULL. pk_upload and pk_download still block;
 * they, pk_finish and pk_close wait for the whole queue, the caller's work
 * on it included. */
PK_API pk_status pk_open_on_queue(pk_backend b, int index, void *queue, pk_context **out);
/* The context's queue (its own, or the caller's it was opened on); NULL on
 * ref. */
PK_API pk_status pk_context_queue(const pk_context *ctx, void **queue);

/* A buffer over `bytes` of the caller's memory at `handle` (see the table
 * above), without taking ownership: pk_free and pk_close forget it and
 * free nothing (OpenCL: the buffer holds a reference to the cl_mem until
 * then). The memory must stay valid, and must not be freed by its owner,
 * while portkern's queued work may use it. Checked where the runtime can
 * say: the memory belongs to ctx's device (CUDA/HIP: an allocation on that
 * device holding [handle, handle + bytes), the range where the driver
 * reports one; OpenCL: a cl_mem of ctx's cl_context of at least `bytes`);
 * ref takes any non-null address. */
PK_API pk_status pk_buffer_wrap(pk_context *ctx, uintptr_t handle, size_t bytes, pk_buffer **out);
/* The native handle of a buffer's memory (allocated by portkern or
 * wrapped), for the caller's own kernels and libraries. */
PK_API pk_status pk_buffer_handle(const pk_buffer *buf, uintptr_t *handle);
/* 1 when buf wraps the caller's memory (pk_buffer_wrap, DLPack), 0 when
 * portkern allocated it, -1 when buf is not a live buffer. */
PK_API int pk_buffer_is_wrapped(const pk_buffer *buf);

/* ---------------------------------------------------------------- events
 *
 * An event is a point on a context's queue, after all work queued before
 * it. Events are handles like buffers: one whose context was closed is
 * recognised (PK_ERR_INVALID_ARGUMENT), pk_close frees them. */
typedef struct pk_event pk_event;

PK_API pk_status pk_event_record(pk_context *ctx, pk_event **out);
/* Work queued on ctx after this call starts after `event` is reached.
 * The event may be of another context of the same backend (OpenCL: of the
 * same cl_context). Does not block the host. */
PK_API pk_status pk_event_wait(pk_context *ctx, const pk_event *event);
/* Blocks the host until the event is reached; reports a device failure. */
PK_API pk_status pk_event_synchronize(pk_event *event);
/* Milliseconds between two events of one context; waits for `end`.
 * PK_ERR_UNSUPPORTED on an OpenCL queue of the caller's made without
 * CL_QUEUE_PROFILING_ENABLE. */
PK_API pk_status pk_event_elapsed(const pk_event *start, const pk_event *end, float *ms);
PK_API pk_status pk_event_free(pk_event *event);

/* ---------------------------------------------------------------- tensors */

/* PK_I32 is for indices alone (RoPE positions, attention sequence lengths
 * given on the device, the rows of pk_gather_rows/pk_scatter_rows); every
 * other operand is f32, f16 or bf16. */
typedef enum pk_dtype { PK_F32 = 0, PK_F16, PK_BF16, PK_I32, PK_DTYPE_COUNT } pk_dtype;

#define PK_MAX_DIMS 4

typedef struct pk_tensor {
    pk_buffer *buf;
    size_t offset;                  /* bytes from the buffer start */
    pk_dtype dtype;
    int ndim;                       /* 1..PK_MAX_DIMS */
    int64_t shape[PK_MAX_DIMS];
    int64_t stride[PK_MAX_DIMS];    /* elements */
} pk_tensor;

PK_API const char *pk_dtype_name(pk_dtype t); /* "f32", "f16", "bf16", "i32"; NULL if unknown */
PK_API size_t pk_dtype_size(pk_dtype t);      /* 0 if unknown */

/* A row-major (contiguous) tensor of ndim dims over buf at byte offset. */
PK_API pk_tensor pk_tensor_make(pk_buffer *buf, size_t offset, pk_dtype dtype, int ndim,
                                const int64_t *shape);

/* Host conversions between f32 and the 16-bit storage formats, round to
 * nearest even, NaN preserved. */
PK_API uint16_t pk_f32_to_f16(float f);
PK_API float pk_f16_to_f32(uint16_t h);
PK_API uint16_t pk_f32_to_bf16(float f);
PK_API float pk_bf16_to_f32(uint16_t h);

/* ---------------------------------------------------------------- graphs
 *
 * A sequence of calls on a context recorded once and replayed: one launch
 * for a decode step's hundreds of kernels (a CUDA graph). Between
 * pk_graph_begin and pk_graph_end, the context's ops, pk_copy and pk_fill
 * are recorded instead of run;
 * pk_graph_launch queues the recorded work again, any number of times.
 * The recording holds buffers, offsets and shapes, not values: a replay
 * reads its buffers as they are then, so a step's new tokens and positions
 * go into device tensors (pk_upload) before each launch.
 *  - While recording, calls that copy from the host or wait (pk_upload,
 *    pk_download, pk_finish, pk_event_synchronize, pk_event_elapsed),
 *    pk_alloc, pk_free and the events' record and wait on the recording
 *    context and pk_graph_free of its graphs fail (PK_ERR_INVALID_ARGUMENT),
 *    and an op that would need a host array (positions, lengths: give
 *    device tensors; RoPE also its frequencies as desc->inv_freq) or a
 *    larger internal buffer fails (PK_ERR_UNSUPPORTED, saying which):
 *    run the same calls once before recording, so that buffers have grown.
 *    A failed call is not recorded; recording goes on.
 *  - CUDA, and HIP (stream capture); PK_ERR_UNSUPPORTED elsewhere, and on
 *    a context opened on CUDA's legacy default stream.
 *  - A graph belongs to its context; pk_close frees it. A graph that is
 *    no longer live (freed, its context closed) names no context: the
 *    launch or free of one fails with its message in pk_last_error(NULL). */
typedef struct pk_graph pk_graph;

PK_API pk_status pk_graph_begin(pk_context *ctx);
PK_API pk_status pk_graph_end(pk_context *ctx, pk_graph **out);
PK_API pk_status pk_graph_launch(pk_graph *graph);
PK_API pk_status pk_graph_free(pk_graph *graph);

/* ---------------------------------------------------------------- DLPack
 *
 * Tensors to and from DLPack (the structs are in api/pk_dlpack.h), with no
 * copy. Import: out->buf is a new buffer of ctx that wraps the tensor's
 * memory (pk_buffer_wrap's rules: pk_free it when done; it frees nothing of
 * the producer's). The tensor must live on ctx's device:
 *   ref      CPU memory (also CUDA's and ROCm's pinned host memory)
 *   CUDA     CUDA (or CUDA managed) memory, device_id the CUDA ordinal
 *   HIP      ROCm memory, device_id the HIP ordinal (HIP on NVIDIA: CUDA)
 *   OpenCL   OpenCL, data a cl_mem of ctx's cl_context, device_id ctx's
 *            OpenCL device index
 * and be float32, float16, bfloat16 or int32 with one lane, at most PK_MAX_DIMS
 * dims (dims of size 1 in front of those are dropped; 0 dims give [1]),
 * strides non-negative (NULL: row-major), data + byte_offset aligned to the
 * element size. Anything else: an error status naming what was refused,
 * and nothing is taken. A tensor of no elements holds none of the
 * producer's memory: out->buf is then a one-element buffer of portkern's
 * own, and a managed tensor's deleter runs before the call returns. */
struct pk_dl_tensor;
struct pk_dl_managed;
struct pk_dl_managed_versioned;

/* Borrows t: the producer keeps its memory alive while out->buf lives. */
PK_API pk_status pk_tensor_from_dlpack(pk_context *ctx, const struct pk_dl_tensor *t, pk_tensor *out);
/* Takes m on success: its deleter is called when out->buf is freed (or its
 * context closed). On failure m is untouched and still the caller's. */
PK_API pk_status pk_tensor_from_dlpack_managed(pk_context *ctx, struct pk_dl_managed *m, pk_tensor *out);
/* The same for DLPack 1.x's versioned form (major version 1; a read-only
 * tensor is refused: portkern may write any buffer it is given). */
PK_API pk_status pk_tensor_from_dlpack_versioned(pk_context *ctx, struct pk_dl_managed_versioned *m,
                                                 pk_tensor *out);
/* Export: a DLPack view of t (shape, strides, dtype, device; the memory is
 * t's buffer's). Its deleter frees the struct only: t's buffer must outlive
 * every use of it. CPU, CUDA and ROCm tensors point data at the first
 * element (byte_offset 0); OpenCL's data is the cl_mem and byte_offset
 * t->offset. */
PK_API pk_status pk_tensor_to_dlpack(const pk_tensor *t, struct pk_dl_managed **out);
PK_API pk_status pk_tensor_to_dlpack_versioned(const pk_tensor *t, struct pk_dl_managed_versioned **out);

/* ---------------------------------------------------------------- activations */

typedef enum pk_activation {
    PK_ACT_NONE = 0,
    PK_ACT_RELU,
    PK_ACT_GELU,      /* exact: x * 0.5 * (1 + erf(x / sqrt 2)) */
    PK_ACT_GELU_TANH, /* tanh approximation */
    PK_ACT_SILU,      /* x * sigmoid(x) */
    PK_ACT_COUNT
} pk_activation;

/* ---------------------------------------------------------------- GEMM */

/* D = epilogue(alpha * op(A) @ op(B) + beta * C)
 * epilogue(x) = act(x + bias) + residual, each term optional.
 *
 * A is [M, K] ([K, M] if trans_a), B is [K, N] ([N, K] if trans_b, the
 * linear-layer layout x @ W^T), C and D are [M, N]. Each may carry a leading
 * batch dimension (3-D); a batch of 1 or a batch stride of 0 broadcasts.
 * A and B share a dtype; C, D, bias and residual share D's dtype, which may
 * differ (e.g. bf16 inputs, f32 output). bias is [N] (1-D). residual is
 * shaped like D. C may be exactly D (same buffer, offset and strides); it is
 * then read before it is written. C is required when beta != 0 and ignored
 * when beta == 0 (so an uninitialised D with beta 0 never reads NaN). */
typedef struct pk_gemm_desc {
    int trans_a;
    int trans_b;
    float alpha;
    float beta;
    pk_activation act;
    int allow_tf32;             /* f32 inputs may use TF32 matrix units (never by default) */
    const pk_tensor *bias;      /* NULL: none */
    const pk_tensor *residual;  /* NULL: none */
} pk_gemm_desc;

#define PK_GEMM_DESC_INIT {0, 0, 1.0f, 0.0f, PK_ACT_NONE, 0, NULL, NULL}

PK_API pk_status pk_gemm(pk_context *ctx, const pk_gemm_desc *desc, const pk_tensor *a,
                         const pk_tensor *b, const pk_tensor *c, const pk_tensor *d);

/* ---------------------------------------------------------------- attention */

/* O = softmax(scale * Q K^T + mask) V, per batch b and query head h, with
 * key/value head h / (Hq / Hkv) (GQA; MQA when Hkv == 1).
 *
 * Q is [B, Sq, Hq, D], K and V are [B, Skv, Hkv, D], O is [B, Sq, Hq, D]
 * (strides allow other layouts). All share one dtype. D is one of 64, 80,
 * 96, 128, 256.
 *
 * Lengths: batch b uses Lq = seqlens_q[b] query rows and Lkv =
 * seqlens_kv[b] keys (host arrays of B entries, copied during the call;
 * NULL means Sq or Skv). 0 <= L <= S. Either may instead be a device
 * tensor (device_seqlens_q, device_seqlens_kv: int32, B contiguous
 * elements in a buffer of this context), read by the device when the op
 * runs: the call then neither copies from the host nor waits, so it can
 * be captured in a CUDA graph and the lengths changed between replays.
 * Device lengths are not checked (that would mean waiting for them): the
 * kernels clamp each to [0, S].
 *
 * Mask: query i sees key j (i < Lq, j < Lkv) when, with
 * p = i + Lkv - Lq (masks are aligned bottom-right),
 *   j <= p + window_right   (causal sets window_right = 0), and
 *   j >= p - window_left,
 * where a negative window means unbounded on that side; so does a window
 * of at least Skv on the left or Sq on the right, which reaches every key.
 *
 * Output rows i >= Lq, and rows that see no key, are written as zeros; their
 * LSE is -inf. lse (optional, f32, [B, Hq, Sq]) receives the natural
 * log-sum-exp of the scaled, masked scores of each row. */
typedef struct pk_attention_desc {
    float scale;              /* 0: 1/sqrt(D) */
    int causal;
    int64_t window_left;      /* < 0: unbounded */
    int64_t window_right;     /* < 0: unbounded (ignored when causal) */
    const int32_t *seqlens_q; /* NULL: all Sq */
    const int32_t *seqlens_kv;/* NULL: all Skv */
    const pk_tensor *lse;     /* NULL: not written */
    const pk_tensor *device_seqlens_q;  /* NULL: seqlens_q; else int32 [B] on the device */
    const pk_tensor *device_seqlens_kv; /* NULL: seqlens_kv; else int32 [B] on the device */
} pk_attention_desc;

#define PK_ATTENTION_DESC_INIT {0.0f, 0, -1, -1, NULL, NULL, NULL, NULL, NULL}

PK_API pk_status pk_attention(pk_context *ctx, const pk_attention_desc *desc, const pk_tensor *q,
                              const pk_tensor *k, const pk_tensor *v, const pk_tensor *o);

/* ---------------------------------------------------------------- fused elementwise
 *
 * Row ops (norms, softmax, bias+act, GLU) see a tensor of 1..4 dims as rows
 * over its last dimension; the leading dims may have any strides. Every
 * operand of one op shares one dtype. */

typedef struct pk_norm_desc {
    float eps;                   /* > 0 */
    const pk_tensor *residual;   /* NULL: none. Else h = x + residual is normalised */
    const pk_tensor *residual_out; /* NULL: none. Else receives h (the new residual stream) */
} pk_norm_desc;

#define PK_NORM_DESC_INIT {1e-6f, NULL, NULL}

/* out = h / sqrt(mean(h^2) + eps) * weight, h = x (+ residual); weight is [H]. */
PK_API pk_status pk_rmsnorm(pk_context *ctx, const pk_norm_desc *desc, const pk_tensor *x,
                            const pk_tensor *weight, const pk_tensor *out);
/* out = (h - mean(h)) / sqrt(var(h) + eps) * weight + bias; weight and bias
 * are [H] and each optional (NULL). */
PK_API pk_status pk_layernorm(pk_context *ctx, const pk_norm_desc *desc, const pk_tensor *x,
                              const pk_tensor *weight, const pk_tensor *bias,
                              const pk_tensor *out);

/* out = act(gate) * up: SwiGLU with PK_ACT_SILU, GeGLU with PK_ACT_GELU or
 * PK_ACT_GELU_TANH (any activation is accepted). gate, up and out share a
 * shape; gate and up may be two views of one [.., 2H] tensor. */
PK_API pk_status pk_glu(pk_context *ctx, pk_activation act, const pk_tensor *gate,
                        const pk_tensor *up, const pk_tensor *out);

/* out = act(x + bias), bias [H] optional (NULL). out may be exactly x. */
PK_API pk_status pk_bias_act(pk_context *ctx, pk_activation act, const pk_tensor *x,
                             const pk_tensor *bias, const pk_tensor *out);

/* out = softmax(scale * x) over the last dim; scale 0 means 1. A row of all
 * -inf gives zeros. */
PK_API pk_status pk_softmax(pk_context *ctx, float scale, const pk_tensor *x,
                            const pk_tensor *out);

/* Rotary embedding, in place on q [B, S, Hq, D] and k [B, S, Hk, D] (k may
 * be NULL). Pairs within the first rotary_dim (even, <= D) channels rotate
 * by angle pos * f_i, i < rotary_dim/2: the NeoX/Llama layout pairs i with
 * i + rotary_dim/2, the interleaved (GPT-J) layout pairs 2i with 2i+1.
 * f_i = theta^(-2i/rotary_dim) unless inv_freq gives the frequencies
 * (scaled RoPE: Llama 3.1's "llama3", "linear", YaRN, ...): an f32 tensor
 * [rotary_dim/2] of this context, any stride, read on the device (theta is
 * then ignored); its values are used as given.
 * positions: host array of B*S positions (copied during the call); NULL
 * means position s for every batch. device_positions instead: an int32
 * tensor of B*S contiguous elements in a buffer of this context, read by
 * the device when the op runs (no host copy, no wait: CUDA-graph
 * capturable). Angles are computed in f32. */
typedef struct pk_rope_desc {
    float theta;            /* > 0, e.g. 10000 or 500000 */
    int64_t rotary_dim;     /* 0: D */
    int interleaved;        /* 0: NeoX/Llama rotate-half */
    const int32_t *positions;
    const pk_tensor *inv_freq; /* NULL: from theta */
    const pk_tensor *device_positions; /* NULL: positions; else int32 [B*S] on the device */
} pk_rope_desc;

#define PK_ROPE_DESC_INIT {10000.0f, 0, 0, NULL, NULL, NULL}

PK_API pk_status pk_rope(pk_context *ctx, const pk_rope_desc *desc, const pk_tensor *q,
                         const pk_tensor *k);

/* ---------------------------------------------------------------- rows by index
 *
 * Rows moved by indices that live on the device (an embedding lookup by
 * token ids, a KV-cache write at positions): the call neither copies from
 * the host nor waits, so a step built of them can be captured in a CUDA
 * graph and replayed with new indices.
 *   pk_gather_rows:  out[i, :] = table[index[i], :]   for i < n
 *   pk_scatter_rows: out[index[i], :] = src[i, :]     for i < n; other rows
 *                    of out are left as they are
 * table, src and out are 2-D, of one dtype and one column count, at any
 * strides; index is i32 with n contiguous elements. The rows are moved
 * bit for bit. Indices are read when the op runs and never checked (that
 * would wait): gather writes zeros for an index outside [0, rows of table),
 * scatter skips one outside [0, rows of out), and where indices repeat the
 * last i wins (the same on every run). */
PK_API pk_status pk_gather_rows(pk_context *ctx, const pk_tensor *table, const pk_tensor *index,
                                const pk_tensor *out);
PK_API pk_status pk_scatter_rows(pk_context *ctx, const pk_tensor *src, const pk_tensor *index,
                                 const pk_tensor *out);

/* ---------------------------------------------------------------- fused chain
 *
 * A small register program evaluated per output element in one pass. Values
 * r[0..n_inputs-1] are the inputs at that element (broadcast: each input's
 * dims align to the output's from the right, and a dim of size 1 or stride 0
 * repeats). Step s computes r[n_inputs + s] from earlier values; the output
 * is the last value. Inputs may have different dtypes; arithmetic is f32. */
typedef enum pk_chain_op {
    /* binary: r = a OP b */
    PK_CHAIN_ADD = 0, PK_CHAIN_SUB, PK_CHAIN_MUL, PK_CHAIN_DIV, PK_CHAIN_MAX, PK_CHAIN_MIN,
    /* r = a OP imm */
    PK_CHAIN_ADD_IMM, PK_CHAIN_MUL_IMM, PK_CHAIN_POW_IMM,
    /* unary: r = OP(a) */
    PK_CHAIN_NEG, PK_CHAIN_ABS, PK_CHAIN_EXP, PK_CHAIN_LOG, PK_CHAIN_SQRT, PK_CHAIN_RSQRT,
    PK_CHAIN_TANH, PK_CHAIN_SIGMOID, PK_CHAIN_RELU, PK_CHAIN_GELU, PK_CHAIN_GELU_TANH,
    PK_CHAIN_SILU,
    PK_CHAIN_OP_COUNT
} pk_chain_op;

#define PK_CHAIN_MAX_INPUTS 8
#define PK_CHAIN_MAX_STEPS 32

typedef struct pk_chain_step {
    pk_chain_op op;
    int a;      /* index of an earlier value */
    int b;      /* index of an earlier value (binary ops only) */
    float imm;  /* immediate (_IMM ops only) */
} pk_chain_step;

typedef struct pk_chain_desc {
    int n_inputs;                 /* 1..PK_CHAIN_MAX_INPUTS */
    const pk_tensor *inputs;      /* n_inputs tensors */
    int n_steps;                  /* 1..PK_CHAIN_MAX_STEPS */
    const pk_chain_step *steps;
} pk_chain_desc;

#define PK_CHAIN_DESC_INIT {0, NULL, 0, NULL}

PK_API pk_status pk_chain(pk_context *ctx, const pk_chain_desc *desc, const pk_tensor *out);

#ifdef __cplusplus
}
#endif

#endif /* PORTKERN_H */
