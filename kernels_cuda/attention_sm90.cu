/* Attention entry points that need sm_90a (wgmma), in their own fatbin:
 * built only for sm_90a and loaded only on compute capability 9.0
 * (backends/cuda/cuda_backend.c), as gemm_sm90.cu; the list in
 * attention_kernels.h names them (module attention_sm90). Each takes the
 * TMA maps of K and V and whether they hold (backends/cuda/cuda_tma.c),
 * then the pk_attn_params every attention kernel takes. */
#include "../kernels_gpu/attn_common.h"
#include "attention_kernels.h"
#include "attention_wgmma.cuh"

#define PK_ATTN_ENTRY(kind, module, name, ...) PK_ATTN_IN_##module(name, __VA_ARGS__)
#define PK_ATTN_IN_attention(...)
#define PK_ATTN_IN_attention_sm90(name, DT, D, PP, BN)                                                  \
    extern "C" __global__ void __launch_bounds__(PK_CU_ATTN_WG_THREADS, 1)                              \
        name(const __grid_constant__ CUtensorMap km, const __grid_constant__ CUtensorMap vm, const int tma, \
             const pk_attn_params p)                                                                    \
    {                                                                                                   \
        pk_grid_launch_dependents();                                                                    \
        pk_attn_wg::attention<DT, D, PP, BN>(p, &km, &vm, tma);                                         \
    }

PK_CU_ATTN_KERNELS(PK_ATTN_ENTRY)
