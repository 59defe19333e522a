/* Attention kernels (the host launches them as hip_attention_plan.h says),
 * one per entry of the list in attention_kernels.h. All take one
 * pk_attn_params (kernels_gpu/attn_common.h), the merge the head dim too. */
#include "../kernels_gpu/attn_common.h"
#include "attention_kernels.h"
#include "attention_mfma.h"
#include "attention_portable.h"
#include "attention_tiled.h"
#include "attention_wmma.h"

/* one template argument each, for __launch_bounds__ (a macro) */
namespace pk_attn {
template <int D> using prefill_cfg = tiled_cfg<D, false>;
template <int D> using rows16_cfg = tiled_cfg<D, true>;
} // namespace pk_attn

#define PK_ATTN_ENTRY(kind, module, name, ...) PK_ATTN_##kind(name, __VA_ARGS__)

#define PK_ATTN_TILED(name, DT, D)                                                                      \
    extern "C" __global__ void __launch_bounds__(pk_attn::prefill_cfg<D>::NT) name(const pk_attn_params p) \
    {                                                                                                   \
        pk_attn::tiled_attention<DT, D, false>(p);                                                      \
    }

#define PK_ATTN_ROWS16(name, DT, D)                                                                     \
    extern "C" __global__ void __launch_bounds__(pk_attn::rows16_cfg<D>::NT) name(const pk_attn_params p) \
    {                                                                                                   \
        pk_attn::tiled_attention<DT, D, true>(p);                                                       \
    }

/* matrix cores where there are some; elsewhere a portable body for the
 * same launch (attention_portable.h), which the plan does not pick */
#if PK_HIP_MFMA
#define PK_ATTN_MFMA_BODY(DT, D) pk_attn::mfma_attention<DT, D>(p)
#else
#define PK_ATTN_MFMA_BODY(DT, D)                                                                        \
    pk_attn::matrix_attention_portable<DT, D, pk_attn::mfma_cfg<D>::BM, pk_attn::mfma_cfg<D>::NT>(p)
#endif

#define PK_ATTN_MFMA(name, DT, D)                                                                       \
    extern "C" __global__ void __launch_bounds__(pk_attn::mfma_cfg<D>::NT) name(const pk_attn_params p) \
    {                                                                                                   \
        PK_ATTN_MFMA_BODY(DT, D);                                                                       \
    }

/* WMMA of one generation: its own targets and HIP on NVIDIA (emulated);
 * elsewhere the portable body */
namespace pk_attn {
template <int GEN, int DT, int D> __device__ __forceinline__ void wmma_attention_here(const pk_attn_params &p)
{
    if constexpr (PK_HIP_WMMA == GEN || !PK_HIP_AMD) wmma_attention<GEN, DT, D>(p);
    else matrix_attention_portable<DT, D, wmma_cfg<D>::BM, wmma_cfg<D>::NT>(p);
}
} // namespace pk_attn

#define PK_ATTN_WMMA(name, DT, GEN, D)                                                                  \
    extern "C" __global__ void __launch_bounds__(pk_attn::wmma_cfg<D>::NT) name(const pk_attn_params p) \
    {                                                                                                   \
        pk_attn::wmma_attention_here<GEN, DT, D>(p);                                                    \
    }

#define PK_ATTN_MERGE(name, DT)                                                                         \
    extern "C" __global__ void __launch_bounds__(256) name(const pk_attn_params p, int d)               \
    {                                                                                                   \
        pk_attn::merge<DT>(p, d);                                                                       \
    }

PK_HIP_ATTN_KERNELS(PK_ATTN_ENTRY)
