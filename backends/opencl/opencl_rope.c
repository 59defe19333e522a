/* RoPE: one launch over q and k. Positions, and the inverse frequencies
 * unless the caller's table gives them, go to the device through the
 * scratch buffer, staged (opencl_stage.c): no host wait; positions given
 * on the device are copied there on the queue. */
#include <stdlib.h>

#include "opencl_internal.h"
#include "pk_fault.h"
#include "pk_rope_freq.h"


pk_status pk_cl_rope(void *dev, const pk_rope_problem *p, pk_msg *msg)
{
    pk_cl_device *d = dev;
    cl_long tokens = p->batch * p->seq, half = p->rotary_dim / 2, heads = p->hq + p->hk;
    int own_freq = !p->inv_freq.mem;
    size_t pos_bytes = (size_t)tokens * sizeof(cl_int), freq_bytes = own_freq ? (size_t)half * sizeof(cl_float) : 0;

    float *inv_freq = NULL;
    if (own_freq) {
        int injected = pk_fault_alloc(d);
        if (injected || !(inv_freq = malloc(freq_bytes)))
            return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory for RoPE frequencies%s",
                           injected ? " (injected)" : "");
        pk_rope_inv_freq(p->theta, p->rotary_dim, inv_freq);
    }
    cl_mem tab;
    pk_status s = pk_cl_scratch(d, pos_bytes + freq_bytes, &tab, msg);
    /* the caller's device positions, copied on the queue: no host copy, no wait */
    if (s == PK_SUCCESS && p->positions_dev.mem)
        s = pk_cl_copy_i32(d, &p->positions_dev, tab, 0, (size_t)tokens, "clEnqueueCopyBuffer (positions)", msg);
    else if (s == PK_SUCCESS)
        s = pk_cl_upload_async(d, tab, 0, p->positions, pos_bytes, "clEnqueueWriteBuffer (positions)", msg);
    if (s == PK_SUCCESS && own_freq)
        s = pk_cl_upload_async(d, tab, pos_bytes, inv_freq, freq_bytes, "clEnqueueWriteBuffer (frequencies)", msg);
    free(inv_freq);
    if (s != PK_SUCCESS) return s;
    /* the frequencies, in f32 elements: the caller's table, or ours after the positions */
    cl_mem freq = own_freq ? tab : (cl_mem)p->inv_freq.mem;
    cl_long freq_off = own_freq ? tokens : p->inv_freq.offset;
    cl_long freq_st = own_freq ? 1 : p->inv_freq.stride[PK_MAX_DIMS - 1];

    char opts[64];
    pk_cl_options(opts, sizeof opts, "-DDT=%d", (int)p->q.dtype);
    pk_cl_kern *k;
    if ((s = pk_cl_kernel(d, "rope.cl", opts, "pk_rope", &k, msg))) return s;

    cl_long pairs = tokens * half;
    /* with fewer (token, pair) items than the launch aims for, the heads
     * of a token are shared out among several work-items */
    const pk_cl_misc_params *mp = &d->prm.misc;
    cl_long share = (mp->rope_items + pairs - 1) / pairs;
    if (share > heads) share = heads;
    cl_int interleaved = p->interleaved;
    cl_mem q = (cl_mem)p->q.mem, kmem = (cl_mem)p->k.mem;
    cl_long4 q_st, k_st;
    for (int i = 0; i < 4; i++) {
        q_st.s[i] = p->q.stride[i];
        k_st.s[i] = p->k.stride[i];
    }
    cl_long seq = p->seq, hq = p->hq, hk = p->hk;
    const pk_cl_arg args[] = {
        PK_CL_ARG(tokens), PK_CL_ARG(seq), PK_CL_ARG(hq), PK_CL_ARG(hk), PK_CL_ARG(half), PK_CL_ARG(share),
        PK_CL_ARG(interleaved), PK_CL_ARG(q), PK_CL_ARG(p->q.offset), PK_CL_ARG(q_st), PK_CL_ARG(kmem),
        PK_CL_ARG(p->k.offset), PK_CL_ARG(k_st), PK_CL_ARG(tab), PK_CL_ARG(freq), PK_CL_ARG(freq_off),
        PK_CL_ARG(freq_st),
    };
    size_t items = (size_t)(pairs * share), local = (size_t)mp->rope_wg < d->max_wg ? (size_t)mp->rope_wg : d->max_wg;
    size_t most = (size_t)mp->rope_max_groups * local;
    size_t global = items < most ? items : most;
    return pk_cl_run(d, k, args, (int)(sizeof args / sizeof args[0]), 1, &global, &local, msg);
}
