/* The HIP GEMM plan: which kernel of kernels_hip/gemm.hip runs a problem,
 * with what grid. Plain C without HIP headers, so that it is unit-tested
 * on any machine.
 *
 * Every GEMM entry point takes PK_GEMM_PARAMS (kernels_gpu/gemm_abi.h),
 * the one parameter list of the CUDA family. Every kernel uses
 * static LDS only (at most 48 KiB where the portable body is built, so that
 * the HIP-on-NVIDIA build needs no opt-in), so smem is always 0. Launch:
 * grid {grid[0], grid[1], grid[2]}, block {block[0], 1, 1}; the kernels
 * loop over tiles and batches beyond the grid. */
#ifndef PK_HIP_GEMM_PLAN_H
#define PK_HIP_GEMM_PLAN_H

#include <stddef.h>

#include "../../kernels_hip/gemm_kernels.h"
#include "backend.h"
#include "pk_kernel_list.h"
#include "hip_target.h"

/* The kernels of the list in kernels_hip/gemm_kernels.h by index, and
 * their entry points' names. */
#define PK_HIP_GEMM_ID(kind, module, name, ...) PK_HIP_##name,
PK_KERNEL_LIST_ENUM(PK_HIP_GEMM_KERNELS, PK_HIP_GEMM_ID, pk_hip_gemm_kernel, PK_HIP_GEMM_KERNEL_COUNT);

/* grid.y limit; the kernels loop over batches beyond it */
#define PK_HIP_GEMM_MAX_GRID_Y 65535u
#define PK_HIP_GEMM_MAX_GRID_X 2147483647u

/* values of pk_hip_gemm_plan.kind */
enum {
    PK_HIP_GEMM_SKINNY = 0, /* M <= 16, linear layout, f16/bf16, 16-byte aligned rows: streams W */
    PK_HIP_GEMM_MFMA = 1,   /* f16/bf16 on CDNA matrix cores (gfx90a, gfx942, gfx950) */
    PK_HIP_GEMM_TILED = 2,  /* everything else, f32 included: exact f32 on the vector ALUs */
    PK_HIP_GEMM_WMMA = 3    /* f16/bf16 on RDNA matrix cores (gfx11, gfx12) */
};

typedef struct pk_hip_gemm_plan {
    int kind;
    pk_hip_gemm_kernel kernel;
    unsigned grid[3], block[3];
    unsigned smem;     /* dynamic LDS in bytes: always 0 (see above) */
} pk_hip_gemm_plan;

/* Picks the kernel for p on target t. Always succeeds: the tiled kernel
 * takes anything. */
void pk_hip_gemm_plan_pick(const pk_gemm_problem *p, const pk_hip_target *t, pk_hip_gemm_plan *out);

/* Every kernel pk_hip_gemm_plan_pick can name for some problem on target
 * t: each kernel's name once to fn. For the conformance coverage test
 * (tests/test_cover_gemm.c). */
void pk_hip_gemm_plan_kernels(const pk_hip_target *t, void (*fn)(void *ctx, const char *name), void *ctx);

#endif
