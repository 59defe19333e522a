/* Coverage of the attention plans (CUDA, HIP, OpenCL), prefill and
 * split-KV decode: every variant a plan can pick on each device it knows
 * is reached by a conformance case that runs there (cover.h). -v lists
 * every variant with a case that reaches it. */
#include <stdio.h>
#include <string.h>

#include "cover.h"
#include "cover_devices.h"
#include "cuda_attention_plan.h"
#include "hip_attention_plan.h"
#include "opencl_attention_plan.h"
#include "opencl_table_params.h"

int main(int argc, char **argv)
{
    const int verbose = cover_verbose(argc, argv);
    cover_calls calls;
    int gaps = cover_collect(&calls) ? 1 : 0;
    char name[96];

    for (int d = 0; d < COVER_COUNT(cover_cuda_devices); d++) {
        const cover_cuda_device *dev = &cover_cuda_devices[d];
        cover_set can = {0}, reached = {0};
        pk_cu_attn_plan_variants(dev->sm, dev->smem_optin, dev->has_wgmma, cover_set_add_split_fn, &can);
        pk_cu_attn_plan_knob_variants(dev->sm, dev->smem_optin, dev->has_wgmma, cover_set_add_split_fn, &can);
        for (int i = 0; i < calls.n; i++) {
            const cover_call *c = &calls.v[i];
            if (c->op != CF_OP_ATTENTION || !cf_case_runs_on(c->c, 0)) continue;
            pk_cu_attn_plan plan;
            pk_cu_attn_plan_make_knob(&c->p.attn, dev->sm, dev->sm_count, dev->smem_optin, dev->has_wgmma,
                                      pk_cu_attn_knob_of(cover_knob(c->c, "PORTKERN_CUDA_ATTN")), &plan);
            cover_set_add_split(&reached, pk_cu_attn_kernel_names[plan.kernel], plan.n_splits > 1, c->c->name);
        }
        gaps += cover_check("attention cuda", dev->name, &can, &reached, verbose);
        cover_set_free(&can);
        cover_set_free(&reached);
    }

    for (int d = 0; d < COVER_COUNT(cover_hip_devices); d++) {
        const cover_hip_device *dev = &cover_hip_devices[d];
        cover_set can = {0}, reached = {0};
        pk_hip_attn_plan_variants(&dev->t, cover_set_add_split_fn, &can);
        for (int i = 0; i < calls.n; i++) {
            const cover_call *c = &calls.v[i];
            if (c->op != CF_OP_ATTENTION || !cf_case_runs_on(c->c, 0)) continue;
            pk_hip_attn_plan plan;
            pk_hip_attn_plan_make(&c->p.attn, &dev->t, &plan);
            cover_set_add_split(&reached, pk_hip_attn_kernel_names[plan.kernel], plan.n_splits > 1, c->c->name);
        }
        gaps += cover_check("attention hip", dev->name, &can, &reached, verbose);
        cover_set_free(&can);
        cover_set_free(&reached);
    }

    for (int d = 0; d < COVER_COUNT(cover_cl_devices); d++) {
        const cover_cl_device *dev = &cover_cl_devices[d];
        cover_set can = {0}, reached = {0};
        pk_cl_attn_plan_variants(table_params(&dev->info), &dev->info, cover_set_add_fn, &can);
        for (int i = 0; i < calls.n; i++) {
            const cover_call *c = &calls.v[i];
            if (c->op != CF_OP_ATTENTION || !cf_case_runs_on(c->c, dev->info.is_cpu)) continue;
            pk_cl_attn_plan plan;
            pk_cl_attn_plan_make(table_params(&dev->info), &c->p.attn, &dev->info, &plan);
            pk_cl_attn_plan_variant(&plan, c->p.attn.d, name, sizeof name);
            cover_set_add(&reached, name, c->c->name);
        }
        gaps += cover_check("attention opencl", dev->name, &can, &reached, verbose);
        cover_set_free(&can);
        cover_set_free(&reached);
    }

    cover_calls_free(&calls);
    printf("%s: %d gap(s)\n", gaps ? "FAIL" : "OK", gaps);
    return gaps ? 1 : 0;
}
