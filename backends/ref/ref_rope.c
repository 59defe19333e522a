/* Rotary embedding, in place. Pair i (i < rotary_dim/2) turns by
 * pos * theta^(-2i/rotary_dim) (or the caller's frequency table), all of it computed in pk_ref_acc (so in
 * float in the f32 variant, as the API promises of a GPU kernel). cos and
 * sin depend only on the position, so they are computed once per (b, s)
 * and applied to every head of q and k. */
#include <stdlib.h>

#include "ref_math.h"

typedef struct pk_ref_rope_scratch {
    pk_ref_acc *inv_freq, *cos, *sin; /* [rotary_dim / 2] each */
} pk_ref_rope_scratch;

static void pk_ref_rope_head(const pk_rope_problem *p, const pk_view *x, int64_t base,
                             const pk_ref_rope_scratch *t)
{
    int64_t half = p->rotary_dim / 2;
    for (int64_t i = 0; i < half; i++) {
        int64_t c0 = p->interleaved ? 2 * i : i;
        int64_t c1 = p->interleaved ? 2 * i + 1 : i + half;
        int64_t e0 = base + c0 * x->stride[3], e1 = base + c1 * x->stride[3];
        pk_ref_acc x0 = pk_ref_load(x, e0), x1 = pk_ref_load(x, e1);
        pk_ref_store(x, e0, x0 * t->cos[i] - x1 * t->sin[i]);
        pk_ref_store(x, e1, x0 * t->sin[i] + x1 * t->cos[i]);
    }
}

static void pk_ref_rope_heads(const pk_rope_problem *p, const pk_view *x, int64_t heads,
                              int64_t b, int64_t s, const pk_ref_rope_scratch *t)
{
    for (int64_t h = 0; h < heads; h++)
        pk_ref_rope_head(p, x, b * x->stride[0] + s * x->stride[1] + h * x->stride[2], t);
}

pk_status PK_REF_FN(rope)(void *dev, const pk_rope_problem *p, pk_msg *msg)
{
    int64_t half = p->rotary_dim / 2;
    pk_ref_acc *buf = PK_REF_FN(scratch)(dev, 3 * half, msg);
    if (!buf)
        return PK_ERR_OUT_OF_MEMORY;
    pk_ref_rope_scratch t = {buf, buf + half, buf + 2 * half};
    pk_ref_acc theta = p->theta;
    for (int64_t i = 0; i < half; i++)
        t.inv_freq[i] = p->inv_freq.mem ? pk_ref_load(&p->inv_freq, i * p->inv_freq.stride[PK_MAX_DIMS - 1])
                                        : pow(theta, -(pk_ref_acc)(2 * i) / (pk_ref_acc)p->rotary_dim);

    /* ref's device memory is host memory: device positions read in place */
    const int32_t *positions =
        p->positions_dev.mem ? (const int32_t *)p->positions_dev.mem + p->positions_dev.offset : p->positions;
    for (int64_t b = 0; b < p->batch; b++) {
        for (int64_t s = 0; s < p->seq; s++) {
            pk_ref_acc pos = (pk_ref_acc)positions[b * p->seq + s];
            for (int64_t i = 0; i < half; i++) {
                pk_ref_acc angle = pos * t.inv_freq[i];
                t.cos[i] = cos(angle);
                t.sin[i] = sin(angle);
            }
            pk_ref_rope_heads(p, &p->q, p->hq, b, s, &t);
            if (p->k.mem)
                pk_ref_rope_heads(p, &p->k, p->hk, b, s, &t);
        }
    }
    free(buf);
    return PK_SUCCESS;
}
