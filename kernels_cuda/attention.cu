/* Attention kernels (backends/gpu/gpu_attention.c launches them), one per
 * entry of the list in attention_kernels.h. All take one pk_attn_params
 * (kernels_gpu/attn_common.h), the merge the head dim too. */
#include "../kernels_gpu/attn_common.h"
#include "attention_kernels.h"
#include "attention_mma.cuh"
#include "attention_simt.cuh"
#include "attention_tiles.h"

namespace pk_attn {

/* the tiles of attention_tiles.h, each pk_attn::<name>_cfg<D> */
#define PK_ATTN_CFG(name, NWM, NWN, MT, BN, ST) template <int D> using name##_cfg = mma_cfg<D, NWM, NWN, MT, BN, ST>;
PK_CU_ATTN_TILES(PK_ATTN_CFG)

} // namespace pk_attn

#define PK_ATTN_ENTRY(kind, module, name, ...) PK_ATTN_##kind(name, __VA_ARGS__)

#define PK_ATTN_MMA(name, DT, D, tiles)                                                                 \
    extern "C" __global__ void __launch_bounds__(pk_attn::tiles##_cfg<D>::NT, 1) name(const pk_attn_params p) \
    {                                                                                                   \
        pk_grid_launch_dependents();                                                                    \
        pk_attn::mma_attention<DT, pk_attn::tiles##_cfg<D>>(p);                                         \
    }

#define PK_ATTN_SIMT(name, DT, D)                                                                       \
    extern "C" __global__ void __launch_bounds__(pk_attn::simt_cfg<D>::NT) name(const pk_attn_params p) \
    {                                                                                                   \
        pk_grid_launch_dependents();                                                                    \
        pk_attn::simt_attention<DT, D>(p);                                                              \
    }

#define PK_ATTN_MERGE(name, DT)                                                                         \
    extern "C" __global__ void name(const pk_attn_params p, int d)                                      \
    {                                                                                                   \
        pk_grid_launch_dependents();                                                                    \
        pk_attn::merge<DT>(p, d);                                                                       \
    }

/* sm_90a only: attention_sm90.cu builds them */
#define PK_ATTN_WGMMA(...)

PK_CU_ATTN_KERNELS(PK_ATTN_ENTRY)
