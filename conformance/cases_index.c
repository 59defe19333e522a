/* Rows by device index (pk_gather_rows, pk_scatter_rows): every dtype,
 * contiguous and strided, indices out of range on both sides and repeated
 * (scatter: the last entry of an index wins). The moves are bit-exact, so
 * every backend must match the reference exactly. */
#include "conform.h"

enum { A_SRC = 0, A_INDEX = 1, A_OUT = 2 };
enum { ROWS = 50, COLS = 96, N = 17 };

static pk_status run_index(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    return c->p.index.scatter ? pk_scatter_rows(ctx, &t[A_SRC], &t[A_INDEX], &t[A_OUT])
                              : pk_gather_rows(ctx, &t[A_SRC], &t[A_INDEX], &t[A_OUT]);
}

static void add(cf_case_list *l, pk_dtype dt, int scatter, int strided)
{
    cf_case *c = cf_case_add(l, CF_OP_INDEX_ROWS, dt, run_index, "index_rows/%s/%s%s", cf_dtype_tag(dt),
                             scatter ? "scatter" : "gather", strided ? "/strided" : "");
    c->p.index.scatter = scatter;
    /* gather reads ROWS rows into N; scatter writes N rows into ROWS */
    cf_spec src = cf_shape(dt, 2, (int64_t)(scatter ? N : ROWS), (int64_t)COLS);
    cf_spec out = cf_shape(dt, 2, (int64_t)(scatter ? ROWS : N), (int64_t)COLS);
    if (strided) {
        static const int transposed[2] = {1, 0};
        cf_spec_order(&src, transposed); /* column-major */
        src.offset = 5;
        cf_spec_pad(&out, 7);
        out.offset = 3;
    }
    cf_arg *a = cf_case_arg(c, A_SRC, scatter ? "src" : "table", CF_IN, src);
    cf_arg_gen(a, CF_GEN_NORMAL, 0.0f, 1.0f);
    /* indices drawn over [-3, ROWS + 3): some out of range on both sides;
     * entries 4 and 11 repeat entry 2's index, and 13 names row ROWS */
    a = cf_case_arg(c, A_INDEX, "index", CF_IN, cf_shape(PK_I32, 1, (int64_t)N));
    cf_arg_gen(a, CF_GEN_UNIFORM, -3.0f, (float)ROWS + 3.0f);
    cf_arg_special(a, 2, 1, 7.0f);
    cf_arg_special(a, 4, 1, 7.0f);
    cf_arg_special(a, 11, 1, 7.0f);
    cf_arg_special(a, 13, 1, (float)ROWS);
    /* scatter leaves the rows no index names as they were */
    a = cf_case_arg(c, A_OUT, "out", scatter ? CF_INOUT : CF_OUT, out);
    if (scatter) cf_arg_gen(a, CF_GEN_NORMAL, 0.0f, 1.0f);
}

void cf_cases_index(cf_case_list *l)
{
    static const pk_dtype dts[3] = {PK_F32, PK_F16, PK_BF16};
    for (int d = 0; d < 3; d++)
        for (int scatter = 0; scatter < 2; scatter++)
            for (int strided = 0; strided < 2; strided++) add(l, dts[d], scatter, strided);
}
