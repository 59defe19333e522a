/* Kernel and tile choice for CUDA attention.
 *
 * The tile shapes here mirror rows_cfg, keys_cfg and simt_cfg in
 * kernels_cuda/attention*.cu(h); the tensor-core kernel traps if it gets
 * less shared memory than its own layout needs. */
#include "cuda_attention_plan.h"

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

static int aligned16(int64_t elements, size_t elem_size) { return (elements * (int64_t)elem_size) % 16 == 0; }

int pk_cu_attn_mma_layout(const pk_attention_problem *p)
{
    if (p->q.dtype != PK_F16 && p->q.dtype != PK_BF16) return 0;
    const pk_view *v[3] = {&p->q, &p->k, &p->v};
    for (int i = 0; i < 3; i++) {
        if (v[i]->stride[3] != 1 || (uintptr_t)v[i]->mem % 16 || !aligned16(v[i]->offset, 2)) return 0;
        for (int j = 0; j < 3; j++)
            if (!aligned16(v[i]->stride[j], 2)) return 0;
    }
    return 1;
}

/* Dynamic shared memory of mma_cfg<D, nwm, nwn, mt, bn, stages>. */
static unsigned mma_smem(int64_t d, int nwm, int nwn, int mt, int bn, int stages)
{
    int64_t bm = 16 * mt * nwm, qs = d + 8;
    return (unsigned)(bm * qs * 2 + 2 * ((int64_t)stages * bn * qs * 2) + bm * 8 + nwn * bm * 8);
}

/* Blocks of one kernel resident on a multiprocessor: by shared memory (a
 * multiprocessor has smem_optin plus the 1 KiB the runtime reserves per
 * block: 228 KiB on sm_90, 164 KiB on sm_80), at most cap (the kernels'
 * registers, 128 threads of up to 255 each, allow 2; the decode kernel's
 * 145, 3). */
static int64_t blocks_per_sm(unsigned smem, size_t smem_optin, int64_t cap)
{
    int64_t n = (int64_t)(smem_optin + 1024) / ((int64_t)smem + 1024);
    return n < 1 ? 1 : n > cap ? cap : n;
}

void pk_cu_attn_plan_make(const pk_attention_problem *p, int sm, int sm_count, size_t smem_optin,
                          pk_cu_attn_plan *plan)
{
    int64_t rows = p->sq * (p->hq / p->hkv);
    int64_t sms = sm_count > 0 ? sm_count : 1;
    int64_t per_sm = 1;
    *plan = (pk_cu_attn_plan){0};
    plan->kernel = PK_CU_ATTN_SIMT;
    if (sm >= 80 && pk_cu_attn_mma_layout(p)) {
        /* mirrors keys_cfg, rows_cfg and rows128_cfg in kernels_cuda/attention.cu */
        unsigned keys = mma_smem(p->d, 1, 4, 1, 64, p->d == 256 ? 2 : 3);
        unsigned rows64 = mma_smem(p->d, 4, 1, 1, p->d == 256 ? 32 : 64, 2);
        unsigned rows128 = mma_smem(p->d, 4, 1, 2, p->d == 128 ? 32 : 64, 2);
        /* 128-row blocks when they still fill every multiprocessor twice */
        int64_t tiles128 = p->batch * p->hkv * ((rows + 127) / 128);
        if (rows <= 16 && keys <= smem_optin) {
            plan->kernel = PK_CU_ATTN_MMA_KEYS;
            plan->bm = 16;
            plan->smem = keys;
            per_sm = blocks_per_sm(keys, smem_optin, 3);
        } else if (rows > 64 && p->d <= 128 && tiles128 >= 2 * sms && rows128 <= smem_optin) {
            plan->kernel = PK_CU_ATTN_MMA_ROWS128;
            plan->bm = 128;
            plan->smem = rows128;
            per_sm = blocks_per_sm(rows128, smem_optin, 2);
        } else if (rows64 <= smem_optin) {
            plan->kernel = PK_CU_ATTN_MMA_ROWS;
            plan->bm = 64;
            plan->smem = rows64;
            per_sm = blocks_per_sm(rows64, smem_optin, 2);
        }
        if (plan->kernel != PK_CU_ATTN_SIMT) plan->threads = 128;
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

    /* As many splits as fill one wave of resident blocks: a second, partial
     * wave would run at a fraction of the bandwidth (B1 Hkv8 Skv131072 at
     * 64 splits made 512 blocks for 396 places). */
    int64_t blocks = p->batch * p->hkv * plan->row_tiles;
    int64_t n = sms * per_sm / blocks;
    int64_t most = p->skv / PK_CU_ATTN_MIN_CHUNK;
    if (n > most) n = most;
    if (n > PK_CU_ATTN_MAX_SPLITS) n = PK_CU_ATTN_MAX_SPLITS;
    if (n < 1) n = 1;
    int64_t chunk = (p->skv + n - 1) / n;
    chunk = (chunk + unit - 1) / unit * unit;
    plan->chunk = (int)chunk;
    plan->n_splits = (int)((p->skv + chunk - 1) / chunk);
}
