/* The HIP backend's internal interface, shared by its op files. Host code
 * is C over HIP's module API; on AMD it links libamdhip64, and with
 * -Dhip_platform=nvidia the same code compiles against hip_on_cuda.h, our
 * own mapping of the HIP calls used here onto the CUDA driver API. Device
 * code lives in kernels_hip/, one code object (AMD: a bundle for every
 * target of hip_archs; NVIDIA: an nvcc fatbin) per kernel file, embedded;
 * a device none of them fits compiles the kernel files at open instead
 * (hip_rtc.c).
 *
 * What HIP's kernels keep to, beyond what the CUDA family shares
 * (kernel lists, argument blocks: kernels_gpu/, backends/gpu/pk_gpu_args.h;
 * plans: pk_gpu_attn_plan and hip_gemm_plan.h):
 * - each .hip file is one translation unit, one module; it may include any
 *   kernels_hip/ or kernels_gpu/ header (the build tracks them through the
 *   compiler's depfile);
 * - kernels_gpu/gpu_dialect.h is the only HIP/CUDA include a kernel needs,
 *   and defines PK_HIP_MFMA on targets with MFMA (gfx90a, gfx942, gfx950): MFMA code
 *   and every __builtin_amdgcn_* sit inside #if PK_HIP_MFMA, so the NVIDIA
 *   build leaves them out;
 * - the wave size is PK_WAVE on the device and pk_hip_target.wave_size on
 *   the host, never a literal 32 or 64.
 */
#ifndef PK_HIP_INTERNAL_H
#define PK_HIP_INTERNAL_H

#if PK_HIP_ON_CUDA
#include "hip_on_cuda.h"
#else
#include <hip/hip_runtime_api.h>

/* Up to 64 KiB of LDS needs no opt-in on AMD (NVIDIA: hip_on_cuda.h). */
static inline hipError_t pk_hip_allow_lds(hipFunction_t f, unsigned bytes)
{
    (void)f;
    (void)bytes;
    return hipSuccess;
}
#endif

#include "backend.h"
#include "hip_target.h"

typedef hipDeviceptr_t pk_gpu_ptr;
typedef hipModule_t pk_gpu_module;
typedef hipError_t pk_gpu_result;
#include "gpu_state.h"

/* The kernel files, a module each, by the names the kernel lists give
 * their entries' modules (kernels_hip/gemm_kernels.h, ...), and the files'
 * names ("gemm.hip"). */
#define PK_HIP_MODULES(X) X(gemm) X(attention) X(elementwise)
#define PK_HIP_MODULE(m) PK_GPU_MODULE_##m,
enum { PK_HIP_MODULES(PK_HIP_MODULE) PK_GPU_MODULE_COUNT };

typedef struct pk_hip_device {
    int index;                 /* HIP device ordinal, made current before each call */
    hipStream_t stream;        /* every op of the pk_context is queued here, in order */
    hipModule_t modules[PK_GPU_MODULE_COUNT]; /* the kernel files' code, loaded (or compiled) once at open */
    pk_device_info info;
    pk_hip_target target;
    pk_gpu_state gpu;
} pk_hip_device;

/* Makes the device current on this thread (HIP's calls act on it). */
pk_status pk_hip_current(pk_hip_device *d, pk_msg *msg);

/* Kernel lookup and launch, scratch, kept buffers, the staging ring and
 * the ops of backends/gpu: gpu_vendor.h. */

static inline hipDeviceptr_t pk_hip_ptr(uint64_t addr) { return (hipDeviceptr_t)(uintptr_t)addr; }

#endif
