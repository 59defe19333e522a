/* The HIP GEMM plan. In order of preference:
 *  - skinny: M <= 16 in the linear layout (x[M,K] @ W[N,K]^T, k contiguous
 *    in both), f16/bf16, 16-byte aligned rows. Bound by reading W once; a
 *    tile kernel would pad M to its tile.
 *  - mfma: f16/bf16 on a target with matrix cores (gfx90a, gfx940), any
 *    strides (the kernel copies k-contiguous, aligned operands in 16-byte
 *    chunks and anything else element by element). 128 x 128 tiles when
 *    they give every CU two of them, else 64 x 64.
 *  - tiled: the rest, and every f32 problem (exact f32), 64 x 64 tiles.
 * A stride of a dimension of size 1 is never used, so it does not count
 * against alignment. */
#include <stdio.h>
#include <string.h>

#include "../../kernels_gpu/gemm_skinny_cols.h"
#include "../../kernels_hip/gemm_kernels.h"
#include "hip_gemm_plan.h"
#include "pk_gpu_args.h"
#include "pk_gpu_gemm_shape.h"

static int64_t cdiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

static unsigned clamp_grid(int64_t x, unsigned limit)
{
    return x < 1 ? 1 : x > (int64_t)limit ? limit : (unsigned)x;
}

static void set_grid(pk_hip_gemm_plan *out, int64_t blocks_x, int64_t batch)
{
    out->grid[0] = clamp_grid(blocks_x, PK_HIP_GEMM_MAX_GRID_X);
    out->grid[1] = clamp_grid(batch, PK_HIP_GEMM_MAX_GRID_Y);
    out->grid[2] = 1;
    out->block[0] = PK_HIP_GEMM_THREADS;
    out->block[1] = out->block[2] = 1;
}

void pk_hip_gemm_plan_pick(const pk_gemm_problem *p, const pk_hip_target *t, pk_hip_gemm_plan *out)
{
    memset(out, 0, sizeof *out);
    const char *dt = pk_gpu_dtype_tag(p->a.dtype);
    const int64_t cus = t->cu_count > 0 ? t->cu_count : 1;
    const int64_t wave = t->wave_size > 0 ? t->wave_size : 64;

    if (pk_gpu_gemm_decode_fits(p)) {
        const int mr = p->m <= 1 ? 1 : p->m <= 2 ? 2 : p->m <= 4 ? 4 : p->m <= 8 ? 8 : 16;
        const int64_t waves = PK_HIP_GEMM_THREADS / wave;
        out->kind = PK_HIP_GEMM_SKINNY;
        snprintf(out->kernel, sizeof out->kernel, "pk_gemm_skinny_%s_m%d", dt, mr);
        set_grid(out, cdiv(cdiv(p->n, PK_GPU_SKINNY_COLS(mr)), waves), p->batch);
        return;
    }

    int tile = 64;
    if (t->has_mfma && !t->platform_nvidia && p->a.dtype != PK_F32) {
        if (p->batch * cdiv(p->m, 128) * cdiv(p->n, 128) >= 2 * cus) tile = 128;
        out->kind = PK_HIP_GEMM_MFMA;
        snprintf(out->kernel, sizeof out->kernel, "pk_gemm_mfma_%s_%d", dt, tile);
    } else {
        out->kind = PK_HIP_GEMM_TILED;
        snprintf(out->kernel, sizeof out->kernel, "pk_gemm_tiled_%s_64", dt);
    }
    set_grid(out, cdiv(p->m, tile) * cdiv(p->n, tile), p->batch);
}

void pk_hip_gemm_plan_kernels(const pk_hip_target *t, void (*fn)(void *ctx, const char *name), void *ctx)
{
    static const char *const dts[3] = {"f32", "f16", "bf16"};
    const int mfma = t->has_mfma && !t->platform_nvidia;
    char name[64];
    for (int i = 1; i < 3; i++)
        for (int mr = 1; mr <= 16; mr *= 2) {
            snprintf(name, sizeof name, "pk_gemm_skinny_%s_m%d", dts[i], mr);
            fn(ctx, name);
        }
    for (int i = 0; i < 3; i++) {
        if (i > 0 && mfma) {
            /* every 16-bit problem the skinny kernel does not take */
            for (int tile = 64; tile <= 128; tile *= 2) {
                snprintf(name, sizeof name, "pk_gemm_mfma_%s_%d", dts[i], tile);
                fn(ctx, name);
            }
            continue;
        }
        snprintf(name, sizeof name, "pk_gemm_tiled_%s_64", dts[i]);
        fn(ctx, name);
    }
}
