/* Shared by every CUDA-family kernel (kernels_cuda, kernels_hip,
 * kernels_gpu): storage dtypes, conversions, activations, dependent
 * launch. Device code only; dtype codes match pk_dtype (0 f32, 1 f16, 2
 * bf16). Arithmetic and accumulation are f32. */
/* a guard, not #pragma once: hipRTC and NVRTC get these headers under two
 * names (hip_rtc.c), which #pragma once takes for two files */
#ifndef PK_KERNELS_GPU_GPU_COMMON_H
#define PK_KERNELS_GPU_GPU_COMMON_H

#include "gpu_dialect.h"

template <int DT> struct pk_storage;
template <> struct pk_storage<0> { typedef float type; };
template <> struct pk_storage<1> { typedef pk_f16 type; };
template <> struct pk_storage<2> { typedef pk_bf16 type; };
#define PK_T(DT) typename pk_storage<DT>::type

/* ln 2: the softmax kernels work in base 2 (exp2 is one instruction) and
 * report logs in natural log */
#define PK_LN2 0.693147180559945309f

__device__ __forceinline__ float pk_to_f32(float x) { return x; }
__device__ __forceinline__ float pk_to_f32(pk_f16 x) { return __half2float(x); }
__device__ __forceinline__ float pk_to_f32(pk_bf16 x)
{
#if PK_HIP_AMD
    return __uint_as_float((unsigned)x.bits << 16);
#else
    return __bfloat162float(x);
#endif
}

/* round to nearest even, as the host conversions (pk_half.h) do */
template <typename T> __device__ __forceinline__ T pk_from_f32(float x);
template <> __device__ __forceinline__ float pk_from_f32<float>(float x) { return x; }
template <> __device__ __forceinline__ pk_f16 pk_from_f32<pk_f16>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ pk_bf16 pk_from_f32<pk_bf16>(float x)
{
#if PK_HIP_AMD
    unsigned u = __float_as_uint(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return pk_bf16{(unsigned short)((u >> 16) | 0x40u)}; /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return pk_bf16{(unsigned short)(u >> 16)};
#else
    return __float2bfloat16_rn(x);
#endif
}

/* Element i of a buffer whose dtype is a run-time value (uniform branch). */
__device__ __forceinline__ float pk_load_dt(const void *p, long long i, int dt)
{
    if (dt == 1) return pk_to_f32(static_cast<const pk_f16 *>(p)[i]);
    if (dt == 2) return pk_to_f32(static_cast<const pk_bf16 *>(p)[i]);
    return static_cast<const float *>(p)[i];
}

__device__ __forceinline__ void pk_store_dt(void *p, long long i, int dt, float x)
{
    if (dt == 1) static_cast<pk_f16 *>(p)[i] = pk_from_f32<pk_f16>(x);
    else if (dt == 2) static_cast<pk_bf16 *>(p)[i] = pk_from_f32<pk_bf16>(x);
    else static_cast<float *>(p)[i] = x;
}

/* pk_activation: 0 none, 1 relu, 2 gelu (erf), 3 gelu tanh, 4 silu */
__device__ __forceinline__ float pk_act(int act, float x)
{
    switch (act) {
    case 1: return x > 0.0f ? x : (x != x ? x : 0.0f); /* relu keeps NaN */
    case 2: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case 3: {
        /* x * sigmoid(2u) == 0.5 x (1 + tanh u), without the cancellation */
        float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
        return x / (1.0f + expf(-2.0f * u));
    }
    case 4: return x / (1.0f + expf(-x));
    default: return x;
    }
}

/* A kernel's argument block (its only argument) through a pointer the
 * compiler cannot see through, so that AMD code loads each field from the
 * kernarg segment where it is used instead of loading the whole block up
 * front: the blocks of the row kernels (their views) and of the GEMM (30
 * arguments) would fill the ~100 scalar registers of a wave and spill.
 * NVIDIA reads arguments from the constant bank anyway: there it is the
 * argument itself. */
template <typename T> __device__ __forceinline__ const T &pk_fresh_args(const T &a)
{
#if PK_HIP_AMD
    typedef const __attribute__((address_space(4))) T kernarg;
    kernarg *p = (kernarg *)__builtin_amdgcn_kernarg_segment_ptr();
    asm volatile("" : "+s"(p));
    return *(const T *)p;
#else
    return a;
#endif
}

/* Programmatic dependent launch (sm_90 on): a kernel the host launches
 * with it may start while the previous kernel of the stream still runs.
 * Before the wait it may only prefetch; after it, everything the previous
 * kernel wrote is visible and nothing it reads is still being read. The
 * trigger lets such a successor start once every block has issued it. In
 * a kernel launched the usual way, before sm_90, or on AMD, both do
 * nothing. */
__device__ __forceinline__ void pk_grid_dependency_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void pk_grid_launch_dependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* bytes (a multiple of 16) from p (16-byte aligned) into L2, by one thread */
__device__ __forceinline__ void pk_prefetch_l2_bulk(const void *p, unsigned bytes)
{
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
}
#endif

#endif /* PK_KERNELS_GPU_GPU_COMMON_H */
