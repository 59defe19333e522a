/* Attention kernels (backends/gpu/gpu_attention.c launches them):
 *   pk_attn_mma_<dt>_d<D>_rows   tensor cores, warps split the rows (prefill), 64-row blocks
 *   pk_attn_mma_<dt>_d<D>_rows128{,n32,w8}  128-row blocks (D <= 128), see rows128_cfg
 *   pk_attn_mma_<dt>_d<D>_keys   tensor cores, 16 GQA-packed rows, warps split the keys (decode)
 *   pk_attn_simt_<dt>_d<D>       CUDA cores, any dtype and strides
 *   pk_attn_merge_<dt>           combines split-KV partials
 * All take one pk_attn_params (attention_common.cuh). */
#include "../kernels_gpu/gpu_common.h"
#include "attention_common.cuh"
#include "attention_mma.cuh"
#include "attention_simt.cuh"

namespace pk_attn {

/* o = sum_s w_s acc_s / sum_s w_s l_s with w_s = exp2(m_s - max m), in
 * split order (no atomics: the same bits every run); lse in natural log.
 * A row whose chunks are all empty gets zeros and -inf. One thread per
 * output element; rows = (b * hq + h) * sq + i. */
template <int DT> __device__ __forceinline__ void merge(const pk_attn_params &p, int d)
{
    typedef PK_T(DT) T;
    int64_t n_rows = (int64_t)p.batch * p.hq * p.sq;
    int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n_rows * d) return;
    int64_t row = x / d;
    int c = (int)(x % d);
    const float *ml = p.part + row * p.n_splits * 2;
    const float *acc = p.part + 2 * n_rows * p.n_splits + row * p.n_splits * d + c;

    float big = -CUDART_INF_F;
    for (int s = 0; s < p.n_splits; s++) big = nanmax(big, ml[2 * s]);
    float sum = 0.0f, out = 0.0f;
    if (big != -CUDART_INF_F) {
        for (int s = 0; s < p.n_splits; s++) {
            float w = exp2f(ml[2 * s] - big);
            sum += w * ml[2 * s + 1];
            out += w * acc[(int64_t)s * d];
        }
        out /= sum;
    }
    int i = (int)(row % p.sq);
    int h = (int)(row / p.sq % p.hq);
    int64_t b = row / p.sq / p.hq;
    T *o = (T *)p.o;
    o[p.off[3] + b * p.os[0] + i * p.os[1] + h * p.os[2] + c * p.os[3]] = pk_from_f32<T>(out);
    if (p.lse && c == 0)
        p.lse[p.off[4] + b * p.ls[0] + h * p.ls[1] + i * p.ls[2]] =
            big == -CUDART_INF_F ? -CUDART_INF_F : (big + log2f(sum)) * CUDART_LN2_F;
}

/* Prefill, few rows: 4 warps of 16 rows; D = 256 takes 32-key tiles so
 * that two stages of K and V fit the A100's shared memory. */
template <int D> using rows_cfg = mma_cfg<D, 4, 1, 1, D == 256 ? 32 : 64, 2>;
/* Prefill, D <= 128, 128-row blocks (they halve the K/V traffic from L2):
 *  rows128     4 warps of 32 rows (two m16 tiles) and 64-key tiles, the
 *              FlashAttention-2 shape: every K and V fragment a warp reads
 *              from shared memory feeds two mma; 2 blocks per SM;
 *  rows128n32  the same with 32-key tiles (fewer registers, twice the
 *              barriers and rescales per FLOP);
 *  rows128w8   8 warps of 16 rows, 64-key tiles: half the registers a
 *              thread, twice the shared-memory reads per mma.
 * The host's PORTKERN_CUDA_ATTN picks one for A/B timing. */
template <int D> using rows128_cfg = mma_cfg<D, 4, 1, 2, 64, 2>;
template <int D> using rows128n32_cfg = mma_cfg<D, 4, 1, 2, 32, 2>;
template <int D> using rows128w8_cfg = mma_cfg<D, 8, 1, 1, 64, 2>;
/* Decode: one 16-row tile, 4 warps of 16 keys each per 64-key tile, three
 * stages of K and V (two tiles in flight while one computes); D = 256
 * keeps two so that it fits the A100. */
template <int D> using keys_cfg = mma_cfg<D, 1, 4, 1, 64, D == 256 ? 2 : 3>;

} // namespace pk_attn

#define PK_ATTN_MMA(dt, DT, D) \
    extern "C" __global__ void __launch_bounds__(pk_attn::rows_cfg<D>::NT, 1) \
        pk_attn_mma_##dt##_d##D##_rows(const pk_attn_params p) \
    { \
        pk_grid_launch_dependents(); \
        pk_attn::mma_attention<DT, pk_attn::rows_cfg<D>>(p); \
    } \
    extern "C" __global__ void __launch_bounds__(pk_attn::keys_cfg<D>::NT, 1) \
        pk_attn_mma_##dt##_d##D##_keys(const pk_attn_params p) \
    { \
        pk_grid_launch_dependents(); \
        pk_attn::mma_attention<DT, pk_attn::keys_cfg<D>>(p); \
    }

#define PK_ATTN_MMA_ROWS(dt, DT, D, name) \
    extern "C" __global__ void __launch_bounds__(pk_attn::name##_cfg<D>::NT, 1) \
        pk_attn_mma_##dt##_d##D##_##name(const pk_attn_params p) \
    { \
        pk_grid_launch_dependents(); \
        pk_attn::mma_attention<DT, pk_attn::name##_cfg<D>>(p); \
    }

#define PK_ATTN_MMA128(dt, DT, D) \
    PK_ATTN_MMA(dt, DT, D) \
    PK_ATTN_MMA_ROWS(dt, DT, D, rows128) PK_ATTN_MMA_ROWS(dt, DT, D, rows128n32) \
    PK_ATTN_MMA_ROWS(dt, DT, D, rows128w8)

#define PK_ATTN_SIMT(dt, DT, D) \
    extern "C" __global__ void __launch_bounds__(pk_attn::simt_cfg<D>::NT) \
        pk_attn_simt_##dt##_d##D(const pk_attn_params p) \
    { \
        pk_grid_launch_dependents(); \
        pk_attn::simt_attention<DT, D>(p); \
    }

#define PK_ATTN_DTYPE(dt, DT) \
    PK_ATTN_SIMT(dt, DT, 64) PK_ATTN_SIMT(dt, DT, 80) PK_ATTN_SIMT(dt, DT, 96) PK_ATTN_SIMT(dt, DT, 128) \
    PK_ATTN_SIMT(dt, DT, 256) \
    extern "C" __global__ void pk_attn_merge_##dt(const pk_attn_params p, int d) { pk_grid_launch_dependents(); pk_attn::merge<DT>(p, d); }

PK_ATTN_DTYPE(f32, 0)
PK_ATTN_DTYPE(f16, 1)
PK_ATTN_DTYPE(bf16, 2)
PK_ATTN_MMA128(f16, 1, 64) PK_ATTN_MMA128(f16, 1, 80) PK_ATTN_MMA128(f16, 1, 96) PK_ATTN_MMA128(f16, 1, 128)
PK_ATTN_MMA(f16, 1, 256)
PK_ATTN_MMA128(bf16, 2, 64) PK_ATTN_MMA128(bf16, 2, 80) PK_ATTN_MMA128(bf16, 2, 96) PK_ATTN_MMA128(bf16, 2, 128)
PK_ATTN_MMA(bf16, 2, 256)
