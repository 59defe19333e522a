/* Row ops: add+RMSNorm, LayerNorm, GLU, bias+activation, softmax. */
#include <math.h>
#include <string.h>

#include "pk_check.h"

static pk_status same_shape(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                            const pk_tensor *x, const char *xname)
{
    pk_status s = pk_check_tensor(ctx, fn, name, t, 1, PK_MAX_DIMS);
    if (s) return s;
    if ((s = pk_check_dtype(ctx, fn, name, t, x->dtype))) return s;
    int same = t->ndim == x->ndim;
    for (int i = 0; same && i < x->ndim; i++) same = t->shape[i] == x->shape[i];
    if (!same) {
        char a[96], b[96];
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: '%s': shape %s differs from '%s' %s", fn, name,
                       pk_shape_str(t, a, sizeof a), xname, pk_shape_str(x, b, sizeof b));
    }
    return PK_SUCCESS;
}

static pk_status per_column(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                            const pk_tensor *x)
{
    pk_status s = pk_check_tensor(ctx, fn, name, t, 1, 1);
    if (s) return s;
    if ((s = pk_check_dtype(ctx, fn, name, t, x->dtype))) return s;
    return pk_check_dim(ctx, fn, name, t, 0, x->shape[x->ndim - 1], "length (last dim of x)");
}

static void rows_init(pk_rows_problem *p, const pk_tensor *x)
{
    memset(p, 0, sizeof *p);
    int pad = PK_MAX_DIMS - x->ndim;
    for (int j = 0; j < 3; j++) p->lead[j] = j >= pad ? x->shape[j - pad] : 1;
    p->cols = x->shape[x->ndim - 1];
    p->x = pk_view_of(x);
    p->scale = 1.0f;
}

static pk_view opt_view(const pk_tensor *t) { return t ? pk_view_of(t) : pk_view_none(); }

/* x, out and the optional residual pair of the norms. */
static pk_status check_norm(pk_context *ctx, const char *fn, const pk_norm_desc *desc, const pk_tensor *x,
                            const pk_tensor *out)
{
    pk_status s;
    if ((s = pk_check_ctx(ctx, fn))) return s;
    if (!desc) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'desc' is NULL", fn);
    if ((s = pk_check_tensor(ctx, fn, "x", x, 1, PK_MAX_DIMS))) return s;
    if ((s = same_shape(ctx, fn, "out", out, x, "x")) || (s = pk_check_output(ctx, fn, "out", out))) return s;
    if (!(desc->eps > 0.0f) || !isfinite(desc->eps))
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'desc->eps' = %g must be finite and > 0", fn,
                       (double)desc->eps);
    if (desc->residual && (s = same_shape(ctx, fn, "desc->residual", desc->residual, x, "x"))) return s;
    if (desc->residual_out &&
        ((s = same_shape(ctx, fn, "desc->residual_out", desc->residual_out, x, "x")) ||
         (s = pk_check_output(ctx, fn, "desc->residual_out", desc->residual_out))))
        return s;
    return PK_SUCCESS;
}

/* Each output against every other operand; `same` may be exactly `out`. */
static pk_status outputs_apart(pk_context *ctx, const char *fn, const char *const *names, const pk_tensor *const *ts,
                               int n, int n_out, const pk_tensor *same)
{
    pk_status s;
    for (int o = 0; o < n_out; o++)
        for (int i = 0; i < n; i++)
            if (i != o && (i >= n_out || i < o) &&
                (s = pk_check_disjoint(ctx, fn, names[o], ts[o], names[i], ts[i], o == 0 && ts[i] == same)))
                return s;
    return PK_SUCCESS;
}

static pk_status run(pk_context *ctx, const char *fn, const pk_rows_problem *p, const pk_tensor *out)
{
    if (pk_numel(out) == 0) {
        pk_clear_error(ctx);
        return PK_SUCCESS;
    }
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, fn, ctx->be->rows(ctx->dev, p, &msg), &msg);
}

pk_status pk_rmsnorm(pk_context *ctx, const pk_norm_desc *desc, const pk_tensor *x, const pk_tensor *weight,
                     const pk_tensor *out)
{
    static const char *const FN = "pk_rmsnorm";
    pk_status s = check_norm(ctx, FN, desc, x, out);
    if (s) return s;
    if ((s = per_column(ctx, FN, "weight", weight, x))) return s;
    static const char *const names[] = {"out", "desc->residual_out", "x", "weight", "desc->residual"};
    const pk_tensor *ts[] = {out, desc->residual_out, x, weight, desc->residual};
    if ((s = outputs_apart(ctx, FN, names, ts, 5, 2, NULL))) return s;
    pk_rows_problem p;
    rows_init(&p, x);
    p.out = pk_view_of(out);
    p.weight = pk_view_of(weight);
    p.residual = opt_view(desc->residual);
    p.residual_out = opt_view(desc->residual_out);
    p.eps = desc->eps;
    p.op = PK_ROWS_RMSNORM;
    return run(ctx, FN, &p, out);
}

pk_status pk_layernorm(pk_context *ctx, const pk_norm_desc *desc, const pk_tensor *x, const pk_tensor *weight,
                       const pk_tensor *bias, const pk_tensor *out)
{
    static const char *const FN = "pk_layernorm";
    pk_status s = check_norm(ctx, FN, desc, x, out);
    if (s) return s;
    if (weight && (s = per_column(ctx, FN, "weight", weight, x))) return s;
    if (bias && (s = per_column(ctx, FN, "bias", bias, x))) return s;
    static const char *const names[] = {"out", "desc->residual_out", "x", "weight", "bias", "desc->residual"};
    const pk_tensor *ts[] = {out, desc->residual_out, x, weight, bias, desc->residual};
    if ((s = outputs_apart(ctx, FN, names, ts, 6, 2, NULL))) return s;
    pk_rows_problem p;
    rows_init(&p, x);
    p.out = pk_view_of(out);
    p.weight = opt_view(weight);
    p.bias = opt_view(bias);
    p.residual = opt_view(desc->residual);
    p.residual_out = opt_view(desc->residual_out);
    p.eps = desc->eps;
    p.op = PK_ROWS_LAYERNORM;
    return run(ctx, FN, &p, out);
}

pk_status pk_glu(pk_context *ctx, pk_activation act, const pk_tensor *gate, const pk_tensor *up,
                 const pk_tensor *out)
{
    static const char *const FN = "pk_glu";
    pk_status s;
    if ((s = pk_check_ctx(ctx, FN))) return s;
    if ((s = pk_check_act(ctx, FN, "act", act))) return s;
    if ((s = pk_check_tensor(ctx, FN, "gate", gate, 1, PK_MAX_DIMS))) return s;
    if ((s = same_shape(ctx, FN, "up", up, gate, "gate"))) return s;
    if ((s = same_shape(ctx, FN, "out", out, gate, "gate")) || (s = pk_check_output(ctx, FN, "out", out))) return s;
    static const char *const names[] = {"out", "gate", "up"};
    const pk_tensor *ts[] = {out, gate, up};
    if ((s = outputs_apart(ctx, FN, names, ts, 3, 1, NULL))) return s;
    pk_rows_problem p;
    rows_init(&p, gate);
    p.up = pk_view_of(up);
    p.out = pk_view_of(out);
    p.act = act;
    p.op = PK_ROWS_GLU;
    return run(ctx, FN, &p, out);
}

pk_status pk_bias_act(pk_context *ctx, pk_activation act, const pk_tensor *x, const pk_tensor *bias,
                      const pk_tensor *out)
{
    static const char *const FN = "pk_bias_act";
    pk_status s;
    if ((s = pk_check_ctx(ctx, FN))) return s;
    if ((s = pk_check_act(ctx, FN, "act", act))) return s;
    if ((s = pk_check_tensor(ctx, FN, "x", x, 1, PK_MAX_DIMS))) return s;
    if (bias && (s = per_column(ctx, FN, "bias", bias, x))) return s;
    if ((s = same_shape(ctx, FN, "out", out, x, "x")) || (s = pk_check_output(ctx, FN, "out", out))) return s;
    static const char *const names[] = {"out", "x", "bias"};
    const pk_tensor *ts[] = {out, x, bias};
    if ((s = outputs_apart(ctx, FN, names, ts, 3, 1, x))) return s;
    pk_rows_problem p;
    rows_init(&p, x);
    p.bias = opt_view(bias);
    p.out = pk_view_of(out);
    p.act = act;
    p.op = PK_ROWS_BIAS_ACT;
    return run(ctx, FN, &p, out);
}

pk_status pk_softmax(pk_context *ctx, float scale, const pk_tensor *x, const pk_tensor *out)
{
    static const char *const FN = "pk_softmax";
    pk_status s;
    if ((s = pk_check_ctx(ctx, FN))) return s;
    if (!isfinite(scale)) return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'scale' is not finite", FN);
    if ((s = pk_check_tensor(ctx, FN, "x", x, 1, PK_MAX_DIMS))) return s;
    if ((s = same_shape(ctx, FN, "out", out, x, "x")) || (s = pk_check_output(ctx, FN, "out", out))) return s;
    if ((s = pk_check_disjoint(ctx, FN, "out", out, "x", x, 0))) return s;
    pk_rows_problem p;
    rows_init(&p, x);
    p.out = pk_view_of(out);
    p.scale = scale != 0.0f ? scale : 1.0f;
    p.op = PK_ROWS_SOFTMAX;
    return run(ctx, FN, &p, out);
}
