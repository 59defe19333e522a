#include "pk_attn_layout.h"

int pk_attn_mma_rows(const pk_attention_problem *p)
{
    if (p->q.dtype != PK_F16 && p->q.dtype != PK_BF16) return 0;
    const pk_view *v[3] = {&p->q, &p->k, &p->v};
    for (int i = 0; i < 3; i++) {
        /* 8 elements of 2 bytes: 16 */
        if (v[i]->dtype != p->q.dtype || v[i]->stride[3] != 1 || v[i]->offset % 8) return 0;
        for (int j = 0; j < 3; j++)
            if (v[i]->stride[j] % 8) return 0;
    }
    return 1;
}
