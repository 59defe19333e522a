/* pk_rope: in-place rotary embedding on q and k. */
#include <math.h>
#include <stdlib.h>

#include "pk_check.h"
#include "pk_fault.h"

static const char *const FN = "pk_rope";

pk_status pk_rope(pk_context *ctx, const pk_rope_desc *desc, const pk_tensor *q, const pk_tensor *k)
{
    pk_status s;
    if ((s = pk_check_ctx(ctx, FN))) return s;
    if (!desc) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'desc' is NULL", FN);
    if ((s = pk_check_tensor(ctx, FN, "q", q, 4, 4)) || (s = pk_check_output(ctx, FN, "q", q))) return s;
    if (k) {
        if ((s = pk_check_tensor(ctx, FN, "k", k, 4, 4)) || (s = pk_check_output(ctx, FN, "k", k))) return s;
        if ((s = pk_check_dtype(ctx, FN, "k", k, q->dtype))) return s;
        if ((s = pk_check_dim(ctx, FN, "k", k, 3, q->shape[0], "batch")) ||
            (s = pk_check_dim(ctx, FN, "k", k, 2, q->shape[1], "seq")) ||
            (s = pk_check_dim(ctx, FN, "k", k, 0, q->shape[3], "head dim")))
            return s;
    }
    if (!desc->inv_freq && (!(desc->theta > 0.0f) || !isfinite(desc->theta)))
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'desc->theta' = %g must be finite and > 0", FN,
                       (double)desc->theta);
    int64_t d = q->shape[3];
    int64_t rd = desc->rotary_dim ? desc->rotary_dim : d;
    if (rd < 0 || rd > d || rd % 2)
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH,
                       "%s: 'desc->rotary_dim' = %lld must be even and at most the head dim %lld", FN,
                       (long long)desc->rotary_dim, (long long)d);
    if (desc->inv_freq) {
        const pk_tensor *f = desc->inv_freq;
        if ((s = pk_check_tensor(ctx, FN, "desc->inv_freq", f, 1, 1)) ||
            (s = pk_check_dtype(ctx, FN, "desc->inv_freq", f, PK_F32)) ||
            (s = pk_check_dim(ctx, FN, "desc->inv_freq", f, 0, rd / 2, "rotary_dim / 2")))
            return s;
    }
    if ((s = pk_check_disjoint(ctx, FN, "k", k, "q", q, 0)) ||
        (s = pk_check_disjoint(ctx, FN, "q", q, "desc->inv_freq", desc->inv_freq, 0)) ||
        (s = pk_check_disjoint(ctx, FN, "k", k, "desc->inv_freq", desc->inv_freq, 0)))
        return s;
    const pk_tensor *dp = desc->device_positions;
    if (dp) {
        if (desc->positions)
            return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT,
                           "%s: 'desc->device_positions': 'desc->positions' is given too (one or the other)", FN);
        if ((s = pk_check_index(ctx, FN, "desc->device_positions", dp, q->shape[0] * q->shape[1])) ||
            (s = pk_check_disjoint(ctx, FN, "q", q, "desc->device_positions", dp, 0)) ||
            (s = pk_check_disjoint(ctx, FN, "k", k, "desc->device_positions", dp, 0)))
            return s;
    }
    if (q->shape[1] > INT32_MAX) /* positions are int32 */
        return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: 'q': S = %lld is above 2^31 - 1, which is not supported", FN,
                       (long long)q->shape[1]);
    int64_t bs = q->shape[0] * q->shape[1];
    if (pk_numel(q) == 0 || rd == 0) {
        pk_clear_error(ctx);
        return PK_SUCCESS;
    }
    int32_t *pos = NULL;
    if (!dp) {
        int injected = pk_fault_alloc(ctx->dev);
        pos = injected ? NULL : malloc((size_t)bs * sizeof *pos);
        if (!pos)
            return pk_fail(ctx, PK_ERR_OUT_OF_MEMORY, "%s: out of host memory%s", FN, injected ? " (injected)" : "");
        for (int64_t i = 0; i < bs; i++)
            pos[i] = desc->positions ? desc->positions[i] : (int32_t)(i % q->shape[1]);
    }
    pk_rope_problem p = {0};
    p.batch = q->shape[0];
    p.seq = q->shape[1];
    p.hq = q->shape[2];
    p.hk = k ? k->shape[2] : 0;
    p.d = d;
    p.rotary_dim = rd;
    p.q = pk_view_of(q);
    p.k = k ? pk_view_of(k) : pk_view_none();
    p.theta = desc->theta;
    p.interleaved = desc->interleaved != 0;
    p.positions = pos;
    p.positions_dev = dp ? pk_view_of(dp) : pk_view_none();
    p.inv_freq = desc->inv_freq ? pk_view_of(desc->inv_freq) : pk_view_none();
    pk_msg msg = {{0}};
    s = ctx->be->rope(ctx->dev, &p, &msg);
    free(pos);
    return pk_backend_result(ctx, FN, s, &msg);
}
