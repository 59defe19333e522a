#include "pk_chain_dims.h"

#include <string.h>

pk_chain_dims pk_chain_collapse(const pk_chain_problem *p)
{
    const pk_view *views[PK_CHAIN_VIEWS] = {&p->out};
    for (int i = 0; i < p->n_inputs; i++) views[1 + i] = &p->in[i];
    int nv = 1 + p->n_inputs;
    /* built innermost first */
    int64_t shape[PK_MAX_DIMS], stride[PK_CHAIN_VIEWS][PK_MAX_DIMS];
    int k = 0;
    for (int d = PK_MAX_DIMS - 1; d >= 0; d--) {
        if (p->shape[d] == 1) continue;
        int merge = k > 0;
        for (int v = 0; merge && v < nv; v++) merge = views[v]->stride[d] == stride[v][k - 1] * shape[k - 1];
        if (merge) {
            shape[k - 1] *= p->shape[d];
            continue;
        }
        shape[k] = p->shape[d];
        for (int v = 0; v < nv; v++) stride[v][k] = views[v]->stride[d];
        k++;
    }
    pk_chain_dims c;
    memset(&c, 0, sizeof c);
    for (int j = 0; j < PK_MAX_DIMS; j++) {
        int src = PK_MAX_DIMS - 1 - j; /* dims[j] takes the collapsed dim `src` from the inside */
        c.shape[j] = src < k ? shape[src] : 1;
        for (int v = 0; v < nv; v++) c.stride[v][j] = src < k ? stride[v][src] : 0;
    }
    return c;
}
