/* Entry points of the fused elementwise ops, one per entry of the list in
 * ew_kernels.h, one source for the CUDA and HIP builds
 * (kernels_cuda/elementwise.cu and kernels_hip/elementwise.hip are this
 * file); the bodies are templates in ew_rows.h, ew_rope.h, ew_chain.h and
 * ew_index.h.
 * Each lets a kernel launched behind it start early (gpu_common.h; on
 * NVIDIA since sm_90); that kernel still waits for it to finish before it
 * reads. */
#ifndef PK_KERNELS_GPU_ELEMENTWISE_H
#define PK_KERNELS_GPU_ELEMENTWISE_H

#include "ew_chain.h"
#include "ew_index.h"
#include "ew_kernels.h"
#include "ew_rope.h"
#include "ew_rows.h"

#define PK_EW_ENTRY(kind, module, name, ...) PK_EW_##kind(name, __VA_ARGS__)
#define PK_EW_KERNEL(name, bound, args, ...)                                                            \
    extern "C" __global__ void __launch_bounds__(bound) name(args a)                                    \
    {                                                                                                   \
        pk_grid_launch_dependents();                                                                    \
        __VA_ARGS__(a);                                                                                 \
    }
#define PK_EW_ROW(name, OP, DT, V, C)                                                                   \
    PK_EW_KERNEL(name, 512, pk_ew_rows_args, pk_ew::row_kernel<pk_ew::OP_##OP, DT, V, C>)
#define PK_EW_RMS(name, OP, DT, V, C) PK_EW_KERNEL(name, 512, pk_ew_rows_args, pk_ew::rmsnorm_vec_kernel<DT, V, C>)
#define PK_EW_EW(name, OP, DT, V) PK_EW_KERNEL(name, 256, pk_ew_rows_args, pk_ew::ew_kernel<pk_ew::OP_##OP, DT, V>)
#define PK_EW_ROPE(name, DT) PK_EW_KERNEL(name, 256, pk_ew_rope_args, pk_ew::rope_kernel<DT>)
#define PK_EW_CHAIN(name, S, E) PK_EW_KERNEL(name, 256, pk_ew_chain_args, pk_ew::chain_kernel<S, E>)
#define PK_EW_INDEX(name, SCATTER, ES) PK_EW_KERNEL(name, 256, pk_ew_index_args, pk_ew::index_kernel<SCATTER, ES>)

PK_EW_KERNELS(PK_EW_ENTRY)

#endif /* PK_KERNELS_GPU_ELEMENTWISE_H */
