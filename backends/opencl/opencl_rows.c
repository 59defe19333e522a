/* Row ops: rmsnorm, layernorm, softmax (a row per tpr work-items) and glu,
 * bias_act (elementwise), on rows.cl as opencl_rows_plan.c plans them.
 * Every row kernel takes the same arguments, set by rows_run. */
#include <stdio.h>

#include "opencl_internal.h"
#include "opencl_rows_plan.h"
#include "../../kernels_cl/cl_args.h"

static pk_status rows_kernel(pk_cl_device *d, const pk_rows_problem *p, const char *name,
                             const pk_cl_rows_plan *plan, pk_cl_kern **k, pk_msg *msg)
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

/* Plans, builds (or finds) kernel `name` for this problem, sets the
 * arguments every row kernel shares and launches it. */
static pk_status rows_run(void *dev, const pk_rows_problem *problem, const char *name, int per_row, pk_msg *msg)
{
    pk_cl_device *d = dev;
    pk_rows_problem p = *problem;
    pk_cl_rows_collapse(&p);
    size_t limit = d->max_wg;
    pk_cl_rows_plan plan;
    pk_cl_kern *k;
    pk_status s;
    /* A kernel may allow fewer work-items than the device (registers):
     * plan again under its limit until the plan fits. */
    for (;; limit /= 2) {
        pk_cl_rows_plan_pick(&d->prm, &d->info, limit, &p, per_row, &plan);
        if ((s = rows_kernel(d, &p, name, &plan, &k, msg))) return s;
        const size_t kernel_max = pk_cl_kern_max_wg(k);
        if (!kernel_max || plan.local <= kernel_max || plan.local == 1) break;
        if (limit > kernel_max) limit = kernel_max * 2;
    }

    /* scalars packed as cl_args.h says, buffers one argument each */
    const pk_view *views[PK_RV_COUNT] = {[PK_RV_X] = &p.x,           [PK_RV_RES] = &p.residual,
                                         [PK_RV_RES_OUT] = &p.residual_out, [PK_RV_WEIGHT] = &p.weight,
                                         [PK_RV_BIAS] = &p.bias,     [PK_RV_OUT] = &p.out,
                                         [PK_RV_UP] = &p.up};
    cl_long a[PK_RA_LONGS] = {0};
    a[PK_RA_ROWS] = p.lead[0] * p.lead[1] * p.lead[2];
    a[PK_RA_LEAD1] = p.lead[1];
    a[PK_RA_LEAD2] = p.lead[2];
    a[PK_RA_COLS] = p.cols;
    a[PK_RA_TPR] = plan.tpr ? plan.tpr : 1;
    a[PK_RA_PER_ITEM] = plan.per_item;
    cl_mem mems[PK_RV_COUNT];
    enum { NARGS = PK_RV_COUNT + 5 };
    pk_cl_arg args[NARGS];
    for (int i = 0; i < PK_RV_COUNT; i++) {
        mems[i] = (cl_mem)views[i]->mem;
        args[i] = PK_CL_ARG(mems[i]);
        a[PK_RA_OFF + i] = views[i]->offset;
        for (int j = 0; j < 4; j++) a[PK_RA_ST + 4 * i + j] = views[i]->stride[j];
    }
    cl_float2 f = {{p.eps, p.scale}};
    for (int i = 0; i < 3; i++) args[PK_RV_COUNT + i] = (pk_cl_arg){16 * sizeof(cl_long), a + 16 * i};
    args[PK_RV_COUNT + 3] = PK_CL_ARG(f);
    /* two halves: consecutive reductions alternate (rows.cl) */
    args[PK_RV_COUNT + 4] = (pk_cl_arg){2 * plan.local * sizeof(cl_float), NULL};
    size_t global = plan.groups * plan.local;
    return pk_cl_run(d, k, args, NARGS, 1, &global, &plan.local, msg);
}

pk_status pk_cl_rows(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    /* the kernels of rows.cl are pk_<op> */
    static const char *const kernels[PK_ROWS_OP_COUNT] = {
        [PK_ROWS_RMSNORM] = "pk_rmsnorm", [PK_ROWS_LAYERNORM] = "pk_layernorm", [PK_ROWS_GLU] = "pk_glu",
        [PK_ROWS_BIAS_ACT] = "pk_bias_act", [PK_ROWS_SOFTMAX] = "pk_softmax",
    };
    if ((unsigned)p->op >= PK_ROWS_OP_COUNT) return pk_msgf(msg, PK_ERR_INTERNAL, "row op %d unknown", (int)p->op);
    return rows_run(dev, p, kernels[p->op], pk_rows_op_reduces(p->op), msg);
}
