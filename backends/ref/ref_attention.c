/* Attention, one query row at a time: scores of the visible keys go into a
 * row buffer, then a two-pass safe softmax (subtract the max) weights the
 * values, and the weighted sum is divided by the sum of weights at the end.
 * The mask is a window [lo, hi] of key indices, so masked keys are never
 * touched; a row with an empty window, and every row past len_q, gets
 * o = 0 and lse = -inf. */
#include <stdlib.h>

#include "ref_math.h"

typedef struct pk_ref_attn_scratch {
    pk_ref_acc *q;      /* [d] the query row */
    pk_ref_acc *o;      /* [d] the weighted sum of values */
    pk_ref_acc *score;  /* [skv] scores, then weights, of the visible keys */
} pk_ref_attn_scratch;

static int64_t pk_ref_bshd(const pk_view *v, int64_t b, int64_t s, int64_t h)
{
    return b * v->stride[0] + s * v->stride[1] + h * v->stride[2];
}

static void pk_ref_attn_write(const pk_attention_problem *p, int64_t b, int64_t h, int64_t i,
                              const pk_ref_acc *o, pk_ref_acc lse)
{
    int64_t base = pk_ref_bshd(&p->o, b, i, h);
    for (int64_t c = 0; c < p->d; c++)
        pk_ref_store(&p->o, base + c * p->o.stride[3], o ? o[c] : 0);
    if (p->lse.mem)
        pk_ref_store(&p->lse, b * p->lse.stride[0] + h * p->lse.stride[1] + i * p->lse.stride[2],
                     lse);
}

/* Query row i of batch b, head h; keys lo..hi (inclusive, non-empty) visible. */
static void pk_ref_attn_row(const pk_attention_problem *p, int64_t b, int64_t h, int64_t i,
                            int64_t lo, int64_t hi, const pk_ref_attn_scratch *t)
{
    int64_t kvh = h / (p->hq / p->hkv);
    int64_t q_base = pk_ref_bshd(&p->q, b, i, h);
    for (int64_t c = 0; c < p->d; c++)
        t->q[c] = pk_ref_load(&p->q, q_base + c * p->q.stride[3]);

    pk_ref_acc scale = p->scale;
    pk_ref_acc max = -INFINITY;
    for (int64_t j = lo; j <= hi; j++) {
        int64_t k_base = pk_ref_bshd(&p->k, b, j, kvh);
        pk_ref_acc dot = 0;
        for (int64_t c = 0; c < p->d; c++)
            dot += t->q[c] * pk_ref_load(&p->k, k_base + c * p->k.stride[3]);
        t->score[j - lo] = scale * dot;
        max = pk_ref_max(max, t->score[j - lo]);
    }

    pk_ref_acc sum = 0;
    for (int64_t c = 0; c < p->d; c++)
        t->o[c] = 0;
    for (int64_t j = lo; j <= hi; j++) {
        pk_ref_acc w = exp(t->score[j - lo] - max);
        sum += w;
        int64_t v_base = pk_ref_bshd(&p->v, b, j, kvh);
        for (int64_t c = 0; c < p->d; c++)
            t->o[c] += w * pk_ref_load(&p->v, v_base + c * p->v.stride[3]);
    }
    for (int64_t c = 0; c < p->d; c++)
        t->o[c] /= sum;
    pk_ref_attn_write(p, b, h, i, t->o, max + log(sum));
}

/* Batch b's length: the host array's, or the device's clamped to [0, max]
 * as the device kernels clamp it (ref's device memory is host memory) */
static int64_t pk_ref_attn_len(const int32_t *host, const pk_view *dev, int64_t b, int64_t max)
{
    if (!dev->mem) return host[b];
    int64_t v = ((const int32_t *)dev->mem)[dev->offset + b];
    return v < 0 ? 0 : v > max ? max : v;
}

static void pk_ref_attn_head(const pk_attention_problem *p, int64_t b, int64_t h,
                             const pk_ref_attn_scratch *t)
{
    int64_t len_q = pk_ref_attn_len(p->len_q, &p->len_q_dev, b, p->sq);
    int64_t len_kv = pk_ref_attn_len(p->len_kv, &p->len_kv_dev, b, p->skv);
    for (int64_t i = 0; i < p->sq; i++) {
        int64_t pos = i + len_kv - len_q; /* bottom-right aligned */
        int64_t lo = 0, hi = len_kv - 1;
        if (p->window_left >= 0 && pos - p->window_left > lo)
            lo = pos - p->window_left;
        if (p->window_right >= 0 && pos + p->window_right < hi)
            hi = pos + p->window_right;
        if (i < len_q && lo <= hi)
            pk_ref_attn_row(p, b, h, i, lo, hi, t);
        else
            pk_ref_attn_write(p, b, h, i, NULL, -INFINITY);
    }
}

pk_status PK_REF_FN(attention)(void *dev, const pk_attention_problem *p, pk_msg *msg)
{
    pk_ref_acc *buf = PK_REF_FN(scratch)(dev, 2 * p->d + p->skv, msg);
    if (!buf)
        return PK_ERR_OUT_OF_MEMORY;
    pk_ref_attn_scratch t = {buf, buf + p->d, buf + 2 * p->d};
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t h = 0; h < p->hq; h++)
            pk_ref_attn_head(p, b, h, &t);
    free(buf);
    return PK_SUCCESS;
}
