/* Kernel and tile choice for CUDA attention.
 *
 * The tile shapes here mirror rows_cfg, keys_cfg and simt_cfg in
 * kernels_cuda/attention*.cu(h); the tensor-core kernel traps if it gets
 * less shared memory than its own layout needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_attention_plan.h"
#include "pk_attn_layout.h"
#include "pk_attn_split.h"

/* Split-KV pays off when the rows sharing a kv head are few (decode) and
 * the key range is long, so that one block per row tile would walk it
 * alone. Chunks stay at least this long so that the merge is cheap; they
 * are whole 64-key tiles of every kernel. */
#define PK_CU_ATTN_SPLIT_MAX_ROWS 64
#define PK_CU_ATTN_SPLIT_MIN_SKV 512
#define PK_CU_ATTN_MIN_CHUNK 256
#define PK_CU_ATTN_MAX_SPLITS 128
#define PK_CU_ATTN_KEY_UNIT 64
/* Blocks per multiprocessor a split of the CUDA-core kernel aims for; the
 * tensor-core kernels count their own from shared memory. */
#define PK_CU_ATTN_BLOCKS_PER_SM 4

int pk_cu_attn_mma_layout(const pk_attention_problem *p)
{
    /* the shared rule, and device pointers on 16 bytes */
    return pk_attn_mma_rows(p) && (uintptr_t)p->q.mem % 16 == 0 && (uintptr_t)p->k.mem % 16 == 0 &&
           (uintptr_t)p->v.mem % 16 == 0;
}

/* Dynamic shared memory of mma_cfg<D, nwm, nwn, mt, bn, stages>. */
static unsigned mma_smem(int64_t d, int nwm, int nwn, int mt, int bn, int stages)
{
    int64_t bm = 16 * mt * nwm, qs = d + 8;
    return (unsigned)(bm * qs * 2 + 2 * ((int64_t)stages * bn * qs * 2) + bm * 8 + nwn * bm * 8);
}

/* Blocks of one kernel resident on a multiprocessor: by shared memory (a
 * multiprocessor has smem_optin plus the 1 KiB the runtime reserves per
 * block: 228 KiB on sm_90, 164 KiB on sm_80), at most cap, what the
 * kernel's registers allow (the decode kernel: 145 a thread, 3). */
static int64_t blocks_per_sm(unsigned smem, size_t smem_optin, int64_t cap)
{
    int64_t n = (int64_t)(smem_optin + 1024) / ((int64_t)smem + 1024);
    return n < 1 ? 1 : n > cap ? cap : n;
}

/* The prefill kernels: mma_cfg<D, nwm, 1, mt, bn, 2> in kernels_cuda/attention.cu
 * (rows_cfg, rows128_cfg, rows128n32_cfg, rows128w8_cfg), built for head
 * dims up to max_d; cap: blocks per SM their registers allow (ptxas on
 * sm_90: rows 174 a thread, rows128 255, n32 235, w8 178 x 256 threads). */
typedef struct rows_variant {
    pk_cu_attn_kernel kernel;
    const char *name;
    int nwm, mt, bn, max_d, cap;
} rows_variant;

static const rows_variant rows_variants[] = {
    {PK_CU_ATTN_MMA_ROWS, "rows", 4, 1, 64, 256, 2},
    {PK_CU_ATTN_MMA_ROWS128, "rows128", 4, 2, 64, 128, 2},
    {PK_CU_ATTN_MMA_ROWS128N32, "rows128n32", 4, 2, 32, 128, 2},
    {PK_CU_ATTN_MMA_ROWS128W8, "rows128w8", 8, 1, 64, 128, 1},
};
#define N_ROWS_VARIANTS (sizeof rows_variants / sizeof rows_variants[0])

const char *pk_cu_attn_kernel_suffix(pk_cu_attn_kernel k)
{
    for (size_t i = 0; i < N_ROWS_VARIANTS; i++)
        if (rows_variants[i].kernel == k) return rows_variants[i].name;
    return k == PK_CU_ATTN_MMA_KEYS ? "keys" : "simt";
}

static unsigned variant_smem(const rows_variant *v, int64_t d)
{
    /* rows_cfg takes 32-key tiles at D = 256 to fit the A100 */
    int bn = v->kernel == PK_CU_ATTN_MMA_ROWS && d == 256 ? 32 : v->bn;
    return mma_smem(d, v->nwm, 1, v->mt, bn, 2);
}

/* the variant the knob names, if it is built for d and fits */
static const rows_variant *knob_variant(const char *knob, int64_t d, size_t smem_optin)
{
    if (!knob) return NULL;
    for (size_t i = 0; i < N_ROWS_VARIANTS; i++) {
        const rows_variant *v = &rows_variants[i];
        if (!strcmp(knob, v->name)) return d <= v->max_d && variant_smem(v, d) <= smem_optin ? v : NULL;
    }
    return NULL;
}

void pk_cu_attn_plan_make_knob(const pk_attention_problem *p, int sm, int sm_count, size_t smem_optin,
                               const char *knob, pk_cu_attn_plan *plan)
{
    int64_t rows = p->sq * (p->hq / p->hkv);
    int64_t sms = sm_count > 0 ? sm_count : 1;
    int64_t per_sm = 1;
    *plan = (pk_cu_attn_plan){0};
    plan->kernel = PK_CU_ATTN_SIMT;
    if (sm >= 80 && pk_cu_attn_mma_layout(p)) {
        /* mirrors keys_cfg in kernels_cuda/attention.cu */
        unsigned keys = mma_smem(p->d, 1, 4, 1, 64, p->d == 256 ? 2 : 3);
        const rows_variant *rows64 = &rows_variants[0], *rows128 = &rows_variants[1], *v = NULL;
        /* 128-row blocks when they still fill every multiprocessor twice */
        int64_t tiles128 = p->batch * p->hkv * ((rows + 127) / 128);
        if (rows <= 16 && keys <= smem_optin) {
            plan->kernel = PK_CU_ATTN_MMA_KEYS;
            plan->bm = 16;
            plan->threads = 128;
            plan->smem = keys;
            per_sm = blocks_per_sm(keys, smem_optin, 3);
        } else if (rows > 64 && p->d <= rows128->max_d && tiles128 >= 2 * sms &&
                   variant_smem(rows128, p->d) <= smem_optin) {
            v = rows128;
        } else if (variant_smem(rows64, p->d) <= smem_optin) {
            v = rows64;
        }
        if (v) {
            const rows_variant *forced = knob_variant(knob, p->d, smem_optin);
            if (forced) v = forced;
            plan->kernel = v->kernel;
            plan->bm = 16 * v->mt * v->nwm;
            plan->threads = 32 * v->nwm;
            plan->smem = variant_smem(v, p->d);
            per_sm = blocks_per_sm(plan->smem, smem_optin, v->cap);
        }
    }
    if (plan->kernel == PK_CU_ATTN_SIMT) {
        plan->bm = p->d == 64 ? 64 : p->d == 256 ? 16 : 32;
        plan->threads = plan->bm * (p->d == 256 ? 8 : 4);
        per_sm = PK_CU_ATTN_BLOCKS_PER_SM;
    }
    plan->row_tiles = (int)((rows + plan->bm - 1) / plan->bm);

    int64_t unit = PK_CU_ATTN_KEY_UNIT;
    int64_t whole = (p->skv + unit - 1) / unit * unit;
    plan->n_splits = 1;
    plan->chunk = (int)(whole > 0 ? whole : unit);
    if (rows > PK_CU_ATTN_SPLIT_MAX_ROWS || p->skv < PK_CU_ATTN_SPLIT_MIN_SKV) return;

    /* as many splits as fill one wave of resident blocks */
    const pk_attn_split sp = pk_attn_split_keys(p->skv, p->batch * p->hkv * plan->row_tiles, sms * per_sm, 1,
                                                PK_CU_ATTN_MIN_CHUNK, PK_CU_ATTN_MAX_SPLITS, unit);
    plan->chunk = (int)sp.chunk;
    plan->n_splits = sp.n;
}

static const char *dtype_tag(pk_dtype t) { return t == PK_F32 ? "f32" : t == PK_F16 ? "f16" : "bf16"; }

void pk_cu_attn_kernel_name(const pk_attention_problem *p, const pk_cu_attn_plan *plan, char *name, size_t n)
{
    const char *dt = dtype_tag(p->q.dtype);
    if (plan->kernel == PK_CU_ATTN_SIMT) snprintf(name, n, "pk_attn_simt_%s_d%d", dt, (int)p->d);
    else snprintf(name, n, "pk_attn_mma_%s_d%d_%s", dt, (int)p->d, pk_cu_attn_kernel_suffix(plan->kernel));
}

void pk_cu_attn_plan_variant(const pk_attention_problem *p, const pk_cu_attn_plan *plan, char *name, size_t n)
{
    pk_cu_attn_kernel_name(p, plan, name, n);
    size_t len = strlen(name);
    if (plan->n_splits > 1 && len < n) snprintf(name + len, n - len, "+split");
}

void pk_cu_attn_plan_variants(int sm, size_t smem_optin, void (*fn)(void *ctx, const char *name), void *ctx)
{
    static const int dims[] = {64, 80, 96, 128, 256};
    static const pk_dtype dts[] = {PK_F32, PK_F16, PK_BF16};
    char name[80];
    for (size_t t = 0; t < 3; t++)
        for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
            const int d = dims[i];
            const char *dt = dtype_tag(dts[t]);
            /* the CUDA cores: f32, and 16-bit layouts the tensor-core
             * kernels cannot read; split for few rows and long keys */
            snprintf(name, sizeof name, "pk_attn_simt_%s_d%d", dt, d);
            fn(ctx, name);
            snprintf(name, sizeof name, "pk_attn_simt_%s_d%d+split", dt, d);
            fn(ctx, name);
            if (sm < 80 || dts[t] == PK_F32) continue;
            /* keys: at most 16 rows, split or not; rows: 17 to 64 rows
             * split, more in one pass; rows128 never splits (more than
             * 64 rows) */
            if (mma_smem(d, 1, 4, 1, 64, d == 256 ? 2 : 3) <= smem_optin) {
                snprintf(name, sizeof name, "pk_attn_mma_%s_d%d_keys", dt, d);
                fn(ctx, name);
                snprintf(name, sizeof name, "pk_attn_mma_%s_d%d_keys+split", dt, d);
                fn(ctx, name);
            }
            const rows_variant *rows64 = &rows_variants[0], *rows128 = &rows_variants[1];
            if (variant_smem(rows64, d) <= smem_optin) {
                snprintf(name, sizeof name, "pk_attn_mma_%s_d%d_%s", dt, d, rows64->name);
                fn(ctx, name);
                snprintf(name, sizeof name, "pk_attn_mma_%s_d%d_%s+split", dt, d, rows64->name);
                fn(ctx, name);
            }
            if (d <= rows128->max_d && variant_smem(rows128, d) <= smem_optin) {
                snprintf(name, sizeof name, "pk_attn_mma_%s_d%d_%s", dt, d, rows128->name);
                fn(ctx, name);
            }
        }
}

void pk_cu_attn_plan_knob_variants(int sm, size_t smem_optin, void (*fn)(void *ctx, const char *name), void *ctx)
{
    static const int dims[] = {64, 80, 96, 128, 256};
    static const pk_dtype dts[] = {PK_F16, PK_BF16};
    char name[80];
    if (sm < 80) return;
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
            for (size_t k = 2; k < N_ROWS_VARIANTS; k++) {
                const rows_variant *v = &rows_variants[k];
                if (dims[i] > v->max_d || variant_smem(v, dims[i]) > smem_optin) continue;
                for (int split = 0; split < 2; split++) {
                    snprintf(name, sizeof name, "pk_attn_mma_%s_d%d_%s%s", dtype_tag(dts[t]), dims[i], v->name,
                             split ? "+split" : "");
                    fn(ctx, name);
                }
            }
}
