/* Kernel and tile choice for HIP attention: plain C, no HIP headers, so that
 * it is unit-tested on the CPU. The kernels are in kernels_hip/attention*.
 * The plan is a pk_gpu_attn_plan (backends/gpu/pk_gpu_args.h, which says
 * how backends/gpu/gpu_attention.c launches it); HIP's kernels use static
 * LDS only, so its smem is always 0. */
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
    PK_HIP_ATTN_MFMA,  /* CDNA matrix cores: f16/bf16, head dim contiguous */
    PK_HIP_ATTN_WMMA   /* RDNA matrix cores (gfx11, gfx12): the same problems */
} pk_hip_attn_kind;

typedef pk_gpu_attn_plan pk_hip_attn_plan; /* kind: pk_hip_attn_kind */

void pk_hip_attn_plan_make(const pk_attention_problem *p, const pk_hip_target *t, pk_hip_attn_plan *plan);

/* Every variant pk_hip_attn_plan_make can give on target t: each kernel's
 * name once to fn, split when it writes split-KV partials for the merge
 * kernel (a variant of its own). For the conformance coverage test
 * (tests/test_cover_attention.c). */
void pk_hip_attn_plan_variants(const pk_hip_target *t, void (*fn)(void *ctx, const char *name, int split), void *ctx);

#endif
