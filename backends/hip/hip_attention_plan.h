/* Kernel and tile choice for HIP attention: plain C, no HIP headers, so that
 * it is unit-tested on the CPU. The kernels are in kernels_hip/attention*.
 *
 * How the host launches a plan (backends/gpu/gpu_attention.c, for CUDA's plans too):
 *   1. scratch: per-batch lengths (int32, len_q[batch] then len_kv[batch]),
 *      only when the lengths are not uniform (params.lens, else 0); then,
 *      from a 256-byte boundary and only when n_splits > 1, the split
 *      partials (params.part, f32): batch * hq * sq * n_splits * (d + 2)
 *      floats.
 *   2. kernel with one argument, the params struct by value
 *      (pk_attn_params of kernels_gpu/attn_abi.h, as for CUDA):
 *        grid  {batch * hkv, n_splits, row_tiles}
 *        block {threads, 1, 1}, dynamic LDS smem (always 0: static LDS)
 *   3. when n_splits > 1: merge (pk_attn_merge_<dt of o>) with the arguments
 *      (params, int d):
 *        grid  {ceil(batch * hq * sq * d / 256), 1, 1}
 *        block {256, 1, 1}, no LDS
 * pk_hip_attn_plan_make refuses nothing; the host checks row_tiles <= 65535
 * and batch * hkv < 2^31 (the grid), as the CUDA host does. */
#ifndef PK_HIP_ATTENTION_PLAN_H
#define PK_HIP_ATTENTION_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../../kernels_hip/attention_kernels.h"
#include "backend.h"
#include "pk_gpu_args.h"
#include "pk_kernel_list.h"
#include "hip_target.h"

/* The kernels of the list in kernels_hip/attention_kernels.h by index,
 * and their entry points' names. */
#define PK_HIP_ATTN_ID(kind, module, name, ...) PK_HIP_##name,
PK_KERNEL_LIST_ENUM(PK_HIP_ATTN_KERNELS, PK_HIP_ATTN_ID, pk_hip_attn_kernel, PK_HIP_ATTN_KERNEL_COUNT);

typedef enum pk_hip_attn_kind {
    PK_HIP_ATTN_TILED, /* the vector ALUs: any dtype, strides, target */
    PK_HIP_ATTN_MFMA   /* CDNA matrix cores: f16/bf16, head dim contiguous */
} pk_hip_attn_kind;

typedef pk_gpu_attn_plan pk_hip_attn_plan; /* kind: pk_hip_attn_kind */

void pk_hip_attn_plan_make(const pk_attention_problem *p, const pk_hip_target *t, pk_hip_attn_plan *plan);

/* Every variant pk_hip_attn_plan_make can give on target t: each kernel's
 * name once to fn, split when it writes split-KV partials for the merge
 * kernel (a variant of its own). For the conformance coverage test
 * (tests/test_cover_attention.c). */
void pk_hip_attn_plan_variants(const pk_hip_target *t, void (*fn)(void *ctx, const char *name, int split), void *ctx);

#endif
