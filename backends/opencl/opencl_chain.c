/* The fused chain. The register program is generated as build options
 * (chain.cl): each step becomes one straight-line statement over named
 * registers, with its op a literal. Why not an interpreter reading the
 * steps from a buffer: its registers would be an array indexed by values
 * known only at run time, which GPUs keep in (slow) private memory, and
 * every element would pay a switch per step. The generated kernel keeps
 * only live values in registers and does no dispatch; its price is one
 * build per distinct program, which the program cache (and the on-disk
 * binary cache) pays once: an inference engine runs a handful of chains.
 * The immediates are kernel arguments, not part of the program: a new
 * constant is not a new build. */
#include <stdio.h>

#include "opencl_internal.h"
#include "pk_chain_dims.h"


static pk_status chain_kernel(pk_cl_device *d, const pk_chain_problem *p, pk_cl_kern **k, pk_msg *msg)
{
    char opts[2048];
    size_t n = (size_t)pk_cl_options(opts, sizeof opts, "-DCH_N_IN=%d -DCH_DT_OUT=%d", p->n_inputs, (int)p->out.dtype);
    for (int i = 0; i < p->n_inputs; i++)
        n += (size_t)pk_cl_options(opts + n, sizeof opts - n, " -DCH_DT%d=%d", i, (int)p->in[i].dtype);
    n += (size_t)pk_cl_options(opts + n, sizeof opts - n, " -DCH_STEPS=");
    for (int s = 0; s < p->n_steps; s++) {
        const pk_chain_step *st = &p->steps[s];
        n += (size_t)pk_cl_options(opts + n, sizeof opts - n, "CH_S(%d,%d,%d,%d,imm_%s.s%x)", p->n_inputs + s,
                                   (int)st->op, st->a, st->b, s < 16 ? "lo" : "hi", s % 16);
    }
    n += (size_t)pk_cl_options(opts + n, sizeof opts - n, " -DCH_RESULT=r%d", p->n_inputs + p->n_steps - 1);
    if (n >= sizeof opts) return pk_msgf(msg, PK_ERR_INTERNAL, "chain: build options longer than %zu", sizeof opts);
    return pk_cl_kernel(d, "chain.cl", opts, "pk_chain", k, msg);
}

pk_status pk_cl_chain(void *dev, const pk_chain_problem *p, pk_msg *msg)
{
    pk_cl_device *d = dev;
    pk_cl_kern *k;
    pk_status s = chain_kernel(d, p, &k, msg);
    if (s != PK_SUCCESS) return s;

    pk_chain_dims c = pk_chain_collapse(p);
    cl_long n1 = c.shape[1], n2 = c.shape[2], n3 = c.shape[3], outer = c.shape[0] * c.shape[1] * c.shape[2];
    cl_mem mems[PK_CHAIN_VIEWS] = {(cl_mem)p->out.mem};
    cl_long offs[PK_CHAIN_VIEWS] = {p->out.offset};
    for (int i = 0; i < p->n_inputs; i++) {
        mems[1 + i] = (cl_mem)p->in[i].mem;
        offs[1 + i] = p->in[i].offset;
    }
    cl_long4 strides[PK_CHAIN_VIEWS];
    for (int v = 0; v < PK_CHAIN_VIEWS; v++)
        for (int j = 0; j < PK_MAX_DIMS; j++) strides[v].s[j] = c.stride[v][j];
    _Static_assert(PK_CHAIN_MAX_STEPS <= 32, "chain.cl holds the immediates in two float16 arguments");
    cl_float16 imm[2] = {{{0}}};
    for (int st = 0; st < p->n_steps; st++) imm[st / 16].s[st % 16] = p->steps[st].imm;
    pk_cl_arg args[6 + 3 * PK_CHAIN_VIEWS] = {PK_CL_ARG(n1), PK_CL_ARG(n2), PK_CL_ARG(n3), PK_CL_ARG(outer)};
    /* unused input slots stay NULL: the kernel never reads them */
    for (int v = 0; v < PK_CHAIN_VIEWS; v++) {
        args[4 + 3 * v] = PK_CL_ARG(mems[v]);
        args[5 + 3 * v] = PK_CL_ARG(offs[v]);
        args[6 + 3 * v] = PK_CL_ARG(strides[v]);
    }
    args[4 + 3 * PK_CHAIN_VIEWS] = PK_CL_ARG(imm[0]);
    args[5 + 3 * PK_CHAIN_VIEWS] = PK_CL_ARG(imm[1]);
    size_t local[2], global[2];
    size_t wg = (size_t)d->prm.misc.chain_wg;
    while (wg > d->max_wg) wg /= 2;
    pk_cl_grid_2d(wg, (size_t)n3, (size_t)outer, global, local);
    return pk_cl_run(d, k, args, 6 + 3 * PK_CHAIN_VIEWS, 2, global, local, msg);
}
