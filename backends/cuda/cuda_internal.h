/* The CUDA backend's internal interface, shared by its op files. Host code
 * is C over the CUDA driver API; device code lives in kernels_cuda/ and is
 * built by nvcc into one fatbin embedded in the module. */
#ifndef PK_CUDA_INTERNAL_H
#define PK_CUDA_INTERNAL_H

#include <cuda.h>

#include "backend.h"
#include "cuda_attention_plan.h"
#include "cuda_gemm_plan.h"
#include "pk_gpu_ew.h"
#include "pk_gpu_retire.h"
#include "pk_gpu_stage.h"

/* The kernel files, a fatbin each, by the names the kernel lists give
 * their entries' modules (kernels_cuda/gemm_kernels.h, ...); gemm_sm90
 * holds sm_90a code only. */
#define PK_CU_MODULES(X) X(gemm) X(gemm_sm90) X(attention) X(elementwise)
#define PK_CU_MODULE(m) PK_GPU_MODULE_##m,
enum { PK_CU_MODULES(PK_CU_MODULE) PK_GPU_MODULE_COUNT };

typedef struct pk_cu_device {
    CUdevice device;
    CUcontext context;         /* the device's primary context */
    CUstream stream;           /* every op of the pk_context is queued here, in order */
    CUmodule modules[PK_GPU_MODULE_COUNT]; /* the embedded fatbins, loaded once at open; NULL: none */
    int has_sm90_gemm;         /* gemm_sm90.fatbin loaded: the wgmma GEMM runs here */
    pk_device_info info;
    int sm;                    /* compute capability major*10 + minor, e.g. 90 */
    int sm_count;
    int early_launch;          /* programmatic dependent launch: sm_90 on, unless PORTKERN_CUDA_PDL=0 */
    /* A/B knobs, read once at open: PORTKERN_CUDA_GEMM and PORTKERN_CUDA_ATTN */
    pk_cu_gemm_knob gemm_knob;
    int attn_knob;
    size_t smem_optin;         /* max dynamic shared memory per block (opt-in) */
    struct pk_gpu_kernel *kernels; /* by index, those looked up so far (gpu/gpu_launch.c) */
    CUdeviceptr scratch;       /* grown on demand; the in-order stream makes reuse safe */
    size_t scratch_size;
    CUdeviceptr rope_tab;      /* RoPE's tables, kept between calls (pk_gpu_rope_tables) */
    size_t rope_tab_size;
    pk_gpu_rope_tables rope;
    CUmodule fault_module;     /* pk_fault_store, loaded by a test's device fault only */
    pk_gpu_retired *retired;   /* outgrown buffers the stream may still read (gpu/gpu_memory.c) */
    pk_gpu_stage stage;        /* pinned ring the host arrays of ops are copied from (gpu/gpu_stage.c) */
} pk_cu_device;

/* Checks a driver API result; on failure writes "what: CUDA_ERROR_NAME: text".
 * Sticky errors (illegal address, launch failure) give PK_ERR_DEVICE_FAILURE,
 * allocation failures PK_ERR_OUT_OF_MEMORY. */
pk_status pk_cu_check(CUresult r, const char *what, pk_msg *msg);

/* Kernel lookup and launch: gpu_vendor.h (gpu/gpu_launch.c, cuda_launch.c). */

/* Scratch, kept buffers, the staging ring and the ops of backends/gpu:
 * declared in gpu_vendor.h. */

#endif
