/* Attention kernels (the host launches them as hip_attention_plan.h says):
 *   pk_attn_mfma_<dt>_d<D>          CDNA matrix cores (gfx90a, gfx940; other
 *                                   targets get a slow portable body the
 *                                   plan does not pick: attention_mfma.h)
 *   pk_attn_tiled_<dt>_d<D>         vector ALUs, any dtype and strides
 *   pk_attn_tiled_<dt>_d<D>_rows16  the same, 16 threads a row, <= 16 rows
 *   pk_attn_merge_<dt>              combines split-KV partials
 * All but the merge take one pk_attn_params (attention_common.h). */
#include "attention_common.h"
#include "attention_mfma.h"
#include "attention_tiled.h"

/* one template argument each, for __launch_bounds__ (a macro) */
namespace pk_attn {
template <int D> using prefill_cfg = tiled_cfg<D, false>;
template <int D> using rows16_cfg = tiled_cfg<D, true>;
} // namespace pk_attn

#define PK_ATTN_TILED(dt, DT, D)                                                                          \
    extern "C" __global__ void __launch_bounds__(pk_attn::prefill_cfg<D>::NT)                        \
        pk_attn_tiled_##dt##_d##D(const pk_attn_params p)                                                 \
    {                                                                                                     \
        pk_attn::tiled_attention<DT, D, false>(p);                                                        \
    }

#define PK_ATTN_ROWS16(dt, DT, D)                                                                         \
    extern "C" __global__ void __launch_bounds__(pk_attn::rows16_cfg<D>::NT)                         \
        pk_attn_tiled_##dt##_d##D##_rows16(const pk_attn_params p)                                        \
    {                                                                                                     \
        pk_attn::tiled_attention<DT, D, true>(p);                                                         \
    }

/* matrix cores where there are some; elsewhere a portable body for the
 * same launch (attention_mfma.h), which the plan does not pick */
#if PK_HIP_MFMA
#define PK_ATTN_MFMA_BODY(DT, D) pk_attn::mfma_attention<DT, D>(p)
#else
#define PK_ATTN_MFMA_BODY(DT, D) pk_attn::mfma_attention_portable<DT, D>(p)
#endif

#define PK_ATTN_MFMA(dt, DT, D)                                                                           \
    extern "C" __global__ void __launch_bounds__(pk_attn::mfma_cfg<D>::NT)                               \
        pk_attn_mfma_##dt##_d##D(const pk_attn_params p)                                                  \
    {                                                                                                     \
        PK_ATTN_MFMA_BODY(DT, D);                                                                         \
    }

#define PK_ATTN_MFMA_DTYPE(dt, DT)                                                                        \
    PK_ATTN_MFMA(dt, DT, 64) PK_ATTN_MFMA(dt, DT, 80) PK_ATTN_MFMA(dt, DT, 96) PK_ATTN_MFMA(dt, DT, 128)  \
    PK_ATTN_MFMA(dt, DT, 256)

#define PK_ATTN_DTYPE(dt, DT)                                                                             \
    PK_ATTN_TILED(dt, DT, 64) PK_ATTN_TILED(dt, DT, 80) PK_ATTN_TILED(dt, DT, 96)                          \
    PK_ATTN_TILED(dt, DT, 128) PK_ATTN_TILED(dt, DT, 256)                                                 \
    PK_ATTN_ROWS16(dt, DT, 64) PK_ATTN_ROWS16(dt, DT, 80) PK_ATTN_ROWS16(dt, DT, 96)                       \
    PK_ATTN_ROWS16(dt, DT, 128)                                                                           \
    extern "C" __global__ void __launch_bounds__(256) pk_attn_merge_##dt(const pk_attn_params p, int d)    \
    {                                                                                                     \
        pk_attn::merge<DT>(p, d);                                                                         \
    }

PK_ATTN_DTYPE(f32, 0)
PK_ATTN_DTYPE(f16, 1)
PK_ATTN_DTYPE(bf16, 2)
PK_ATTN_MFMA_DTYPE(f16, 1)
PK_ATTN_MFMA_DTYPE(bf16, 2)
