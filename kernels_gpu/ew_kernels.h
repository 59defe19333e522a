/* The elementwise kernels' entry points as data, one list for CUDA and HIP:
 * read by the host plans (backends/gpu/pk_gpu_ew.c), the launch
 * (backends/gpu) and the kernel build (elementwise.h). X(kind, module,
 * name, ...), module the kernel file, and kind's arguments:
 *   ROW    OP, DT, V, C  a row per blockDim.x threads (ew_rows.h)
 *   RMS    OP, DT, V, C  rmsnorm's vector path with the row in registers,
 *                        walking rows on a grid of about one wave
 *   EW     OP, DT, V     glu, bias_act: an elementwise grid
 *   ROPE   DT            (ew_rope.h)
 *   CHAIN  S, E          the fused chain, S register slots of E elements
 *   INDEX  SCATTER, ES   rows by device indices, elements of ES bytes
 *                        moved as bits (ew_index.h)
 * OP is a pk_rows_op's name (PK_ROWS_<OP>), DT the pk_dtype (0 f32, 1 f16,
 * 2 bf16), V the values of one load: vec, 16 bytes (8 f16/bf16 or 4 f32);
 * str, 1 at any strides. C: chunks of V a thread keeps in registers, 0
 * streams; up to 32 values on the vector path, 4 chunks on the strided one
 * (its 64-bit addressing spills beyond that). */
#ifndef PK_EW_KERNELS_H
#define PK_EW_KERNELS_H

#define PK_EW_KERNELS(X)                                                                                \
    PK_EW_DTYPE(X, f32, 0, 4) PK_EW_DTYPE(X, f16, 1, 8) PK_EW_DTYPE(X, bf16, 2, 8)                      \
    X(ROW, elementwise, pk_ew_rmsnorm_f32_vec_c8, RMSNORM, 0, 4, 8)                                     \
    X(ROW, elementwise, pk_ew_layernorm_f32_vec_c8, LAYERNORM, 0, 4, 8)                                 \
    X(ROW, elementwise, pk_ew_softmax_f32_vec_c8, SOFTMAX, 0, 4, 8)                                     \
    X(CHAIN, elementwise, pk_ew_chain_s8, 8, 4) X(CHAIN, elementwise, pk_ew_chain_s16, 16, 2)           \
    X(CHAIN, elementwise, pk_ew_chain_s40, 40, 1)                                                      \
    X(INDEX, elementwise, pk_ew_gather_rows_e2, 0, 2) X(INDEX, elementwise, pk_ew_gather_rows_e4, 0, 4)   \
    X(INDEX, elementwise, pk_ew_scatter_rows_e2, 1, 2) X(INDEX, elementwise, pk_ew_scatter_rows_e4, 1, 4)
#define PK_EW_DTYPE(X, dt, DT, VEC)                                                                     \
    PK_EW_ROW_C(X, ROW, rmsnorm, RMSNORM, dt, DT, vec, VEC, 0)                                          \
    PK_EW_ROW_C(X, RMS, rmsnorm, RMSNORM, dt, DT, vec, VEC, 1)                                          \
    PK_EW_ROW_C(X, RMS, rmsnorm, RMSNORM, dt, DT, vec, VEC, 2)                                          \
    PK_EW_ROW_C(X, RMS, rmsnorm, RMSNORM, dt, DT, vec, VEC, 4)                                          \
    PK_EW_ROWS(X, rmsnorm, RMSNORM, dt, DT, str, 1) PK_EW_ROWS(X, layernorm, LAYERNORM, dt, DT, vec, VEC) \
    PK_EW_ROWS(X, layernorm, LAYERNORM, dt, DT, str, 1) PK_EW_ROWS(X, softmax, SOFTMAX, dt, DT, vec, VEC) \
    PK_EW_ROWS(X, softmax, SOFTMAX, dt, DT, str, 1)                                                     \
    X(EW, elementwise, pk_ew_glu_##dt##_vec, GLU, DT, VEC) X(EW, elementwise, pk_ew_glu_##dt##_str, GLU, DT, 1) \
    X(EW, elementwise, pk_ew_bias_act_##dt##_vec, BIAS_ACT, DT, VEC)                                    \
    X(EW, elementwise, pk_ew_bias_act_##dt##_str, BIAS_ACT, DT, 1) X(ROPE, elementwise, pk_ew_rope_##dt, DT)
#define PK_EW_ROWS(X, op, OP, dt, DT, path, V)                                                          \
    PK_EW_ROW_C(X, ROW, op, OP, dt, DT, path, V, 0) PK_EW_ROW_C(X, ROW, op, OP, dt, DT, path, V, 1)     \
    PK_EW_ROW_C(X, ROW, op, OP, dt, DT, path, V, 2) PK_EW_ROW_C(X, ROW, op, OP, dt, DT, path, V, 4)
#define PK_EW_ROW_C(X, kind, op, OP, dt, DT, path, V, C)                                                \
    X(kind, elementwise, pk_ew_##op##_##dt##_##path##_c##C, OP, DT, V, C)

#endif
