#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pk_check.h"

pk_status pk_check_ctx(pk_context *ctx, const char *fn)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "%s: 'ctx' is NULL", fn);
    if (ctx->lost)
        return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "%s: context lost earlier (%s)", fn,
                       pk_status_string(ctx->lost));
    return PK_SUCCESS;
}

const char *pk_shape_str(const pk_tensor *t, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < t->ndim && i < PK_MAX_DIMS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    if (used < n) snprintf(buf + used, n - used, "]");
    return buf;
}

pk_status pk_check_tensor(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                          int min_ndim, int max_ndim)
{
    if (!t) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: '%s' is NULL", fn, name);
    if (!t->buf) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: '%s': buffer is NULL", fn, name);
    if (t->buf->magic != PK_BUFFER_MAGIC)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: '%s': buffer is not a live pk_buffer", fn, name);
    if (t->buf->ctx != ctx)
        return pk_fail(ctx, PK_ERR_WRONG_CONTEXT, "%s: '%s': buffer belongs to another context", fn, name);
    size_t es = pk_dtype_size(t->dtype);
    if (!es) return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: '%s': dtype %d is not a pk_dtype", fn, name,
                            (int)t->dtype);
    if (t->ndim < 1 || t->ndim > PK_MAX_DIMS)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: '%s': ndim %d is not in 1..%d", fn, name,
                       t->ndim, PK_MAX_DIMS);
    if (t->ndim < min_ndim || t->ndim > max_ndim)
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: '%s': has %d dims, expected %d..%d", fn, name,
                       t->ndim, min_ndim, max_ndim);
    int64_t numel = 1, last = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] < 0)
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s': shape[%d] = %lld is negative", fn, name, i,
                           (long long)t->shape[i]);
        if (t->stride[i] < 0)
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s': stride[%d] = %lld is negative", fn, name, i,
                           (long long)t->stride[i]);
        if (__builtin_mul_overflow(numel, t->shape[i], &numel))
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s': element count overflows", fn, name);
    }
    int64_t bytes;
    if (__builtin_mul_overflow(numel, (int64_t)es, &bytes))
        return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s': byte size overflows", fn, name);
    if (t->offset % es)
        return pk_fail(ctx, PK_ERR_MISALIGNED, "%s: '%s': byte offset %zu is not a multiple of %zu", fn,
                       name, t->offset, es);
    if (t->offset > t->buf->size)
        return pk_fail(ctx, PK_ERR_OUT_OF_BOUNDS, "%s: '%s': offset %zu is past the buffer's %zu bytes",
                       fn, name, t->offset, t->buf->size);
    if (numel == 0) return PK_SUCCESS;
    for (int i = 0; i < t->ndim; i++) {
        int64_t span;
        if (__builtin_mul_overflow(t->shape[i] - 1, t->stride[i], &span) ||
            __builtin_add_overflow(last, span, &last))
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s': strides reach past int64", fn, name);
    }
    int64_t end; /* bytes past the offset up to the end of the furthest element */
    if (__builtin_add_overflow(last, 1, &end) || __builtin_mul_overflow(end, (int64_t)es, &end))
        return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s': strides reach past int64", fn, name);
    if ((uint64_t)end > t->buf->size - t->offset) {
        char sb[96];
        return pk_fail(ctx, PK_ERR_OUT_OF_BOUNDS,
                       "%s: '%s': shape %s with these strides and offset %zu reaches byte %llu of a "
                       "%zu-byte buffer", fn, name, pk_shape_str(t, sb, sizeof sb), t->offset,
                       (unsigned long long)((uint64_t)t->offset + (uint64_t)end), t->buf->size);
    }
    return PK_SUCCESS;
}

pk_status pk_check_dtype(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                         pk_dtype want)
{
    if (t->dtype != want)
        return pk_fail(ctx, PK_ERR_DTYPE_MISMATCH, "%s: '%s': dtype %s, expected %s", fn, name,
                       pk_dtype_name(t->dtype), pk_dtype_name(want));
    return PK_SUCCESS;
}

pk_status pk_check_act(pk_context *ctx, const char *fn, const char *name, pk_activation act)
{
    if ((unsigned)act >= PK_ACT_COUNT)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: '%s': %d is not a pk_activation", fn, name,
                       (int)act);
    return PK_SUCCESS;
}

pk_status pk_check_dim(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                       int from_right, int64_t want, const char *what)
{
    int64_t got = t->shape[t->ndim - 1 - from_right];
    if (got != want) {
        char sb[96];
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: '%s': shape %s: %s is %lld, expected %lld", fn,
                       name, pk_shape_str(t, sb, sizeof sb), what, (long long)got, (long long)want);
    }
    return PK_SUCCESS;
}

int64_t pk_numel(const pk_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= t->shape[i];
    return n;
}

pk_view pk_view_of(const pk_tensor *t)
{
    pk_view v;
    memset(&v, 0, sizeof v);
    v.mem = t->buf->mem;
    v.offset = (int64_t)(t->offset / pk_dtype_size(t->dtype));
    v.dtype = t->dtype;
    int pad = PK_MAX_DIMS - t->ndim;
    for (int i = 0; i < t->ndim; i++) v.stride[pad + i] = t->shape[i] == 1 ? 0 : t->stride[i];
    return v;
}

pk_view pk_view_none(void)
{
    pk_view v;
    memset(&v, 0, sizeof v);
    return v;
}

pk_status pk_check_output(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t)
{
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] > 1 && t->stride[i] == 0)
            return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT,
                           "%s: '%s': stride[%d] is 0, so outputs would overlap", fn, name, i);
    return PK_SUCCESS;
}
