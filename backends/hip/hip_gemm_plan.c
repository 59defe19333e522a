/* The HIP GEMM plan. In order of preference:
 *  - skinny: M <= 16 in the linear layout (x[M,K] @ W[N,K]^T, k contiguous
 *    in both), f16/bf16, 16-byte aligned rows. Bound by reading W once; a
 *    tile kernel would pad M to its tile.
 *  - mfma: f16/bf16 on a target with matrix cores (gfx90a, gfx942, gfx950), any
 *    strides (the kernel copies k-contiguous, aligned operands in 16-byte
 *    chunks and anything else element by element). 128 x 128 tiles when
 *    they give every CU two of them, else 64 x 64.
 *  - wmma: the same on a target with RDNA matrix cores (gfx11, gfx12: the
 *    kernels of its generation), by the same tile rule.
 *  - tiled: the rest, and every f32 problem (exact f32), 64 x 64 tiles.
 * A stride of a dimension of size 1 is never used, so it does not count
 * against alignment. */
#include <string.h>

#include "../../kernels_gpu/gemm_skinny_cols.h"
#include "hip_gemm_plan.h"
#include "pk_gpu_args.h"
#include "pk_gpu_gemm_shape.h"

const char *const pk_hip_gemm_kernel_names[] = {PK_HIP_GEMM_KERNELS(PK_GPU_KERNEL_NAME)};

/* The list's kernels by dtype (16-bit ones from f16), tile and rows */
#define ID(kind, module, name, ...) ID_##kind(PK_HIP_##name, __VA_ARGS__)
#define ID_TILED(id, DT) .tiled[DT] = id,
#define ID_MFMA(id, DT, bm) .mfma[DT - 1][(bm) == 128] = id,
#define ID_WMMA(id, DT, gen, bm) .wmma[(gen) == 12][DT - 1][(bm) == 128] = id,
#define ID_SKINNY(id, DT, rows) .skinny[DT - 1][PK_GPU_SKINNY_INDEX(rows)] = id,
static const struct {
    unsigned char tiled[3], mfma[2][2], wmma[2][2][2], skinny[2][5];
} ids = {PK_HIP_GEMM_KERNELS(ID)};

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
    const int dt = p->a.dtype;
    const int64_t cus = t->cu_count > 0 ? t->cu_count : 1;
    const int64_t wave = t->wave_size > 0 ? t->wave_size : 64;

    if (pk_gpu_gemm_decode_fits(p)) {
        const int mi = PK_GPU_SKINNY_INDEX(p->m);
        const int64_t waves = PK_HIP_GEMM_THREADS / wave;
        out->kind = PK_HIP_GEMM_SKINNY;
        out->kernel = ids.skinny[dt - 1][mi];
        set_grid(out, cdiv(cdiv(p->n, PK_GPU_SKINNY_COLS(1 << mi)), waves), p->batch);
        return;
    }

    int tile = 64;
    const int mfma = t->has_mfma && !t->platform_nvidia, wmma = t->wmma == 11 || t->wmma == 12;
    if ((mfma || wmma) && p->a.dtype != PK_F32) {
        if (p->batch * cdiv(p->m, 128) * cdiv(p->n, 128) >= 2 * cus) tile = 128;
        out->kind = mfma ? PK_HIP_GEMM_MFMA : PK_HIP_GEMM_WMMA;
        out->kernel = mfma ? ids.mfma[dt - 1][tile == 128] : ids.wmma[t->wmma == 12][dt - 1][tile == 128];
    } else {
        out->kind = PK_HIP_GEMM_TILED;
        out->kernel = ids.tiled[dt];
    }
    set_grid(out, cdiv(p->m, tile) * cdiv(p->n, tile), p->batch);
}

void pk_hip_gemm_plan_kernels(const pk_hip_target *t, void (*fn)(void *ctx, const char *name), void *ctx)
{
    const int mfma = t->has_mfma && !t->platform_nvidia, wmma = t->wmma == 11 || t->wmma == 12;
    /* on matrix-core targets every 16-bit problem the skinny kernel does not take */
#define CAN(kind, module, name, ...) \
    if (CAN_##kind(__VA_ARGS__)) fn(ctx, pk_hip_gemm_kernel_names[PK_HIP_##name]);
#define CAN_TILED(DT) !((mfma || wmma) && (DT) > 0)
#define CAN_MFMA(DT, bm) mfma
#define CAN_WMMA(DT, gen, bm) (!mfma && t->wmma == (gen))
#define CAN_SKINNY(DT, rows) 1
    PK_HIP_GEMM_KERNELS(CAN)
}
