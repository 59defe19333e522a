#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pk_check.h"
#include "pk_handles.h"

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

pk_status pk_check_tensor_any(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t, int min_ndim,
                           int max_ndim)
{
    if (!t) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: '%s' is NULL", fn, name);
    if (!t->buf) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: '%s': buffer is NULL", fn, name);
    pk_buf_rec buf;
    if (!pk_handle_get(t->buf, &buf))
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT,
                       "%s: '%s': buffer is not a live pk_buffer (freed, its context closed, or never allocated)",
                       fn, name);
    if (buf.ctx != ctx)
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
    if (t->offset > buf.size)
        return pk_fail(ctx, PK_ERR_OUT_OF_BOUNDS, "%s: '%s': offset %zu is past the buffer's %zu bytes",
                       fn, name, t->offset, buf.size);
    /* An empty tensor reads nothing, but backends still form row and batch
     * offsets from its strides (GEMM with K = 0): those must fit int64 too. */
    for (int i = 0; i < t->ndim; i++) {
        int64_t span;
        if (t->shape[i] == 0) continue;
        if (__builtin_mul_overflow(t->shape[i] - 1, t->stride[i], &span) ||
            __builtin_add_overflow(last, span, &last))
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s': strides reach past int64", fn, name);
    }
    int64_t end; /* bytes past the offset up to the end of the furthest element */
    if (__builtin_add_overflow(last, 1, &end) || __builtin_mul_overflow(end, (int64_t)es, &end) ||
        (uint64_t)end > (uint64_t)INT64_MAX - t->offset)
        return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s': strides reach past int64", fn, name);
    if (numel == 0) return PK_SUCCESS;
    if ((uint64_t)end > buf.size - t->offset) {
        char sb[96];
        return pk_fail(ctx, PK_ERR_OUT_OF_BOUNDS,
                       "%s: '%s': shape %s with these strides and offset %zu reaches byte %llu of a "
                       "%zu-byte buffer", fn, name, pk_shape_str(t, sb, sizeof sb), t->offset,
                       (unsigned long long)((uint64_t)t->offset + (uint64_t)end), buf.size);
    }
    return PK_SUCCESS;
}

pk_status pk_check_tensor(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                          int min_ndim, int max_ndim)
{
    pk_status s = pk_check_tensor_any(ctx, fn, name, t, min_ndim, max_ndim);
    if (s == PK_SUCCESS && t->dtype == PK_I32)
        return pk_fail(ctx, PK_ERR_DTYPE_MISMATCH,
                       "%s: '%s': dtype i32 is for indices (positions, sequence lengths, row indices); ops compute "
                       "on f32, f16, bf16",
                       fn, name);
    return s;
}

pk_status pk_check_index(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t, int64_t n)
{
    pk_status s = pk_check_tensor_any(ctx, fn, name, t, 1, PK_MAX_DIMS);
    if (s != PK_SUCCESS) return s;
    if (t->dtype != PK_I32)
        return pk_fail(ctx, PK_ERR_DTYPE_MISMATCH, "%s: '%s': dtype %s, expected i32", fn, name, pk_dtype_name(t->dtype));
    if (pk_numel(t) != n)
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: '%s': %lld elements, expected %lld", fn, name,
                       (long long)pk_numel(t), (long long)n);
    int64_t row = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] != 1 && t->stride[i] != row)
            return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: '%s': the %lld values must be contiguous (stride[%d] = %lld)",
                           fn, name, (long long)n, i, (long long)t->stride[i]);
        row *= t->shape[i];
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
    pk_buf_rec buf;
    v.mem = pk_handle_get(t->buf, &buf) ? buf.mem : NULL;
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


/* ---- overlap: an output against itself and against the other operands */

typedef struct dim_span {
    int64_t extent, stride; /* stride in bytes */
} dim_span;

/* The dims of t with more than one element, in bytes, by increasing stride. */
static int spans_sorted(const pk_tensor *t, dim_span *out)
{
    int n = 0;
    int64_t es = (int64_t)pk_dtype_size(t->dtype);
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] <= 1) continue;
        dim_span d = {t->shape[i], t->stride[i] * es};
        int j = n++;
        for (; j > 0 && out[j - 1].stride > d.stride; j--) out[j] = out[j - 1];
        out[j] = d;
    }
    return n;
}

pk_status pk_check_output(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t)
{
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] > 1 && t->stride[i] == 0)
            return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT,
                           "%s: '%s': stride[%d] is 0, so outputs would overlap", fn, name, i);
    if (pk_numel(t) == 0) return PK_SUCCESS;
    /* Sorted by stride, each dim must step past everything the smaller ones
     * reach: then no two elements share a byte. Layouts that interleave
     * dims without overlapping are refused as well. */
    dim_span d[PK_MAX_DIMS];
    int n = spans_sorted(t, d);
    int64_t reach = (int64_t)pk_dtype_size(t->dtype); /* bytes covered from an element's start */
    for (int i = 0; i < n; i++) {
        if (d[i].stride < reach) {
            char sb[96];
            return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT,
                           "%s: '%s': shape %s: a stride of %lld bytes falls inside what the smaller strides "
                           "reach (%lld bytes), so output elements would overlap",
                           fn, name, pk_shape_str(t, sb, sizeof sb), (long long)d[i].stride, (long long)reach);
        }
        reach += d[i].stride * (d[i].extent - 1); /* no overflow: pk_check_tensor bounded the extent */
    }
    return PK_SUCCESS;
}

/* Bytes [lo, hi) of t's elements from the buffer's start. */
static void byte_range(const pk_tensor *t, int64_t *lo, int64_t *hi)
{
    int64_t es = (int64_t)pk_dtype_size(t->dtype), last = 0;
    for (int i = 0; i < t->ndim; i++) last += (t->shape[i] - 1) * t->stride[i];
    *lo = (int64_t)t->offset;
    *hi = *lo + (last + 1) * es;
}

/* Does a row period of p bytes hold t: every stride of at least p is a
 * multiple of p, and the rest spans, from the offset's place in its row,
 * no further than the row's end? Then t's bytes within each row are
 * [*col, *col + *width). */
static int rows_of(const pk_tensor *t, int64_t p, int64_t *col, int64_t *width)
{
    int64_t es = (int64_t)pk_dtype_size(t->dtype), w = es;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] <= 1) continue;
        int64_t s = t->stride[i] * es;
        if (s >= p) {
            if (s % p) return 0;
        } else {
            w += s * (t->shape[i] - 1);
        }
    }
    *col = (int64_t)t->offset % p;
    *width = w;
    return *col + w <= p;
}

static int same_layout(const pk_tensor *a, const pk_tensor *b)
{
    if (a->offset != b->offset || a->dtype != b->dtype || a->ndim != b->ndim) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i] || (a->shape[i] > 1 && a->stride[i] != b->stride[i])) return 0;
    return 1;
}

/* Proves that a and b share no byte: disjoint byte ranges, or a common row
 * period in which their columns are disjoint (slices of one wider matrix,
 * heads of a fused QKV tensor). */
static int provably_disjoint(const pk_tensor *a, const pk_tensor *b)
{
    int64_t alo, ahi, blo, bhi;
    byte_range(a, &alo, &ahi);
    byte_range(b, &blo, &bhi);
    if (ahi <= blo || bhi <= alo) return 1;
    const pk_tensor *both[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < both[k]->ndim; i++) {
            if (both[k]->shape[i] <= 1) continue;
            int64_t p = both[k]->stride[i] * (int64_t)pk_dtype_size(both[k]->dtype), ac, aw, bc, bw;
            if (p > 0 && rows_of(a, p, &ac, &aw) && rows_of(b, p, &bc, &bw) && (ac + aw <= bc || bc + bw <= ac))
                return 1;
        }
    return 0;
}

pk_status pk_check_disjoint(pk_context *ctx, const char *fn, const char *out_name, const pk_tensor *out,
                            const char *in_name, const pk_tensor *in, int may_be_same)
{
    if (!out || !in || out->buf != in->buf || pk_numel(out) == 0 || pk_numel(in) == 0) return PK_SUCCESS;
    if (may_be_same && same_layout(out, in)) return PK_SUCCESS;
    if (provably_disjoint(out, in)) return PK_SUCCESS;
    int64_t olo, ohi, ilo, ihi;
    byte_range(out, &olo, &ohi);
    byte_range(in, &ilo, &ihi);
    return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT,
                   "%s: '%s' (bytes %lld..%lld of its buffer) overlaps '%s' (bytes %lld..%lld)%s", fn, out_name,
                   (long long)olo, (long long)ohi, in_name, (long long)ilo, (long long)ihi,
                   may_be_same ? " and is not exactly the same tensor" : "");
}

pk_status pk_check_stored(pk_context *ctx, const char *fn, const char *what, int64_t extent, const char *name_a,
                          int64_t stride_a, const char *name_b, int64_t stride_b)
{
    if (extent <= 1 || stride_a != 0 || stride_b != 0) return PK_SUCCESS;
    return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT,
                   "%s: '%s' and '%s' both broadcast %s = %lld (stride 0): a reduction must read memory "
                   "(its work is bounded by what an input stores)",
                   fn, name_a, name_b, what, (long long)extent);
}
