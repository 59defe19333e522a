/* The CUDA attention kernels' entry points as data, read by the plan
 * (backends/cuda/cuda_attention_plan.c), the launch (backends/gpu) and the
 * kernel build (attention.cu): X(kind, module, name, ...), module the
 * fatbin, and kind's arguments:
 *   MMA    DT, D, tiles  tensor cores, pk_attn::<tiles>_cfg (attention.cu):
 *                        rows (prefill), rows128{,n32,w8} (128-row blocks,
 *                        D <= 128), keys (decode)
 *   SIMT   DT, D         CUDA cores, any dtype and strides
 *   MERGE  DT            combines split-KV partials
 *   WGMMA  DT, D, PP, BN Hopper prefill (attention_wgmma.cuh), in the
 *                        attention_sm90 fatbin (sm_90a only), PP 1 its
 *                        ping-pong form, the plan's pick on sm_90
 *                        (PP 0 only under PORTKERN_CUDA_ATTN=wgmma), BN
 *                        keys a tile (attention_tiles.h)
 * DT is the pk_dtype (0 f32, 1 f16, 2 bf16), D the head dim. */
#ifndef PK_CU_ATTENTION_KERNELS_H
#define PK_CU_ATTENTION_KERNELS_H

#define PK_CU_ATTN_KERNELS(X)                                                                           \
    PK_CU_ATTN_DTYPE(X, f32, 0) PK_CU_ATTN_DTYPE(X, f16, 1) PK_CU_ATTN_DTYPE(X, bf16, 2)                \
    PK_CU_ATTN_MMA_DTYPE(X, f16, 1) PK_CU_ATTN_MMA_DTYPE(X, bf16, 2)                                    \
    PK_CU_ATTN_WG_DTYPE(X, f16, 1) PK_CU_ATTN_WG_DTYPE(X, bf16, 2)
#define PK_CU_ATTN_DTYPE(X, dt, DT)                                                                     \
    X(SIMT, attention, pk_attn_simt_##dt##_d64, DT, 64) X(SIMT, attention, pk_attn_simt_##dt##_d80, DT, 80) \
    X(SIMT, attention, pk_attn_simt_##dt##_d96, DT, 96) X(SIMT, attention, pk_attn_simt_##dt##_d128, DT, 128) \
    X(SIMT, attention, pk_attn_simt_##dt##_d256, DT, 256) X(MERGE, attention, pk_attn_merge_##dt, DT)
#define PK_CU_ATTN_MMA_DTYPE(X, dt, DT)                                                                 \
    PK_CU_ATTN_MMA128(X, dt, DT, 64) PK_CU_ATTN_MMA128(X, dt, DT, 80) PK_CU_ATTN_MMA128(X, dt, DT, 96)  \
    PK_CU_ATTN_MMA128(X, dt, DT, 128) PK_CU_ATTN_MMA(X, dt, DT, 256)
#define PK_CU_ATTN_MMA(X, dt, DT, D)                                                                    \
    X(MMA, attention, pk_attn_mma_##dt##_d##D##_rows, DT, D, rows)                                      \
    X(MMA, attention, pk_attn_mma_##dt##_d##D##_keys, DT, D, keys)
#define PK_CU_ATTN_MMA128(X, dt, DT, D)                                                                 \
    PK_CU_ATTN_MMA(X, dt, DT, D) X(MMA, attention, pk_attn_mma_##dt##_d##D##_rows128, DT, D, rows128)   \
    X(MMA, attention, pk_attn_mma_##dt##_d##D##_rows128n32, DT, D, rows128n32)                          \
    X(MMA, attention, pk_attn_mma_##dt##_d##D##_rows128w8, DT, D, rows128w8)

#define PK_CU_ATTN_WG(X, dt, DT, D, PP, suffix)                                                         \
    X(WGMMA, attention_sm90, pk_attn_wgmma_##dt##_d##D##suffix, DT, D, PP, PK_CU_ATTN_WG_BN(D))
#define PK_CU_ATTN_WG_DTYPE(X, dt, DT)                                                                  \
    PK_CU_ATTN_WG(X, dt, DT, 64, 0, ) PK_CU_ATTN_WG(X, dt, DT, 128, 0, ) PK_CU_ATTN_WG(X, dt, DT, 256, 0, ) \
    PK_CU_ATTN_WG(X, dt, DT, 64, 1, _pp) PK_CU_ATTN_WG(X, dt, DT, 128, 1, _pp)                          \
    X(WGMMA, attention_sm90, pk_attn_wgmma_##dt##_d128n176_pp, DT, 128, 1, PK_CU_ATTN_WG_BN_WIDE)       \
    PK_CU_ATTN_WG(X, dt, DT, 256, 1, _pp)

#endif
