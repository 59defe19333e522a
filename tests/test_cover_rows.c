/* Coverage of the elementwise launch plans CUDA and HIP share
 * (backends/common/pk_gpu_ew.c: row ops, RoPE, chain): every kernel they
 * can name is reached by a conformance case (cover.h). The plans do not
 * depend on the device. -v lists every kernel with a case that reaches it. */
#include <stdio.h>
#include <string.h>

#include "cover.h"
#include "pk_gpu_ew.h"

int main(int argc, char **argv)
{
    const int verbose = cover_verbose(argc, argv);
    cover_calls calls;
    int gaps = cover_collect(&calls) ? 1 : 0;
    cover_set can = {0}, reached = {0};
    pk_gpu_ew_kernels(cover_set_add_fn, &can);
    for (int i = 0; i < calls.n; i++) {
        const cover_call *c = &calls.v[i];
        if (!cf_case_runs_on(c->c, 0)) continue;
        pk_gpu_launch l;
        pk_msg msg;
        int per_row, pipelined;
        const char *op = cover_rows_op(c->op, &per_row);
        if (op) {
            pk_ew_rows_args a;
            if (pk_gpu_rows_plan(&c->p.rows, op, per_row, "coverage", &a, &l, &pipelined, &msg) != PK_SUCCESS)
                continue;
        } else if (c->op == CF_OP_ROPE) {
            pk_ew_rope_args a;
            if (!pk_gpu_rope_plan(&c->p.rope, &a, &l)) continue;
        } else if (c->op == CF_OP_CHAIN) {
            pk_ew_chain_args a;
            if (pk_gpu_chain_plan(&c->p.chain, "coverage", &a, &l, &msg) != PK_SUCCESS) continue;
        } else {
            continue;
        }
        cover_set_add(&reached, l.name, c->c->name);
    }
    gaps += cover_check("rows/rope/chain", "CUDA and HIP (any)", &can, &reached, verbose);
    cover_set_free(&can);
    cover_set_free(&reached);
    cover_calls_free(&calls);
    printf("%s: %d gap(s)\n", gaps ? "FAIL" : "OK", gaps);
    return gaps ? 1 : 0;
}
