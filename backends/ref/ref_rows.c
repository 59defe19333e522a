/* Row ops: rmsnorm, layernorm, glu, bias_act, softmax. A row is picked by
 * three leading indices and walked along the last dim (stride[3]); weight
 * and bias are per column and use only stride[3]. */
#include <stdlib.h>

#include "ref_math.h"

typedef struct pk_ref_row {
    int64_t i0, i1, i2;
} pk_ref_row;

/* Index of element (row, col) of v, counted from v's offset. */
static int64_t pk_ref_at(const pk_view *v, pk_ref_row r, int64_t col)
{
    return r.i0 * v->stride[0] + r.i1 * v->stride[1] + r.i2 * v->stride[2] + col * v->stride[3];
}

/* Calls fn on every row, with a scratch row of cols accumulators (or NULL
 * if fn needs none). */
static pk_status pk_ref_each_row(const void *dev, const pk_rows_problem *p, int need_scratch, pk_msg *msg,
                                 void (*fn)(const pk_rows_problem *, pk_ref_row, pk_ref_acc *))
{
    pk_ref_acc *h = NULL;
    if (need_scratch && !(h = PK_REF_FN(scratch)(dev, p->cols, msg)))
        return PK_ERR_OUT_OF_MEMORY;
    for (int64_t i0 = 0; i0 < p->lead[0]; i0++)
        for (int64_t i1 = 0; i1 < p->lead[1]; i1++)
            for (int64_t i2 = 0; i2 < p->lead[2]; i2++)
                fn(p, (pk_ref_row){i0, i1, i2}, h);
    free(h);
    return PK_SUCCESS;
}

/* h = x (+ residual) into the scratch row; residual_out, if asked for,
 * receives h rounded to its dtype. The norm itself goes on with the
 * unrounded h: a fused GPU kernel keeps h in registers the same way, and
 * the difference is within the dtype's own rounding error. Each element is
 * read before it is stored, and out is written only from the scratch row,
 * so residual_out and out may each be exactly x or residual (an in-place
 * residual stream). */
static void pk_ref_load_h(const pk_rows_problem *p, pk_ref_row r, pk_ref_acc *h)
{
    for (int64_t c = 0; c < p->cols; c++) {
        h[c] = pk_ref_load(&p->x, pk_ref_at(&p->x, r, c));
        if (p->residual.mem)
            h[c] += pk_ref_load(&p->residual, pk_ref_at(&p->residual, r, c));
        if (p->residual_out.mem)
            pk_ref_store(&p->residual_out, pk_ref_at(&p->residual_out, r, c), h[c]);
    }
}

/* The weight of column c; an absent weight is all ones. */
static pk_ref_acc pk_ref_weight(const pk_rows_problem *p, int64_t c)
{
    return p->weight.mem ? pk_ref_load(&p->weight, c * p->weight.stride[3]) : PK_REF_K(1);
}

static void pk_ref_rmsnorm_row(const pk_rows_problem *p, pk_ref_row r, pk_ref_acc *h)
{
    pk_ref_load_h(p, r, h);
    pk_ref_acc sum_sq = 0;
    for (int64_t c = 0; c < p->cols; c++)
        sum_sq += h[c] * h[c];
    pk_ref_acc eps = p->eps;
    pk_ref_acc inv_rms = PK_REF_K(1) / sqrt(sum_sq / (pk_ref_acc)p->cols + eps);
    for (int64_t c = 0; c < p->cols; c++)
        pk_ref_store(&p->out, pk_ref_at(&p->out, r, c),
                     h[c] * inv_rms * pk_ref_weight(p, c));
}

/* Two passes (mean, then the biased variance about it), which stays
 * accurate where E[h^2] - mean^2 would cancel. */
static void pk_ref_layernorm_row(const pk_rows_problem *p, pk_ref_row r, pk_ref_acc *h)
{
    pk_ref_load_h(p, r, h);
    pk_ref_acc n = (pk_ref_acc)p->cols, sum = 0, sum_sq = 0;
    for (int64_t c = 0; c < p->cols; c++)
        sum += h[c];
    pk_ref_acc mean = sum / n;
    for (int64_t c = 0; c < p->cols; c++)
        sum_sq += (h[c] - mean) * (h[c] - mean);
    pk_ref_acc eps = p->eps;
    pk_ref_acc inv_std = PK_REF_K(1) / sqrt(sum_sq / n + eps);
    for (int64_t c = 0; c < p->cols; c++) {
        pk_ref_acc y = (h[c] - mean) * inv_std * pk_ref_weight(p, c);
        if (p->bias.mem)
            y += pk_ref_load(&p->bias, c * p->bias.stride[3]);
        pk_ref_store(&p->out, pk_ref_at(&p->out, r, c), y);
    }
}

static void pk_ref_glu_row(const pk_rows_problem *p, pk_ref_row r, pk_ref_acc *unused)
{
    (void)unused;
    for (int64_t c = 0; c < p->cols; c++) {
        pk_ref_acc gate = pk_ref_load(&p->x, pk_ref_at(&p->x, r, c));
        pk_ref_acc up = pk_ref_load(&p->up, pk_ref_at(&p->up, r, c));
        pk_ref_store(&p->out, pk_ref_at(&p->out, r, c), pk_ref_act(p->act, gate) * up);
    }
}

/* Element by element, each read before its store: out may be exactly x. */
static void pk_ref_bias_act_row(const pk_rows_problem *p, pk_ref_row r, pk_ref_acc *unused)
{
    (void)unused;
    for (int64_t c = 0; c < p->cols; c++) {
        pk_ref_acc x = pk_ref_load(&p->x, pk_ref_at(&p->x, r, c));
        if (p->bias.mem)
            x += pk_ref_load(&p->bias, c * p->bias.stride[3]);
        pk_ref_store(&p->out, pk_ref_at(&p->out, r, c), pk_ref_act(p->act, x));
    }
}

/* p->scale is already resolved by the router (0 -> 1). The max keeps NaN,
 * so a max of -inf means the row is all -inf: it gives zeros, not 0/0. */
static void pk_ref_softmax_row(const pk_rows_problem *p, pk_ref_row r, pk_ref_acc *z)
{
    pk_ref_acc scale = p->scale, max = -INFINITY, sum = 0;
    for (int64_t c = 0; c < p->cols; c++) {
        z[c] = scale * pk_ref_load(&p->x, pk_ref_at(&p->x, r, c));
        max = pk_ref_max(max, z[c]);
    }
    if (max == -INFINITY) {
        for (int64_t c = 0; c < p->cols; c++)
            pk_ref_store(&p->out, pk_ref_at(&p->out, r, c), 0);
        return;
    }
    for (int64_t c = 0; c < p->cols; c++) {
        z[c] = exp(z[c] - max);
        sum += z[c];
    }
    for (int64_t c = 0; c < p->cols; c++)
        pk_ref_store(&p->out, pk_ref_at(&p->out, r, c), z[c] / sum);
}

pk_status PK_REF_FN(rows)(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    typedef void (*row_fn)(const pk_rows_problem *, pk_ref_row, pk_ref_acc *);
    static const row_fn rows[PK_ROWS_OP_COUNT] = {
        [PK_ROWS_RMSNORM] = pk_ref_rmsnorm_row, [PK_ROWS_LAYERNORM] = pk_ref_layernorm_row,
        [PK_ROWS_GLU] = pk_ref_glu_row,         [PK_ROWS_BIAS_ACT] = pk_ref_bias_act_row,
        [PK_ROWS_SOFTMAX] = pk_ref_softmax_row,
    };
    if ((unsigned)p->op >= PK_ROWS_OP_COUNT) return pk_msgf(msg, PK_ERR_INTERNAL, "row op %d unknown", (int)p->op);
    return pk_ref_each_row(dev, p, pk_rows_op_reduces(p->op), msg, rows[p->op]);
}
