/* Host side of the elementwise kernels (rows, rope, chain) of the GPU
 * backends that share kernels_gpu/ew_abi.h (CUDA and HIP): the argument
 * blocks, the kernels and launch shapes. Plain C; each backend only
 * launches the kernel. */
#ifndef PK_GPU_EW_H
#define PK_GPU_EW_H

#include "../../kernels_gpu/ew_abi.h"
#include "../../kernels_gpu/ew_kernels.h"
#include "backend.h"
#include "pk_kernel_list.h"

/* The kernels of the list in kernels_gpu/ew_kernels.h by index, and their
 * entry points' names. */
#define PK_GPU_EW_ID(kind, module, name, ...) PK_GPU_##name,
PK_KERNEL_LIST_ENUM(PK_EW_KERNELS, PK_GPU_EW_ID, pk_gpu_ew_kernel, PK_GPU_EW_KERNEL_COUNT);

/* A kernel and its launch shape. */
typedef struct pk_gpu_launch {
    pk_gpu_ew_kernel kernel;
    unsigned grid[3], block[3];
} pk_gpu_launch;

/* Bytes per element; the modules do not link the core's pk_dtype_size. */
int64_t pk_gpu_ew_dtype_size(pk_dtype t);

/* The kernel argument view of v (ptr 0 when absent). */
pk_ew_view pk_gpu_ew_view(const pk_view *v);

/* Whether w (absent counts as yes) can be read in aligned vector accesses
 * of `bytes` (<= 16) that start at multiples of bytes / elem_size along the
 * last dim: last stride 1, base aligned, and every leading stride aligned
 * where that dim (of sizes lead[0..2]) is longer than 1. */
int pk_gpu_ew_vec_ok(const pk_ew_view *w, int64_t elem_size, const int64_t lead[3], int bytes);

/* Row ops: rmsnorm, layernorm and softmax run one row per blockDim.x
 * threads, glu and bias_act an elementwise grid. *pipelined says the
 * kernel walks rows in a loop meant for one wave of blocks: the backend
 * may cut grid[0] to what fits on the device at once. `who` names the
 * backend in messages. */
pk_status pk_gpu_rows_plan(const pk_rows_problem *p, const char *who, pk_ew_rows_args *a, pk_gpu_launch *l,
                           int *pipelined, pk_msg *msg);

/* Cuts a pipelined row kernel's grid[0] to one wave: per_sm resident
 * blocks on each of sm_count multiprocessors (no cut when either is
 * unknown, <= 0). */
void pk_gpu_rows_one_wave(pk_gpu_launch *l, int per_sm, int sm_count);

/* RoPE: everything but the addresses of the two tables (see below).
 * Returns 0 when there is nothing to do. */
int pk_gpu_rope_plan(const pk_rope_problem *p, pk_ew_rope_args *a, pk_gpu_launch *l);

/* RoPE's tables as one block, positions (int32, padded to 16 bytes) then
 * inverse frequencies (f32; none when the caller gives a device table of
 * them), and a host copy of the block a device holds:
 * the layers of one decode step share their tables, so they are uploaded
 * once a step instead of once a layer (each upload is a host call and a
 * copy between two kernels). */
typedef struct pk_gpu_rope_tables {
    unsigned char *held, *next; /* the device's block, the one being built */
    size_t held_bytes;          /* 0: the device holds none */
    size_t held_cap, next_cap;
} pk_gpu_rope_tables;

/* What a backend lends: a device buffer it keeps for the tables, and a
 * copy into it queued on its stream. */
typedef struct pk_gpu_table_ops {
    /* the kept buffer, made at least `bytes` long; *fresh when its
     * contents were lost (first use, or grown) */
    pk_status (*reserve)(void *dev, size_t bytes, uint64_t *addr, int *fresh, pk_msg *msg);
    /* from pageable host memory, staged before it returns */
    pk_status (*upload)(void *dev, uint64_t addr, const void *src, size_t bytes, pk_msg *msg);
} pk_gpu_table_ops;

/* Points a->tab_pos and a->tab_freq at p's tables on the device (tab_freq
 * at p->inv_freq when given), copying the block there only when it
 * differs from the one the device holds. */
pk_status pk_gpu_rope_tables_place(pk_gpu_rope_tables *t, const pk_rope_problem *p, void *dev,
                                   const pk_gpu_table_ops *ops, pk_ew_rope_args *a, pk_msg *msg);
void pk_gpu_rope_tables_free(pk_gpu_rope_tables *t);

pk_status pk_gpu_chain_plan(const pk_chain_problem *p, const char *who, pk_ew_chain_args *a, pk_gpu_launch *l,
                            pk_msg *msg);

/* Rows by device indices: a block per index entry (a grid-stride walk
 * beyond a million), as many threads as the columns need up to 256. */
void pk_gpu_index_plan(const pk_index_problem *p, pk_ew_index_args *a, pk_gpu_launch *l);

#endif /* PK_GPU_EW_H */
