/* Kernel and tile choice for HIP attention, among the kernels of
 * kernels_hip/attention_kernels.h, with the tiles of
 * kernels_hip/attention_tiles.h (which the kernels read too).
 * MFMA takes f16/bf16 with the head dim contiguous in q, k and v, on wave64
 * targets with MFMA (gfx90a, gfx942, gfx950); WMMA the same problems on wave32
 * targets with RDNA matrix cores (gfx11, gfx12: the kernels of its
 * generation; HIP on NVIDIA when PORTKERN_HIP_WMMA asks, emulated); the
 * 16-row tiled kernel at most 16 rows per kv head (decode), D <= 128; the
 * tiled kernel the rest.
 * Split-KV: pk_attn_split_gpu, CUDA's rule too. */
#include "hip_attention_plan.h"
#include "../../kernels_hip/attention_tiles.h"
#include "pk_attn_split.h"
#include "pk_gpu_args.h"

/* resident blocks per CU a split aims for */
#define BLOCKS_PER_CU 4

/* The matrix-core kernels' targets: MFMA, wave64; WMMA of generation 11
 * or 12 (0: none), wave32 */
static int has_mfma(const pk_hip_target *t) { return t->has_mfma && !t->platform_nvidia && t->wave_size == 64; }
static int wmma_gen(const pk_hip_target *t)
{
    return (t->wmma == 11 || t->wmma == 12) && t->wave_size == 32 ? t->wmma : 0;
}

/* What the matrix-core kernels take: 16-bit q, k, v of one dtype whose
 * head dim is contiguous (the kernels read d with unit stride). */
static int matrix_fits(const pk_attention_problem *p)
{
    if (p->q.dtype == PK_F32 || p->k.dtype != p->q.dtype || p->v.dtype != p->q.dtype) return 0;
    return p->q.stride[3] == 1 && p->k.stride[3] == 1 && p->v.stride[3] == 1;
}

const char *const pk_hip_attn_kernel_names[] = {PK_HIP_ATTN_KERNELS(PK_GPU_KERNEL_NAME)};

/* The list's kernels by dtype (16-bit ones from f16) and head dim */
#define ID(kind, module, name, ...) ID_##kind(PK_HIP_##name, __VA_ARGS__)
#define ID_MFMA(id, DT, D) .mfma[DT - 1][PK_ATTN_DIM_INDEX(D)] = id,
#define ID_WMMA(id, DT, GEN, D) .wmma[(GEN) == 12][DT - 1][PK_ATTN_DIM_INDEX(D)] = id,
#define ID_TILED(id, DT, D) .tiled[DT][PK_ATTN_DIM_INDEX(D)] = id,
#define ID_ROWS16(id, DT, D) .rows16[DT][PK_ATTN_DIM_INDEX(D)] = id,
#define ID_MERGE(id, DT) .merge[DT] = id,
static const struct {
    unsigned char mfma[2][5], wmma[2][2][5], tiled[3][5], rows16[3][4], merge[3];
} ids = {PK_HIP_ATTN_KERNELS(ID)};

void pk_hip_attn_plan_make(const pk_attention_problem *p, const pk_hip_target *t, pk_hip_attn_plan *plan)
{
    const int64_t rows = p->sq * (p->hq / p->hkv);
    const int64_t cus = t->cu_count > 0 ? t->cu_count : 1;
    const int dt = p->q.dtype, d = (int)p->d, di = PK_ATTN_DIM_INDEX(d);
    *plan = (pk_hip_attn_plan){0};

    plan->kind = PK_HIP_ATTN_TILED;
    plan->merge = ids.merge[p->o.dtype];
    const int rows16 = rows <= 16 && d <= 128, gen = wmma_gen(t);
    if (!rows16 && has_mfma(t) && matrix_fits(p)) {
        plan->kind = PK_HIP_ATTN_MFMA;
        plan->bm = PK_HIP_ATTN_MFMA_BM;
        plan->threads = PK_HIP_ATTN_MFMA_THREADS;
        plan->kernel = ids.mfma[dt - 1][di];
    } else if (!rows16 && gen && matrix_fits(p)) {
        plan->kind = PK_HIP_ATTN_WMMA;
        plan->bm = PK_HIP_ATTN_WMMA_BM(d);
        plan->threads = PK_HIP_ATTN_WMMA_THREADS(d);
        plan->kernel = ids.wmma[gen == 12][dt - 1][di];
    } else {
        plan->bm = PK_HIP_ATTN_TILED_BM(d, rows16);
        plan->threads = plan->bm * PK_HIP_ATTN_TILED_TPR(d, rows16);
        plan->kernel = rows16 ? ids.rows16[dt][di] : ids.tiled[dt][di];
    }
    plan->row_tiles = (int)((rows + plan->bm - 1) / plan->bm);

    const pk_attn_split sp = pk_attn_split_gpu(p->skv, rows, p->batch * p->hkv * plan->row_tiles, cus * BLOCKS_PER_CU);
    plan->chunk = (int)sp.chunk;
    plan->n_splits = sp.n;
}

void pk_hip_attn_plan_variants(const pk_hip_target *t, void (*fn)(void *ctx, const char *name, int split), void *ctx)
{
    /* matrix_fits for a problem that has it all; on matrix-core targets
     * 16-bit problems reach the tiled kernel when the head dim is strided.
     * Split: at most PK_ATTN_GPU_SPLIT_MAX_ROWS rows, long keys; every
     * kernel takes such rows (the matrix-core ones from 17, or any at
     * d = 256). */
    const int mfma = has_mfma(t), gen = wmma_gen(t);
#define CAN(kind, module, name, ...) \
    for (int split = 0; CAN_##kind(__VA_ARGS__) && split < 2; split++) \
        fn(ctx, pk_hip_attn_kernel_names[PK_HIP_##name], split);
#define CAN_MFMA(...) mfma
#define CAN_WMMA(DT, GEN, D) (gen == (GEN))
#define CAN_TILED(...) 1
#define CAN_ROWS16(...) 1
#define CAN_MERGE(...) 0
    PK_HIP_ATTN_KERNELS(CAN)
}
