/* portkern inside another program (portkern.h: "the caller's memory and
 * queues", "events", "DLPack"), on one backend and device:
 *   test_interop BACKEND [INDEX]     (ref, opencl, cuda, hip; 77: skipped)
 *
 * 1. Wrapped memory: a GEMM computes into memory portkern does not own
 *    (ref: a malloc'd array read straight after pk_finish, no download;
 *    elsewhere: another buffer's native handle), pk_free and pk_close
 *    leave it alive; bad handles and sizes are refused.
 * 2. Queues: a context opened on another context's queue shares it (its
 *    work is ordered with the other's without a finish), pk_close leaves
 *    the queue working; queues a backend cannot take are refused.
 * 3. Events: record, synchronize, elapsed, a wait across contexts; stale
 *    and foreign events are recognised.
 * 4. DLPack: import (borrowed, managed, versioned) and export, strides
 *    kept, the deleter run once and only when portkern took the tensor;
 *    every refusal the header promises.
 * 5. Device arguments: RoPE positions and attention lengths as int32
 *    tensors give the same bits as the host arrays (RoPE also against a
 *    double rotation here), lengths out of range are clamped, misuse is
 *    refused.
 * 6. Rows by device index: gather and scatter move the rows the indices
 *    name, bit for bit, at strides, with out-of-range indices zeroed or
 *    skipped and the last of repeated indices winning.
 * 7. Graphs (CUDA, HIP): a step of gather, GEMM, RoPE with device
 *    positions, scatter and attention with device lengths, recorded once,
 *    replays with new indices and positions to the same bits as the same
 *    step run eagerly; what a replay would get wrong is refused while
 *    recording. Elsewhere PK_ERR_UNSUPPORTED.
 * Expected values are computed here in double from the inputs.
 * Prints "test_interop: N checks, N failed" last. */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pk_dlpack.h"
#include "portkern.h"
#include "pk_test_check.h"

#ifdef PK_TEST_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif


/* a status as expected, with a message when it is an error */
static void expect(pk_status got, pk_status want, const pk_context *ctx, const char *what)
{
    const char *msg = pk_last_error(ctx);
    check(got == want, "%s: %s, expected %s (%s)", what, pk_status_string(got), pk_status_string(want), msg);
    if (got == want && want != PK_SUCCESS) check(msg && *msg, "%s: %s without a message", what, pk_status_string(got));
}

static pk_backend backend;
static int device_index;

/* ------------------------------------------------------------ a GEMM to run */

enum { M = 4, N = 3, K = 5 };

static float a_host[M * K], b_host[K * N];

static void fill_inputs(void)
{
    for (int i = 0; i < M * K; i++) a_host[i] = (float)((i * 7 % 11) - 5) * 0.25f;
    for (int i = 0; i < K * N; i++) b_host[i] = (float)((i * 5 % 13) - 6) * 0.125f;
}

/* D[i][j] = sum_k A[i][k] B[k][j], in double */
static double expected(int i, int j)
{
    double s = 0;
    for (int k = 0; k < K; k++) s += (double)a_host[i * K + k] * b_host[k * N + j];
    return s;
}

static int matches(const float *d, int64_t row_stride, int64_t col_stride)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            if (fabs(d[i * row_stride + j * col_stride] - expected(i, j)) > 1e-5) return 0;
    return 1;
}

/* A and B uploaded into fresh buffers of ctx, as row-major tensors */
static pk_status inputs(pk_context *ctx, pk_buffer **ab, pk_tensor *a, pk_tensor *b)
{
    pk_status s = pk_alloc(ctx, sizeof a_host + sizeof b_host, ab);
    if (s == PK_SUCCESS) s = pk_upload(*ab, 0, a_host, sizeof a_host);
    if (s == PK_SUCCESS) s = pk_upload(*ab, sizeof a_host, b_host, sizeof b_host);
    const int64_t sa[2] = {M, K}, sb[2] = {K, N};
    *a = pk_tensor_make(*ab, 0, PK_F32, 2, sa);
    *b = pk_tensor_make(*ab, sizeof a_host, PK_F32, 2, sb);
    return s;
}

static pk_status gemm_into(pk_context *ctx, const pk_tensor *d)
{
    pk_buffer *ab = NULL;
    pk_tensor a, b;
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    pk_status s = inputs(ctx, &ab, &a, &b);
    if (s == PK_SUCCESS) s = pk_gemm(ctx, &g, &a, &b, NULL, d);
    if (s == PK_SUCCESS) s = pk_finish(ctx);
    if (ab) pk_free(ab);
    return s;
}

static int download_matches(const pk_tensor *d)
{
    float out[M * N];
    if (pk_download(d->buf, d->offset, out, sizeof out) != PK_SUCCESS) return 0;
    return matches(out, N, 1);
}

/* The GEMM into a fresh buffer of ctx, its result checked */
static void gemm_checked(pk_context *ctx, const char *what)
{
    const int64_t sd[2] = {M, N};
    pk_buffer *buf = NULL;
    pk_alloc(ctx, M * N * sizeof(float), &buf);
    pk_tensor d = pk_tensor_make(buf, 0, PK_F32, 2, sd);
    expect(gemm_into(ctx, &d), PK_SUCCESS, ctx, what);
    check(download_matches(&d), "%s: wrong result", what);
    pk_free(buf);
}

/* ------------------------------------------------------------ 1. wrapped memory */

static void wrapped_memory(pk_context *ctx)
{
    const int64_t sd[2] = {M, N};
    uintptr_t h = 0;
    pk_buffer *own = NULL, *wrap = NULL;
    pk_status s = pk_alloc(ctx, M * N * sizeof(float), &own);
    expect(s, PK_SUCCESS, ctx, "alloc");
    if (s != PK_SUCCESS) return;
    expect(pk_buffer_handle(own, &h), PK_SUCCESS, ctx, "pk_buffer_handle");
    check(h != 0, "pk_buffer_handle gave 0");
    check(pk_buffer_is_wrapped(own) == 0, "an allocated buffer says it is wrapped");
    expect(pk_buffer_wrap(ctx, h, M * N * sizeof(float), &wrap), PK_SUCCESS, ctx, "wrap another buffer's handle");
    if (wrap) {
        uintptr_t h2 = 0;
        pk_buffer_handle(wrap, &h2);
        check(h2 == h, "a wrapped buffer's handle is not the one wrapped");
        check(pk_buffer_is_wrapped(wrap) == 1, "a wrapped buffer says it is not");
        check(pk_buffer_size(wrap) == M * N * sizeof(float), "a wrapped buffer's size");
        pk_tensor d = pk_tensor_make(wrap, 0, PK_F32, 2, sd);
        expect(gemm_into(ctx, &d), PK_SUCCESS, ctx, "gemm into wrapped memory");
        expect(pk_free(wrap), PK_SUCCESS, ctx, "free the wrapping buffer");
        check(pk_buffer_is_wrapped(wrap) == -1, "a freed wrapped buffer is still live");
        /* the memory is still the owner's, holding what the GEMM wrote */
        pk_tensor o = pk_tensor_make(own, 0, PK_F32, 2, sd);
        check(download_matches(&o), "the wrapped memory does not hold the GEMM's result after pk_free");
    }
    pk_free(own);

    if (backend == PK_BACKEND_REF) {
        /* the caller's own array: the result is read in place, with no
         * download, and the array outlives pk_free (ASan would see a
         * double free below if portkern had freed it) */
        float *mine = malloc(M * N * sizeof(float));
        for (int i = 0; i < M * N; i++) mine[i] = NAN;
        expect(pk_buffer_wrap(ctx, (uintptr_t)mine, M * N * sizeof(float), &wrap), PK_SUCCESS, ctx, "wrap a host array");
        pk_tensor d = pk_tensor_make(wrap, 0, PK_F32, 2, sd);
        expect(gemm_into(ctx, &d), PK_SUCCESS, ctx, "gemm into a host array");
        check(matches(mine, N, 1), "the host array does not hold the GEMM's result");
        pk_free(wrap);
        mine[0] = 1.0f;
        free(mine);
    }

    /* refusals */
    float host[4];
    expect(pk_buffer_wrap(ctx, 0, 16, &wrap), PK_ERR_NULL_ARGUMENT, ctx, "wrap handle 0");
    expect(pk_buffer_wrap(ctx, (uintptr_t)host, 0, &wrap), PK_ERR_BAD_SIZE, ctx, "wrap 0 bytes");
    expect(pk_buffer_wrap(ctx, (uintptr_t)host, 16, NULL), PK_ERR_NULL_ARGUMENT, ctx, "wrap without out");
    expect(pk_buffer_wrap(NULL, (uintptr_t)host, 16, &wrap), PK_ERR_NULL_ARGUMENT, NULL, "wrap without a context");
    expect(pk_buffer_wrap(ctx, UINTPTR_MAX - 8, 16, &wrap), PK_ERR_OUT_OF_BOUNDS, ctx, "wrap past the address space");
    if (backend == PK_BACKEND_CUDA || backend == PK_BACKEND_HIP) {
        /* host memory is no device allocation; nor is a range past one */
        expect(pk_buffer_wrap(ctx, (uintptr_t)host, sizeof host, &wrap), PK_ERR_INVALID_ARGUMENT, ctx,
               "wrap a host address on a GPU");
        pk_alloc(ctx, 256, &own);
        pk_buffer_handle(own, &h);
        expect(pk_buffer_wrap(ctx, h, 1 << 20, &wrap), PK_ERR_OUT_OF_BOUNDS, ctx, "wrap past the allocation");
        expect(pk_buffer_wrap(ctx, h + 128, 128, &wrap), PK_SUCCESS, ctx, "wrap the tail of an allocation");
        if (wrap) pk_free(wrap);
        pk_free(own);
    }
    if (backend == PK_BACKEND_OPENCL) {
        /* another context's cl_mem is of another cl_context */
        pk_context *other = NULL;
        if (pk_open(backend, device_index, &other) == PK_SUCCESS) {
            pk_alloc(other, 256, &own);
            pk_buffer_handle(own, &h);
            expect(pk_buffer_wrap(ctx, h, 256, &wrap), PK_ERR_WRONG_CONTEXT, ctx, "wrap a cl_mem of another cl_context");
            expect(pk_buffer_wrap(other, h, 512, &wrap), PK_ERR_OUT_OF_BOUNDS, other, "wrap more than the cl_mem holds");
            pk_close(other);
        }
    }
    /* a wrapped buffer left to pk_close: unwrapped, the memory left alone */
    pk_alloc(ctx, 64, &own);
    pk_buffer_handle(own, &h);
    pk_context *second = NULL;
    void *q = NULL;
    pk_context_queue(ctx, &q);
    if (pk_open_on_queue(backend, device_index, q, &second) == PK_SUCCESS) {
        expect(pk_buffer_wrap(second, h, 64, &wrap), PK_SUCCESS, second, "wrap into a context on the same queue");
        pk_close(second);
        check(pk_buffer_is_wrapped(wrap) == -1, "a wrapped buffer outlives its context");
        const float one = 1.0f;
        expect(pk_fill(own, 0, 64, &one, 4), PK_SUCCESS, ctx, "the memory a closed context wrapped is still usable");
        expect(pk_finish(ctx), PK_SUCCESS, ctx, "finish after the other context closed");
    }
    pk_free(own);
}

/* ------------------------------------------------------------ 2. queues */

static void queues(pk_context *ctx)
{
    void *q = (void *)1;
    expect(pk_context_queue(ctx, &q), PK_SUCCESS, ctx, "pk_context_queue");
    check((backend == PK_BACKEND_REF) == (q == NULL), "a queue of %s: %p", pk_backend_name(backend), q);
    expect(pk_context_queue(NULL, &q), PK_ERR_NULL_ARGUMENT, NULL, "pk_context_queue(NULL)");

    pk_context *on = NULL;
    expect(pk_open_on_queue(backend, device_index, q, &on), PK_SUCCESS, NULL, "open on another context's queue");
    if (on) {
        void *q2 = NULL;
        pk_context_queue(on, &q2);
        check(q2 == q, "a context opened on a queue reports another one");
        /* portkern's work of both contexts in one order: ctx uploads, on
         * computes into ctx's memory, ctx downloads, with no finish of on */
        pk_buffer *own = NULL, *wrap = NULL, *ab = NULL;
        uintptr_t h = 0;
        const int64_t sd[2] = {M, N};
        pk_tensor a, b;
        pk_gemm_desc g = PK_GEMM_DESC_INIT;
        pk_status s = pk_alloc(ctx, M * N * sizeof(float), &own);
        if (s == PK_SUCCESS) s = pk_buffer_handle(own, &h);
        if (s == PK_SUCCESS) s = pk_buffer_wrap(on, h, M * N * sizeof(float), &wrap);
        if (s == PK_SUCCESS) s = inputs(on, &ab, &a, &b);
        pk_tensor d = pk_tensor_make(wrap, 0, PK_F32, 2, sd);
        if (s == PK_SUCCESS) s = pk_gemm(on, &g, &a, &b, NULL, &d);
        expect(s, PK_SUCCESS, on, "gemm on the shared queue");
        pk_tensor o = pk_tensor_make(own, 0, PK_F32, 2, sd);
        if (s == PK_SUCCESS) check(download_matches(&o), "the other context's download, queued after, misses the GEMM");
        if (ab) pk_free(ab);
        if (wrap) pk_free(wrap);
        expect(pk_close(on), PK_SUCCESS, NULL, "close a context on a borrowed queue");
        /* the queue is still the first context's, and works */
        const float zero = 0;
        expect(pk_fill(own, 0, M * N * sizeof(float), &zero, 4), PK_SUCCESS, ctx, "fill after the borrower closed");
        expect(pk_finish(ctx), PK_SUCCESS, ctx, "finish after the borrower closed");
        pk_free(own);
    }
    /* the default stream: CUDA's and HIP's only */
    pk_status s = pk_open_on_queue(backend, device_index, NULL, &on);
    if (backend == PK_BACKEND_OPENCL) {
        expect(s, PK_ERR_NULL_ARGUMENT, NULL, "an OpenCL context on no queue");
    } else {
        expect(s, PK_SUCCESS, NULL, "a context on the default stream (ref: none)");
        if (on) {
            gemm_checked(on, "gemm on the default stream");
            pk_close(on);
        }
    }
    if (backend == PK_BACKEND_REF)
        expect(pk_open_on_queue(backend, device_index, &s, &on), PK_ERR_INVALID_ARGUMENT, NULL, "ref on a queue");
    expect(pk_open_on_queue(PK_BACKEND_AUTO, 0, q, &on), PK_ERR_INVALID_ARGUMENT, NULL, "auto on a queue");
    expect(pk_open_on_queue(backend, 999, q, &on), PK_ERR_NO_DEVICE, NULL, "a queue of device 999");
    expect(pk_open_on_queue(backend, device_index, q, NULL), PK_ERR_NULL_ARGUMENT, NULL, "open on a queue, no out");

#ifdef PK_TEST_OPENCL
    if (backend == PK_BACKEND_OPENCL) {
        cl_context clctx = NULL;
        cl_device_id dev = NULL;
        clGetCommandQueueInfo((cl_command_queue)q, CL_QUEUE_CONTEXT, sizeof clctx, &clctx, NULL);
        clGetCommandQueueInfo((cl_command_queue)q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
        cl_int err;
        /* the caller's own queue without profiling: works, but has no times */
        cl_command_queue mine = clCreateCommandQueue(clctx, dev, 0, &err);
        if (check(err == CL_SUCCESS, "clCreateCommandQueue: %d", (int)err)) {
            expect(pk_open_on_queue(backend, device_index, mine, &on), PK_SUCCESS, NULL, "open on the caller's queue");
            clReleaseCommandQueue(mine); /* the context holds its own reference */
            if (on) {
                pk_event *e0 = NULL, *e1 = NULL;
                float ms = 0;
                pk_event_record(on, &e0);
                pk_event_record(on, &e1);
                expect(pk_event_elapsed(e0, e1, &ms), PK_ERR_UNSUPPORTED, on, "elapsed on a queue without profiling");
                /* an event of ctx (same cl_context, another queue) orders on's work */
                pk_event *ev = NULL;
                expect(pk_event_record(ctx, &ev), PK_SUCCESS, ctx, "record on ctx");
                expect(pk_event_wait(on, ev), PK_SUCCESS, on, "wait on an event of another queue of the cl_context");
                gemm_checked(on, "gemm on the caller's queue");
                pk_event_free(ev);
                pk_close(on);
            }
        }
        cl_command_queue ooo = clCreateCommandQueue(clctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
        if (err == CL_SUCCESS) {
            expect(pk_open_on_queue(backend, device_index, ooo, &on), PK_ERR_UNSUPPORTED, NULL,
                   "open on an out-of-order queue");
            clReleaseCommandQueue(ooo);
        }
        /* a queue of another device, where the machine has two */
        int n = 0;
        pk_device_count(backend, &n);
        if (n > 1)
            expect(pk_open_on_queue(backend, device_index == 0 ? 1 : 0, q, &on), PK_ERR_INVALID_ARGUMENT, NULL,
                   "open device B on a queue of device A");
        /* a cl_mem the caller made in the context's cl_context */
        float init[M * N];
        for (int i = 0; i < M * N; i++) init[i] = NAN;
        cl_mem m = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof init, init, &err);
        if (check(err == CL_SUCCESS, "clCreateBuffer: %d", (int)err)) {
            pk_buffer *wrap = NULL;
            expect(pk_buffer_wrap(ctx, (uintptr_t)m, sizeof init, &wrap), PK_SUCCESS, ctx, "wrap the caller's cl_mem");
            clReleaseMemObject(m); /* the wrap holds its own reference until pk_free */
            const int64_t sd[2] = {M, N};
            pk_tensor d = pk_tensor_make(wrap, 0, PK_F32, 2, sd);
            expect(gemm_into(ctx, &d), PK_SUCCESS, ctx, "gemm into the caller's cl_mem");
            float out[M * N];
            clEnqueueReadBuffer((cl_command_queue)q, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
            check(matches(out, N, 1), "the caller's cl_mem, read with OpenCL, misses the GEMM's result");
            pk_free(wrap);
        }
    }
#endif
}

/* CUDA (and HIP on NVIDIA): a stream and memory of a CUDA context of the
 * caller's own, not the device's primary one, are refused. The driver is
 * reached with dlopen: this test links no CUDA. */
static void other_cuda_context(pk_context *ctx)
{
    pk_device_info info;
    pk_context_info(ctx, &info);
    if (!(backend == PK_BACKEND_CUDA || (backend == PK_BACKEND_HIP && strstr(info.vendor, "NVIDIA")))) return;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!check(lib != NULL, "dlopen libcuda.so.1: %s", dlerror())) return;
    int (*device_get)(int *, int) = (int (*)(int *, int))dlsym(lib, "cuDeviceGet");
    int (*create4)(void **, void *, unsigned, int) = (int (*)(void **, void *, unsigned, int))dlsym(lib, "cuCtxCreate_v4");
    int (*create2)(void **, unsigned, int) = (int (*)(void **, unsigned, int))dlsym(lib, "cuCtxCreate_v2");
    int (*set_current)(void *) = (int (*)(void *))dlsym(lib, "cuCtxSetCurrent");
    int (*destroy)(void *) = (int (*)(void *))dlsym(lib, "cuCtxDestroy_v2");
    int (*stream_create)(void **, unsigned) = (int (*)(void **, unsigned))dlsym(lib, "cuStreamCreate");
    int (*stream_destroy)(void *) = (int (*)(void *))dlsym(lib, "cuStreamDestroy_v2");
    int (*mem_alloc)(unsigned long long *, size_t) = (int (*)(unsigned long long *, size_t))dlsym(lib, "cuMemAlloc_v2");
    int (*mem_free)(unsigned long long) = (int (*)(unsigned long long))dlsym(lib, "cuMemFree_v2");
    int dev = 0;
    void *other = NULL, *stream = NULL;
    unsigned long long mem = 0;
    int r = device_get ? device_get(&dev, device_index) : -1;
    if (r == 0) r = create4 ? create4(&other, NULL, 0, dev) : create2 ? create2(&other, 0, dev) : -1;
    if (r == 0) r = stream_create(&stream, 0);
    if (r == 0) r = mem_alloc(&mem, 256);
    if (check(r == 0, "a CUDA context, stream and memory of the test's own: CUresult %d", r)) {
        pk_context *on = NULL;
        pk_buffer *w = NULL;
        expect(pk_open_on_queue(backend, device_index, stream, &on), PK_ERR_INVALID_ARGUMENT, NULL,
               "open on a stream of another CUDA context");
        expect(pk_buffer_wrap(ctx, (uintptr_t)mem, 256, &w), PK_ERR_WRONG_CONTEXT, ctx,
               "wrap memory of another CUDA context");
    }
    if (other) {
        set_current(other);
        if (mem) mem_free(mem);
        if (stream) stream_destroy(stream);
        destroy(other);
    }
    expect(pk_finish(ctx), PK_SUCCESS, ctx, "the context after another CUDA context came and went");
}

/* ------------------------------------------------------------ 3. events */

static void events(pk_context *ctx)
{
    pk_event *e0 = NULL, *e1 = NULL;
    float ms = -1;
    const int64_t sd[2] = {M, N};
    pk_buffer *buf = NULL;
    pk_alloc(ctx, M * N * sizeof(float), &buf);
    pk_tensor d = pk_tensor_make(buf, 0, PK_F32, 2, sd);
    expect(pk_event_record(ctx, &e0), PK_SUCCESS, ctx, "record");
    expect(gemm_into(ctx, &d), PK_SUCCESS, ctx, "gemm between events");
    expect(pk_event_record(ctx, &e1), PK_SUCCESS, ctx, "record");
    expect(pk_event_synchronize(e1), PK_SUCCESS, ctx, "synchronize");
    expect(pk_event_elapsed(e0, e1, &ms), PK_SUCCESS, ctx, "elapsed");
    check(ms >= 0 && ms < 60000, "elapsed %g ms", ms);
    expect(pk_event_elapsed(e0, e1, NULL), PK_ERR_NULL_ARGUMENT, ctx, "elapsed into NULL");
    expect(pk_event_wait(ctx, e0), PK_SUCCESS, ctx, "a context waits on its own event");

    /* another context of the backend */
    pk_context *other = NULL;
    if (pk_open(backend, device_index, &other) == PK_SUCCESS) {
        pk_status want = backend == PK_BACKEND_OPENCL ? PK_ERR_WRONG_CONTEXT : PK_SUCCESS;
        expect(pk_event_wait(other, e1), want, other, "wait on another context's event");
        pk_event *eo = NULL;
        pk_event_record(other, &eo);
        expect(pk_event_elapsed(e0, eo, &ms), PK_ERR_WRONG_CONTEXT, ctx, "elapsed across contexts");
        pk_close(other);
        /* pk_close freed eo: a stale handle now */
        expect(pk_event_synchronize(eo), PK_ERR_INVALID_ARGUMENT, NULL, "an event of a closed context");
        expect(pk_event_free(eo), PK_ERR_INVALID_ARGUMENT, NULL, "free an event of a closed context");
    }
    /* an event of another backend */
    if (backend != PK_BACKEND_REF) {
        pk_context *ref = NULL;
        if (pk_open(PK_BACKEND_REF, 0, &ref) == PK_SUCCESS) {
            pk_event *er = NULL;
            pk_event_record(ref, &er);
            expect(pk_event_wait(ctx, er), PK_ERR_WRONG_CONTEXT, ctx, "wait on a ref event");
            pk_close(ref);
        }
    }
    /* handles of the wrong kind */
    expect(pk_event_synchronize((pk_event *)buf), PK_ERR_INVALID_ARGUMENT, NULL, "a buffer as an event");
    check(pk_buffer_size((pk_buffer *)e0) == 0, "an event as a buffer has a size");
    expect(pk_free((pk_buffer *)e0), PK_ERR_INVALID_ARGUMENT, NULL, "free an event as a buffer");
    expect(pk_event_free(e0), PK_SUCCESS, ctx, "free");
    expect(pk_event_free(e0), PK_ERR_INVALID_ARGUMENT, NULL, "free twice");
    expect(pk_event_wait(ctx, e0), PK_ERR_INVALID_ARGUMENT, ctx, "wait on a freed event");
    expect(pk_event_record(ctx, NULL), PK_ERR_NULL_ARGUMENT, ctx, "record into NULL");
    expect(pk_event_record(NULL, &e0), PK_ERR_NULL_ARGUMENT, NULL, "record on no context");
    pk_event_free(e1);
    pk_free(buf);
}

/* ------------------------------------------------------------ 4. DLPack */

static int deleted;
static void count_delete(pk_dl_managed *m) { deleted++, (void)m; }
static void count_delete_v(pk_dl_managed_versioned *m) { deleted++, (void)m; }

static void dlpack(pk_context *ctx)
{
    pk_device_info info;
    pk_context_info(ctx, &info);
    pk_tensor t;
    pk_buffer *own = NULL;
    const int64_t sd[2] = {M, N};
    pk_alloc(ctx, M * N * sizeof(float) + 64, &own);
    /* export a view at an offset, check every field, import it back */
    pk_tensor view = pk_tensor_make(own, 64, PK_F32, 2, sd);
    pk_dl_managed *ex = NULL;
    expect(pk_tensor_to_dlpack(&view, &ex), PK_SUCCESS, ctx, "export");
    if (ex) {
        uintptr_t h = 0;
        pk_buffer_handle(own, &h);
        const pk_dl_tensor *x = &ex->dl_tensor;
        int32_t want_type = backend == PK_BACKEND_REF      ? PK_DL_CPU
                            : backend == PK_BACKEND_OPENCL ? PK_DL_OPENCL
                            : backend == PK_BACKEND_CUDA   ? PK_DL_CUDA
                            : strstr(info.vendor, "NVIDIA") ? PK_DL_CUDA
                                                            : PK_DL_ROCM;
        check(x->device.device_type == want_type, "export: device type %d, expected %d", (int)x->device.device_type,
              (int)want_type);
        check(x->device.device_id == (backend == PK_BACKEND_REF ? 0 : device_index), "export: device id");
        check(x->dtype.code == PK_DL_FLOAT && x->dtype.bits == 32 && x->dtype.lanes == 1, "export: dtype");
        check(x->ndim == 2 && x->shape[0] == M && x->shape[1] == N && x->strides[0] == N && x->strides[1] == 1,
              "export: shape and strides");
        if (backend == PK_BACKEND_OPENCL)
            check((uintptr_t)x->data == h && x->byte_offset == 64, "export: OpenCL data is the cl_mem, offset beside");
        else
            check((uintptr_t)x->data == h + 64 && x->byte_offset == 0, "export: data is the first element");
        /* round trip: the same memory, computed into */
        expect(pk_tensor_from_dlpack(ctx, x, &t), PK_SUCCESS, ctx, "import an export");
        if (t.buf) {
            uintptr_t h2 = 0;
            pk_buffer_handle(t.buf, &h2);
            check(h2 == (backend == PK_BACKEND_OPENCL ? h : h + 64), "import of an export: another address");
            check(t.offset == (backend == PK_BACKEND_OPENCL ? 64u : 0u), "import of an export: offset %zu", t.offset);
            expect(gemm_into(ctx, &t), PK_SUCCESS, ctx, "gemm into an imported tensor");
            check(download_matches(&view), "gemm through the import: the exported view misses the result");
            pk_free(t.buf);
        }
        ex->deleter(ex);
    }
    pk_dl_managed_versioned *exv = NULL;
    expect(pk_tensor_to_dlpack_versioned(&view, &exv), PK_SUCCESS, ctx, "export versioned");
    if (exv) {
        check(exv->version.major == 1 && exv->flags == 0 && exv->dl_tensor.ndim == 2, "export versioned: fields");
        exv->deleter(exv);
    }
    pk_tensor bad = view;
    bad.offset = M * N * sizeof(float) + 64;
    expect(pk_tensor_to_dlpack(&bad, &ex), PK_ERR_OUT_OF_BOUNDS, ctx, "export a view past its buffer");
    expect(pk_tensor_to_dlpack(NULL, &ex), PK_ERR_NULL_ARGUMENT, NULL, "export NULL");

    /* a CPU array described by hand: every refusal, then imports of it */
    float host[M * N * 2];
    int64_t shape[6] = {M, N}, strides[6] = {N, 1};
    pk_dl_tensor dl = {host, {PK_DL_CPU, 0}, 2, {PK_DL_FLOAT, 32, 1}, shape, strides, 0};
    if (backend != PK_BACKEND_REF) {
        expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_WRONG_CONTEXT, ctx, "import CPU memory to a device");
        /* this device's type, another id */
        dl.device.device_type = backend == PK_BACKEND_OPENCL ? PK_DL_OPENCL : PK_DL_CUDA;
        if (backend == PK_BACKEND_HIP && !strstr(info.vendor, "NVIDIA")) dl.device.device_type = PK_DL_ROCM;
        dl.device.device_id = device_index + 1;
        expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_WRONG_CONTEXT, ctx, "import from another device id");
        pk_free(own);
        return;
    }
    dl.device.device_type = PK_DL_CUDA;
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_WRONG_CONTEXT, ctx, "import CUDA memory to ref");
    dl.device.device_type = PK_DL_CPU;
    dl.dtype = (pk_dl_dtype){PK_DL_INT, 64, 1};
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_UNSUPPORTED, ctx, "import int64");
    dl.dtype = (pk_dl_dtype){PK_DL_INT, 32, 1};
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_SUCCESS, ctx, "import int32 (positions, lengths)");
    check(t.dtype == PK_I32, "int32 imported as %d", (int)t.dtype);
    if (t.buf) pk_free(t.buf);
    dl.dtype = (pk_dl_dtype){PK_DL_FLOAT, 64, 1};
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_UNSUPPORTED, ctx, "import float64");
    dl.dtype = (pk_dl_dtype){PK_DL_FLOAT, 32, 2};
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_UNSUPPORTED, ctx, "import 2 lanes");
    dl.dtype = (pk_dl_dtype){PK_DL_FLOAT, 32, 1};
    strides[0] = -N;
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_UNSUPPORTED, ctx, "import negative strides");
    strides[0] = N;
    dl.data = (char *)host + 2;
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_MISALIGNED, ctx, "import a misaligned tensor");
    dl.data = host;
    dl.byte_offset = 2;
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_MISALIGNED, ctx, "import a misaligned byte_offset");
    dl.byte_offset = 0;
    shape[0] = 0;
    dl.data = NULL;
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_SUCCESS, ctx, "import a tensor of no elements, data NULL");
    check(t.shape[0] == 0 && t.shape[1] == N && pk_buffer_is_wrapped(t.buf) == 0, "an empty import: shape, buffer");
    if (t.buf) pk_free(t.buf);
    dl.data = host;
    shape[0] = -1;
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_BAD_SIZE, ctx, "import a negative size");
    shape[0] = M;
    dl.ndim = 6;
    for (int i = 0; i < 6; i++) shape[i] = 2, strides[i] = 1;
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_ERR_UNSUPPORTED, ctx, "import 6 dims");
    expect(pk_tensor_from_dlpack(ctx, NULL, &t), PK_ERR_NULL_ARGUMENT, ctx, "import NULL");
    /* 1 x 1 x M x N in six dims: the leading ones dropped */
    int64_t s6[6] = {1, 1, 1, 1, M, N}, t6[6] = {M * N, M * N, M * N, M * N, N, 1};
    dl.ndim = 6;
    dl.shape = s6;
    dl.strides = t6;
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_SUCCESS, ctx, "import 6 dims, 2 of them not 1");
    check(t.ndim == 4 && t.shape[2] == M && t.shape[3] == N && t.stride[2] == N, "6 dims to 4: shape");
    if (t.buf) pk_free(t.buf);
    /* no dims: a scalar, [1] */
    dl.ndim = 0;
    dl.shape = dl.strides = NULL;
    expect(pk_tensor_from_dlpack(ctx, &dl, &t), PK_SUCCESS, ctx, "import a scalar");
    check(t.ndim == 1 && t.shape[0] == 1, "a scalar's shape");
    if (t.buf) pk_free(t.buf);

    /* D^T's layout: a column-major [M, N] view over a strided array (row
     * pitch 2M), computed into in place, read with no download */
    int64_t sc[2] = {M, N}, tc[2] = {1, 2 * M};
    pk_dl_tensor col = {host, {PK_DL_CPU, 0}, 2, {PK_DL_FLOAT, 32, 1}, sc, tc, 0};
    for (int i = 0; i < M * N * 2; i++) host[i] = NAN;
    expect(pk_tensor_from_dlpack(ctx, &col, &t), PK_SUCCESS, ctx, "import a strided column-major view");
    check(t.stride[0] == 1 && t.stride[1] == 2 * M, "strides kept");
    expect(gemm_into(ctx, &t), PK_SUCCESS, ctx, "gemm into a strided import");
    check(matches(host, 1, 2 * M), "a strided import: the host array misses the result");
    pk_free(t.buf);

    /* managed: the deleter runs once, when portkern lets go */
    pk_dl_managed m = {col, NULL, count_delete};
    deleted = 0;
    expect(pk_tensor_from_dlpack_managed(ctx, &m, &t), PK_SUCCESS, ctx, "import managed");
    check(deleted == 0, "the deleter ran before pk_free");
    pk_free(t.buf);
    check(deleted == 1, "pk_free ran the deleter %d times", deleted);
    m.dl_tensor.dtype.bits = 64;
    expect(pk_tensor_from_dlpack_managed(ctx, &m, &t), PK_ERR_UNSUPPORTED, ctx, "import managed float64");
    check(deleted == 1, "a refused import ran the deleter");
    m.dl_tensor.dtype.bits = 32;
    pk_context *closing = NULL;
    if (pk_open(backend, device_index, &closing) == PK_SUCCESS) {
        pk_tensor_from_dlpack_managed(closing, &m, &t);
        pk_close(closing);
        check(deleted == 2, "pk_close left an import's deleter unrun");
    }
    /* an empty managed tensor goes back at once */
    int64_t s0[2] = {0, N};
    pk_dl_managed empty = {{NULL, {PK_DL_CPU, 0}, 2, {PK_DL_FLOAT, 32, 1}, s0, NULL, 0}, NULL, count_delete};
    expect(pk_tensor_from_dlpack_managed(ctx, &empty, &t), PK_SUCCESS, ctx, "import an empty managed tensor");
    check(deleted == 3, "an empty managed import kept its tensor (deleter ran %d times in all)", deleted);
    if (t.buf) pk_free(t.buf);
    check(deleted == 3, "an empty managed import's deleter ran twice");
    deleted = 0;
    /* versioned */
    pk_dl_managed_versioned v = {{1, 1}, NULL, count_delete_v, 0, col};
    expect(pk_tensor_from_dlpack_versioned(ctx, &v, &t), PK_SUCCESS, ctx, "import versioned 1.1");
    pk_free(t.buf);
    check(deleted == 1, "versioned: the deleter ran %d times", deleted);
    v.version.major = 2;
    expect(pk_tensor_from_dlpack_versioned(ctx, &v, &t), PK_ERR_UNSUPPORTED, ctx, "import version 2");
    v.version.major = 1;
    v.flags = PK_DL_FLAG_READ_ONLY;
    expect(pk_tensor_from_dlpack_versioned(ctx, &v, &t), PK_ERR_UNSUPPORTED, ctx, "import read-only");
    check(deleted == 1, "a refused versioned import ran the deleter");
    pk_free(own);
}

/* ------------------------------------------------------------ 5. device arguments */

/* n floats of a fixed pattern into buf at byte offset off */
static void upload_pattern(pk_buffer *buf, size_t off, size_t n, float scale)
{
    float *h = malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++) h[i] = scale * (float)((int)(i * 37 % 101) - 50) / 50.0f;
    pk_upload(buf, off, h, n * sizeof *h);
    free(h);
}

static int same_bytes(pk_buffer *a, pk_buffer *b, size_t bytes)
{
    unsigned char *x = malloc(bytes), *y = malloc(bytes);
    int same = pk_download(a, 0, x, bytes) == PK_SUCCESS && pk_download(b, 0, y, bytes) == PK_SUCCESS &&
               !memcmp(x, y, bytes);
    free(x);
    free(y);
    return same;
}

enum { RB = 2, RS = 3, RH = 2, RD = 64 };

static void device_rope(pk_context *ctx)
{
    const int32_t pos[RB * RS] = {5, 9, 0, 3, 7, 100};
    const size_t n = RB * RS * RH * RD, bytes = n * sizeof(float);
    pk_buffer *q1 = NULL, *q2 = NULL, *pb = NULL;
    pk_alloc(ctx, bytes, &q1);
    pk_alloc(ctx, bytes, &q2);
    pk_alloc(ctx, 2 * sizeof pos + 8, &pb); /* room for a strided view */
    upload_pattern(q1, 0, n, 1.0f);
    upload_pattern(q2, 0, n, 1.0f);
    pk_upload(pb, 8, pos, sizeof pos);
    const int64_t sq[4] = {RB, RS, RH, RD}, sp[2] = {RB, RS};
    pk_tensor t1 = pk_tensor_make(q1, 0, PK_F32, 4, sq), t2 = pk_tensor_make(q2, 0, PK_F32, 4, sq);
    pk_tensor tp = pk_tensor_make(pb, 8, PK_I32, 2, sp);
    pk_rope_desc host = PK_ROPE_DESC_INIT, dev = PK_ROPE_DESC_INIT;
    host.positions = pos;
    dev.device_positions = &tp;
    expect(pk_rope(ctx, &host, &t1, NULL), PK_SUCCESS, ctx, "rope, host positions");
    expect(pk_rope(ctx, &dev, &t2, NULL), PK_SUCCESS, ctx, "rope, device positions");
    pk_finish(ctx);
    check(same_bytes(q1, q2, bytes), "rope: device positions give other bits than the host array");
    /* against the rotation in double (NeoX: i with i + D/2) */
    float *in = malloc(bytes), *out = malloc(bytes);
    for (size_t i = 0; i < n; i++) in[i] = (float)((int)(i * 37 % 101) - 50) / 50.0f;
    pk_download(q2, 0, out, bytes);
    double worst = 0;
    for (int tok = 0; tok < RB * RS; tok++)
        for (int h = 0; h < RH; h++)
            for (int i = 0; i < RD / 2; i++) {
                size_t base = ((size_t)tok * RH + h) * RD;
                double a = pos[tok] * pow(10000.0, -2.0 * i / RD), c = cos(a), sn = sin(a);
                double x0 = in[base + i], x1 = in[base + i + RD / 2];
                double e0 = fabs(out[base + i] - (x0 * c - x1 * sn)), e1 = fabs(out[base + i + RD / 2] - (x1 * c + x0 * sn));
                worst = fmax(worst, fmax(e0, e1));
            }
    check(worst < 1e-4, "rope with device positions: %g from the double rotation", worst);
    free(in);
    free(out);

    /* refusals */
    pk_rope_desc both = dev;
    both.positions = pos;
    expect(pk_rope(ctx, &both, &t2, NULL), PK_ERR_INVALID_ARGUMENT, ctx, "rope, positions on both sides");
    const int64_t five[1] = {5};
    pk_tensor short_p = pk_tensor_make(pb, 8, PK_I32, 1, five);
    dev.device_positions = &short_p;
    expect(pk_rope(ctx, &dev, &t2, NULL), PK_ERR_SHAPE_MISMATCH, ctx, "rope, 5 device positions for 6 tokens");
    pk_tensor f32_p = tp;
    f32_p.dtype = PK_F32;
    dev.device_positions = &f32_p;
    expect(pk_rope(ctx, &dev, &t2, NULL), PK_ERR_DTYPE_MISMATCH, ctx, "rope, f32 device positions");
    pk_tensor strided = tp;
    strided.stride[1] = 2;
    strided.shape[0] = 1;
    strided.shape[1] = 6;
    strided.stride[0] = 12;
    dev.device_positions = &strided;
    expect(pk_rope(ctx, &dev, &t2, NULL), PK_ERR_INVALID_ARGUMENT, ctx, "rope, strided device positions");
    pk_tensor inside_q = pk_tensor_make(q2, 0, PK_I32, 2, sp);
    dev.device_positions = &inside_q;
    expect(pk_rope(ctx, &dev, &t2, NULL), PK_ERR_INVALID_ARGUMENT, ctx, "rope, device positions inside q");
    /* i32 is no operand dtype */
    pk_tensor as_q = tp;
    as_q.ndim = 4;
    pk_rope_desc plain = PK_ROPE_DESC_INIT;
    expect(pk_rope(ctx, &plain, &as_q, NULL), PK_ERR_DTYPE_MISMATCH, ctx, "rope on an i32 tensor");
    pk_free(q1);
    pk_free(q2);
    pk_free(pb);
}

enum { AB = 2, ASQ = 4, ASK = 6, AHQ = 2, AHK = 1, AD = 64 };

static void device_attention(pk_context *ctx)
{
    const size_t nq = AB * ASQ * AHQ * AD, nk = AB * ASK * AHK * AD;
    pk_buffer *qkv = NULL, *o1 = NULL, *o2 = NULL, *lb = NULL;
    pk_alloc(ctx, (nq + 2 * nk) * sizeof(float), &qkv);
    pk_alloc(ctx, nq * sizeof(float), &o1);
    pk_alloc(ctx, nq * sizeof(float), &o2);
    pk_alloc(ctx, 4 * AB * sizeof(int32_t), &lb);
    upload_pattern(qkv, 0, nq + 2 * nk, 1.0f);
    const int64_t sq[4] = {AB, ASQ, AHQ, AD}, sk[4] = {AB, ASK, AHK, AD}, sl[1] = {AB};
    pk_tensor q = pk_tensor_make(qkv, 0, PK_F32, 4, sq);
    pk_tensor k = pk_tensor_make(qkv, nq * sizeof(float), PK_F32, 4, sk);
    pk_tensor v = pk_tensor_make(qkv, (nq + nk) * sizeof(float), PK_F32, 4, sk);
    pk_tensor out1 = pk_tensor_make(o1, 0, PK_F32, 4, sq), out2 = pk_tensor_make(o2, 0, PK_F32, 4, sq);
    pk_tensor lq = pk_tensor_make(lb, 0, PK_I32, 1, sl), lkv = pk_tensor_make(lb, AB * sizeof(int32_t), PK_I32, 1, sl);
    const int32_t hq[AB] = {4, 2}, hkv[AB] = {6, 3};
    pk_upload(lb, 0, hq, sizeof hq);
    pk_upload(lb, sizeof hq, hkv, sizeof hkv);

    struct {
        const char *what;
        int dev_q, dev_kv, causal;
    } forms[] = {{"both on the device", 1, 1, 1}, {"kv on the device", 0, 1, 1}, {"q on the device", 1, 0, 0}};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        pk_attention_desc host = PK_ATTENTION_DESC_INIT, dev = PK_ATTENTION_DESC_INIT;
        host.causal = dev.causal = forms[f].causal;
        host.seqlens_q = hq;
        host.seqlens_kv = hkv;
        if (forms[f].dev_q) dev.device_seqlens_q = &lq;
        else dev.seqlens_q = hq;
        if (forms[f].dev_kv) dev.device_seqlens_kv = &lkv;
        else dev.seqlens_kv = hkv;
        expect(pk_attention(ctx, &host, &q, &k, &v, &out1), PK_SUCCESS, ctx, "attention, host lengths");
        expect(pk_attention(ctx, &dev, &q, &k, &v, &out2), PK_SUCCESS, ctx, forms[f].what);
        pk_finish(ctx);
        check(same_bytes(o1, o2, nq * sizeof(float)), "attention, lengths %s: other bits than the host arrays",
              forms[f].what);
    }
    /* out of range on the device: clamped to [0, S], as the host form
     * with the clamped values computes */
    const int32_t wild_q[AB] = {99, -3}, wild_kv[AB] = {-1, 1000}, clamped_q[AB] = {ASQ, 0}, clamped_kv[AB] = {0, ASK};
    pk_upload(lb, 0, wild_q, sizeof wild_q);
    pk_upload(lb, sizeof wild_q, wild_kv, sizeof wild_kv);
    pk_attention_desc host = PK_ATTENTION_DESC_INIT, dev = PK_ATTENTION_DESC_INIT;
    host.seqlens_q = clamped_q;
    host.seqlens_kv = clamped_kv;
    dev.device_seqlens_q = &lq;
    dev.device_seqlens_kv = &lkv;
    expect(pk_attention(ctx, &host, &q, &k, &v, &out1), PK_SUCCESS, ctx, "attention, clamped host lengths");
    expect(pk_attention(ctx, &dev, &q, &k, &v, &out2), PK_SUCCESS, ctx, "attention, device lengths out of range");
    pk_finish(ctx);
    check(same_bytes(o1, o2, nq * sizeof(float)), "attention: device lengths out of range are not clamped");

    /* refusals */
    pk_attention_desc both = dev;
    both.seqlens_kv = hkv;
    expect(pk_attention(ctx, &both, &q, &k, &v, &out2), PK_ERR_INVALID_ARGUMENT, ctx, "lengths on both sides");
    const int64_t three[1] = {3};
    pk_tensor long_l = pk_tensor_make(lb, 0, PK_I32, 1, three);
    dev.device_seqlens_kv = &long_l;
    expect(pk_attention(ctx, &dev, &q, &k, &v, &out2), PK_ERR_SHAPE_MISMATCH, ctx, "3 device lengths for 2 batches");
    pk_tensor in_o = pk_tensor_make(o2, 0, PK_I32, 1, sl);
    dev.device_seqlens_kv = &in_o;
    expect(pk_attention(ctx, &dev, &q, &k, &v, &out2), PK_ERR_INVALID_ARGUMENT, ctx, "device lengths inside o");
    pk_free(qkv);
    pk_free(o1);
    pk_free(o2);
    pk_free(lb);
}

/* ------------------------------------------------------------ 6. rows by index */

static void index_rows(pk_context *ctx)
{
    enum { R = 7, C = 5, NI = 6 };
    /* a table of R rows, stored transposed (column-major) to test strides */
    uint16_t table[R * C], got[R * C];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) table[c * R + r] = pk_f32_to_bf16((float)(r * 10 + c));
    const int32_t idx[NI] = {3, 0, 6, -1, 7, 3};
    pk_buffer *tb = NULL, *ib = NULL, *ob = NULL;
    pk_alloc(ctx, sizeof table, &tb);
    pk_alloc(ctx, sizeof idx, &ib);
    pk_alloc(ctx, 2 * sizeof got, &ob); /* room for an f32 view */
    pk_upload(tb, 0, table, sizeof table);
    pk_upload(ib, 0, idx, sizeof idx);
    const int64_t st[2] = {R, C}, so[2] = {NI, C}, si[1] = {NI};
    pk_tensor t = pk_tensor_make(tb, 0, PK_BF16, 2, st);
    t.stride[0] = 1;
    t.stride[1] = R;
    pk_tensor index = pk_tensor_make(ib, 0, PK_I32, 1, si), out = pk_tensor_make(ob, 0, PK_BF16, 2, so);
    expect(pk_gather_rows(ctx, &t, &index, &out), PK_SUCCESS, ctx, "gather");
    pk_download(ob, 0, got, NI * C * 2);
    int ok = 1;
    for (int i = 0; i < NI; i++)
        for (int c = 0; c < C; c++) {
            int j = idx[i];
            uint16_t want = j >= 0 && j < R ? table[c * R + j] : 0;
            ok &= got[i * C + c] == want;
        }
    check(ok, "gather: rows other than the indices name (or out-of-range ones not zero)");

    /* scatter the gathered rows back into a fresh table: row 3 from entry
     * 5 (the last of the two 3s), rows 0 and 6 from entries 1 and 2, the
     * others untouched */
    uint16_t init[R * C];
    for (int i = 0; i < R * C; i++) init[i] = 0x1234;
    pk_buffer *db = NULL;
    pk_alloc(ctx, sizeof init, &db);
    pk_upload(db, 0, init, sizeof init);
    uint16_t src[NI * C];
    for (int i = 0; i < NI; i++)
        for (int c = 0; c < C; c++) src[i * C + c] = (uint16_t)(i * 100 + c);
    pk_upload(ob, 0, src, sizeof src);
    pk_tensor dst = pk_tensor_make(db, 0, PK_BF16, 2, st);
    expect(pk_scatter_rows(ctx, &out, &index, &dst), PK_SUCCESS, ctx, "scatter");
    pk_download(db, 0, got, sizeof got);
    ok = 1;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            int from = r == 3 ? 5 : r == 0 ? 1 : r == 6 ? 2 : -1;
            uint16_t want = from >= 0 ? (uint16_t)(from * 100 + c) : 0x1234;
            ok &= got[r * C + c] == want;
        }
    check(ok, "scatter: wrong rows written (the last of repeated indices must win; out of range skipped)");

    /* refusals */
    pk_tensor f32_index = index;
    f32_index.dtype = PK_F32;
    expect(pk_gather_rows(ctx, &t, &f32_index, &out), PK_ERR_DTYPE_MISMATCH, ctx, "gather with f32 indices");
    const int64_t s5[1] = {5};
    pk_tensor short_index = pk_tensor_make(ib, 0, PK_I32, 1, s5);
    expect(pk_gather_rows(ctx, &t, &short_index, &out), PK_ERR_SHAPE_MISMATCH, ctx, "gather, 5 indices for 6 rows");
    pk_tensor f32_out = out;
    f32_out.dtype = PK_F32;
    expect(pk_gather_rows(ctx, &t, &index, &f32_out), PK_ERR_DTYPE_MISMATCH, ctx, "gather into another dtype");
    const int64_t s4[2] = {NI, 4};
    pk_tensor narrow = pk_tensor_make(ob, 0, PK_BF16, 2, s4);
    expect(pk_gather_rows(ctx, &t, &index, &narrow), PK_ERR_SHAPE_MISMATCH, ctx, "gather into other columns");
    expect(pk_gather_rows(ctx, &t, NULL, &out), PK_ERR_NULL_ARGUMENT, ctx, "gather without indices");
    expect(pk_scatter_rows(ctx, &dst, &index, &dst), PK_ERR_SHAPE_MISMATCH, ctx, "scatter 7 rows by 6 indices");
    pk_tensor into_table = pk_tensor_make(tb, 0, PK_BF16, 2, so);
    expect(pk_gather_rows(ctx, &t, &index, &into_table), PK_ERR_INVALID_ARGUMENT, ctx, "gather into its own table");
    pk_free(tb);
    pk_free(ib);
    pk_free(ob);
    pk_free(db);
}

/* ------------------------------------------------------------ 7. graphs */

enum { GV = 64, GH = 128, GT = 2, GS = 16, GHD = 64 };

typedef struct graph_bufs {
    pk_buffer *table, *w, *ids, *pos, *lens, *freq, *x, *qk, *cache, *o;
} graph_bufs;

/* One decode-like step, every per-step value read from device tensors:
 * x = table[ids]; qk = x W^T (GT tokens, 2 heads of GHD: q then k); RoPE
 * on q and k at pos; k rows scattered into the cache at pos; attention of
 * q over the cache's first lens[0] rows. */
static pk_status graph_step(pk_context *ctx, const graph_bufs *b)
{
    const int64_t s_table[2] = {GV, GH}, s_x[2] = {GT, GH}, s_w[2] = {2 * GHD, GH}, s_qk[2] = {GT, 2 * GHD},
                  s_ids[1] = {GT}, s_one[1] = {1}, s_freq[1] = {GHD / 2}, s_cache[2] = {GS, GHD};
    pk_tensor table = pk_tensor_make(b->table, 0, PK_F32, 2, s_table), x = pk_tensor_make(b->x, 0, PK_F32, 2, s_x);
    pk_tensor w = pk_tensor_make(b->w, 0, PK_F32, 2, s_w), qk = pk_tensor_make(b->qk, 0, PK_F32, 2, s_qk);
    pk_tensor ids = pk_tensor_make(b->ids, 0, PK_I32, 1, s_ids), pos = pk_tensor_make(b->pos, 0, PK_I32, 1, s_ids);
    pk_tensor lens = pk_tensor_make(b->lens, 0, PK_I32, 1, s_one), freq = pk_tensor_make(b->freq, 0, PK_F32, 1, s_freq);
    pk_tensor cache = pk_tensor_make(b->cache, 0, PK_F32, 2, s_cache);
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    g.trans_b = 1;
    pk_status s = pk_gather_rows(ctx, &table, &ids, &x);
    if (s == PK_SUCCESS) s = pk_gemm(ctx, &g, &x, &w, NULL, &qk);
    /* q and k as [1, GT, 1, GHD] views of qk's halves */
    const int64_t s4[4] = {1, GT, 1, GHD};
    pk_tensor q4 = pk_tensor_make(b->qk, 0, PK_F32, 4, s4), k4 = pk_tensor_make(b->qk, GHD * sizeof(float), PK_F32, 4, s4);
    q4.stride[1] = k4.stride[1] = 2 * GHD;
    q4.stride[0] = k4.stride[0] = GT * 2 * GHD;
    pk_rope_desc r = PK_ROPE_DESC_INIT;
    r.device_positions = &pos;
    r.inv_freq = &freq;
    if (s == PK_SUCCESS) s = pk_rope(ctx, &r, &q4, &k4);
    const int64_t s_k[2] = {GT, GHD};
    pk_tensor k2 = pk_tensor_make(b->qk, GHD * sizeof(float), PK_F32, 2, s_k);
    k2.stride[0] = 2 * GHD;
    if (s == PK_SUCCESS) s = pk_scatter_rows(ctx, &k2, &pos, &cache);
    const int64_t sk4[4] = {1, GS, 1, GHD};
    pk_tensor kc = pk_tensor_make(b->cache, 0, PK_F32, 4, sk4), o = pk_tensor_make(b->o, 0, PK_F32, 4, s4);
    pk_attention_desc a = PK_ATTENTION_DESC_INIT;
    a.causal = 1;
    a.device_seqlens_kv = &lens;
    if (s == PK_SUCCESS) s = pk_attention(ctx, &a, &q4, &kc, &kc, &o);
    return s;
}

static void graph_inputs(const graph_bufs *b, int step)
{
    const int32_t ids[GT] = {3 + step, 40 - step}, pos[GT] = {5 + 2 * step, 6 + 2 * step}, len = 7 + 2 * step;
    pk_upload(b->ids, 0, ids, sizeof ids);
    pk_upload(b->pos, 0, pos, sizeof pos);
    pk_upload(b->lens, 0, &len, sizeof len);
}

static void graphs(pk_context *ctx)
{
    pk_graph *g = NULL;
    pk_status s = pk_graph_begin(ctx);
    const int graphs_here = backend == PK_BACKEND_CUDA || backend == PK_BACKEND_HIP;
    if (!graphs_here) {
        expect(s, PK_ERR_UNSUPPORTED, ctx, "pk_graph_begin where there are no graphs");
        expect(pk_graph_end(ctx, &g), PK_ERR_INVALID_ARGUMENT, ctx, "pk_graph_end without a recording");
    } else {
        expect(s, PK_SUCCESS, ctx, "pk_graph_begin on an empty context");
        expect(pk_graph_end(ctx, &g), PK_SUCCESS, ctx, "an empty recording");
        if (g) expect(pk_graph_free(g), PK_SUCCESS, ctx, "free an empty graph");
    }

    /* two contexts' worth of the same buffers: one runs eagerly, one replays */
    graph_bufs b[2];
    pk_context *eager = NULL;
    if (pk_open(backend, device_index, &eager) != PK_SUCCESS) return;
    pk_context *ctxs[2] = {eager, ctx};
    for (int k = 0; k < 2; k++) {
        pk_context *c = ctxs[k];
        graph_bufs *x = &b[k];
        pk_alloc(c, GV * GH * 4, &x->table);
        pk_alloc(c, 2 * GHD * GH * 4, &x->w);
        pk_alloc(c, GT * 4, &x->ids);
        pk_alloc(c, GT * 4, &x->pos);
        pk_alloc(c, 4, &x->lens);
        pk_alloc(c, GHD / 2 * 4, &x->freq);
        pk_alloc(c, GT * GH * 4, &x->x);
        pk_alloc(c, GT * 2 * GHD * 4, &x->qk);
        pk_alloc(c, GS * GHD * 4, &x->cache);
        pk_alloc(c, GT * GHD * 4, &x->o);
        upload_pattern(x->table, 0, GV * GH, 1.0f);
        upload_pattern(x->w, 0, 2 * GHD * GH, 0.05f);
        upload_pattern(x->cache, 0, GS * GHD, 1.0f);
        float f[GHD / 2];
        for (int i = 0; i < GHD / 2; i++) f[i] = powf(10000.0f, -2.0f * i / GHD);
        pk_upload(x->freq, 0, f, sizeof f);
    }
    /* once before recording: kernels loaded, buffers grown (where there
     * are no graphs, the step's calls are checked to be valid all the same) */
    graph_inputs(&b[1], 0);
    expect(graph_step(ctx, &b[1]), PK_SUCCESS, ctx, "the step, eagerly, before recording");
    pk_finish(ctx);
    /* the same on the eager side, so that both KV caches hold step 0's rows */
    graph_inputs(&b[0], 0);
    expect(graph_step(eager, &b[0]), PK_SUCCESS, eager, "the step, eagerly, on the eager context");
    pk_finish(eager);
    if (!graphs_here) {
        for (int k = 0; k < 2; k++) {
            pk_buffer **all = &b[k].table;
            for (int i = 0; i < 10; i++) pk_free(all[i]);
        }
        pk_close(eager);
        return;
    }
    pk_graph *g0 = NULL; /* a graph alive while another is recorded */
    pk_graph_begin(ctx);
    pk_graph_end(ctx, &g0);
    expect(pk_graph_begin(ctx), PK_SUCCESS, ctx, "pk_graph_begin");
    expect(graph_step(ctx, &b[1]), PK_SUCCESS, ctx, "the step, recorded");
    if (g0) expect(pk_graph_free(g0), PK_ERR_INVALID_ARGUMENT, ctx, "pk_graph_free while recording");
    /* refused while recording, and not recorded */
    int32_t v = 1;
    expect(pk_upload(b[1].ids, 0, &v, 4), PK_ERR_INVALID_ARGUMENT, ctx, "pk_upload while recording");
    expect(pk_finish(ctx), PK_ERR_INVALID_ARGUMENT, ctx, "pk_finish while recording");
    pk_buffer *nb = NULL;
    expect(pk_alloc(ctx, 64, &nb), PK_ERR_INVALID_ARGUMENT, ctx, "pk_alloc while recording");
    expect(pk_graph_begin(ctx), PK_ERR_INVALID_ARGUMENT, ctx, "pk_graph_begin twice");
    pk_event *ev = NULL;
    expect(pk_event_record(ctx, &ev), PK_ERR_INVALID_ARGUMENT, ctx, "pk_event_record while recording");
    const int64_t s4[4] = {1, GT, 1, GHD};
    pk_tensor q4 = pk_tensor_make(b[1].qk, 0, PK_F32, 4, s4);
    q4.stride[1] = 2 * GHD;
    q4.stride[0] = GT * 2 * GHD;
    const int32_t host_pos[GT] = {1, 2};
    pk_rope_desc host_rope = PK_ROPE_DESC_INIT;
    host_rope.positions = host_pos;
    expect(pk_rope(ctx, &host_rope, &q4, NULL), PK_ERR_UNSUPPORTED, ctx, "RoPE with host positions while recording");
    expect(pk_graph_end(ctx, &g), PK_SUCCESS, ctx, "pk_graph_end");
    if (g0) expect(pk_graph_free(g0), PK_SUCCESS, ctx, "pk_graph_free once recording ended");
    /* replays with new inputs give the eager step's bits */
    for (int step = 1; step <= 3 && g; step++) {
        graph_inputs(&b[0], step);
        graph_inputs(&b[1], step);
        expect(graph_step(eager, &b[0]), PK_SUCCESS, eager, "the step, eagerly");
        expect(pk_graph_launch(g), PK_SUCCESS, ctx, "pk_graph_launch");
        pk_finish(eager);
        expect(pk_finish(ctx), PK_SUCCESS, ctx, "finish after a replay");
        check(same_bytes(b[0].o, b[1].o, GT * GHD * 4), "graph replay %d: the attention output differs from the eager step",
              step);
        check(same_bytes(b[0].cache, b[1].cache, GS * GHD * 4), "graph replay %d: the KV cache differs", step);
    }
    if (g) {
        expect(pk_graph_free(g), PK_SUCCESS, ctx, "pk_graph_free");
        /* a freed graph names no context: its message is the thread's */
        expect(pk_graph_launch(g), PK_ERR_INVALID_ARGUMENT, NULL, "launch a freed graph");
    }
    for (int k = 0; k < 2; k++) {
        pk_buffer **all = &b[k].table;
        for (int i = 0; i < 10; i++) pk_free(all[i]);
    }
    pk_close(eager);
}

int main(int argc, char **argv)
{
    if (argc < 2 || pk_backend_from_name(argv[1], &backend) != PK_SUCCESS || backend == PK_BACKEND_AUTO) {
        fprintf(stderr, "usage: test_interop ref|opencl|cuda|hip [INDEX]\n");
        return 2;
    }
    device_index = argc > 2 ? atoi(argv[2]) : 0;
    pk_context *ctx = NULL;
    pk_status s = pk_open(backend, device_index, &ctx);
    if (s == PK_ERR_BACKEND_UNAVAILABLE || s == PK_ERR_NO_DEVICE) {
        printf("test_interop: %s %d skipped: %s\n", argv[1], device_index, pk_last_error(NULL));
        return 77;
    }
    if (s != PK_SUCCESS) {
        fprintf(stderr, "test_interop: pk_open: %s: %s\n", pk_status_string(s), pk_last_error(NULL));
        return 1;
    }
    pk_device_info info;
    pk_context_info(ctx, &info);
    printf("test_interop: %s %d: %s\n", argv[1], device_index, info.name);
    fill_inputs();
    wrapped_memory(ctx);
    queues(ctx);
    other_cuda_context(ctx);
    events(ctx);
    dlpack(ctx);
    device_rope(ctx);
    device_attention(ctx);
    index_rows(ctx);
    graphs(ctx);
    expect(pk_close(ctx), PK_SUCCESS, NULL, "close");
    printf("test_interop: %d checks, %d failed\n", n_checks, n_failed);
    return n_failed ? 1 : 0;
}
