/* HIP GEMM host side: the plan (hip_gemm_plan.c) picks the kernel of
 * kernels_hip/gemm_kernels.h; every entry point takes PK_GEMM_PARAMS,
 * marshalled as for CUDA (pk_gpu_args). */
#include "gpu_vendor.h"
#include "pk_gpu_args.h"

pk_status pk_hip_gemm(void *dev, const pk_gemm_problem *p, pk_msg *msg)
{
    pk_hip_device *d = dev;
    if (p->batch == 0 || p->m == 0 || p->n == 0) return PK_SUCCESS;
    pk_hip_gemm_plan plan;
    pk_hip_gemm_plan_pick(p, &d->target, &plan);
    pk_gpu_gemm_args g;
    pk_gpu_gemm_args_fill(p, &g);
    return pk_hip_launch(d, PK_GPU_GEMM0 + plan.kernel, plan.grid, plan.block, plan.smem, g.args, 0, msg);
}
