/* Row ops on CUDA: rmsnorm, layernorm, softmax run blockDim.x threads per
 * row with the row in registers (C chunks per thread) or streamed when too
 * long; glu and bias_act run elementwise over a columns x rows grid. The
 * vector kernels (16-byte accesses) run when every operand allows them;
 * the strided ones take anything. Kernels: kernels_cuda/ew_rows.cuh. */
#include <stdio.h>
#include <string.h>

#include "cuda_ew.h"

#define ROWS_MAX_TPR 512    /* the row kernels' __launch_bounds__ */
#define ROWS_MIN_BLOCK 128  /* short rows share a block, several rows to one */
#define ROWS_STR_CHUNKS 4   /* register chunks the strided kernels have */
#define EW_BLOCK 256
#define EW_ROWS_PER_THREAD 4 /* EW_U in kernels_cuda/ew_rows.cuh: rows a thread loads at once */
#define GRID_X_MAX 2147483647u
#define GRID_Y_MAX 65535u

static const char *dt_name(pk_dtype t) { return t == PK_F32 ? "f32" : t == PK_F16 ? "f16" : "bf16"; }

/* Values per 16-byte access if every operand allows it, else 1. */
static int rows_vec(const pk_rows_problem *p, const pk_ew_rows_args *a)
{
    int64_t size = pk_cu_ew_dtype_size(p->x.dtype), v = 16 / size;
    static const int64_t no_lead[3] = {1, 1, 1};
    if (p->cols % v) return 1;
    const pk_ew_view *row_views[] = {&a->x, &a->res, &a->res_out, &a->out, &a->up};
    for (size_t i = 0; i < sizeof row_views / sizeof row_views[0]; i++)
        if (!pk_cu_ew_vec_ok(row_views[i], size, p->lead, 16)) return 1;
    if (!pk_cu_ew_vec_ok(&a->weight, size, no_lead, 16) || !pk_cu_ew_vec_ok(&a->bias, size, no_lead, 16)) return 1;
    return (int)v;
}

static unsigned min_u64(uint64_t a, uint64_t b) { return (unsigned)(a < b ? a : b); }

/* per_row: one row per blockDim.x threads (the norms, softmax); else the
 * elementwise grid (glu, bias_act). */
static pk_status rows_run(void *dev, const pk_rows_problem *p, const char *op, int per_row, pk_msg *msg)
{
    pk_cu_device *d = dev;
    int64_t rows = p->lead[0] * p->lead[1] * p->lead[2];
    pk_ew_rows_args a = {
        .rows = rows, .lead1 = p->lead[1], .lead2 = p->lead[2], .cols = p->cols,
        .eps = p->eps, .scale = p->scale, .act = (int32_t)p->act,
        .x = pk_cu_ew_view(&p->x), .res = pk_cu_ew_view(&p->residual), .res_out = pk_cu_ew_view(&p->residual_out),
        .weight = pk_cu_ew_view(&p->weight), .bias = pk_cu_ew_view(&p->bias), .out = pk_cu_ew_view(&p->out),
        .up = pk_cu_ew_view(&p->up),
    };
    int v = rows_vec(p, &a);
    int64_t nchunk = p->cols / v;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    char name[64];
    int pipelined = 0;
    if (per_row) {
        /* as many chunks per thread as registers allow (more loads in
         * flight), then the fewest threads that cover the row */
        int64_t cmax = v > 1 ? 32 / v : ROWS_STR_CHUNKS, want = (nchunk + cmax - 1) / cmax, tpr = 1, c = 1;
        while (tpr < want && tpr < ROWS_MAX_TPR) tpr *= 2;
        while (c < cmax && tpr * c < nchunk) c *= 2;
        if (tpr * c < nchunk) c = 0; /* too long for registers: stream */
        unsigned rpb = tpr < ROWS_MIN_BLOCK ? (unsigned)(ROWS_MIN_BLOCK / tpr) : 1;
        block[0] = (unsigned)tpr;
        block[1] = rpb;
        grid[0] = min_u64((uint64_t)(rows + rpb - 1) / rpb, GRID_X_MAX);
        snprintf(name, sizeof name, "pk_ew_%s_%s_%s_c%d", op, dt_name(p->x.dtype), v > 1 ? "vec" : "str", (int)c);
        /* c8 (f32 only) stays on the general row kernel */
        pipelined = v > 1 && c > 0 && c <= 4 && strcmp(op, "rmsnorm") == 0;
    } else {
        block[0] = pk_cu_ew_block_x(nchunk, EW_BLOCK);
        block[1] = EW_BLOCK / block[0];
        uint64_t gx = ((uint64_t)nchunk + block[0] - 1) / block[0];
        if (gx > GRID_X_MAX) return pk_msgf(msg, PK_ERR_UNSUPPORTED, "CUDA %s: rows of %lld columns", op, (long long)p->cols);
        grid[0] = (unsigned)gx;
        uint64_t rows_per_block = (uint64_t)block[1] * EW_ROWS_PER_THREAD;
        grid[1] = min_u64(((uint64_t)rows + rows_per_block - 1) / rows_per_block, GRID_Y_MAX);
        snprintf(name, sizeof name, "pk_ew_%s_%s_%s", op, dt_name(p->x.dtype), v > 1 ? "vec" : "str");
    }
    CUfunction f;
    pk_status s = pk_cu_function(d, name, &f, msg);
    if (s != PK_SUCCESS) return s;
    /* rmsnorm's vector kernels with the row in registers are pipelined
     * over the rows a block walks (ew_rows.cuh, rmsnorm_vec_kernel): one
     * wave of blocks, as many as fit on the device at once */
    if (pipelined) {
        int per_sm = 0;
        unsigned threads = block[0] * block[1];
        if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)threads, 0) == CUDA_SUCCESS && per_sm > 0 &&
            d->sm_count > 0)
            grid[0] = min_u64(grid[0], (uint64_t)per_sm * (uint64_t)d->sm_count);
    }
    void *args[] = {&a};
    return pk_cu_launch(d, f, grid, block, 0, args, msg);
}

pk_status pk_cu_rmsnorm(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "rmsnorm", 1, msg);
}

pk_status pk_cu_layernorm(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "layernorm", 1, msg);
}

pk_status pk_cu_softmax(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "softmax", 1, msg);
}

pk_status pk_cu_glu(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "glu", 0, msg);
}

pk_status pk_cu_bias_act(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    return rows_run(dev, p, "bias_act", 0, msg);
}
