/* Entry points of the fused elementwise ops, one source for the CUDA and
 * HIP builds (kernels_cuda/elementwise.cu and kernels_hip/elementwise.hip
 * are this file); the bodies are templates in ew_rows.h, ew_rope.h and
 * ew_chain.h. The host (backends/common/pk_gpu_ew.c, launched by
 * backends/gpu/gpu_ew.c in both backends) picks a kernel by name:
 *   pk_ew_<rmsnorm|layernorm|softmax>_<dt>_<vec|str>_c<C>  C = chunks per thread, 0 streams
 *   pk_ew_<glu|bias_act>_<dt>_<vec|str>
 *   pk_ew_rope_<dt>
 *   pk_ew_chain_s<SLOTS>
 * vec: 16-byte loads (8 f16/bf16 or 4 f32 values); str: any strides.
 * Each lets a kernel launched behind it start early (gpu_common.h; on
 * NVIDIA since sm_90); that kernel still waits for it to finish before it
 * reads. */
#pragma once

#include "ew_chain.h"
#include "ew_rope.h"
#include "ew_rows.h"

#define PK_EW_ROW(op, OP, dt, DT, path, V, C)                                                        \
    extern "C" __global__ void __launch_bounds__(512) pk_ew_##op##_##dt##_##path##_c##C(pk_ew_rows_args a) \
    {                                                                                                 \
        pk_grid_launch_dependents();                                                                  \
        pk_ew::row_kernel<pk_ew::OP, DT, V, C>(a);                                                     \
    }

/* register chunks: up to 32 values per thread on the vector path, 4 on the
 * strided one (its 64-bit addressing spills beyond that) */
#define PK_EW_ROW_PATHS(op, OP, dt, DT, VEC)                                  \
    PK_EW_ROW(op, OP, dt, DT, vec, VEC, 0)                                    \
    PK_EW_ROW(op, OP, dt, DT, vec, VEC, 1)                                    \
    PK_EW_ROW(op, OP, dt, DT, vec, VEC, 2)                                    \
    PK_EW_ROW(op, OP, dt, DT, vec, VEC, 4)                                    \
    PK_EW_ROW(op, OP, dt, DT, str, 1, 0)                                      \
    PK_EW_ROW(op, OP, dt, DT, str, 1, 1)                                      \
    PK_EW_ROW(op, OP, dt, DT, str, 1, 2)                                      \
    PK_EW_ROW(op, OP, dt, DT, str, 1, 4)

/* rmsnorm's vector path with the row in registers: the pipelined kernel,
 * on a grid of about one wave (pk_gpu_rows_one_wave) */
#define PK_EW_RMS_VEC(dt, DT, V, C)                                                                  \
    extern "C" __global__ void __launch_bounds__(512) pk_ew_rmsnorm_##dt##_vec_c##C(pk_ew_rows_args a) \
    {                                                                                                 \
        pk_grid_launch_dependents();                                                                  \
        pk_ew::rmsnorm_vec_kernel<DT, V, C>(a);                                                        \
    }

#define PK_EW_RMS_PATHS(dt, DT, VEC)                                          \
    PK_EW_ROW(rmsnorm, OP_RMSNORM, dt, DT, vec, VEC, 0)                       \
    PK_EW_RMS_VEC(dt, DT, VEC, 1)                                             \
    PK_EW_RMS_VEC(dt, DT, VEC, 2)                                             \
    PK_EW_RMS_VEC(dt, DT, VEC, 4)                                             \
    PK_EW_ROW(rmsnorm, OP_RMSNORM, dt, DT, str, 1, 0)                         \
    PK_EW_ROW(rmsnorm, OP_RMSNORM, dt, DT, str, 1, 1)                         \
    PK_EW_ROW(rmsnorm, OP_RMSNORM, dt, DT, str, 1, 2)                         \
    PK_EW_ROW(rmsnorm, OP_RMSNORM, dt, DT, str, 1, 4)

#define PK_EW_EW(op, OP, dt, DT, VEC)                                                                   \
    extern "C" __global__ void __launch_bounds__(256) pk_ew_##op##_##dt##_vec(pk_ew_rows_args a)         \
    {                                                                                                  \
        pk_grid_launch_dependents();                                                                   \
        pk_ew::ew_kernel<pk_ew::OP, DT, VEC>(a);                                                        \
    }                                                                                                  \
    extern "C" __global__ void __launch_bounds__(256) pk_ew_##op##_##dt##_str(pk_ew_rows_args a)         \
    {                                                                                                  \
        pk_grid_launch_dependents();                                                                   \
        pk_ew::ew_kernel<pk_ew::OP, DT, 1>(a);                                                          \
    }

#define PK_EW_DTYPE(dt, DT, VEC)                                                    \
    PK_EW_RMS_PATHS(dt, DT, VEC)                                                    \
    PK_EW_ROW_PATHS(layernorm, OP_LAYERNORM, dt, DT, VEC)                           \
    PK_EW_ROW_PATHS(softmax, OP_SOFTMAX, dt, DT, VEC)                               \
    PK_EW_EW(glu, OP_GLU, dt, DT, VEC)                                              \
    PK_EW_EW(bias_act, OP_BIAS_ACT, dt, DT, VEC)                                    \
    extern "C" __global__ void __launch_bounds__(256) pk_ew_rope_##dt(pk_ew_rope_args a) \
    {                                                                               \
        pk_grid_launch_dependents();                                                \
        pk_ew::rope_kernel<DT>(a);                                                  \
    }

PK_EW_DTYPE(f32, 0, 4)
PK_EW_DTYPE(f16, 1, 8)
PK_EW_DTYPE(bf16, 2, 8)

/* f32 rows also keep 8 vector chunks (32 values) in registers */
PK_EW_ROW(rmsnorm, OP_RMSNORM, f32, 0, vec, 4, 8)
PK_EW_ROW(layernorm, OP_LAYERNORM, f32, 0, vec, 4, 8)
PK_EW_ROW(softmax, OP_SOFTMAX, f32, 0, vec, 4, 8)

#define PK_EW_CHAIN(S, E)                                                                     \
    extern "C" __global__ void __launch_bounds__(256) pk_ew_chain_s##S(pk_ew_chain_args a) \
    {                                                                                         \
        pk_grid_launch_dependents();                                                          \
        pk_ew::chain_kernel<S, E>(a);                                                         \
    }
PK_EW_CHAIN(8, 4)
PK_EW_CHAIN(16, 2)
PK_EW_CHAIN(40, 1)
