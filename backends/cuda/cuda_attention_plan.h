/* Kernel and tile choice for CUDA attention: plain C, no CUDA, so that it
 * can be unit-tested on the CPU. The kernels are in kernels_cuda/attention*. */
#ifndef PK_CUDA_ATTENTION_PLAN_H
#define PK_CUDA_ATTENTION_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../../kernels_cuda/attention_kernels.h"
#include "backend.h"
#include "pk_gpu_args.h"
#include "pk_kernel_list.h"

/* The kernels of the list in kernels_cuda/attention_kernels.h by index,
 * and their entry points' names. */
#define PK_CU_ATTN_ID(kind, module, name, ...) PK_CU_##name,
PK_KERNEL_LIST_ENUM(PK_CU_ATTN_KERNELS, PK_CU_ATTN_ID, pk_cu_attn_kernel, PK_CU_ATTN_KERNEL_COUNT);

typedef enum pk_cu_attn_kind {
    PK_CU_ATTN_MMA_ROWS, /* tensor cores, warps split the rows: prefill, 64-row blocks */
    PK_CU_ATTN_MMA_ROWS128, /* the same, 128-row blocks of 32 rows a warp, 64-key tiles (D <= 128, many rows) */
    PK_CU_ATTN_MMA_ROWS128N32, /* rows128 with 32-key tiles */
    PK_CU_ATTN_MMA_ROWS128W8,  /* 128-row blocks of 8 warps x 16 rows */
    PK_CU_ATTN_MMA_KEYS, /* tensor cores, 16 packed rows, warps split the keys: decode */
    PK_CU_ATTN_SIMT,     /* CUDA cores: f32, strided or unaligned layouts */
    PK_CU_ATTN_WGMMA,    /* Hopper (sm_90a module): wgmma, warp-specialised, 128-row blocks */
} pk_cu_attn_kind;

typedef pk_gpu_attn_plan pk_cu_attn_plan; /* kind: pk_cu_attn_kind */

/* Whether the tensor-core kernels can read q, k and v: f16/bf16, the head
 * dim contiguous, offsets and strides whole 16-byte units. */
int pk_cu_attn_mma_layout(const pk_attention_problem *p);

/* PORTKERN_CUDA_ATTN as the backend reads it at each call, for A/B timing:
 * "rows", "rows128", "rows128n32" or "rows128w8" is that kind, which the
 * plan then forces wherever it applies (a tensor-core problem with more
 * than 16 packed rows, the variant built for its head dim, its tiles
 * fitting); "wgmma" is PK_CU_ATTN_WGMMA, the Hopper kernel without its
 * ping-pong, wherever it takes the problem (pk_cu_attn_wgmma_takes), the
 * plan's choice elsewhere; "wgmma-pp" PK_CU_ATTN_KNOB_WGMMA_PP, the
 * ping-pong form, which the plan also picks without a knob;
 * "wgmma-pp176" PK_CU_ATTN_KNOB_WGMMA_PP176, that form with 176-key tiles
 * at D = 128 where no causal or window mask bounds the keys
 * (attention_tiles.h; slower than the plan's 128 on the H100 with TMA,
 * kept for A/B timing); "wgmma-pp-cpasync" PK_CU_ATTN_KNOB_WGMMA_PP_CPASYNC,
 * the plan's form with every K and V tile copied by cp.async (no TMA
 * maps: tile_keys 0); "mma"
 * PK_CU_ATTN_KNOB_MMA, the plan's choice with the Hopper kernel left out;
 * unset (NULL) or any other value is -1, the plan's choice. */
#define PK_CU_ATTN_KNOB_WGMMA_PP (PK_CU_ATTN_WGMMA + 1) /* knob values, no kinds of plan */
#define PK_CU_ATTN_KNOB_MMA (PK_CU_ATTN_WGMMA + 2)
#define PK_CU_ATTN_KNOB_WGMMA_PP176 (PK_CU_ATTN_WGMMA + 3)
#define PK_CU_ATTN_KNOB_WGMMA_PP_CPASYNC (PK_CU_ATTN_WGMMA + 4)
int pk_cu_attn_knob_of(const char *value);

/* Whether the Hopper kernel (kernels_cuda/attention_wgmma.cuh) takes p on
 * a device of compute capability sm that loaded the attention_sm90 module
 * (wgmma: 1): sm 90, the tensor-core layout, head dim 64, 128 or 256,
 * more than 16 packed rows per kv head, its shared memory fitting, and
 * one pass (the split rule gives its 128-row grid one piece: the kernel
 * writes no split-KV partials). */
int pk_cu_attn_wgmma_takes(const pk_attention_problem *p, int sm, int sm_count, size_t smem_optin, int wgmma);

/* sm: compute capability (e.g. 90); sm_count and smem_optin size the split
 * and check the tiles fit; wgmma: the device loaded the attention_sm90
 * module (sm_90a code); knob: pk_cu_attn_knob_of's. Without a knob the
 * plan gives the Hopper kernel's ping-pong form every problem it takes
 * (on the H100 and H200 it ran prefill 1.1-1.9x the mma.sync kernels:
 * bench/RESULTS.md, 2026-12-05 18:29-19:14 UTC). */
void pk_cu_attn_plan_make_knob(const pk_attention_problem *p, int sm, int sm_count, size_t smem_optin, int wgmma,
                               int knob, pk_cu_attn_plan *plan);

/* Every variant pk_cu_attn_plan_make_knob can give on a device of compute
 * capability sm with smem_optin bytes of dynamic shared memory (wgmma: its
 * Hopper module loaded), without a knob (the rows128n32 and rows128w8
 * kernels and the Hopper kernel without ping-pong are only reached by
 * one):
 * each kernel's name once to fn, split when it writes split-KV partials
 * for the merge kernel (a variant of its own). For the conformance
 * coverage test (tests/test_cover_attention.c). */
void pk_cu_attn_plan_variants(int sm, size_t smem_optin, int wgmma,
                              void (*fn)(void *ctx, const char *name, int split), void *ctx);
/* Those only PORTKERN_CUDA_ATTN picks (the 128-row variants besides
 * rows128; the Hopper kernel without ping-pong where wgmma, never split). */
void pk_cu_attn_plan_knob_variants(int sm, size_t smem_optin, int wgmma,
                                   void (*fn)(void *ctx, const char *name, int split), void *ctx);

#endif
