/* The HIP attention kernels' entry points as data, read by the plan
 * (backends/hip/hip_attention_plan.c), the launch (backends/gpu) and the
 * kernel build (attention.hip): X(kind, module, name, ...), module the
 * kernel file, and kind's arguments:
 *   MFMA    DT, D  CDNA matrix cores (gfx90a, gfx942); other targets build a
 *                  slow portable body the plan does not pick (attention_mfma.h)
 *   TILED   DT, D  vector ALUs, any dtype and strides (attention_tiled.h)
 *   ROWS16  DT, D  the same, 16 threads a row, at most 16 rows (D <= 128)
 *   MERGE   DT     combines split-KV partials
 * DT is the pk_dtype (0 f32, 1 f16, 2 bf16), D the head dim. */
#ifndef PK_HIP_ATTENTION_KERNELS_H
#define PK_HIP_ATTENTION_KERNELS_H

#define PK_HIP_ATTN_KERNELS(X)                                                                          \
    PK_HIP_ATTN_DTYPE(X, f32, 0) PK_HIP_ATTN_DTYPE(X, f16, 1) PK_HIP_ATTN_DTYPE(X, bf16, 2)             \
    PK_HIP_ATTN_DIMS(X, MFMA, pk_attn_mfma_f16_d, , 1) X(MFMA, attention, pk_attn_mfma_f16_d256, 1, 256) \
    PK_HIP_ATTN_DIMS(X, MFMA, pk_attn_mfma_bf16_d, , 2) X(MFMA, attention, pk_attn_mfma_bf16_d256, 2, 256)
#define PK_HIP_ATTN_DTYPE(X, dt, DT)                                                                    \
    PK_HIP_ATTN_DIMS(X, TILED, pk_attn_tiled_##dt##_d, , DT) X(TILED, attention, pk_attn_tiled_##dt##_d256, DT, 256) \
    PK_HIP_ATTN_DIMS(X, ROWS16, pk_attn_tiled_##dt##_d, _rows16, DT) X(MERGE, attention, pk_attn_merge_##dt, DT)
/* D up to 128 */
#define PK_HIP_ATTN_DIMS(X, kind, name, suffix, DT)                                                     \
    X(kind, attention, name##64##suffix, DT, 64) X(kind, attention, name##80##suffix, DT, 80)           \
    X(kind, attention, name##96##suffix, DT, 96) X(kind, attention, name##128##suffix, DT, 128)

#endif
