/* GEMM: d = act(alpha * sum_k a*b + beta * c + bias) + residual.
 *
 * Each output row is accumulated over k in ascending order into a row of
 * accumulators (loop order i, k, j), so that b is read along its rows. The
 * epilogue then finishes each element, reading c before storing d, which is
 * what makes c == d (exact aliasing) safe. */
#include <stdlib.h>

#include "ref_math.h"

static void pk_ref_gemm_row(const pk_gemm_problem *p, int64_t z, int64_t i, pk_ref_acc *row)
{
    const pk_view *a = &p->a, *b = &p->b;
    int64_t a_row = z * a->stride[0] + i * a->stride[1];
    for (int64_t j = 0; j < p->n; j++)
        row[j] = 0;
    for (int64_t kk = 0; kk < p->k; kk++) {
        pk_ref_acc a_ik = pk_ref_load(a, a_row + kk * a->stride[2]);
        int64_t b_row = z * b->stride[0] + kk * b->stride[1];
        for (int64_t j = 0; j < p->n; j++)
            row[j] += a_ik * pk_ref_load(b, b_row + j * b->stride[2]);
    }
}

static void pk_ref_gemm_epilogue(const pk_gemm_problem *p, int64_t z, int64_t i,
                                 const pk_ref_acc *row)
{
    pk_ref_acc alpha = p->alpha, beta = p->beta;
    for (int64_t j = 0; j < p->n; j++) {
        pk_ref_acc x = alpha * row[j];
        if (p->c.mem)
            x += beta * pk_ref_load(&p->c, z * p->c.stride[0] + i * p->c.stride[1] +
                                               j * p->c.stride[2]);
        if (p->bias.mem)
            x += pk_ref_load(&p->bias, j * p->bias.stride[0]);
        x = pk_ref_act(p->act, x);
        if (p->residual.mem)
            x += pk_ref_load(&p->residual, z * p->residual.stride[0] +
                                               i * p->residual.stride[1] +
                                               j * p->residual.stride[2]);
        pk_ref_store(&p->d, z * p->d.stride[0] + i * p->d.stride[1] + j * p->d.stride[2], x);
    }
}

pk_status PK_REF_FN(gemm)(void *dev, const pk_gemm_problem *p, pk_msg *msg)
{
    pk_ref_acc *row = PK_REF_FN(scratch)(dev, p->n, msg);
    if (!row)
        return PK_ERR_OUT_OF_MEMORY;
    for (int64_t z = 0; z < p->batch; z++) {
        for (int64_t i = 0; i < p->m; i++) {
            pk_ref_gemm_row(p, z, i, row);
            pk_ref_gemm_epilogue(p, z, i, row);
        }
    }
    free(row);
    return PK_SUCCESS;
}
