/* pk_chain: a small elementwise program over broadcast inputs. */
#include <stdio.h>

#include "pk_check.h"

static const char *const FN = "pk_chain";

static int is_binary(pk_chain_op op) { return op <= PK_CHAIN_MIN; }

pk_status pk_chain(pk_context *ctx, const pk_chain_desc *desc, const pk_tensor *out)
{
    pk_status s;
    if ((s = pk_check_ctx(ctx, FN))) return s;
    if (!desc) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'desc' is NULL", FN);
    if ((s = pk_check_tensor(ctx, FN, "out", out, 1, PK_MAX_DIMS)) || (s = pk_check_output(ctx, FN, "out", out)))
        return s;
    if (desc->n_inputs < 1 || desc->n_inputs > PK_CHAIN_MAX_INPUTS)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'desc->n_inputs' = %d is not in 1..%d", FN,
                       desc->n_inputs, PK_CHAIN_MAX_INPUTS);
    if (desc->n_steps < 1 || desc->n_steps > PK_CHAIN_MAX_STEPS)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'desc->n_steps' = %d is not in 1..%d", FN,
                       desc->n_steps, PK_CHAIN_MAX_STEPS);
    if (!desc->inputs) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'desc->inputs' is NULL", FN);
    if (!desc->steps) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'desc->steps' is NULL", FN);

    pk_chain_problem p = {0};
    int pad = PK_MAX_DIMS - out->ndim;
    for (int j = 0; j < PK_MAX_DIMS; j++) p.shape[j] = j >= pad ? out->shape[j - pad] : 1;
    p.out = pk_view_of(out);
    p.n_inputs = desc->n_inputs;
    for (int i = 0; i < desc->n_inputs; i++) {
        char name[32];
        snprintf(name, sizeof name, "desc->inputs[%d]", i);
        const pk_tensor *t = &desc->inputs[i];
        if ((s = pk_check_tensor(ctx, FN, name, t, 1, out->ndim))) return s;
        int ipad = PK_MAX_DIMS - t->ndim;
        for (int j = ipad; j < PK_MAX_DIMS; j++) {
            int64_t n = t->shape[j - ipad];
            if (n != 1 && n != p.shape[j]) {
                char a[96], b[96];
                return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: '%s': shape %s does not broadcast to 'out' %s",
                               FN, name, pk_shape_str(t, a, sizeof a), pk_shape_str(out, b, sizeof b));
            }
        }
        if ((s = pk_check_disjoint(ctx, FN, "out", out, name, t, 1))) return s;
        p.in[i] = pk_view_of(t); /* size-1 dims and missing leading dims have stride 0 */
    }
    p.n_steps = desc->n_steps;
    for (int k = 0; k < desc->n_steps; k++) {
        pk_chain_step st = desc->steps[k];
        int have = desc->n_inputs + k;
        if ((unsigned)st.op >= PK_CHAIN_OP_COUNT)
            return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'desc->steps[%d].op' = %d is not a pk_chain_op", FN,
                           k, (int)st.op);
        if (st.a < 0 || st.a >= have || (is_binary(st.op) && (st.b < 0 || st.b >= have)))
            return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT,
                           "%s: 'desc->steps[%d]' reads value %d, only values 0..%d exist before it", FN, k,
                           st.a < 0 || st.a >= have ? st.a : st.b, have - 1);
        if (!is_binary(st.op)) st.b = 0;
        p.steps[k] = st;
    }
    if (pk_numel(out) == 0) {
        pk_clear_error(ctx);
        return PK_SUCCESS;
    }
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, FN, ctx->be->chain(ctx->dev, &p, &msg), &msg);
}
