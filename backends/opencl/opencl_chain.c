/* The fused chain. The register program is generated as build options
 * (chain.cl): each step becomes one straight-line statement over named
 * registers, with its op a literal. Why not an interpreter reading the
 * steps from a buffer: its registers would be an array indexed by values
 * known only at run time, which GPUs keep in (slow) private memory, and
 * every element would pay a switch per step. The generated kernel keeps
 * only live values in registers and does no dispatch; its price is one
 * build per distinct program, which the program cache (and the on-disk
 * binary cache) pays once: an inference engine runs a handful of chains. */
#include <stdio.h>
#include <string.h>

#include "opencl_internal.h"

#define CHAIN_WG 256
#define CHAIN_MAX_GROUPS 65535 /* NVIDIA bounds a grid's second dimension */
#define CHAIN_VIEWS (1 + PK_CHAIN_MAX_INPUTS)

/* The problem's dims after dropping size-1 dims and merging neighbours that
 * every view walks as one (a contiguous or broadcast pair), so that a
 * contiguous chain runs as one long row. dims[3] is the innermost. */
typedef struct chain_dims {
    int64_t shape[PK_MAX_DIMS];
    cl_long4 stride[CHAIN_VIEWS]; /* out, then the inputs */
} chain_dims;

static chain_dims collapse(const pk_chain_problem *p)
{
    const pk_view *views[CHAIN_VIEWS] = {&p->out};
    for (int i = 0; i < p->n_inputs; i++) views[1 + i] = &p->in[i];
    int nv = 1 + p->n_inputs;
    /* built innermost first */
    int64_t shape[PK_MAX_DIMS], stride[CHAIN_VIEWS][PK_MAX_DIMS];
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
    chain_dims c;
    memset(&c, 0, sizeof c);
    for (int j = 0; j < PK_MAX_DIMS; j++) {
        int src = PK_MAX_DIMS - 1 - j; /* dims[j] takes the collapsed dim `src` from the inside */
        c.shape[j] = src < k ? shape[src] : 1;
        for (int v = 0; v < nv; v++) c.stride[v].s[j] = src < k ? stride[v][src] : 0;
    }
    return c;
}

static pk_status chain_kernel(pk_cl_device *d, const pk_chain_problem *p, cl_kernel *k, pk_msg *msg)
{
    char opts[2048];
    size_t n = (size_t)pk_cl_options(opts, sizeof opts, "-DCH_N_IN=%d -DCH_DT_OUT=%d", p->n_inputs, (int)p->out.dtype);
    for (int i = 0; i < p->n_inputs; i++)
        n += (size_t)pk_cl_options(opts + n, sizeof opts - n, " -DCH_DT%d=%d", i, (int)p->in[i].dtype);
    n += (size_t)pk_cl_options(opts + n, sizeof opts - n, " -DCH_STEPS=");
    for (int s = 0; s < p->n_steps; s++) {
        const pk_chain_step *st = &p->steps[s];
        uint32_t imm;
        memcpy(&imm, &st->imm, sizeof imm);
        n += (size_t)pk_cl_options(opts + n, sizeof opts - n, "CH_S(%d,%d,%d,%d,0x%08x)", p->n_inputs + s,
                                   (int)st->op, st->a, st->b, (unsigned)imm);
    }
    n += (size_t)pk_cl_options(opts + n, sizeof opts - n, " -DCH_RESULT=r%d", p->n_inputs + p->n_steps - 1);
    if (n >= sizeof opts) return pk_msgf(msg, PK_ERR_INTERNAL, "chain: build options longer than %zu", sizeof opts);
    return pk_cl_kernel(d, "chain.cl", opts, "pk_chain", k, msg);
}

pk_status pk_cl_chain(void *dev, const pk_chain_problem *p, pk_msg *msg)
{
    pk_cl_device *d = dev;
    cl_kernel k;
    pk_status s = chain_kernel(d, p, &k, msg);
    if (s != PK_SUCCESS) return s;

    chain_dims c = collapse(p);
    cl_long n1 = c.shape[1], n2 = c.shape[2], n3 = c.shape[3], outer = c.shape[0] * c.shape[1] * c.shape[2];
    cl_mem mems[CHAIN_VIEWS] = {(cl_mem)p->out.mem};
    cl_long offs[CHAIN_VIEWS] = {p->out.offset};
    for (int i = 0; i < p->n_inputs; i++) {
        mems[1 + i] = (cl_mem)p->in[i].mem;
        offs[1 + i] = p->in[i].offset;
    }
    pk_cl_arg args[4 + 3 * CHAIN_VIEWS] = {PK_CL_ARG(n1), PK_CL_ARG(n2), PK_CL_ARG(n3), PK_CL_ARG(outer)};
    /* unused input slots stay NULL: the kernel never reads them */
    for (int v = 0; v < CHAIN_VIEWS; v++) {
        args[4 + 3 * v] = PK_CL_ARG(mems[v]);
        args[5 + 3 * v] = PK_CL_ARG(offs[v]);
        args[6 + 3 * v] = PK_CL_ARG(c.stride[v]);
    }
    size_t local[2], global[2];
    local[0] = CHAIN_WG;
    while (local[0] > 1 && local[0] / 2 >= (size_t)n3) local[0] /= 2;
    local[1] = CHAIN_WG / local[0];
    global[0] = (size_t)n3;
    global[1] = (size_t)outer < CHAIN_MAX_GROUPS * local[1] ? (size_t)outer : CHAIN_MAX_GROUPS * local[1];
    return pk_cl_run(d, k, args, 4 + 3 * CHAIN_VIEWS, 2, global, local, msg);
}
