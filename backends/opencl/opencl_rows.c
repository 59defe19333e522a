/* Row ops: rmsnorm, layernorm, softmax (a row per tpr work-items) and glu,
 * bias_act (elementwise), on rows.cl as opencl_rows_plan.c plans them.
 * Every row kernel takes the same arguments, set by rows_run. */
#include <stdio.h>

#include "opencl_internal.h"
#include "opencl_rows_plan.h"

static pk_status rows_kernel(pk_cl_device *d, const pk_rows_problem *p, const char *name,
                             const pk_cl_rows_plan *plan, cl_kernel *k, pk_msg *msg)
{
    char opts[320];
    pk_cl_options(opts, sizeof opts,
                  "-DDT=%d -DACT=%d -DHAS_RES=%d -DHAS_RES_OUT=%d -DHAS_WEIGHT=%d -DHAS_BIAS=%d -DVEC=%d -DNCH=%d "
                  "-DPF=%d -DRED=%d -DFAN=%d -DEWU=%d",
                  (int)p->x.dtype, (int)p->act, p->residual.mem != NULL, p->residual_out.mem != NULL,
                  p->weight.mem != NULL, p->bias.mem != NULL, plan->vec, plan->chunks, plan->prefetch, plan->tpr > 1,
                  plan->fan, plan->batch > 1 ? plan->batch : 1);
    return pk_cl_kernel(d, "rows.cl", opts, name, k, msg);
}

/* The view's arguments: pointer (NULL when absent), offset, strides. */
static void view_args(pk_cl_arg *a, const pk_view *v, const cl_mem *mem, cl_long4 *st)
{
    for (int i = 0; i < 4; i++) st->s[i] = v->stride[i];
    a[0] = (pk_cl_arg){sizeof(cl_mem), mem};
    a[1] = (pk_cl_arg){sizeof(cl_long), &v->offset};
    a[2] = (pk_cl_arg){sizeof(cl_long4), st};
}

/* Plans, builds (or finds) kernel `name` for this problem, sets the
 * arguments every row kernel shares and launches it. */
static pk_status rows_run(void *dev, const pk_rows_problem *problem, const char *name, int per_row, pk_msg *msg)
{
    pk_cl_device *d = dev;
    pk_rows_problem p = *problem;
    pk_cl_rows_collapse(&p);
    size_t limit = d->max_wg;
    pk_cl_rows_plan plan;
    cl_kernel k;
    pk_status s;
    /* A kernel may allow fewer work-items than the device (registers):
     * plan again under its limit until the plan fits. */
    for (;; limit /= 2) {
        pk_cl_rows_plan_pick(&d->prm, &d->info, limit, &p, per_row, &plan);
        if ((s = rows_kernel(d, &p, name, &plan, &k, msg))) return s;
        size_t kernel_max = 0;
        clGetKernelWorkGroupInfo(k, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max, &kernel_max, NULL);
        if (!kernel_max || plan.local <= kernel_max || plan.local == 1) break;
        if (limit > kernel_max) limit = kernel_max * 2;
    }

    const pk_view *views[7] = {&p.x, &p.residual, &p.residual_out, &p.weight, &p.bias, &p.out, &p.up};
    cl_mem mems[7];
    cl_long4 strides[7];
    const cl_long rows = p.lead[0] * p.lead[1] * p.lead[2];
    cl_long lead1 = p.lead[1], lead2 = p.lead[2], cols = p.cols;
    cl_int tpr = plan.tpr ? plan.tpr : 1, per_item = plan.per_item;
    enum { NARGS = 6 + 7 * 3 + 3 };
    pk_cl_arg args[NARGS] = {
        PK_CL_ARG(rows), PK_CL_ARG(lead1), PK_CL_ARG(lead2), PK_CL_ARG(cols), PK_CL_ARG(p.eps), PK_CL_ARG(p.scale),
    };
    for (int i = 0; i < 7; i++) {
        mems[i] = (cl_mem)views[i]->mem;
        view_args(&args[6 + 3 * i], views[i], &mems[i], &strides[i]);
    }
    args[6 + 7 * 3] = PK_CL_ARG(tpr);
    args[6 + 7 * 3 + 1] = PK_CL_ARG(per_item);
    /* two halves: consecutive reductions alternate (rows.cl) */
    args[6 + 7 * 3 + 2] = (pk_cl_arg){2 * plan.local * sizeof(cl_float), NULL};
    size_t global = plan.groups * plan.local;
    return pk_cl_run(d, k, args, NARGS, 1, &global, &plan.local, msg);
}

pk_status pk_cl_rmsnorm(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_rmsnorm", 1, msg);
}

pk_status pk_cl_layernorm(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_layernorm", 1, msg);
}

pk_status pk_cl_softmax(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_softmax", 1, msg);
}

pk_status pk_cl_glu(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_glu", 0, msg);
}

pk_status pk_cl_bias_act(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "pk_bias_act", 0, msg);
}
