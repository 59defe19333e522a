/* pk_gemm: checks, transposes folded into strides, batch broadcasting. */
#include <math.h>

#include "pk_check.h"

static const char *const FN = "pk_gemm";

/* rows x cols of a 2-D or 3-D operand, batch 1 for 2-D. */
static void dims(const pk_tensor *t, int trans, int64_t *batch, int64_t *rows, int64_t *cols)
{
    *batch = t->ndim == 3 ? t->shape[0] : 1;
    int64_t r = t->shape[t->ndim - 2], c = t->shape[t->ndim - 1];
    *rows = trans ? c : r;
    *cols = trans ? r : c;
}

/* The problem's view of a 2/3-D operand: stride {batch, row, col}, with the
 * transpose folded in. */
static pk_view matrix_view(const pk_tensor *t, int trans)
{
    pk_view v = pk_view_of(t);
    pk_view m = v;
    m.stride[0] = v.stride[1];
    m.stride[1] = trans ? v.stride[3] : v.stride[2];
    m.stride[2] = trans ? v.stride[2] : v.stride[3];
    m.stride[3] = 0;
    return m;
}

static pk_status check_batch(pk_context *ctx, const char *name, int64_t b, int64_t batch)
{
    if (b != 1 && b != batch)
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: '%s': batch %lld does not match batch %lld", FN,
                       name, (long long)b, (long long)batch);
    return PK_SUCCESS;
}

pk_status pk_gemm(pk_context *ctx, const pk_gemm_desc *desc, const pk_tensor *a, const pk_tensor *b,
                  const pk_tensor *c, const pk_tensor *d)
{
    pk_status s;
    if ((s = pk_check_ctx(ctx, FN))) return s;
    if (!desc) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'desc' is NULL", FN);
    if ((s = pk_check_tensor(ctx, FN, "a", a, 2, 3))) return s;
    if ((s = pk_check_tensor(ctx, FN, "b", b, 2, 3))) return s;
    if ((s = pk_check_tensor(ctx, FN, "d", d, 2, 3))) return s;
    if ((s = pk_check_output(ctx, FN, "d", d))) return s;
    if ((s = pk_check_act(ctx, FN, "desc->act", desc->act))) return s;
    if (!isfinite(desc->alpha) || !isfinite(desc->beta))
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'desc->alpha' and 'desc->beta' must be finite", FN);
    int use_c = desc->beta != 0.0f;
    if (use_c && !c)
        return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'c' is NULL while desc->beta = %g", FN,
                       (double)desc->beta);
    if (use_c && (s = pk_check_tensor(ctx, FN, "c", c, 2, 3))) return s;
    if (desc->bias && (s = pk_check_tensor(ctx, FN, "desc->bias", desc->bias, 1, 1))) return s;
    if (desc->residual && (s = pk_check_tensor(ctx, FN, "desc->residual", desc->residual, 2, 3))) return s;

    if ((s = pk_check_dtype(ctx, FN, "b", b, a->dtype))) return s;
    if (use_c && (s = pk_check_dtype(ctx, FN, "c", c, d->dtype))) return s;
    if (desc->bias && (s = pk_check_dtype(ctx, FN, "desc->bias", desc->bias, d->dtype))) return s;
    if (desc->residual && (s = pk_check_dtype(ctx, FN, "desc->residual", desc->residual, d->dtype)))
        return s;

    int64_t ba, m, k, bb, kb, n, bd, md, nd;
    dims(a, desc->trans_a, &ba, &m, &k);
    dims(b, desc->trans_b, &bb, &kb, &n);
    dims(d, 0, &bd, &md, &nd);
    if (kb != k)
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH,
                       "%s: 'b': op(B) has %lld rows but op(A) has K = %lld columns", FN, (long long)kb,
                       (long long)k);
    if (md != m || nd != n)
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: 'd': is %lld x %lld, op(A) @ op(B) is %lld x %lld",
                       FN, (long long)md, (long long)nd, (long long)m, (long long)n);
    int64_t batch = bd;
    if (ba > batch || bb > batch)
        return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH,
                       "%s: 'd': batch %lld is smaller than the inputs' batch %lld", FN, (long long)bd,
                       (long long)(ba > bb ? ba : bb));
    if ((s = check_batch(ctx, "a", ba, batch)) || (s = check_batch(ctx, "b", bb, batch))) return s;
    if (use_c) {
        int64_t bc, mc, nc;
        dims(c, 0, &bc, &mc, &nc);
        if (mc != m || nc != n)
            return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: 'c': is %lld x %lld, D is %lld x %lld", FN,
                           (long long)mc, (long long)nc, (long long)m, (long long)n);
        if ((s = check_batch(ctx, "c", bc, batch))) return s;
    }
    if (desc->bias && (s = pk_check_dim(ctx, FN, "desc->bias", desc->bias, 0, n, "length (N)"))) return s;
    if (desc->residual) {
        int64_t br, mr, nr;
        dims(desc->residual, 0, &br, &mr, &nr);
        if (mr != m || nr != n)
            return pk_fail(ctx, PK_ERR_SHAPE_MISMATCH, "%s: 'desc->residual': is %lld x %lld, D is %lld x %lld",
                           FN, (long long)mr, (long long)nr, (long long)m, (long long)n);
        if ((s = check_batch(ctx, "desc->residual", br, batch))) return s;
    }
    if ((s = pk_check_disjoint(ctx, FN, "d", d, "a", a, 0)) || (s = pk_check_disjoint(ctx, FN, "d", d, "b", b, 0)) ||
        (use_c && (s = pk_check_disjoint(ctx, FN, "d", d, "c", c, 1))) ||
        (s = pk_check_disjoint(ctx, FN, "d", d, "desc->bias", desc->bias, 0)) ||
        (s = pk_check_disjoint(ctx, FN, "d", d, "desc->residual", desc->residual, 0)))
        return s;
    if (pk_numel(d) == 0) {
        pk_clear_error(ctx);
        return PK_SUCCESS;
    }

    pk_gemm_problem p = {0};
    p.batch = batch;
    p.m = m;
    p.n = n;
    p.k = k;
    p.a = matrix_view(a, desc->trans_a);
    p.b = matrix_view(b, desc->trans_b);
    p.c = use_c ? matrix_view(c, 0) : pk_view_none();
    p.d = matrix_view(d, 0);
    p.residual = desc->residual ? matrix_view(desc->residual, 0) : pk_view_none();
    if ((s = pk_check_stored(ctx, FN, "K", k, "a", p.a.stride[2], "b", p.b.stride[1]))) return s;
    if (desc->bias) {
        p.bias = pk_view_of(desc->bias);
        p.bias.stride[0] = p.bias.stride[3];
        p.bias.stride[3] = 0;
    } else {
        p.bias = pk_view_none();
    }
    p.alpha = desc->alpha;
    p.beta = use_c ? desc->beta : 0.0f;
    p.act = desc->act;
    p.allow_tf32 = desc->allow_tf32 != 0;
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, FN, ctx->be->gemm(ctx->dev, &p, &msg), &msg);
}
