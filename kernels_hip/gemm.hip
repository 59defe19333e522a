/* GEMM entry points: d = act(alpha * a @ b + beta * c + bias) + res, one
 * per entry of the list in gemm_kernels.h. All take PK_GEMM_PARAMS
 * (kernels_gpu/gemm_abi.h) and PK_HIP_GEMM_THREADS. */
#include "gemm_common.h"
#include "gemm_kernels.h"
#include "gemm_mfma.h"
#include "gemm_skinny.h"
#include "gemm_tiled.h"
#include "gemm_wmma.h"

#define PK_GEMM_ENTRY(kind, module, name, ...)                                                          \
    extern "C" __global__ void __launch_bounds__(PK_HIP_GEMM_THREADS) name(PK_GEMM_PARAMS)              \
    {                                                                                                   \
        PK_GEMM_##kind(__VA_ARGS__);                                                                    \
    }
#define PK_GEMM_TILED(dt) pk_gemm_tiled<dt, 1>(PK_GEMM_KARGS)
#define PK_GEMM_SKINNY(dt, mr) pk_gemm_skinny<dt, mr>(PK_GEMM_KARGS)
/* without matrix cores the 64 x 64 tiled body, which loops over however
 * many tiles the grid leaves it */
#if PK_HIP_MFMA
#define PK_GEMM_MFMA(dt, bm) pk_gemm_mfma<dt, bm>(PK_GEMM_KARGS)
#else
#define PK_GEMM_MFMA(dt, bm) pk_gemm_tiled<dt, 1>(PK_GEMM_KARGS)
#endif

/* WMMA of one generation: its own targets and HIP on NVIDIA (emulated);
 * elsewhere the 64 x 64 tiled body */
template <int GEN, int DT, int TILE> __device__ __forceinline__ void pk_gemm_wmma_here(const pk_gemm_kargs &ka)
{
    if constexpr (PK_HIP_WMMA == GEN || !PK_HIP_AMD) pk_gemm_wmma<GEN, DT, TILE>(ka);
    else pk_gemm_tiled<DT, 1>(ka);
}
#define PK_GEMM_WMMA(dt, gen, bm) pk_gemm_wmma_here<gen, dt, bm>(PK_GEMM_KARGS)

PK_HIP_GEMM_KERNELS(PK_GEMM_ENTRY)
