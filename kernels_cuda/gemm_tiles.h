/* The CUDA GEMM kernels' tiles and launch shapes as data: plain C macros
 * that the plan (backends/cuda/cuda_gemm_plan.c) and the kernel build
 * (gemm.cu, gemm_mma.cuh) both read, so that a tile exists in one place. */
#ifndef PK_CU_GEMM_TILES_H
#define PK_CU_GEMM_TILES_H

/* k of one mma.sync pipeline step */
#define PK_CU_MMA_BK 32

/* The mma.sync tiles, largest first (the plan takes the first whose
 * shared memory the device has): X(a, b, name, BM, BN, warps along m,
 * warps along n, pipeline stages), a and b passed through (the kernel
 * build's dtype and its name). */
#define PK_CU_MMA_TILES(X, a, b)              \
    X(a, b, 128x256, 128, 256, 2, 4, 4)       \
    X(a, b, 128x128, 128, 128, 2, 4, 4)       \
    X(a, b, 64x64, 64, 64, 2, 2, 4)

/* The skinny kernels: 256 threads (8 warps, a column each, or two for
 * m1_k2); blocks per multiprocessor the register budget must allow: 4
 * (32 warps, 64 registers) for up to 2 rows, where a W of 4096 columns
 * then runs in one wave on the H200 (at 88 registers it took two); more
 * rows need their accumulators. */
#define PK_CU_SKINNY_THREADS 256
#define PK_CU_SKINNY_BLOCKS(mr) ((mr) <= 2 ? 4 : 1)

/* The decode kernel (gemm_decode.cuh): a block owns NT n8 tiles (8 NT
 * columns) and has 4 to 16 warps (the plan picks); each warp takes steps
 * of U chunks of 32 k, U 16-byte loads of W in flight per tile and lane (2
 * before sm_90, where 4 would spill). At 64 registers, 2 blocks of the
 * most threads fill a multiprocessor's 32 warps. */
#define PK_CU_DECODE_NT 2
#define PK_CU_DECODE_MAX_THREADS 512
#define PK_CU_DECODE_BLOCKS 2
#define PK_CU_DECODE_U_SM90 4
#define PK_CU_DECODE_U_SM80 2

/* The Hopper kernel (gemm_wgmma.cuh, sm_90a): one tile, steps of BK k
 * through a ring of STAGES in shared memory that TMA fills, three
 * warpgroups of 128 threads; its shared memory is the ring, 1024 bytes to
 * align the ring's base, and 2 x STAGES barriers of 8 bytes. */
#define PK_CU_WGMMA_BM 128
#define PK_CU_WGMMA_BN 256
#define PK_CU_WGMMA_BK 64
#define PK_CU_WGMMA_STAGES 4
#define PK_CU_WGMMA_THREADS (3 * 128)
#define PK_CU_WGMMA_SMEM                                                                                   \
    (PK_CU_WGMMA_STAGES * (PK_CU_WGMMA_BM + PK_CU_WGMMA_BN) * PK_CU_WGMMA_BK * 2 + 1024 + 2 * PK_CU_WGMMA_STAGES * 8)

#endif
