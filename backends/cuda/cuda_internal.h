/* The CUDA backend's internal interface, shared by its op files. Host code
 * is C over the CUDA driver API; device code lives in kernels_cuda/ and is
 * built by nvcc into one fatbin embedded in the module. */
#ifndef PK_CUDA_INTERNAL_H
#define PK_CUDA_INTERNAL_H

#include <cuda.h>

#include "backend.h"
#include "cuda_attention_plan.h"
#include "cuda_gemm_plan.h"

typedef CUdeviceptr pk_gpu_ptr;
typedef CUmodule pk_gpu_module;
typedef CUresult pk_gpu_result;
#include "gpu_state.h"

/* The kernel files, a fatbin each, by the names the kernel lists give
 * their entries' modules (kernels_cuda/gemm_kernels.h, ...); gemm_sm90
 * and attention_sm90 hold sm_90a code only. */
#define PK_CU_MODULES(X) X(gemm) X(gemm_sm90) X(attention) X(attention_sm90) X(elementwise)
#define PK_CU_MODULE(m) PK_GPU_MODULE_##m,
enum { PK_CU_MODULES(PK_CU_MODULE) PK_GPU_MODULE_COUNT };

typedef struct pk_cu_device {
    CUdevice device;
    CUcontext context;         /* the device's primary context */
    CUstream stream;           /* every op of the pk_context is queued here, in order */
    CUmodule modules[PK_GPU_MODULE_COUNT]; /* the embedded fatbins, loaded once at open; NULL: none */
    int has_sm90_gemm;         /* gemm_sm90.fatbin loaded: the wgmma GEMM runs here */
    CUdeviceptr split_flags;   /* split-K's flags (gemm_kernels.h), zeroed at open */
    /* blocks of a pair kernel's clusters of two that the device holds at
     * once, by kernel (each its shared memory); 0: not asked yet */
    int pair_blocks[PK_CU_GEMM_KERNEL_COUNT];
    pk_device_info info;
    int sm;                    /* compute capability major*10 + minor, e.g. 90 */
    int sm_count;
    int early_launch;          /* programmatic dependent launch: sm_90 on, unless PORTKERN_CUDA_PDL=0 */
    size_t smem_optin;         /* max dynamic shared memory per block (opt-in) */
    pk_gpu_state gpu;
} pk_cu_device;

/* The launch attribute of clusters of two blocks along x
 * (PK_GPU_LAUNCH_PAIRS), for the launch and the occupancy query alike */
CUlaunchAttribute pk_cu_pair_attribute(void);

/* A TMA map of the 16-bit view v (from its offset) of `rank` dimensions,
 * in the 128-byte swizzle the Hopper kernels' wgmma read, unit element
 * steps (cuda_tma.c): the GEMM's A and B, the attention kernel's K and V */
CUresult pk_cu_tma_sw128(CUtensorMap *map, const pk_view *v, unsigned rank, const cuuint64_t *dim,
                         const cuuint64_t *stride, const cuuint32_t *box);

/* The TMA maps of p's K and V for the Hopper attention kernel's tiles of
 * tile_keys keys (cuda_tma.c): 1 when the driver took both, 0 when a
 * layout it cannot express leaves the kernel its cp.async copies */
int pk_cu_attn_tma_maps(const pk_attention_problem *p, int tile_keys, CUtensorMap maps[2]);

/* Kernel lookup and launch, scratch, kept buffers, the staging ring and
 * the ops of backends/gpu: gpu_vendor.h. */

#endif
