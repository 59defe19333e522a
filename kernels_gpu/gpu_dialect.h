/* The one platform header of the CUDA-family kernels: kernels_cuda/ and
 * kernels_hip/ include it, and with it kernels_gpu/ is one source for
 * both. With clang or hipRTC it is HIP itself; with nvcc or NVRTC (the
 * CUDA backend, and the HIP backend built with -Dhip_platform=nvidia) it
 * maps the HIP device built-ins the kernels use onto CUDA, because
 * Debian's HIP 5.2 NVIDIA headers do not compile with CUDA 13. Device
 * code only.
 *
 * PK_HIP_MFMA is 1 while compiling for a target with MFMA matrix cores;
 * MFMA code and every __builtin_amdgcn_* sit inside #if PK_HIP_MFMA.
 * PK_HIP_WMMA is the RDNA generation (11, 12) of a target with WMMA
 * matrix cores, else 0; its __builtin_amdgcn_* sit inside #if.
 * PK_HIP_AMD is 1 for every AMD target (NVIDIA builds leave such code
 * out). PK_WAVE is the wave size: warpSize on AMD (64 on CDNA, 32 on
 * RDNA), the constant 32 on NVIDIA. Size per-wave arrays with PK_WAVE_MIN
 * (the most waves a block can have). */
#ifndef PK_KERNELS_GPU_GPU_DIALECT_H
#define PK_KERNELS_GPU_GPU_DIALECT_H

#include <stdint.h>

#define PK_WAVE_MIN 32
#define PK_WAVE_MAX 64

/* +infinity: NVRTC (the run-time compiler, __CUDACC_RTC__) has neither
 * INFINITY nor __builtin_inff, so there it comes from its bits */
#if defined(__CUDACC_RTC__)
#define PK_INF __int_as_float(0x7f800000)
#else
#define PK_INF __builtin_inff()
#endif

#if defined(__HIPCC__) && !defined(__CUDACC__)

/* hipRTC (__HIPCC_RTC__) has HIP and its f16 built in; the headers again
 * would define them twice */
#if !defined(__HIPCC_RTC__)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#endif

#define PK_HIP_AMD 1
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__)
#define PK_HIP_MFMA 1
#else
#define PK_HIP_MFMA 0
#endif
#if defined(__GFX11__)
#define PK_HIP_WMMA 11
#elif defined(__GFX12__)
#define PK_HIP_WMMA 12
#else
#define PK_HIP_WMMA 0
#endif

typedef __half pk_f16;
/* bf16 as its bits, converted by gpu_common.h as the host converts
 * (pk_half.h): hip_bfloat16 differs between ROCm releases, and ROCm 5.2's
 * pulls the host's <cmath> into hipRTC, where it does not compile */
struct pk_bf16 {
    unsigned short bits;
};
#define PK_WAVE warpSize

#elif defined(__CUDACC__)

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define PK_HIP_AMD 0
#define PK_HIP_MFMA 0
#define PK_HIP_WMMA 0

typedef __half pk_f16;
typedef __nv_bfloat16 pk_bf16;
#define PK_WAVE 32

/* HIP's warp functions act on the whole wave; CUDA spells that with a
 * full mask. Every lane of the wave must take part, as on AMD. */
template <typename T> __device__ __forceinline__ T __shfl(T v, int src, int width = warpSize)
{
    return __shfl_sync(0xffffffffu, v, src, width);
}
template <typename T> __device__ __forceinline__ T __shfl_xor(T v, int mask, int width = warpSize)
{
    return __shfl_xor_sync(0xffffffffu, v, mask, width);
}
template <typename T> __device__ __forceinline__ T __shfl_down(T v, unsigned delta, int width = warpSize)
{
    return __shfl_down_sync(0xffffffffu, v, delta, width);
}

#else
#error "the CUDA-family kernels are built by clang or hipRTC (AMD), or nvcc or NVRTC"
#endif

#endif /* PK_KERNELS_GPU_GPU_DIALECT_H */
