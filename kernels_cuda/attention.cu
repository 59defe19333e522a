/* Attention kernels (backends/gpu/gpu_attention.c launches them), one per
 * entry of the list in attention_kernels.h. All take one pk_attn_params
 * (attention_common.cuh), the merge the head dim too. */
#include "../kernels_gpu/gpu_common.h"
#include "attention_common.cuh"
#include "attention_kernels.h"
#include "attention_mma.cuh"
#include "attention_simt.cuh"
#include "attention_tiles.h"

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

/* the tiles of attention_tiles.h, each pk_attn::<name>_cfg<D> */
#define PK_ATTN_CFG(name, NWM, NWN, MT, BN, ST) template <int D> using name##_cfg = mma_cfg<D, NWM, NWN, MT, BN, ST>;
PK_CU_ATTN_TILES(PK_ATTN_CFG)

} // namespace pk_attn

#define PK_ATTN_ENTRY(kind, module, name, ...) PK_ATTN_##kind(name, __VA_ARGS__)

#define PK_ATTN_MMA(name, DT, D, tiles)                                                                 \
    extern "C" __global__ void __launch_bounds__(pk_attn::tiles##_cfg<D>::NT, 1) name(const pk_attn_params p) \
    {                                                                                                   \
        pk_grid_launch_dependents();                                                                    \
        pk_attn::mma_attention<DT, pk_attn::tiles##_cfg<D>>(p);                                         \
    }

#define PK_ATTN_SIMT(name, DT, D)                                                                       \
    extern "C" __global__ void __launch_bounds__(pk_attn::simt_cfg<D>::NT) name(const pk_attn_params p) \
    {                                                                                                   \
        pk_grid_launch_dependents();                                                                    \
        pk_attn::simt_attention<DT, D>(p);                                                              \
    }

#define PK_ATTN_MERGE(name, DT)                                                                         \
    extern "C" __global__ void name(const pk_attn_params p, int d)                                      \
    {                                                                                                   \
        pk_grid_launch_dependents();                                                                    \
        pk_attn::merge<DT>(p, d);                                                                       \
    }

PK_CU_ATTN_KERNELS(PK_ATTN_ENTRY)
