/* Kernel and tile choice for HIP attention. The tile shapes mirror the
 * configurations in kernels_hip/attention*.h (named beside each constant).
 *
 * Kernels, per dtype and head dim D:
 *   pk_attn_mfma_<dt>_d<D>        CDNA matrix cores (mfma_cfg: 128 rows, 256
 *                                 threads): f16/bf16 with the head dim
 *                                 contiguous in q, k and v, on wave64
 *                                 targets with MFMA (gfx90a, gfx940)
 *   pk_attn_tiled_<dt>_d<D>       vector ALUs, prefill rows (tiled_cfg)
 *   pk_attn_tiled_<dt>_d<D>_rows16  the same for at most 16 rows per kv
 *                                 head (decode), D <= 128: 16 threads a row
 * Split-KV (decode) when few rows share a kv head and the key range is
 * long, as many splits as fill the CUs once (pk_attn_split_keys, the rule
 * every backend shares). */
#include <stdio.h>

#include "hip_attention_plan.h"
#include "pk_attn_split.h"

#define SPLIT_MAX_ROWS 64
#define SPLIT_MIN_SKV 512
#define MIN_CHUNK 256
#define MAX_SPLITS 128
/* chunks are whole tiles of every kernel's key loop */
#define KEY_UNIT 64
/* resident blocks per CU a split aims for */
#define BLOCKS_PER_CU 4
/* mfma_cfg<D> in kernels_hip/attention_mfma.h */
#define MFMA_BM 128
#define MFMA_THREADS 256

/* The MFMA kernels: matrix cores, wave64, 16-bit q, k, v of one dtype
 * whose head dim is contiguous (the kernels read d with unit stride). */
static int mfma_fits(const pk_attention_problem *p, const pk_hip_target *t)
{
    if (!t->has_mfma || t->platform_nvidia || t->wave_size != 64) return 0;
    if (p->q.dtype == PK_F32 || p->k.dtype != p->q.dtype || p->v.dtype != p->q.dtype) return 0;
    return p->q.stride[3] == 1 && p->k.stride[3] == 1 && p->v.stride[3] == 1;
}

static const char *dtype_tag(pk_dtype t) { return t == PK_F32 ? "f32" : t == PK_F16 ? "f16" : "bf16"; }

void pk_hip_attn_plan_make(const pk_attention_problem *p, const pk_hip_target *t, pk_hip_attn_plan *plan)
{
    const int64_t rows = p->sq * (p->hq / p->hkv);
    const int64_t cus = t->cu_count > 0 ? t->cu_count : 1;
    const char *dt = dtype_tag(p->q.dtype);
    const int d = (int)p->d;
    *plan = (pk_hip_attn_plan){0};

    plan->kernel = PK_HIP_ATTN_TILED;
    if (!(rows <= 16 && d <= 128) && mfma_fits(p, t)) { /* mfma_cfg<D> */
        plan->kernel = PK_HIP_ATTN_MFMA;
        plan->bm = MFMA_BM;
        plan->threads = MFMA_THREADS;
        snprintf(plan->kernel_name, sizeof plan->kernel_name, "pk_attn_mfma_%s_d%d", dt, d);
    } else if (rows <= 16 && d <= 128) { /* tiled_cfg<D, true> */
        plan->bm = 16;
        plan->threads = 256;
        snprintf(plan->kernel_name, sizeof plan->kernel_name, "pk_attn_tiled_%s_d%d_rows16", dt, d);
    } else { /* tiled_cfg<D, false> */
        plan->bm = d == 64 ? 64 : d == 256 ? 16 : 32;
        plan->threads = plan->bm * (d == 256 ? 8 : 4);
        snprintf(plan->kernel_name, sizeof plan->kernel_name, "pk_attn_tiled_%s_d%d", dt, d);
    }
    plan->row_tiles = (int)((rows + plan->bm - 1) / plan->bm);

    const int64_t whole = (p->skv + KEY_UNIT - 1) / KEY_UNIT * KEY_UNIT;
    plan->n_splits = 1;
    plan->chunk = (int)(whole > 0 ? whole : KEY_UNIT);
    if (rows > SPLIT_MAX_ROWS || p->skv < SPLIT_MIN_SKV) return;

    const pk_attn_split sp = pk_attn_split_keys(p->skv, p->batch * p->hkv * plan->row_tiles, cus * BLOCKS_PER_CU, 1,
                                                MIN_CHUNK, MAX_SPLITS, KEY_UNIT);
    plan->chunk = (int)sp.chunk;
    plan->n_splits = sp.n;
}

void pk_hip_attn_plan_variant(const pk_hip_attn_plan *plan, char *name, size_t n)
{
    snprintf(name, n, "%s%s", plan->kernel_name, plan->n_splits > 1 ? "+split" : "");
}

void pk_hip_attn_plan_variants(const pk_hip_target *t, void (*fn)(void *ctx, const char *name), void *ctx)
{
    static const int dims[] = {64, 80, 96, 128, 256};
    static const pk_dtype dts[] = {PK_F32, PK_F16, PK_BF16};
    /* mfma_fits for a problem that has it all */
    const int mfma = t->has_mfma && !t->platform_nvidia && t->wave_size == 64;
    char name[80];
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < sizeof dims / sizeof dims[0]; j++) {
            const char *dt = dtype_tag(dts[i]);
            const int d = dims[j];
            /* split: at most SPLIT_MAX_ROWS rows, long keys; every kernel
             * takes such rows (MFMA from 17, or any at d = 256) */
            for (int split = 0; split < 2; split++) {
                const char *sp = split ? "+split" : "";
                if (d <= 128) {
                    snprintf(name, sizeof name, "pk_attn_tiled_%s_d%d_rows16%s", dt, d, sp);
                    fn(ctx, name);
                }
                /* on MFMA targets 16-bit problems reach the tiled kernel
                 * when the head dim is strided */
                snprintf(name, sizeof name, "pk_attn_tiled_%s_d%d%s", dt, d, sp);
                fn(ctx, name);
                if (mfma && dts[i] != PK_F32) {
                    snprintf(name, sizeof name, "pk_attn_mfma_%s_d%d%s", dt, d, sp);
                    fn(ctx, name);
                }
            }
        }
}
