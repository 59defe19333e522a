/* The HIP attention kernels' entry points as data, read by the plan
 * (backends/hip/hip_attention_plan.c), the launch (backends/gpu) and the
 * kernel build (attention.hip): X(kind, module, name, ...), module the
 * kernel file, and kind's arguments:
 *   MFMA    DT, D  CDNA matrix cores (gfx90a, gfx942, gfx950); other targets build a
 *                  slow portable body the plan does not pick
 *                  (attention_mfma.h, attention_portable.h)
 *   WMMA    DT, GEN, D  RDNA matrix cores of generation GEN (11: gfx11, 12:
 *                  gfx12; attention_wmma.h); HIP on NVIDIA builds them with
 *                  the instruction emulated, other targets the portable body
 *   TILED   DT, D  vector ALUs, any dtype and strides (attention_tiled.h)
 *   ROWS16  DT, D  the same, 16 threads a row, at most 16 rows (D <= 128)
 *   MERGE   DT     combines split-KV partials
 * DT is the pk_dtype (0 f32, 1 f16, 2 bf16), D the head dim. */
#ifndef PK_HIP_ATTENTION_KERNELS_H
#define PK_HIP_ATTENTION_KERNELS_H

#define PK_HIP_ATTN_KERNELS(X)                                                                          \
    PK_HIP_ATTN_DTYPE(X, f32, 0) PK_HIP_ATTN_DTYPE(X, f16, 1) PK_HIP_ATTN_DTYPE(X, bf16, 2)             \
    PK_HIP_ATTN_DIMS(X, MFMA, pk_attn_mfma_f16_d, , 1) X(MFMA, attention, pk_attn_mfma_f16_d256, 1, 256) \
    PK_HIP_ATTN_DIMS(X, MFMA, pk_attn_mfma_bf16_d, , 2) X(MFMA, attention, pk_attn_mfma_bf16_d256, 2, 256) \
    PK_HIP_ATTN_WMMA(X, f16, 1, 11) PK_HIP_ATTN_WMMA(X, bf16, 2, 11)                                    \
    PK_HIP_ATTN_WMMA(X, f16, 1, 12) PK_HIP_ATTN_WMMA(X, bf16, 2, 12)
#define PK_HIP_ATTN_DTYPE(X, dt, DT)                                                                    \
    PK_HIP_ATTN_DIMS(X, TILED, pk_attn_tiled_##dt##_d, , DT) X(TILED, attention, pk_attn_tiled_##dt##_d256, DT, 256) \
    PK_HIP_ATTN_DIMS(X, ROWS16, pk_attn_tiled_##dt##_d, _rows16, DT) X(MERGE, attention, pk_attn_merge_##dt, DT)
#define PK_HIP_ATTN_WMMA(X, dt, DT, GEN)                                                                \
    PK_HIP_ATTN_DIMS(X, WMMA, pk_attn_wmma##GEN##_##dt##_d, , DT, GEN)                                  \
    X(WMMA, attention, pk_attn_wmma##GEN##_##dt##_d256, DT, GEN, 256)
/* D up to 128; the kind's arguments but D */
#define PK_HIP_ATTN_DIMS(X, kind, name, suffix, ...)                                                    \
    X(kind, attention, name##64##suffix, __VA_ARGS__, 64) X(kind, attention, name##80##suffix, __VA_ARGS__, 80) \
    X(kind, attention, name##96##suffix, __VA_ARGS__, 96) X(kind, attention, name##128##suffix, __VA_ARGS__, 128)

#endif
