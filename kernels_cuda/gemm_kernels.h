/* The CUDA GEMM kernels as data: their tiles, launch shapes and entry
 * points, plain C macros that the plan (backends/cuda/cuda_gemm_plan.c),
 * the launch (backends/gpu/gpu_launch.c) and the kernel build (gemm.cu,
 * gemm_sm90.cu) all read, so that a kernel exists in one place. */
#ifndef PK_CU_GEMM_KERNELS_H
#define PK_CU_GEMM_KERNELS_H

/* k of one mma.sync pipeline step */
#define PK_CU_MMA_BK 32

/* The mma.sync tiles, largest first (the plan takes the first whose
 * shared memory the device has): X(a, b, c, index, name, BM, BN, warps
 * along m, warps along n, pipeline stages), a, b and c passed through. */
#define PK_CU_MMA_TILES(X, a, b, c)              \
    X(a, b, c, 0, 128x256, 128, 256, 2, 4, 4)    \
    X(a, b, c, 1, 128x128, 128, 128, 2, 4, 4)    \
    X(a, b, c, 2, 64x64, 64, 64, 2, 2, 4)
#define PK_CU_MMA_TILE_COUNT 3

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

/* The Hopper kernel (gemm_wgmma.cuh, sm_90a): steps of BK k through a
 * ring of `stages` in shared memory that TMA fills, three warpgroups of
 * 128 threads (a producer and two consumers). Its tiles:
 * X(a, b, c, index, name, BM, BN, stages, cost, trial, form, out), a, b and c
 * passed through; cost is the time of an output element against the
 * first tile's (x100), which the plan weighs against the tiles' waves over
 * the device: each tile's median time per output and k step over the
 * workload suites' shapes, every tile forced in one run (bench/RESULTS.md,
 * 2026-12-05). A trial tile is one that ran slower than the plan's tiles
 * on every shape timed (the pair and the ping-pong), or
 * a pair of cuBLAS's shapes (bench/RESULTS.md, 2026-12-07 07:29: 64x32a
 * and 128x64a for M = 64 and 256, 64x64p for 128, 128x160p for N = 1280,
 * 128x128p, 128x192p), behind the plan's tiles wherever timed and timed
 * on too few shapes since their arrivals were fixed to set a cost (theirs
 * are guesses; bench/RESULTS.md, 2026-12-07 22:10): only
 * PORTKERN_CUDA_GEMM=trial, or its name, lets the plan pick it, so that
 * it can be timed again. 128x192s's cost: its time at 4096^3 against
 * 128x256s's in one run; with it, on each of 14 shapes, the plan takes
 * 128x192s where, forced, it ran faster than the tile the plan took
 * before, or within 1% of it (8192^3), and leaves the others their tile
 * (the 70B/8 and 1B qkv, N = 1280 and 3072, gain most; bench/RESULTS.md,
 * 2026-12-07 22:10). 64x64's cost: its two waves at M = 256 by 4096^2
 * against 64x128's one, one run (it then takes M = 64 and 128 by 4096^2,
 * where it ran ahead of the plan's 64x128, split at M = 64; at M = 256
 * 64x128 keeps it; bench/RESULTS.md, 2026-12-08); it is taken whole
 * (trial PK_CU_WGMMA_WHOLE), its split forms not yet timed.
 * form, how the consumers share the work:
 *   PK_CU_WGMMA_TOGETHER  both on one tile, 64 rows each where BM is 128,
 *                         BN / 2 columns each where BM is 64;
 *   PK_CU_WGMMA_PAIR      as TOGETHER, the blocks in clusters of two that
 *                         share B's tile through TMA multicast (two tiles
 *                         of neighbouring rows of one column of tiles; each block loads
 *                         half of B for both), never split;
 *   PK_CU_WGMMA_PINGPONG  a 64-row tile each, the block's units taken in
 *                         turn: one consumer's epilogue runs while the
 *                         other's products do;
 *   PK_CU_WGMMA_PAIR_A    as PAIR along n: the two blocks of a cluster take
 *                         neighbouring tiles of one row of tiles and share
 *                         A's tile (each loads half of it for both), never
 *                         split. cuBLAS's shape where one row of tiles
 *                         (M = 64) or a few must fill the device
 *                         (bench/RESULTS.md, 2026-12-07 07:29).
 * out, how a tile is written: 0 from the registers; 1 (TOGETHER, unsplit,
 * where the output is 16-bit with its columns contiguous; any epilogue)
 * into a staging tile in shared memory that one thread of each consumer hands to
 * TMA, which writes it out while the consumers go on to the next tile;
 * the plan takes such a tile only where the output allows it. 128x256s's
 * cost: 0.70-0.97 of 128x256's time on the workload suites' shapes that
 * the plan gave 128x256, one run each (bench/RESULTS.md, 2026-12-06
 * 11:21-11:50 UTC). Shared memory: the ring, 1024 bytes to align its
 * base, BM x BN 16-bit outputs where out is 1, and 2 x stages barriers of
 * 8 bytes. */
/* trial 2: a plan tile taken whole, its split forms trial (untimed) */
#define PK_CU_WGMMA_WHOLE 2
#define PK_CU_WGMMA_BK 64
#define PK_CU_WGMMA_THREADS (3 * 128)
#define PK_CU_WGMMA_TOGETHER 0
#define PK_CU_WGMMA_PAIR 1
#define PK_CU_WGMMA_PINGPONG 2
#define PK_CU_WGMMA_PAIR_A 3
/* blocks in clusters of two, never split */
#define PK_CU_WGMMA_IS_PAIR(form) ((form) == PK_CU_WGMMA_PAIR || (form) == PK_CU_WGMMA_PAIR_A)
/* A pair's two tiles: two rows of tiles (PAIR) or two columns (PAIR_A),
 * grouped so; the last group of an odd count hangs past M or N (TMA reads
 * zeros there, the epilogue stores nothing). The tiles of each direction
 * that a form's grid walks, counting that empty one: the plan's count of
 * units and the kernel's walk both read it. */
#define PK_CU_WGMMA_PAIR_ROWS(form) ((form) == PK_CU_WGMMA_PAIR ? 2 : 1)
#define PK_CU_WGMMA_PAIR_COLS(form) ((form) == PK_CU_WGMMA_PAIR_A ? 2 : 1)
#define PK_CU_WGMMA_GROUPS(tiles, per) (((tiles) + (per) - 1) / (per))
#define PK_CU_WGMMA_TILES(X, a, b, c)                  \
    X(a, b, c, 0, 128x256, 128, 256, 4, 100, 0, 0, 0)  \
    X(a, b, c, 1, 128x128, 128, 128, 6, 110, 0, 0, 0)  \
    X(a, b, c, 2, 64x256, 64, 256, 5, 111, 0, 0, 0)    \
    X(a, b, c, 3, 64x128, 64, 128, 8, 164, 0, 0, 0)    \
    X(a, b, c, 4, 128x256p, 128, 256, 4, 143, 1, 1, 0) \
    X(a, b, c, 5, 64x256pp, 64, 256, 5, 121, 1, 2, 0)  \
    X(a, b, c, 6, 128x256s, 128, 256, 3, 90, 0, 0, 1)  \
    X(a, b, c, 7, 64x64, 64, 64, 13, 254, 2, 0, 0)     \
    X(a, b, c, 8, 64x32a, 64, 32, 16, 200, 1, 3, 0)    \
    X(a, b, c, 9, 64x64p, 64, 64, 13, 170, 1, 1, 0)    \
    X(a, b, c, 10, 128x64a, 128, 64, 8, 150, 1, 3, 0)  \
    X(a, b, c, 11, 128x128p, 128, 128, 6, 110, 1, 1, 0) \
    X(a, b, c, 12, 128x160p, 128, 160, 6, 105, 1, 1, 0) \
    X(a, b, c, 13, 128x192s, 128, 192, 4, 88, 0, 0, 1)  \
    X(a, b, c, 14, 128x192p, 128, 192, 5, 100, 1, 1, 0)
#define PK_CU_WGMMA_TILE_COUNT 15
#define PK_CU_WGMMA_SMEM(bm, bn, stages, out)                                                           \
    ((stages) * ((bm) + (bn)) * PK_CU_WGMMA_BK * 2 + 1024 + (out) * (bm) * (bn) * 2 + 2 * (stages) * 8)

/* Split-K of the Hopper kernel and of the f32 kernel of aligned layouts
 * (VEC): a tile's k steps in `splits` ranges of `steps` (the last may be
 * shorter), each a unit of work of its own. Each group of a unit (a
 * consumer warp of the Hopper kernel, 16 x (BN or BN / 2) outputs; a
 * whole block of VEC) writes its partial sums to `part` and counts itself
 * in its own flag; the group that counts last adds the ranges' sums in
 * range order (the same bits whichever arrives last) and applies the
 * epilogue, then sets the flag back to 0 for the next call
 * (pk_gemm_split_reduce, gemm_common.cuh). `flags` is the device's
 * (zeroed once at open, PK_CU_GEMM_FLAGS of them: at most
 * PK_CU_GEMM_FLAGS / 8 tiles split over all batches on the Hopper kernel,
 * PK_CU_GEMM_FLAGS on VEC); `part` is scratch, splits x BM x BN f32 a
 * tile. splits == 1: neither is read. */
#define PK_CU_GEMM_FLAGS 8192
typedef struct pk_cu_gemm_split {
    unsigned long long part, flags; /* device addresses */
    int splits, steps;
} pk_cu_gemm_split;

/* The f32 kernel of aligned layouts in wide threads (gemm_simt_wide.cuh):
 * THREADS threads, a warp a 64 x 64 piece of the tile, steps of BK k, at
 * most 255 registers so that BLOCKS blocks share a multiprocessor; split-K
 * as VEC's. The plan's f32 kernel from 128 rows and columns on in its
 * first tile; the others by PORTKERN_CUDA_GEMM's knob of the tile
 * (cuda_gemm_plan.h). Its tiles: X(a, index, knob, BM, BN), a passed
 * through; the knob names the kernels too. */
#define PK_CU_WIDE_THREADS 128
#define PK_CU_WIDE_BLOCKS 2
#define PK_CU_WIDE_BK 8
#define PK_CU_WIDE_TILES(X, a) X(a, 0, f32w, 128, 128) X(a, 1, f32t, 256, 64)
#define PK_CU_WIDE_TILE_COUNT 2

/* Every entry point, once: X(kind, module, name, ...), module the fatbin
 * (gemm.cu; gemm_sm90.cu, built for sm_90a only), and kind's arguments:
 *   MMA    DT, tile index, BM, BN, warps m, warps n, stages, a_k, b_k
 *          f16/bf16 on tensor cores (gemm_mma.cuh)
 *   SIMT   DT, BM               anything, exact f32 (gemm_simt.cuh)
 *   VEC    BM, a_k, b_k         f32 with 16-byte aligned rows, float4 loads
 *                               (gemm_simt_vec.cuh)
 *   WIDE   tile index, BM, BN, a_k, b_k
 *                               the same problems in wide threads
 *                               (gemm_simt_wide.cuh): f32w the plan's
 *                               from 128 rows and columns, f32t a knob's
 *   SKINNY DT, rows, k split    decode, M <= rows (gemm_skinny.cuh); m1_k2:
 *                               two warps per column
 *   DECODE DT                   decode on tensor cores, M <= 16 (gemm_decode.cuh)
 *   WGMMA  DT, tile index, BM, BN, stages, cost, trial, form, out
 *                               Hopper, A and B k-contiguous (gemm_wgmma.cuh)
 * DT is the pk_dtype (0 f32, 1 f16, 2 bf16); a_k (b_k) is 1 where A (B)
 * is k-contiguous, the name's _ak (_bk), else 0, _am (_bn). */
#define PK_CU_GEMM_KERNELS(X)                                                                           \
    PK_CU_GEMM_HALF(X, f16, 1) PK_CU_GEMM_HALF(X, bf16, 2)                                              \
    X(SIMT, gemm, pk_gemm_simt_f32_128, 0, 128) X(SIMT, gemm, pk_gemm_simt_f32_64, 0, 64)               \
    X(SIMT, gemm, pk_gemm_simt_f16_128, 1, 128) X(SIMT, gemm, pk_gemm_simt_f16_64, 1, 64)               \
    X(SIMT, gemm, pk_gemm_simt_bf16_128, 2, 128) X(SIMT, gemm, pk_gemm_simt_bf16_64, 2, 64)             \
    PK_CU_GEMM_LAYOUTS(X, VEC, pk_gemm_simt_f32_128, 128) PK_CU_GEMM_LAYOUTS(X, VEC, pk_gemm_simt_f32_64, 64) \
    PK_CU_WIDE_TILES(PK_CU_GEMM_WIDE, X)
#define PK_CU_GEMM_WIDE(X, i, knob, ...) PK_CU_GEMM_LAYOUTS(X, WIDE, pk_gemm_simt_##knob, i, __VA_ARGS__)
#define PK_CU_GEMM_HALF(X, dt, DT)                                                                      \
    PK_CU_MMA_TILES(PK_CU_GEMM_MMA, X, dt, DT)                                                          \
    X(SKINNY, gemm, pk_gemm_skinny_##dt##_m1, DT, 1, 1) X(SKINNY, gemm, pk_gemm_skinny_##dt##_m1_k2, DT, 1, 2) \
    X(SKINNY, gemm, pk_gemm_skinny_##dt##_m2, DT, 2, 1) X(SKINNY, gemm, pk_gemm_skinny_##dt##_m4, DT, 4, 1) \
    X(SKINNY, gemm, pk_gemm_skinny_##dt##_m8, DT, 8, 1) X(SKINNY, gemm, pk_gemm_skinny_##dt##_m16, DT, 16, 1) \
    X(DECODE, gemm, pk_gemm_decode_##dt, DT) PK_CU_WGMMA_TILES(PK_CU_GEMM_WGMMA, X, dt, DT)
#define PK_CU_GEMM_WGMMA(X, dt, DT, i, tile, ...) X(WGMMA, gemm_sm90, pk_gemm_wgmma_##dt##_##tile, DT, i, __VA_ARGS__)
#define PK_CU_GEMM_MMA(X, dt, DT, i, tile, ...)                                                         \
    PK_CU_GEMM_LAYOUTS(X, MMA, pk_gemm_mma_##dt##_##tile, DT, i, __VA_ARGS__)
#define PK_CU_GEMM_LAYOUTS(X, kind, name, ...)                                                          \
    X(kind, gemm, name##_ak_bk, __VA_ARGS__, 1, 1) X(kind, gemm, name##_ak_bn, __VA_ARGS__, 1, 0)       \
    X(kind, gemm, name##_am_bk, __VA_ARGS__, 0, 1) X(kind, gemm, name##_am_bn, __VA_ARGS__, 0, 0)

#endif
