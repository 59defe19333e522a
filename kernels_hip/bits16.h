/* 16-bit operands as the matrix-core kernels move them (GEMM and
 * attention): raw storage bits of f16 or bf16, single or two to a word (low
 * half first), to f32 and back. DT is the pk_dtype (1 f16, 2 bf16). */
#pragma once

#include "../kernels_gpu/gpu_common.h"

template <int DT> __device__ __forceinline__ float2 pk_unpack2(unsigned w);
template <> __device__ __forceinline__ float2 pk_unpack2<1>(unsigned w)
{
    pk_f16 h[2];
    memcpy(h, &w, 4);
    return make_float2(pk_to_f32(h[0]), pk_to_f32(h[1]));
}
template <> __device__ __forceinline__ float2 pk_unpack2<2>(unsigned w)
{
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}

template <int DT> __device__ __forceinline__ float pk_bits_to_f32(unsigned short u);
template <> __device__ __forceinline__ float pk_bits_to_f32<1>(unsigned short u)
{
    pk_f16 h;
    memcpy(&h, &u, 2);
    return pk_to_f32(h);
}
template <> __device__ __forceinline__ float pk_bits_to_f32<2>(unsigned short u)
{
    return __uint_as_float((unsigned)u << 16);
}

/* round to nearest even */
template <int DT> __device__ __forceinline__ unsigned short pk_f32_to_bits(float x)
{
    const PK_T(DT) h = pk_from_f32<PK_T(DT)>(x);
    unsigned short u;
    memcpy(&u, &h, 2);
    return u;
}

/* all-ones exponent: Inf or NaN */
template <int DT> __device__ __forceinline__ bool pk_nonfinite_bits(unsigned short u)
{
    constexpr unsigned e = DT == 1 ? 0x7c00u : 0x7f80u;
    return (u & e) == e;
}
