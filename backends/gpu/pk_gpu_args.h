/* Kernel argument blocks shared by the GPU backends whose kernels take the
 * same parameters (CUDA and HIP: kernels_cuda/ and kernels_hip/ follow one
 * ABI). Plain C, no vendor headers: a device address is the pk_mem value
 * itself on both, so the marshalling is the same code. */
#ifndef PK_GPU_ARGS_H
#define PK_GPU_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "../../kernels_gpu/attn_abi.h"
#include "../../kernels_gpu/gemm_abi.h"
#include "backend.h"

static inline uint64_t pk_gpu_addr(pk_mem m) { return (uint64_t)(uintptr_t)m; }

/* GEMM: the values of the kernels' parameters (kernels_gpu/gemm_abi.h)
 * and `args`, the launch's parameter array, which points into this
 * struct: fill it where it will stay until the launch, and do not copy it. */
typedef struct pk_gpu_gemm_args {
    pk_gemm_kargs v;
    void *args[PK_GEMM_NPARAMS];
} pk_gpu_gemm_args;

void pk_gpu_gemm_args_fill(const pk_gemm_problem *p, pk_gpu_gemm_args *g);

/* An attention plan of the CUDA family (cuda_attention_plan.c,
 * hip_attention_plan.c), as gpu_attention.c launches it: grid {batch *
 * hkv, n_splits, row_tiles} of `threads`, then the merge when split. */
typedef struct pk_gpu_attn_plan {
    int kind;          /* the backend's own kinds of kernel */
    int kernel, merge; /* of the backend's kernel list; merge: of the partials, when n_splits > 1 */
    int bm;            /* packed rows per block */
    int threads;
    unsigned smem;     /* dynamic shared memory (LDS) in bytes */
    int row_tiles;     /* over the hq / hkv * sq packed rows of a kv head */
    int n_splits;      /* 1: one pass; else split-KV partials and a merge */
    int chunk;         /* keys per split */
    int tile_keys;     /* keys a K and V tile where the kernel copies them by TMA (CUDA's Hopper kernel); else 0 */
} pk_gpu_attn_plan;

/* Scratch of one attention call: per-batch lengths (int32, len_q then
 * len_kv; none when uniform), then from a 256-byte boundary the split
 * partials (f32): (m, l) per row and split, then d accumulators per row
 * and split (none in one pass). */
typedef struct pk_gpu_attn_scratch {
    size_t lens_bytes, part_start, part_bytes;
} pk_gpu_attn_scratch;

pk_gpu_attn_scratch pk_gpu_attn_scratch_layout(const pk_attention_problem *p, int n_splits);

/* lens and part: device addresses of the lengths and partials, 0 if none. */
void pk_gpu_attn_params_fill(const pk_attention_problem *p, int chunk, int n_splits, uint64_t lens, uint64_t part,
                             pk_attn_params *a);

/* A kernel list's entry (kernels_cuda/gemm_kernels.h, ...) as its name */
#define PK_GPU_KERNEL_NAME(kind, module, name, ...) #name,

#endif /* PK_GPU_ARGS_H */
