/* Coverage of the elementwise launch plans (cover.h): those CUDA and HIP
 * share (backends/gpu/pk_gpu_ew.c: row ops, RoPE, chain, rows by index), which do not
 * depend on the device, and the OpenCL row-op plan
 * (backends/opencl/opencl_rows_plan.c) on each device cover_devices.h
 * lists: every kernel a plan can name is reached by a conformance case
 * that runs there. -v lists every kernel with a case that reaches it. */
#include <stdio.h>
#include <string.h>

#include "cover.h"
#include "cover_devices.h"
#include "opencl_rows_plan.h"
#include "opencl_table_params.h"
#include "pk_gpu_ew.h"

/* OpenCL, as opencl_rows.c plans a call: leading dims folded first. */
static int cover_opencl_rows(const cover_calls *calls, int verbose)
{
    static const int ops[5] = {CF_OP_RMSNORM, CF_OP_LAYERNORM, CF_OP_SOFTMAX, CF_OP_GLU, CF_OP_BIAS_ACT};
    int gaps = 0;
    for (int d = 0; d < COVER_COUNT(cover_cl_devices); d++) {
        const cover_cl_device *dev = &cover_cl_devices[d];
        cover_set can = {0}, reached = {0};
        for (int o = 0; o < 5; o++) {
            int per_row;
            const char *op = cover_rows_op(ops[o], &per_row);
            pk_cl_rows_plan_variants(table_params(&dev->info), &dev->info, dev->max_work_group, op, per_row, cover_set_add_fn, &can);
        }
        for (int i = 0; i < calls->n; i++) {
            const cover_call *c = &calls->v[i];
            int per_row;
            const char *op = cover_rows_op(c->op, &per_row);
            if (!op || !cf_case_runs_on(c->c, dev->info.is_cpu)) continue;
            pk_rows_problem p = c->p.rows;
            pk_cl_rows_collapse(&p);
            pk_cl_rows_plan plan;
            char name[96];
            pk_cl_rows_plan_pick(table_params(&dev->info), &dev->info, dev->max_work_group, &p, per_row, &plan);
            pk_cl_rows_plan_variant(&plan, op, name, sizeof name);
            cover_set_add(&reached, name, c->c->name);
        }
        gaps += cover_check("rows opencl", dev->name, &can, &reached, verbose);
        cover_set_free(&can);
        cover_set_free(&reached);
    }
    return gaps;
}

int main(int argc, char **argv)
{
    const int verbose = cover_verbose(argc, argv);
    cover_calls calls;
    int gaps = cover_collect(&calls) ? 1 : 0;
    cover_set can = {0}, reached = {0};
    for (int k = 0; k < PK_GPU_EW_KERNEL_COUNT; k++) cover_set_add(&can, pk_gpu_ew_kernel_names[k], NULL);
    for (int i = 0; i < calls.n; i++) {
        const cover_call *c = &calls.v[i];
        if (!cf_case_runs_on(c->c, 0)) continue;
        pk_gpu_launch l;
        pk_msg msg;
        int per_row, pipelined;
        if (cover_rows_op(c->op, &per_row)) {
            pk_ew_rows_args a;
            if (pk_gpu_rows_plan(&c->p.rows, "coverage", &a, &l, &pipelined, &msg) != PK_SUCCESS) continue;
        } else if (c->op == CF_OP_ROPE) {
            pk_ew_rope_args a;
            if (!pk_gpu_rope_plan(&c->p.rope, &a, &l)) continue;
        } else if (c->op == CF_OP_CHAIN) {
            pk_ew_chain_args a;
            if (pk_gpu_chain_plan(&c->p.chain, "coverage", &a, &l, &msg) != PK_SUCCESS) continue;
        } else if (c->op == CF_OP_INDEX_ROWS) {
            pk_ew_index_args a;
            pk_gpu_index_plan(&c->p.index, &a, &l);
        } else {
            continue;
        }
        cover_set_add(&reached, pk_gpu_ew_kernel_names[l.kernel], c->c->name);
    }
    gaps += cover_check("rows/rope/chain/index", "CUDA and HIP (any)", &can, &reached, verbose);
    cover_set_free(&can);
    cover_set_free(&reached);
    gaps += cover_opencl_rows(&calls, verbose);
    cover_calls_free(&calls);
    printf("%s: %d gap(s)\n", gaps ? "FAIL" : "OK", gaps);
    return gaps ? 1 : 0;
}
