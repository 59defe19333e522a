/* Unit test of the HIP GEMM plan: decode shapes go to the skinny kernel
 * with a grid in waves of the target's size, f16/bf16 to MFMA only on a
 * target with matrix cores (never on HIP-on-NVIDIA), everything else to
 * the tiled kernel. */
#include <stdio.h>
#include <string.h>

#include "hip_gemm_plan.h"

static int failures;

static const pk_hip_target mi250 = {"gfx90a", 64, 104, 65536, 1, 0, 0};
static const pk_hip_target rdna = {"gfx1030", 32, 40, 65536, 0, 0, 0};
static const pk_hip_target h200 = {"sm_90", 32, 132, 232448, 0, 1, 0};
static const pk_hip_target rdna3 = {"gfx1100", 32, 96, 65536, 0, 0, 11};
static const pk_hip_target rdna4 = {"gfx1201", 32, 64, 65536, 0, 0, 12};

/* A [M,K] row-major (or [K,M] if trans_a), B [K,N] row-major (or [N,K] if trans_b), packed */
static pk_gemm_problem problem(pk_dtype dt, int64_t batch, int64_t m, int64_t n, int64_t k, int trans_a,
                               int trans_b)
{
    pk_gemm_problem p;
    memset(&p, 0, sizeof p);
    p.batch = batch, p.m = m, p.n = n, p.k = k;
    p.a.mem = p.b.mem = p.d.mem = (pk_mem)(uintptr_t)4096;
    p.a.dtype = p.b.dtype = p.d.dtype = dt;
    p.a.stride[0] = m * k, p.a.stride[1] = trans_a ? 1 : k, p.a.stride[2] = trans_a ? m : 1;
    p.b.stride[0] = k * n, p.b.stride[1] = trans_b ? 1 : n, p.b.stride[2] = trans_b ? k : 1;
    p.d.stride[0] = m * n, p.d.stride[1] = n, p.d.stride[2] = 1;
    p.alpha = 1.0f;
    return p;
}

static void expect(const pk_gemm_problem *p, const pk_hip_target *t, int kind, const char *kernel, unsigned gx,
                   unsigned gy, int line)
{
    pk_hip_gemm_plan plan;
    pk_hip_gemm_plan_pick(p, t, &plan);
    if (plan.kind != kind || strcmp(pk_hip_gemm_kernel_names[plan.kernel], kernel) || plan.grid[0] != gx || plan.grid[1] != gy ||
        plan.grid[2] != 1 || plan.block[0] != 256 || plan.block[1] != 1 || plan.block[2] != 1 || plan.smem) {
        failures++;
        printf("FAIL line %d on %s: got %d %s grid %u,%u,%u block %u smem %u; want %d %s grid %u,%u\n", line,
               t->arch, plan.kind, pk_hip_gemm_kernel_names[plan.kernel], plan.grid[0], plan.grid[1], plan.grid[2], plan.block[0], plan.smem,
               kind, kernel, gx, gy);
    }
}

#define EXPECT(p, t, kind, kernel, gx, gy) expect(&(p), &(t), kind, kernel, gx, gy, __LINE__)

int main(void)
{
    /* decode in the linear layout: skinny; 256 threads are 4 waves on CDNA, 8 on RDNA/NVIDIA */
    pk_gemm_problem p = problem(PK_BF16, 1, 1, 4096, 4096, 0, 1);
    EXPECT(p, mi250, PK_HIP_GEMM_SKINNY, "pk_gemm_skinny_bf16_m1", 1024, 1);
    EXPECT(p, h200, PK_HIP_GEMM_SKINNY, "pk_gemm_skinny_bf16_m1", 512, 1);
    p = problem(PK_F16, 3, 16, 4000, 4096, 0, 1); /* 4 columns a wave: 1000 groups */
    EXPECT(p, mi250, PK_HIP_GEMM_SKINNY, "pk_gemm_skinny_f16_m16", 250, 3);
    EXPECT(p, rdna, PK_HIP_GEMM_SKINNY, "pk_gemm_skinny_f16_m16", 125, 3);
    p = problem(PK_F16, 1, 3, 100, 64, 0, 1); /* 2 columns a wave */
    EXPECT(p, mi250, PK_HIP_GEMM_SKINNY, "pk_gemm_skinny_f16_m4", 13, 1);

    /* not skinny: f32, unaligned k, B not k-contiguous, M > 16 */
    p = problem(PK_F32, 1, 1, 4096, 4096, 0, 1);
    EXPECT(p, mi250, PK_HIP_GEMM_TILED, "pk_gemm_tiled_f32_64", 64, 1);
    p = problem(PK_BF16, 1, 2, 4096, 4104, 0, 1); /* k a multiple of 8, not of a tile */
    EXPECT(p, mi250, PK_HIP_GEMM_SKINNY, "pk_gemm_skinny_bf16_m2", 1024, 1);
    p = problem(PK_BF16, 1, 2, 4096, 4099, 0, 1);
    EXPECT(p, mi250, PK_HIP_GEMM_MFMA, "pk_gemm_mfma_bf16_64", 64, 1);
    p = problem(PK_BF16, 1, 2, 4096, 4096, 0, 0);
    EXPECT(p, h200, PK_HIP_GEMM_TILED, "pk_gemm_tiled_bf16_64", 64, 1);

    /* prefill: 128 x 128 MFMA tiles when they fill the CUs twice, else 64 x 64 */
    p = problem(PK_F16, 1, 4096, 4096, 4096, 0, 1);
    EXPECT(p, mi250, PK_HIP_GEMM_MFMA, "pk_gemm_mfma_f16_128", 1024, 1);
    p = problem(PK_F16, 1, 256, 1024, 4096, 1, 0); /* 16 tiles of 128: too few for 104 CUs */
    EXPECT(p, mi250, PK_HIP_GEMM_MFMA, "pk_gemm_mfma_f16_64", 64, 1);
    /* no MFMA on RDNA, nor on NVIDIA even if a target claimed it */
    p = problem(PK_F16, 1, 4096, 4096, 4096, 0, 1);
    EXPECT(p, rdna, PK_HIP_GEMM_TILED, "pk_gemm_tiled_f16_64", 4096, 1);
    pk_hip_target nv = h200;
    nv.has_mfma = 1;
    EXPECT(p, nv, PK_HIP_GEMM_TILED, "pk_gemm_tiled_f16_64", 4096, 1);

    /* RDNA3 and RDNA4: the WMMA kernels of their generation, the MFMA tile
     * rule; f32 stays tiled; HIP on NVIDIA takes them when asked
     * (PORTKERN_HIP_WMMA, emulated there) */
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    EXPECT(p, rdna3, PK_HIP_GEMM_WMMA, "pk_gemm_wmma11_bf16_128", 1024, 1);
    EXPECT(p, rdna4, PK_HIP_GEMM_WMMA, "pk_gemm_wmma12_bf16_128", 1024, 1);
    p = problem(PK_F16, 1, 256, 1024, 4096, 1, 0);
    EXPECT(p, rdna3, PK_HIP_GEMM_WMMA, "pk_gemm_wmma11_f16_64", 64, 1);
    EXPECT(p, rdna4, PK_HIP_GEMM_WMMA, "pk_gemm_wmma12_f16_64", 64, 1);
    p = problem(PK_F32, 1, 4096, 4096, 4096, 0, 1);
    EXPECT(p, rdna3, PK_HIP_GEMM_TILED, "pk_gemm_tiled_f32_64", 4096, 1);
    nv = h200;
    nv.wmma = 12;
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    EXPECT(p, nv, PK_HIP_GEMM_WMMA, "pk_gemm_wmma12_bf16_128", 1024, 1);

    /* batches past the grid's y limit are looped over by the kernels */
    p = problem(PK_F32, 100000, 8, 8, 8, 0, 0);
    EXPECT(p, mi250, PK_HIP_GEMM_TILED, "pk_gemm_tiled_f32_64", 1, PK_HIP_GEMM_MAX_GRID_Y);

    /* which architectures take the MFMA kernels: CDNA2, CDNA3, CDNA4 */
    static const struct {
        const char *arch;
        int mfma;
    } archs[] = {{"gfx90a", 1}, {"gfx940", 1}, {"gfx942", 1}, {"gfx950", 1}, {"gfx908", 0}, {"gfx906", 0},
                 {"gfx1030", 0}, {"gfx1100", 0}, {"gfx1201", 0}, {"sm_90", 0}};
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (pk_hip_arch_mfma(archs[i].arch) != archs[i].mfma) {
            failures++;
            printf("FAIL: pk_hip_arch_mfma(%s) = %d; want %d\n", archs[i].arch, !archs[i].mfma, archs[i].mfma);
        }
    pk_hip_target mi355 = mi250;
    snprintf(mi355.arch, sizeof mi355.arch, "gfx950");
    mi355.cu_count = 256;
    mi355.has_mfma = pk_hip_arch_mfma(mi355.arch);
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    EXPECT(p, mi355, PK_HIP_GEMM_MFMA, "pk_gemm_mfma_bf16_128", 1024, 1);

    if (failures) printf("%d failures\n", failures);
    else printf("hip_gemm_plan: ok\n");
    return failures != 0;
}
