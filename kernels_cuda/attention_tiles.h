/* The CUDA attention kernels' tile shapes as data, valid C and C++, read
 * by the kernel build (attention.cu makes pk_attn::<name>_cfg<D> of each
 * entry; attention_simt.cuh its tile) and by the plan
 * (backends/cuda/cuda_attention_plan.c: rows a block, threads, shared
 * memory).
 *
 * Tensor cores: X(name, NWM, NWN, MT, BN, ST), expressions of the head dim
 * D: NWM x NWN warps, each MT m16 tiles of rows, BN keys a tile, ST stages
 * of K and V in flight (tile t + ST - 1 loads while tile t computes).
 *   rows        prefill, few rows: 4 warps of 16 rows; D = 256 takes
 *               32-key tiles so that two stages fit the A100
 *   rows128     prefill, D <= 128, 128-row blocks (they halve the K/V
 *               traffic from L2): 4 warps of 32 rows, 64-key tiles, the
 *               FlashAttention-2 shape (every K and V fragment a warp reads
 *               feeds two mma)
 *   rows128n32  the same with 32-key tiles (fewer registers, twice the
 *               barriers and rescales per FLOP)
 *   rows128w8   8 warps of 16 rows, 64-key tiles (half the registers a
 *               thread, twice the shared-memory reads per mma)
 *   keys        decode: one 16-row tile, 4 warps of 16 keys each, three
 *               stages (two at D = 256, to fit the A100)
 * The host's PORTKERN_CUDA_ATTN picks rows128n32 or rows128w8 for A/B
 * timing. */
#ifndef PK_CU_ATTENTION_TILES_H
#define PK_CU_ATTENTION_TILES_H

#define PK_CU_ATTN_TILES(X)                                                                             \
    X(rows, 4, 1, 1, (D) == 256 ? 32 : 64, 2)                                                           \
    X(rows128, 4, 1, 2, 64, 2)                                                                          \
    X(rows128n32, 4, 1, 2, 32, 2)                                                                       \
    X(rows128w8, 8, 1, 1, 64, 2)                                                                        \
    X(keys, 1, 4, 1, 64, (D) == 256 ? 2 : 3)

/* Dynamic shared memory of a tensor-core tile (attention_mma.cuh's layout):
 * q [BM][D + 8], k and v [ST][BN][D + 8] (16-bit), lo/hi [BM] (int), m/l
 * [NWN][BM] (f32), BM = 16 MT NWM rows. */
#define PK_CU_ATTN_MMA_SMEM(D, NWM, NWN, MT, BN, ST)                                                    \
    (16 * (MT) * (NWM) * ((D) + 8) * 2 + 2 * ((ST) * (BN) * ((D) + 8) * 2) + 16 * (MT) * (NWM) * 8 +       \
     (NWN) * 16 * (MT) * (NWM) * 8)

/* The CUDA-core kernel's tile: BM rows a block, TPR threads a row, BN keys
 * a tile */
#define PK_CU_ATTN_SIMT_BM(D) ((D) == 64 ? 64 : (D) == 256 ? 16 : 32)
#define PK_CU_ATTN_SIMT_TPR(D) ((D) == 256 ? 8 : 4)
#define PK_CU_ATTN_SIMT_BN(D) ((D) == 80 || (D) == 96 ? 32 : (D) == 256 ? 8 : 16)

/* The Hopper kernel (attention_wgmma.cuh, sm_90a only): 128-row blocks of
 * one producer warpgroup (TMA or cp.async into an ST-stage ring of K and
 * V tiles of BN keys) and two consumer warpgroups of 64 rows. BN(D) is the
 * key tile of every form; the ping-pong form at D = 128 comes with 176-key
 * tiles too (FlashAttention-3's width there: each tile's fixed cost, the
 * row reductions, O's rescale and the barriers, spread over more keys),
 * for problems without causal or window masks under a knob only: on the
 * H100 with TMA they ran slower than 128. Shared memory: 1024
 * bytes of slack to align the swizzled tiles, q [128][D], k and v
 * [ST][BN][D] (16-bit), the mbarriers (full K, full V, empty K, empty V: ST each),
 * the row windows lo/hi [128] (int) and the window bounds of four row
 * quarters [4][4] (int). */
#define PK_CU_ATTN_WG_THREADS 384
#define PK_CU_ATTN_WG_ST 2
#define PK_CU_ATTN_WG_BN(D) ((D) == 256 ? 64 : 128)
#define PK_CU_ATTN_WG_BN_WIDE 176
#define PK_CU_ATTN_WG_SMEM(D, BN)                                                                       \
    (1024 + 128 * (D) * 2 + 2 * PK_CU_ATTN_WG_ST * (BN) * (D) * 2 + 4 * PK_CU_ATTN_WG_ST * 8 + 128 * 8 + 64)

#endif
