/* pk_attention: checks, lengths and masks resolved for the backends. */
#include <math.h>
#include <stdlib.h>

#include "pk_check.h"
#include "pk_fault.h"

static const char *const FN = "pk_attention";

static int head_dim_supported(int64_t d)
{
    return d == 64 || d == 80 || d == 96 || d == 128 || d == 256;
}

static pk_status check_lengths(pk_context *ctx, const char *name, const int32_t *len, int64_t batch,
                               int64_t max)
{
    if (!len) return PK_SUCCESS;
    for (int64_t b = 0; b < batch; b++) {
        if (len[b] < 0)
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s'[%lld] = %d is negative", FN, name, (long long)b,
                           len[b]);
        if (len[b] > max)
            return pk_fail(ctx, PK_ERR_OUT_OF_BOUNDS, "%s: '%s'[%lld] = %d is more than %lld", FN, name,
                           (long long)b, len[b], (long long)max);
    }
    return PK_SUCCESS;
}

pk_status pk_attention(pk_context *ctx, const pk_attention_desc *desc, const pk_tensor *q,
                       const pk_tensor *k, const pk_tensor *v, const pk_tensor *o)
{
    pk_status s;
    if ((s = pk_check_ctx(ctx, FN))) return s;
    if (!desc) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'desc' is NULL", FN);
    if ((s = pk_check_tensor(ctx, FN, "q", q, 4, 4))) return s;
    if ((s = pk_check_tensor(ctx, FN, "k", k, 4, 4))) return s;
    if ((s = pk_check_tensor(ctx, FN, "v", v, 4, 4))) return s;
    if ((s = pk_check_tensor(ctx, FN, "o", o, 4, 4))) return s;
    if ((s = pk_check_output(ctx, FN, "o", o))) return s;
    if (desc->lse) {
        if ((s = pk_check_tensor(ctx, FN, "desc->lse", desc->lse, 3, 3))) return s;
        if ((s = pk_check_output(ctx, FN, "desc->lse", desc->lse))) return s;
        if ((s = pk_check_dtype(ctx, FN, "desc->lse", desc->lse, PK_F32))) return s;
    }
    if ((s = pk_check_dtype(ctx, FN, "k", k, q->dtype)) || (s = pk_check_dtype(ctx, FN, "v", v, q->dtype)) ||
        (s = pk_check_dtype(ctx, FN, "o", o, q->dtype)))
        return s;
    if (!isfinite(desc->scale))
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'desc->scale' is not finite", FN);

    int64_t batch = q->shape[0], sq = q->shape[1], hq = q->shape[2], d = q->shape[3];
    int64_t skv = k->shape[1], hkv = k->shape[2];
    if (!head_dim_supported(d))
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: 'q': head dim %lld is not one of 64, 80, 96, 128, 256",
                       FN, (long long)d);
    if ((s = pk_check_dim(ctx, FN, "k", k, 3, batch, "batch")) || (s = pk_check_dim(ctx, FN, "k", k, 0, d, "head dim")))
        return s;
    if ((s = pk_check_dim(ctx, FN, "v", v, 3, batch, "batch")) || (s = pk_check_dim(ctx, FN, "v", v, 2, skv, "Skv")) ||
        (s = pk_check_dim(ctx, FN, "v", v, 1, hkv, "Hkv")) || (s = pk_check_dim(ctx, FN, "v", v, 0, d, "head dim")))
        return s;
    if ((s = pk_check_dim(ctx, FN, "o", o, 3, batch, "batch")) || (s = pk_check_dim(ctx, FN, "o", o, 2, sq, "Sq")) ||
        (s = pk_check_dim(ctx, FN, "o", o, 1, hq, "Hq")) || (s = pk_check_dim(ctx, FN, "o", o, 0, d, "head dim")))
        return s;
    if (hkv == 0 ? hq != 0 : hq % hkv != 0)
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: 'k': Hq = %lld is not a multiple of Hkv = %lld", FN,
                       (long long)hq, (long long)hkv);
    if (desc->lse && ((s = pk_check_dim(ctx, FN, "desc->lse", desc->lse, 2, batch, "batch")) ||
                      (s = pk_check_dim(ctx, FN, "desc->lse", desc->lse, 1, hq, "Hq")) ||
                      (s = pk_check_dim(ctx, FN, "desc->lse", desc->lse, 0, sq, "Sq"))))
        return s;
    /* The GPU kernels index batch, heads and positions with 32-bit integers. */
    static const char *const dim_names[5] = {"batch", "Sq", "Hq", "Skv", "Hkv"};
    const int64_t dim_values[5] = {batch, sq, hq, skv, hkv};
    for (int i = 0; i < 5; i++)
        if (dim_values[i] > INT32_MAX)
            return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: '%s': %s = %lld is above 2^31 - 1, which is not supported", FN,
                           i < 3 ? "q" : "k", dim_names[i], (long long)dim_values[i]);
    const char *const in_names[3] = {"q", "k", "v"};
    const pk_tensor *ins[3] = {q, k, v};
    for (int i = 0; i < 3; i++)
        if ((s = pk_check_disjoint(ctx, FN, "o", o, in_names[i], ins[i], 0)) ||
            (s = pk_check_disjoint(ctx, FN, "desc->lse", desc->lse, in_names[i], ins[i], 0)))
            return s;
    if ((s = pk_check_disjoint(ctx, FN, "desc->lse", desc->lse, "o", o, 0))) return s;
    const pk_tensor *const dev_lens[2] = {desc->device_seqlens_q, desc->device_seqlens_kv};
    const int32_t *const host_lens[2] = {desc->seqlens_q, desc->seqlens_kv};
    static const char *const dev_names[2] = {"desc->device_seqlens_q", "desc->device_seqlens_kv"};
    for (int i = 0; i < 2; i++) {
        if (!dev_lens[i]) continue;
        if (host_lens[i])
            return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: '%s': the host array is given too (one or the other)",
                           FN, dev_names[i]);
        if ((s = pk_check_index(ctx, FN, dev_names[i], dev_lens[i], batch)) ||
            (s = pk_check_disjoint(ctx, FN, "o", o, dev_names[i], dev_lens[i], 0)) ||
            (s = pk_check_disjoint(ctx, FN, "desc->lse", desc->lse, dev_names[i], dev_lens[i], 0)))
            return s;
    }
    if ((s = check_lengths(ctx, "desc->seqlens_q", desc->seqlens_q, batch, sq)) ||
        (s = check_lengths(ctx, "desc->seqlens_kv", desc->seqlens_kv, batch, skv)))
        return s;
    if (pk_numel(o) == 0) {
        pk_clear_error(ctx);
        return PK_SUCCESS;
    }
    if ((s = pk_check_stored(ctx, FN, "Skv", skv, "k", k->stride[1], "v", v->stride[1]))) return s;

    int injected = pk_fault_alloc(ctx->dev);
    int32_t *lens = injected ? NULL : malloc(2 * (size_t)batch * sizeof *lens);
    if (!lens) return pk_fail(ctx, PK_ERR_OUT_OF_MEMORY, "%s: out of host memory%s", FN, injected ? " (injected)" : "");
    pk_attention_problem p = {0};
    p.uniform_lengths = !dev_lens[0] && !dev_lens[1];
    p.len_q_dev = dev_lens[0] ? pk_view_of(dev_lens[0]) : pk_view_none();
    p.len_kv_dev = dev_lens[1] ? pk_view_of(dev_lens[1]) : pk_view_none();
    for (int64_t b = 0; b < batch; b++) {
        lens[b] = desc->seqlens_q ? desc->seqlens_q[b] : (int32_t)sq;
        lens[batch + b] = desc->seqlens_kv ? desc->seqlens_kv[b] : (int32_t)skv;
        if (lens[b] != sq || lens[batch + b] != skv) p.uniform_lengths = 0;
    }
    p.batch = batch;
    p.sq = sq;
    p.skv = skv;
    p.hq = hq;
    p.hkv = hkv;
    p.d = d;
    p.q = pk_view_of(q);
    p.k = pk_view_of(k);
    p.v = pk_view_of(v);
    p.o = pk_view_of(o);
    if (desc->lse) {
        /* {B, H, S} in stride[0..2] */
        pk_view l = pk_view_of(desc->lse);
        p.lse = l;
        p.lse.stride[0] = l.stride[1];
        p.lse.stride[1] = l.stride[2];
        p.lse.stride[2] = l.stride[3];
        p.lse.stride[3] = 0;
    } else {
        p.lse = pk_view_none();
    }
    p.scale = desc->scale != 0.0f ? desc->scale : (float)(1.0 / sqrt((double)d));
    /* A window of Skv keys to the left, or Sq to the right, reaches every
     * key (p <= Lkv - 1 and p >= Lkv - Lq): it is passed on as unbounded,
     * so that no backend computes pos - INT64_MAX. */
    p.window_left = desc->window_left < 0 || desc->window_left >= skv ? -1 : desc->window_left;
    p.window_right = desc->causal ? 0 : (desc->window_right < 0 || desc->window_right >= sq ? -1 : desc->window_right);
    p.len_q = lens;
    p.len_kv = lens + batch;
    pk_msg msg = {{0}};
    s = ctx->be->attention(ctx->dev, &p, &msg);
    free(lens);
    return pk_backend_result(ctx, FN, s, &msg);
}
