/* HIP GEMM host side: the plan (hip_gemm_plan.c) names the kernel of
 * kernels_hip/gemm.hip; every entry point takes PK_GEMM_PARAMS, marshalled
 * as for CUDA (pk_gpu_args). */
#include "hip_gemm_plan.h"
#include "gpu_vendor.h"
#include "pk_gpu_args.h"

pk_status pk_hip_gemm(void *dev, const pk_gemm_problem *p, pk_msg *msg)
{
    pk_hip_device *d = dev;
    if (p->batch == 0 || p->m == 0 || p->n == 0) return PK_SUCCESS;
    pk_hip_gemm_plan plan;
    pk_hip_gemm_plan_pick(p, &d->target, &plan);
    hipFunction_t f;
    pk_status s = pk_hip_function(d, plan.kernel, &f, msg);
    if (s != PK_SUCCESS) return s;
    pk_gpu_gemm_args g;
    pk_gpu_gemm_args_fill(p, &g);
    return pk_hip_launch(d, f, plan.grid, plan.block, plan.smem, g.args, 0, msg);
}
