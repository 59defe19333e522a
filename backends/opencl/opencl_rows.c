/* Row ops: rmsnorm, layernorm, softmax run one work-group per row and hold
 * the row in registers (VPT values per work-item) so that global memory is
 * read once; rows too wide for that stream over the row once per pass.
 * glu and bias_act are elementwise over a columns x rows grid. Every row
 * kernel takes the same arguments, set by rows_run. */
#include <stdio.h>

#include "opencl_internal.h"

/* Values per work-item kept in registers: up to 16 * 1024 = 16K columns
 * on a GPU before the row is streamed instead. */
#define ROWS_MAX_VPT 16
#define ROWS_MAX_WG 1024

typedef enum rows_shape { ROWS_PER_GROUP, ROWS_ELEMENTWISE } rows_shape;

static size_t pow2_ceil(size_t n)
{
    size_t p = 1;
    while (p < n) p *= 2;
    return p;
}

static size_t pow2_floor(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

static size_t wg_limit(pk_cl_device *d)
{
    size_t max = 0;
    clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max, &max, NULL);
    return pow2_floor(max && max < ROWS_MAX_WG ? max : ROWS_MAX_WG);
}

/* The view's arguments: pointer (NULL when absent), offset, strides. */
static void view_args(pk_cl_arg *a, const pk_view *v, const cl_mem *mem, cl_long4 *st)
{
    for (int i = 0; i < 4; i++) st->s[i] = v->stride[i];
    a[0] = (pk_cl_arg){sizeof(cl_mem), mem};
    a[1] = (pk_cl_arg){sizeof(cl_long), &v->offset};
    a[2] = (pk_cl_arg){sizeof(cl_long4), st};
}

/* Work-items per row (a power of two) and values each keeps in registers
 * (0: the row is streamed), given at most `limit` work-items. */
static void plan_row(int64_t cols, size_t limit, size_t *wg, int *vpt)
{
    size_t per_item = ((size_t)cols + limit - 1) / limit;
    *vpt = per_item <= ROWS_MAX_VPT ? (int)per_item : 0;
    *wg = *vpt ? pow2_ceil(((size_t)cols + (size_t)*vpt - 1) / (size_t)*vpt) : limit;
}

static pk_status rows_kernel(pk_cl_device *d, const pk_rows_problem *p, const char *name, int vpt, cl_kernel *k,
                             pk_msg *msg)
{
    char opts[256];
    pk_cl_options(opts, sizeof opts,
                  "-DDT=%d -DACT=%d -DHAS_RES=%d -DHAS_RES_OUT=%d -DHAS_WEIGHT=%d -DHAS_BIAS=%d -DVPT=%d",
                  (int)p->x.dtype, (int)p->act, p->residual.mem != NULL, p->residual_out.mem != NULL,
                  p->weight.mem != NULL, p->bias.mem != NULL, vpt);
    return pk_cl_kernel(d, "rows.cl", opts, name, k, msg);
}

/* Builds (or finds) kernel `name` for this problem, sets the arguments every
 * row kernel shares and launches it over the rows. */
static pk_status rows_run(void *dev, const pk_rows_problem *p, const char *name, rows_shape shape, pk_msg *msg)
{
    pk_cl_device *d = dev;
    const cl_long rows = p->lead[0] * p->lead[1] * p->lead[2];
    size_t wg = 1;
    int vpt = 0;
    cl_kernel k;
    pk_status s;
    if (shape == ROWS_ELEMENTWISE) {
        if ((s = rows_kernel(d, p, name, 0, &k, msg))) return s;
    } else {
        /* A kernel may allow fewer work-items than the device (registers):
         * plan again under its limit until the plan fits. */
        for (size_t limit = wg_limit(d);; limit /= 2) {
            plan_row(p->cols, limit, &wg, &vpt);
            if ((s = rows_kernel(d, p, name, vpt, &k, msg))) return s;
            size_t kernel_max = 0;
            clGetKernelWorkGroupInfo(k, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max, &kernel_max,
                                     NULL);
            if (!kernel_max || wg <= kernel_max) break; /* one work-item always fits */
        }
    }

    const pk_view *views[7] = {&p->x, &p->residual, &p->residual_out, &p->weight, &p->bias, &p->out, &p->up};
    cl_mem mems[7];
    cl_long4 strides[7];
    cl_long lead1 = p->lead[1], lead2 = p->lead[2], cols = p->cols;
    pk_cl_arg args[6 + 7 * 3 + 1] = {
        PK_CL_ARG(rows), PK_CL_ARG(lead1), PK_CL_ARG(lead2), PK_CL_ARG(cols), PK_CL_ARG(p->eps), PK_CL_ARG(p->scale),
    };
    for (int i = 0; i < 7; i++) {
        mems[i] = (cl_mem)views[i]->mem;
        view_args(&args[6 + 3 * i], views[i], &mems[i], &strides[i]);
    }
    args[6 + 7 * 3] = (pk_cl_arg){wg * sizeof(cl_float), NULL};

    if (shape == ROWS_PER_GROUP) {
        size_t global = (size_t)rows * wg;
        return pk_cl_run(d, k, args, 6 + 7 * 3 + 1, 1, &global, &wg, msg);
    }
    size_t local[2], global[2];
    pk_cl_grid_2d((size_t)p->cols, (size_t)rows, global, local);
    return pk_cl_run(d, k, args, 6 + 7 * 3 + 1, 2, global, local, msg);
}

pk_status pk_cl_rmsnorm(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_rmsnorm", ROWS_PER_GROUP, msg);
}

pk_status pk_cl_layernorm(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_layernorm", ROWS_PER_GROUP, msg);
}

pk_status pk_cl_softmax(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_softmax", ROWS_PER_GROUP, msg);
}

pk_status pk_cl_glu(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_glu", ROWS_ELEMENTWISE, msg);
}

pk_status pk_cl_bias_act(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_bias_act", ROWS_ELEMENTWISE, msg);
}
