/* Rows by device indices (pk_gather_rows, pk_scatter_rows): bit-exact
 * moves of ES-byte elements. A block owns one entry i of the index list at
 * a time (blocks walk the list in a grid-stride loop) and its threads walk
 * the row's columns. Gather: out row i from src row index[i], zeros when
 * the index is outside [0, rows). Scatter: src row i to out row index[i],
 * skipped outside [0, rows), and only when no later entry has the same
 * index, so that of repeated indices the last wins on every run: the block
 * first scans the entries after i. Indices were never checked on the
 * host. */
#ifndef PK_KERNELS_GPU_EW_INDEX_H
#define PK_KERNELS_GPU_EW_INDEX_H

#include "ew_common.h"

namespace pk_ew {

template <int SCATTER, int ES> __device__ __forceinline__ void index_kernel(const pk_ew_index_args &a)
{
    typedef typename raw<ES>::type E;
    __shared__ int later;
    const int32_t *index = reinterpret_cast<const int32_t *>(a.index);
    const E *src = reinterpret_cast<const E *>(a.src.ptr);
    E *out = reinterpret_cast<E *>(a.out.ptr);
    const int64_t sr = a.src.stride[2], sc = a.src.stride[3], orow = a.out.stride[2], oc = a.out.stride[3];
    for (int64_t i = blockIdx.x; i < a.n; i += gridDim.x) {
        const int64_t j = index[i];
        const bool in_range = j >= 0 && j < a.rows;
        if (SCATTER) {
            if (threadIdx.x == 0) later = 0;
            __syncthreads();
            for (int64_t k = i + 1 + threadIdx.x; k < a.n; k += blockDim.x)
                if (index[k] == j) atomicOr(&later, 1);
            __syncthreads();
            if (in_range && !later)
                for (int64_t c = threadIdx.x; c < a.cols; c += blockDim.x) out[j * orow + c * oc] = src[i * sr + c * sc];
            __syncthreads(); /* every thread has read `later` before the next entry resets it */
        } else {
            for (int64_t c = threadIdx.x; c < a.cols; c += blockDim.x)
                out[i * orow + c * oc] = in_range ? src[j * sr + c * sc] : (E)0;
        }
    }
}

} // namespace pk_ew

#endif /* PK_KERNELS_GPU_EW_INDEX_H */
