/* The HIP backend's internal interface, shared by its op files. Host code
 * is C over HIP's module API; on AMD it links libamdhip64, and with
 * -Dhip_platform=nvidia the same code compiles against hip_on_cuda.h, our
 * own mapping of the HIP calls used here onto the CUDA driver API. Device
 * code lives in kernels_hip/, one code object (AMD: a bundle for every
 * target of hip_archs; NVIDIA: an nvcc fatbin) per kernel file, embedded.
 *
 * Contract between the host code and the GEMM / attention kernels
 * (kernels_hip/gemm*.hip, attention*.hip and their plans):
 *
 * - Modules. A kernel's prefix names its file: pk_gemm_* lives in
 *   kernels_hip/gemm.hip, pk_attn_* in attention.hip, pk_ew_* in
 *   elementwise.hip. Every entry point is extern "C" __global__. Each .hip
 *   file is one translation unit; it may include any kernels_hip/ header
 *   (the build tracks them through the compiler's depfile).
 * - Device headers. kernels_hip/hip_device.h is the only HIP/CUDA include
 *   a kernel needs: on hipcc it is hip_runtime + fp16/bf16; on nvcc it maps
 *   what we use onto CUDA (warpSize, __shfl_xor(v, lane_mask, width),
 *   __launch_bounds__, the 16-bit types). It defines PK_HIP_MFMA to 1 when
 *   compiling for a target with MFMA (gfx90a, gfx940); MFMA code and every
 *   __builtin_amdgcn_* sit inside #if PK_HIP_MFMA, so the NVIDIA build
 *   leaves them out. kernels_hip/common.h mirrors kernels_cuda/common.cuh:
 *   pk_storage<DT>, PK_T, pk_to_f32, pk_from_f32<T>, pk_act. Wave size is
 *   warpSize on the device and pk_hip_target.wave_size on the host, never
 *   a literal 32 or 64.
 * - GEMM. Every pk_gemm_* entry point takes PK_GEMM_PARAMS in the order of
 *   kernels_cuda/gemm_common.cuh; the host marshals it with
 *   pk_gpu_gemm_args (backends/common/pk_gpu_args.h). hip_gemm_plan.h
 *   declares
 *     void pk_hip_gemm_plan_pick(const pk_gemm_problem *p, const pk_hip_target *t,
 *                                pk_hip_gemm_plan *out);
 *   pk_hip_gemm_plan has pk_cu_gemm_plan's fields: kind, char kernel[64]
 *   (the entry point), grid[3], block[3], smem (dynamic LDS bytes).
 * - Attention. Every pk_attn_* kernel but the merge takes one
 *   pk_attn_params (kernels_cuda/attention_common.cuh layout, 304 bytes;
 *   host side pk_gpu_attn_params in pk_gpu_args.h). hip_attention_plan.h
 *   declares
 *     void pk_hip_attn_plan_make(const pk_attention_problem *p, const pk_hip_target *t,
 *                                pk_hip_attn_plan *plan);
 *   pk_hip_attn_plan has pk_cu_attn_plan's fields (kernel, bm, threads,
 *   smem, row_tiles, n_splits, chunk) plus char name[64], the entry point
 *   the plan chose (so the host does not mirror the kernels' naming).
 *   The launch is CUDA's: grid {batch * hkv, n_splits, row_tiles}, block
 *   {threads}, dynamic LDS smem; with n_splits > 1 then
 *   pk_attn_merge_<f32|f16|bf16>(pk_attn_params, int d) over
 *   ceil(batch * hq * sq * d / 256) blocks of 256. Scratch layout and the
 *   split partials are CUDA's (pk_gpu_attn_scratch in pk_gpu_args.h).
 * - Elementwise kernels (pk_ew_*) take the structs of kernels_cuda/ew_abi.h.
 */
#ifndef PK_HIP_INTERNAL_H
#define PK_HIP_INTERNAL_H

#endif
