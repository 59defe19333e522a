/* Coverage of the GEMM plans (CUDA, HIP, OpenCL; the decode kernels
 * and skinny kernels included): every kernel variant a plan can pick on each device it knows
 * is reached by a conformance case that runs there (cover.h). -v lists
 * every variant with a case that reaches it. */
#include <stdio.h>
#include <string.h>

#include "cover.h"
#include "cover_devices.h"
#include "cuda_gemm_plan.h"
#include "hip_gemm_plan.h"
#include "opencl_gemm_plan.h"
#include "opencl_table_params.h"

int main(int argc, char **argv)
{
    const int verbose = cover_verbose(argc, argv);
    cover_calls calls;
    int gaps = cover_collect(&calls) ? 1 : 0;

    /* CUDA: the Hopper kernel where sm_90a code is loaded and it takes the
     * problem, else the plan (as pk_cu_gemm), under the case's knob */
    for (int d = 0; d < COVER_COUNT(cover_cuda_devices); d++) {
        const cover_cuda_device *dev = &cover_cuda_devices[d];
        cover_set can = {0}, reached = {0};
        pk_cu_gemm_plan_kernels(dev->has_wgmma, dev->smem_optin, cover_set_add_split_fn, &can);
        pk_cu_gemm_plan_knob_kernels(dev->has_wgmma, cover_set_add_split_fn, &can);
        for (int i = 0; i < calls.n; i++) {
            const cover_call *c = &calls.v[i];
            if (c->op != CF_OP_GEMM || !cf_case_runs_on(c->c, 0)) continue;
            const pk_cu_gemm_knob knob = pk_cu_gemm_knob_of(cover_knob(c->c, "PORTKERN_CUDA_GEMM"));
            pk_cu_gemm_plan plan;
            if (!(dev->has_wgmma && pk_cu_gemm_plan_wgmma(&c->p.gemm, dev->sm_count, knob, &plan)))
                pk_cu_gemm_plan_pick_knob(&c->p.gemm, dev->sm_count, dev->smem_optin, knob, &plan);
            cover_set_add_split(&reached, pk_cu_gemm_kernel_names[plan.kernel], plan.splits > 1, c->c->name);
        }
        gaps += cover_check("gemm cuda", dev->name, &can, &reached, verbose);
        cover_set_free(&can);
        cover_set_free(&reached);
    }

    for (int d = 0; d < COVER_COUNT(cover_hip_devices); d++) {
        const cover_hip_device *dev = &cover_hip_devices[d];
        cover_set can = {0}, reached = {0};
        pk_hip_gemm_plan_kernels(&dev->t, cover_set_add_fn, &can);
        for (int i = 0; i < calls.n; i++) {
            const cover_call *c = &calls.v[i];
            if (c->op != CF_OP_GEMM || !cf_case_runs_on(c->c, 0)) continue;
            pk_hip_gemm_plan plan;
            pk_hip_gemm_plan_pick(&c->p.gemm, &dev->t, &plan);
            cover_set_add(&reached, pk_hip_gemm_kernel_names[plan.kernel], c->c->name);
        }
        gaps += cover_check("gemm hip", dev->name, &can, &reached, verbose);
        cover_set_free(&can);
        cover_set_free(&reached);
    }

    for (int d = 0; d < COVER_COUNT(cover_cl_devices); d++) {
        const cover_cl_device *dev = &cover_cl_devices[d];
        cover_set can = {0}, reached = {0};
        /* the context's parameters: its class's table, the wgmma tiles over
         * it where the device runs wgmma, and the TMA tiles over those where
         * it runs TMA copies */
        pk_cl_params prm = *table_params(&dev->info);
        if (dev->wgmma) pk_cl_params_wgmma(&prm);
        if (dev->tma) pk_cl_params_tma(&prm);
        pk_cl_gemm_plan_variants(&prm, &dev->info, dev->max_work_group, cover_set_add_fn, &can);
        for (int i = 0; i < calls.n; i++) {
            const cover_call *c = &calls.v[i];
            if (c->op != CF_OP_GEMM || !cf_case_runs_on(c->c, dev->info.is_cpu)) continue;
            pk_cl_gemm_plan plan;
            char name[96];
            if (pk_cl_gemm_plan_problem(&prm, &dev->info, dev->max_work_group, &c->p.gemm, &plan) != 0) continue;
            pk_cl_gemm_plan_variant(&plan, name, sizeof name);
            cover_set_add(&reached, name, c->c->name);
        }
        gaps += cover_check("gemm opencl", dev->name, &can, &reached, verbose);
        cover_set_free(&can);
        cover_set_free(&reached);
    }

    cover_calls_free(&calls);
    printf("%s: %d gap(s)\n", gaps ? "FAIL" : "OK", gaps);
    return gaps ? 1 : 0;
}
