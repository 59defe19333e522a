/* The HIP backend's internal interface, shared by its op files. Host code
 * is C over HIP's module API; on AMD it links libamdhip64, and with
 * -Dhip_platform=nvidia the same code compiles against hip_on_cuda.h, our
 * own mapping of the HIP calls used here onto the CUDA driver API. Device
 * code lives in kernels_hip/, one code object (AMD: a bundle for every
 * target of hip_archs; NVIDIA: an nvcc fatbin) per kernel file, embedded;
 * a device none of them fits compiles the kernel files at open instead
 * (hip_rtc.c).
 *
 * Contract between the host code and the GEMM / attention kernels
 * (kernels_hip/gemm*.hip, attention*.hip and their plans):
 *
 * - Kernels and modules. Every entry point is extern "C" __global__ and
 *   an entry of a kernel list (kernels_hip/gemm_kernels.h,
 *   attention_kernels.h, kernels_gpu/ew_kernels.h), which gives its name,
 *   its file (module) and what the file instantiates; the host finds it by
 *   its index in the list. Each .hip file is one translation unit; it may
 *   include any kernels_hip/ header (the build tracks them through the
 *   compiler's depfile).
 * - Device headers. kernels_gpu/gpu_dialect.h is the only HIP/CUDA include
 *   a kernel needs: on clang it is hip_runtime + fp16; on nvcc it maps
 *   what we use onto CUDA (warpSize, __shfl_xor(v, lane_mask, width),
 *   __launch_bounds__, the 16-bit types). It defines PK_HIP_MFMA to 1 when
 *   compiling for a target with MFMA (gfx90a, gfx942); MFMA code and every
 *   __builtin_amdgcn_* sit inside #if PK_HIP_MFMA, so the NVIDIA build
 *   leaves them out. kernels_gpu/gpu_common.h, shared with the CUDA
 *   kernels: pk_storage<DT>, PK_T, pk_to_f32, pk_from_f32<T>, pk_act. Wave
 *   size is PK_WAVE on the device and pk_hip_target.wave_size on the host,
 *   never a literal 32 or 64.
 * - GEMM. Every pk_gemm_* entry point takes PK_GEMM_PARAMS, the list of
 *   kernels_gpu/gemm_abi.h that CUDA's kernels take too; the host marshals
 *   it with pk_gpu_gemm_args (backends/common/pk_gpu_args.h). hip_gemm_plan.h
 *   declares
 *     void pk_hip_gemm_plan_pick(const pk_gemm_problem *p, const pk_hip_target *t,
 *                                pk_hip_gemm_plan *out);
 *   pk_hip_gemm_plan has pk_cu_gemm_plan's fields but early (HIP never
 *   launches early): kind, kernel (of the list), grid[3], block[3], smem
 *   (dynamic LDS bytes).
 * - Attention. Every pk_attn_* kernel but the merge takes one
 *   pk_attn_params (kernels_gpu/attn_abi.h, one definition for the kernels
 *   and the host, which fills it in pk_gpu_args.c). hip_attention_plan.h
 *   declares
 *     void pk_hip_attn_plan_make(const pk_attention_problem *p, const pk_hip_target *t,
 *                                pk_hip_attn_plan *plan);
 *   pk_hip_attn_plan has pk_cu_attn_plan's fields (kind, kernel, merge,
 *   bm, threads, smem, row_tiles, n_splits, chunk).
 *   The launch is CUDA's: grid {batch * hkv, n_splits, row_tiles}, block
 *   {threads}, dynamic LDS smem; with n_splits > 1 then the merge
 *   (pk_attn_merge_<f32|f16|bf16>, taking pk_attn_params, int d) over
 *   ceil(batch * hq * sq * d / 256) blocks of 256. Scratch layout and the
 *   split partials are CUDA's (pk_gpu_attn_scratch in pk_gpu_args.h).
 * - Elementwise kernels (pk_ew_*): one source with CUDA's
 *   (kernels_gpu/elementwise.h), taking the structs of kernels_gpu/ew_abi.h.
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
#include "pk_gpu_ew.h"
#include "pk_gpu_retire.h"
#include "pk_gpu_stage.h"

/* The kernel files, a module each, by the names the kernel lists give
 * their entries' modules (kernels_hip/gemm_kernels.h, ...), and the files'
 * names ("gemm.hip"). */
#define PK_HIP_MODULES(X) X(gemm) X(attention) X(elementwise)
#define PK_HIP_MODULE(m) PK_GPU_MODULE_##m,
enum { PK_HIP_MODULES(PK_HIP_MODULE) PK_GPU_MODULE_COUNT };
extern const char *const pk_hip_module_names[PK_GPU_MODULE_COUNT];

typedef struct pk_hip_device {
    int index;                 /* HIP device ordinal, made current before each call */
    hipStream_t stream;        /* every op of the pk_context is queued here, in order */
    hipModule_t modules[PK_GPU_MODULE_COUNT]; /* the kernel files' code, loaded (or compiled) once at open */
    pk_device_info info;
    pk_hip_target target;
    struct pk_gpu_kernel *kernels; /* by index, those looked up so far (gpu/gpu_launch.c) */
    hipDeviceptr_t scratch;    /* grown on demand; the in-order stream makes reuse safe */
    size_t scratch_size;
    hipDeviceptr_t rope_tab;   /* RoPE's tables, kept between calls (pk_gpu_rope_tables) */
    size_t rope_tab_size;
    pk_gpu_rope_tables rope;
    hipModule_t fault_module;  /* pk_fault_store (NVIDIA), loaded by a test's device fault only */
    pk_gpu_retired *retired;   /* outgrown buffers the stream may still read (gpu/gpu_memory.c) */
    pk_gpu_stage stage;        /* pinned ring the host arrays of ops are copied from (gpu/gpu_stage.c) */
} pk_hip_device;

/* Checks a HIP result; on failure writes "what: hipErrorName: text".
 * Allocation failures give PK_ERR_OUT_OF_MEMORY, a missing or bad kernel
 * PK_ERR_INTERNAL, anything else PK_ERR_DEVICE_FAILURE. */
pk_status pk_hip_check(hipError_t r, const char *what, pk_msg *msg);

/* Makes the device current on this thread (HIP's calls act on it). */
pk_status pk_hip_current(pk_hip_device *d, pk_msg *msg);

/* Kernel lookup and launch: gpu_vendor.h (gpu/gpu_launch.c, hip_launch.c). */

/* Scratch, kept buffers, the staging ring and the ops of backends/gpu:
 * declared in gpu_vendor.h. */

static inline hipDeviceptr_t pk_hip_ptr(uint64_t addr) { return (hipDeviceptr_t)(uintptr_t)addr; }


#endif
