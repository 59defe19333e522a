/* DLPack tensors in and out (portkern.h, api/pk_dlpack.h): an import is a
 * wrapped buffer over the producer's memory (pk_wrap_memory), an export a
 * struct that points at portkern's. */
#include <stdlib.h>
#include <string.h>

#include "pk_check.h"
#include "pk_core.h"
#include "pk_dlpack.h"
#include "pk_foreign.h"

/* Where a context's memory lives, in DLPack's terms. HIP's memory is
 * CUDA's when HIP runs on NVIDIA. */
static pk_dl_device device_of(const pk_context *ctx)
{
    pk_dl_device d = {PK_DL_CPU, 0};
    switch (ctx->info.backend) {
    case PK_BACKEND_CUDA: d.device_type = PK_DL_CUDA; break;
    case PK_BACKEND_HIP: d.device_type = strstr(ctx->info.vendor, "NVIDIA") ? PK_DL_CUDA : PK_DL_ROCM; break;
    case PK_BACKEND_OPENCL: d.device_type = PK_DL_OPENCL; break;
    default: return d;
    }
    d.device_id = ctx->info.index;
    return d;
}

static const char *device_name(int32_t type)
{
    switch (type) {
    case PK_DL_CPU: return "CPU";
    case PK_DL_CUDA: return "CUDA";
    case PK_DL_CUDA_HOST: return "CUDA host";
    case PK_DL_OPENCL: return "OpenCL";
    case PK_DL_VULKAN: return "Vulkan";
    case PK_DL_METAL: return "Metal";
    case PK_DL_ROCM: return "ROCm";
    case PK_DL_ROCM_HOST: return "ROCm host";
    case PK_DL_CUDA_MANAGED: return "CUDA managed";
    case PK_DL_ONEAPI: return "oneAPI";
    default: return "unknown";
    }
}

/* Whether memory of DLPack device dev is ctx's to compute on */
static int device_fits(const pk_context *ctx, pk_dl_device dev)
{
    pk_dl_device mine = device_of(ctx);
    if (mine.device_type == PK_DL_CPU)
        return dev.device_type == PK_DL_CPU || dev.device_type == PK_DL_CUDA_HOST || dev.device_type == PK_DL_ROCM_HOST;
    int type_ok = dev.device_type == mine.device_type ||
                  (mine.device_type == PK_DL_CUDA && dev.device_type == PK_DL_CUDA_MANAGED);
    return type_ok && dev.device_id == mine.device_id;
}

static pk_status dtype_of(pk_context *ctx, const char *fn, pk_dl_dtype t, pk_dtype *out)
{
    if (t.lanes == 1 && t.code == PK_DL_FLOAT && t.bits == 32) *out = PK_F32;
    else if (t.lanes == 1 && t.code == PK_DL_FLOAT && t.bits == 16) *out = PK_F16;
    else if (t.lanes == 1 && t.code == PK_DL_BFLOAT && t.bits == 16) *out = PK_BF16;
    else if (t.lanes == 1 && t.code == PK_DL_INT && t.bits == 32) *out = PK_I32;
    else
        return pk_fail(ctx, PK_ERR_UNSUPPORTED,
                       "%s: dtype code %u, %u bits, %u lanes: portkern takes float32, float16, bfloat16 and int32 "
                       "of one lane",
                       fn, t.code, t.bits, t.lanes);
    return PK_SUCCESS;
}

static pk_status import(pk_context *ctx, const char *fn, const pk_dl_tensor *t, void (*on_release)(void *),
                        void *release_arg, pk_tensor *out)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "%s: 'ctx' is NULL", fn);
    if (!t) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: the DLPack tensor is NULL", fn);
    if (!out) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'out' is NULL", fn);
    if (!device_fits(ctx, t->device)) {
        pk_dl_device mine = device_of(ctx);
        return pk_fail(ctx, PK_ERR_WRONG_CONTEXT,
                       "%s: the tensor is on %s device %d; the context (%s) computes on %s device %d memory", fn,
                       device_name(t->device.device_type), (int)t->device.device_id, pk_backend_name(ctx->info.backend),
                       device_name(mine.device_type), (int)mine.device_id);
    }
    pk_dtype dtype = PK_F32;
    pk_status s = dtype_of(ctx, fn, t->dtype, &dtype);
    if (s != PK_SUCCESS) return s;
    const size_t esize = pk_dtype_size(dtype);
    if (t->ndim < 0) return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: ndim %d is negative", fn, (int)t->ndim);
    if (t->ndim > 0 && !t->shape) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'shape' is NULL", fn);
    /* dims of size 1 in front carry nothing: drop them down to the most
     * portkern takes */
    int first = 0;
    while (t->ndim - first > PK_MAX_DIMS && t->shape[first] == 1) first++;
    if (t->ndim - first > PK_MAX_DIMS)
        return pk_fail(ctx, PK_ERR_UNSUPPORTED, "%s: %d dims: portkern takes at most %d (after dropping leading 1s)",
                       fn, (int)t->ndim, PK_MAX_DIMS);
    pk_tensor v = {0};
    v.dtype = dtype;
    v.ndim = t->ndim - first;
    if (v.ndim == 0) {
        v.ndim = 1;
        v.shape[0] = v.stride[0] = 1;
    }
    int64_t row = 1;
    for (int i = t->ndim - 1; i >= first; i--) {
        int64_t n = t->shape[i], st = t->strides ? t->strides[i] : row;
        if (n < 0) return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: shape[%d] = %lld is negative", fn, i, (long long)n);
        if (st < 0)
            return pk_fail(ctx, PK_ERR_UNSUPPORTED, "%s: strides[%d] = %lld: portkern takes no negative strides", fn,
                           i, (long long)st);
        v.shape[i - first] = n;
        v.stride[i - first] = st;
        if (__builtin_mul_overflow(row, n, &row)) row = INT64_MAX;
    }
    /* no element: no memory of the producer's to hold (its data may be
     * NULL); a buffer of one element of portkern's own carries the view,
     * and a managed tensor goes back to its producer at once */
    for (int i = 0; i < v.ndim; i++)
        if (v.shape[i] == 0) {
            pk_buffer *buf = NULL;
            pk_status st = pk_alloc(ctx, esize, &buf);
            if (st != PK_SUCCESS) return st;
            v.buf = buf;
            *out = v;
            if (on_release) on_release(release_arg);
            return PK_SUCCESS;
        }
    /* elements from the first to one past the last the view reaches */
    int64_t extent = 1;
    for (int i = 0; i < v.ndim; i++) {
        int64_t step;
        if (__builtin_mul_overflow(v.shape[i] - 1, v.stride[i], &step) || __builtin_add_overflow(extent, step, &extent))
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: shape and strides reach past 2^63 elements", fn);
    }
    size_t bytes;
    if (__builtin_mul_overflow((uint64_t)extent, (uint64_t)esize, &bytes))
        return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: the tensor spans more bytes than an address holds", fn);
    uintptr_t handle;
    size_t offset = 0;
    if (ctx->info.backend == PK_BACKEND_OPENCL) {
        /* a cl_mem is a handle, not an address: the offset stays beside it */
        if (t->byte_offset % esize)
            return pk_fail(ctx, PK_ERR_MISALIGNED, "%s: byte_offset %llu is not a multiple of the element size %zu",
                           fn, (unsigned long long)t->byte_offset, esize);
        if (__builtin_add_overflow(bytes, (size_t)t->byte_offset, &bytes))
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: byte_offset reaches past the address space", fn);
        handle = (uintptr_t)t->data;
        offset = (size_t)t->byte_offset;
    } else {
        if (!t->data) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'data' is NULL", fn);
        if (__builtin_add_overflow((uintptr_t)t->data, (uintptr_t)t->byte_offset, &handle))
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: data + byte_offset wraps around", fn);
        if (handle % esize)
            return pk_fail(ctx, PK_ERR_MISALIGNED, "%s: the first element's address is not a multiple of %zu", fn,
                           esize);
    }
    if (!handle) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'data' is NULL", fn);
    pk_buffer *buf = NULL;
    s = pk_wrap_memory(ctx, fn, handle, bytes, on_release, release_arg, &buf);
    if (s != PK_SUCCESS) return s;
    v.buf = buf;
    v.offset = offset;
    *out = v;
    return PK_SUCCESS;
}

pk_status pk_tensor_from_dlpack(pk_context *ctx, const pk_dl_tensor *t, pk_tensor *out)
{
    return import(ctx, "pk_tensor_from_dlpack", t, NULL, NULL, out);
}

static void delete_legacy(void *p)
{
    pk_dl_managed *m = p;
    if (m->deleter) m->deleter(m);
}

pk_status pk_tensor_from_dlpack_managed(pk_context *ctx, pk_dl_managed *m, pk_tensor *out)
{
    if (!m) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_tensor_from_dlpack_managed: 'm' is NULL");
    return import(ctx, "pk_tensor_from_dlpack_managed", &m->dl_tensor, delete_legacy, m, out);
}

static void delete_versioned(void *p)
{
    pk_dl_managed_versioned *m = p;
    if (m->deleter) m->deleter(m);
}

pk_status pk_tensor_from_dlpack_versioned(pk_context *ctx, pk_dl_managed_versioned *m, pk_tensor *out)
{
    const char *fn = "pk_tensor_from_dlpack_versioned";
    if (!m) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'm' is NULL", fn);
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "%s: 'ctx' is NULL", fn);
    if (m->version.major != 1)
        return pk_fail(ctx, PK_ERR_UNSUPPORTED, "%s: DLPack version %u.%u: portkern reads major version 1", fn,
                       m->version.major, m->version.minor);
    if (m->flags & PK_DL_FLAG_READ_ONLY)
        return pk_fail(ctx, PK_ERR_UNSUPPORTED,
                       "%s: the tensor is read-only, and portkern may write any buffer it is given", fn);
    return import(ctx, fn, &m->dl_tensor, delete_versioned, m, out);
}

/* ---- export */

/* The exported struct and the arrays it points at, one allocation that its
 * deleter frees */
typedef struct export_legacy {
    pk_dl_managed m;
    int64_t shape[PK_MAX_DIMS], strides[PK_MAX_DIMS];
} export_legacy;

typedef struct export_versioned {
    pk_dl_managed_versioned m;
    int64_t shape[PK_MAX_DIMS], strides[PK_MAX_DIMS];
} export_versioned;

static void free_legacy(pk_dl_managed *self) { free(self); }
static void free_versioned(pk_dl_managed_versioned *self) { free(self); }

/* d over t's memory, shape and strides in the arrays given */
static pk_status describe(const char *fn, const pk_tensor *t, pk_dl_tensor *d, int64_t *shape, int64_t *strides)
{
    if (!t) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "%s: 't' is NULL", fn);
    pk_context *ctx = pk_buffer_context(t->buf);
    if (!ctx)
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                       "%s: 't->buf' is not a live pk_buffer (freed, its context closed, or never allocated)", fn);
    pk_status s = pk_check_tensor_any(ctx, fn, "t", t, 1, PK_MAX_DIMS);
    if (s != PK_SUCCESS) return s;
    uintptr_t base = 0;
    pk_buffer_handle(t->buf, &base);
    static const pk_dl_dtype types[PK_DTYPE_COUNT] = {
        [PK_F32] = {PK_DL_FLOAT, 32, 1}, [PK_F16] = {PK_DL_FLOAT, 16, 1}, [PK_BF16] = {PK_DL_BFLOAT, 16, 1},
        [PK_I32] = {PK_DL_INT, 32, 1}};
    memset(d, 0, sizeof *d);
    d->device = device_of(ctx);
    if (ctx->info.backend == PK_BACKEND_OPENCL) {
        d->data = (void *)base;
        d->byte_offset = t->offset;
    } else {
        d->data = (void *)(base + t->offset);
    }
    d->ndim = t->ndim;
    d->dtype = types[t->dtype];
    for (int i = 0; i < t->ndim; i++) {
        shape[i] = t->shape[i];
        strides[i] = t->stride[i];
    }
    d->shape = shape;
    d->strides = strides;
    return PK_SUCCESS;
}

/* A new export of t, legacy or versioned, its struct and arrays in one
 * allocation that its deleter frees */
static pk_status export_tensor(const char *fn, const pk_tensor *t, int versioned, void **out)
{
    if (!out) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "%s: 'out' is NULL", fn);
    *out = NULL;
    export_legacy *l = NULL;
    export_versioned *v = NULL;
    if (versioned) v = calloc(1, sizeof *v);
    else l = calloc(1, sizeof *l);
    if (!l && !v) return pk_fail(NULL, PK_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    pk_status s = versioned ? describe(fn, t, &v->m.dl_tensor, v->shape, v->strides)
                            : describe(fn, t, &l->m.dl_tensor, l->shape, l->strides);
    if (s != PK_SUCCESS) {
        free(l);
        free(v);
        return s;
    }
    if (versioned) {
        v->m.version.major = 1;
        v->m.version.minor = 0;
        v->m.deleter = free_versioned;
        *out = &v->m;
    } else {
        l->m.deleter = free_legacy;
        *out = &l->m;
    }
    return PK_SUCCESS;
}

pk_status pk_tensor_to_dlpack(const pk_tensor *t, pk_dl_managed **out)
{
    return export_tensor("pk_tensor_to_dlpack", t, 0, (void **)out);
}

pk_status pk_tensor_to_dlpack_versioned(const pk_tensor *t, pk_dl_managed_versioned **out)
{
    return export_tensor("pk_tensor_to_dlpack_versioned", t, 1, (void **)out);
}
