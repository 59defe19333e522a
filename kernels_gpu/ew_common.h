/* Helpers shared by the elementwise kernels of CUDA and HIP: vector and
 * strided access to one group of values, row addressing, activations over
 * a group, and the fixed-order row reductions over waves of PK_WAVE lanes
 * (gpu_dialect.h). */
#ifndef PK_KERNELS_GPU_EW_COMMON_H
#define PK_KERNELS_GPU_EW_COMMON_H

#include <string.h>

#include "ew_abi.h" /* one argument ABI for the kernels and both backends' host code */
#include "gpu_common.h"

namespace pk_ew {

template <int BYTES> struct raw;
template <> struct raw<16> { typedef uint4 type; };
template <> struct raw<8> { typedef uint2 type; };
template <> struct raw<4> { typedef unsigned type; };
template <> struct raw<2> { typedef unsigned short type; };

/* N values of T at p, as whole loads of up to 16 bytes; the caller has
 * checked p (and N * sizeof(T)) for that alignment on the host. */
template <typename T, int N> __device__ __forceinline__ void load_vec(const T *p, float (&v)[N])
{
    constexpr int bytes = N * (int)sizeof(T) < 16 ? N * (int)sizeof(T) : 16, per = bytes / (int)sizeof(T);
    typedef typename raw<bytes>::type R;
#pragma unroll
    for (int q = 0; q < N / per; q++) {
        const R u = reinterpret_cast<const R *>(p)[q];
        T e[per];
        memcpy(e, &u, sizeof u);
#pragma unroll
        for (int i = 0; i < per; i++) v[q * per + i] = pk_to_f32(e[i]);
    }
}

template <typename T, int N> __device__ __forceinline__ void store_vec(T *p, const float (&v)[N])
{
    constexpr int bytes = N * (int)sizeof(T) < 16 ? N * (int)sizeof(T) : 16, per = bytes / (int)sizeof(T);
    typedef typename raw<bytes>::type R;
#pragma unroll
    for (int q = 0; q < N / per; q++) {
        T e[per];
#pragma unroll
        for (int i = 0; i < per; i++) e[i] = pk_from_f32<T>(v[q * per + i]);
        R u;
        memcpy(&u, e, sizeof u);
        reinterpret_cast<R *>(p)[q] = u;
    }
}

/* One 16-byte chunk as raw bits, and its values: the pipelined kernels
 * keep loads in flight as raw registers and convert when they use them.
 * The streaming forms (AMD: nontemporal; NVIDIA: ld/st.global.cs, evict
 * first) are for data read or written once; they are ordinary coherent
 * accesses, so in-place use (out == x) stays correct. */
#if PK_HIP_AMD
typedef unsigned pk_u32x4 __attribute__((ext_vector_type(4)));
__device__ __forceinline__ uint4 ld_stream(const void *p)
{
    const pk_u32x4 v = __builtin_nontemporal_load(reinterpret_cast<const pk_u32x4 *>(p));
    return make_uint4(v.x, v.y, v.z, v.w);
}
__device__ __forceinline__ void st_stream(void *p, uint4 v)
{
    __builtin_nontemporal_store(pk_u32x4{v.x, v.y, v.z, v.w}, reinterpret_cast<pk_u32x4 *>(p));
}
#else
__device__ __forceinline__ uint4 ld_stream(const void *p) { return __ldcs(reinterpret_cast<const uint4 *>(p)); }
__device__ __forceinline__ void st_stream(void *p, uint4 v) { __stcs(reinterpret_cast<uint4 *>(p), v); }
#endif

template <typename T, int N> __device__ __forceinline__ void unpack16(uint4 u, float (&v)[N])
{
    static_assert(N * sizeof(T) == 16, "one 16-byte chunk");
    T e[N];
    memcpy(e, &u, sizeof u);
#pragma unroll
    for (int i = 0; i < N; i++) v[i] = pk_to_f32(e[i]);
}

template <typename T, int N> __device__ __forceinline__ uint4 pack16(const float (&v)[N])
{
    static_assert(N * sizeof(T) == 16, "one 16-byte chunk");
    T e[N];
#pragma unroll
    for (int i = 0; i < N; i++) e[i] = pk_from_f32<T>(v[i]);
    uint4 u;
    memcpy(&u, e, sizeof u);
    return u;
}

/* Chunk j of a row: V == 1 is one element at stride st (any layout),
 * V > 1 is V contiguous, aligned elements (the vector path, st == 1). */
template <int DT, int V>
__device__ __forceinline__ void load_chunk(const pk_ew_view &v, int64_t off, int64_t j, float (&out)[V])
{
    typedef PK_T(DT) T;
    const T *p = reinterpret_cast<const T *>(v.ptr) + off;
    if constexpr (V == 1) out[0] = pk_to_f32(p[j * v.stride[3]]);
    else load_vec<T, V>(p + j * V, out);
}

template <int DT, int V>
__device__ __forceinline__ void store_chunk(const pk_ew_view &v, int64_t off, int64_t j, const float (&val)[V])
{
    typedef PK_T(DT) T;
    T *p = reinterpret_cast<T *>(v.ptr) + off;
    if constexpr (V == 1) p[j * v.stride[3]] = pk_from_f32<T>(val[0]);
    else store_vec<T, V>(p + j * V, val);
}

/* Leading indices of flat row r (0 <= r < rows) over lead0 x lead1 x
 * lead2; 32-bit division when every index fits, which is every real
 * shape, and none when lead2 is all of them. */
struct row_idx {
    int64_t i0, i1, i2;
};

__device__ __forceinline__ row_idx split_row(int64_t r, int64_t rows, int64_t lead1, int64_t lead2)
{
    if (lead2 == rows) return {0, 0, r}; /* one leading dim longer than 1: no division */
    if (rows <= 0xffffffffll) {
        const uint32_t r32 = (uint32_t)r, l1 = (uint32_t)lead1, l2 = (uint32_t)lead2, t = r32 / l2;
        return {t / l1, t % l1, r32 % l2};
    }
    const int64_t t = r / lead2;
    return {t / lead1, t % lead1, r % lead2};
}

__device__ __forceinline__ int64_t row_off(const pk_ew_view &v, row_idx i)
{
    return i.i0 * v.stride[0] + i.i1 * v.stride[1] + i.i2 * v.stride[2];
}

/* The activation dispatched once for a whole group, not per value. */
template <int ACT, int N> __device__ __forceinline__ void act_with(float (&v)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++) v[i] = pk_act(ACT, v[i]);
}

template <int N> __device__ __forceinline__ void act_all(int act, float (&v)[N])
{
    switch (act) {
    case 1: act_with<1>(v); break;
    case 2: act_with<2>(v); break;
    case 3: act_with<3>(v); break;
    case 4: act_with<4>(v); break;
    default: break;
    }
}

/* max/min that keep NaN, as the reference does (fmaxf would drop it). */
__device__ __forceinline__ float max_nan(float a, float b) { return a != a ? a : b != b ? b : (a > b ? a : b); }
__device__ __forceinline__ float min_nan(float a, float b) { return a != a ? a : b != b ? b : (a < b ? a : b); }

struct op_sum {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct op_max {
    __device__ float operator()(float a, float b) const { return max_nan(a, b); }
};

/* Reduces v over the blockDim.x threads of this row (threadIdx.y picks the
 * row within the block); every thread of the row gets the same bits. The
 * order is fixed by the launch shape and the wave size: a butterfly inside
 * the wave (commutative steps, so all lanes agree), then the row's waves
 * in order from LDS. red holds a float per wave of the block. Every
 * thread of the block must call it. */
template <class Op> __device__ __forceinline__ float row_reduce(float v, float *red)
{
    /* unsigned: the divisions by the wave size are shifts */
    const unsigned tpr = blockDim.x, ws = PK_WAVE, lanes = tpr < ws ? tpr : ws;
    for (unsigned o = 1; o < lanes; o <<= 1) v = Op()(v, __shfl_xor(v, (int)o));
    if (tpr <= ws) return v;
    const unsigned wave = (threadIdx.y * tpr + threadIdx.x) / ws, first = wave - threadIdx.x / ws;
    if (threadIdx.x % ws == 0) red[wave] = v;
    __syncthreads();
    float r = red[first];
    for (unsigned w = 1; w < tpr / ws; w++) r = Op()(r, red[first + w]);
    __syncthreads(); /* red is reused by the next reduction */
    return r;
}

} // namespace pk_ew

#endif /* PK_KERNELS_GPU_EW_COMMON_H */
