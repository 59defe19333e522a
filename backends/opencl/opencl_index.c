/* Rows by device indices (pk_gather_rows, pk_scatter_rows): one launch of
 * kernels_cl/index_rows.cl, a work-group per index entry. */
#include "opencl_internal.h"

#define INDEX_WG 128
#define INDEX_MAX_GROUPS 65535 /* the kernel walks the entries beyond */

pk_status pk_cl_index_rows(void *dev, const pk_index_problem *p, pk_msg *msg)
{
    pk_cl_device *d = dev;
    char opts[32];
    pk_cl_options(opts, sizeof opts, "-DES=%d", p->src.dtype == PK_F32 ? 4 : 2);
    pk_cl_kern *k;
    pk_status s = pk_cl_kernel(d, "index_rows.cl", opts, "pk_index_rows", &k, msg);
    if (s != PK_SUCCESS) return s;
    cl_int scatter = p->scatter;
    cl_long n = p->n, rows = p->rows, cols = p->cols;
    cl_mem src = (cl_mem)p->src.mem, out = (cl_mem)p->out.mem, index = (cl_mem)p->index.mem;
    const pk_cl_arg args[] = {
        PK_CL_ARG(scatter),      PK_CL_ARG(n),           PK_CL_ARG(rows),          PK_CL_ARG(cols),
        PK_CL_ARG(src),          PK_CL_ARG(p->src.offset), PK_CL_ARG(p->src.stride[2]), PK_CL_ARG(p->src.stride[3]),
        PK_CL_ARG(out),          PK_CL_ARG(p->out.offset), PK_CL_ARG(p->out.stride[2]), PK_CL_ARG(p->out.stride[3]),
        PK_CL_ARG(index),        PK_CL_ARG(p->index.offset),
    };
    size_t local = INDEX_WG < d->max_wg ? INDEX_WG : d->max_wg;
    size_t most = pk_cl_kern_max_wg(k);
    if (most && local > most) local = most;
    size_t groups = (size_t)(n < INDEX_MAX_GROUPS ? n : INDEX_MAX_GROUPS), global = groups * local;
    return pk_cl_run(d, k, args, (int)(sizeof args / sizeof args[0]), 1, &global, &local, msg);
}
