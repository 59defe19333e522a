/* Unit test of the HIP attention plan: the tiled kernel and its row tile
 * per head dim, the 16-row tile for decode, and the split-KV rule (chunks
 * of whole 64-key tiles, splits filling the CUs once). */
#include <stdio.h>
#include <string.h>

#include "hip_attention_plan.h"

static int failures;

static const pk_hip_target mi250 = {"gfx90a", 64, 104, 65536, 1, 0};

static pk_attention_problem problem(pk_dtype dt, int64_t b, int64_t sq, int64_t skv, int64_t hq, int64_t hkv,
                                    int64_t d)
{
    pk_attention_problem p;
    memset(&p, 0, sizeof p);
    p.batch = b, p.sq = sq, p.skv = skv, p.hq = hq, p.hkv = hkv, p.d = d;
    p.q.dtype = p.k.dtype = p.v.dtype = p.o.dtype = dt;
    p.window_left = p.window_right = -1;
    p.uniform_lengths = 1;
    return p;
}

static void expect(const pk_attention_problem *p, const char *name, int bm, int threads, int row_tiles, int n_splits,
                   int chunk, int line)
{
    pk_hip_attn_plan plan;
    pk_hip_attn_plan_make(p, &mi250, &plan);
    if (strcmp(plan.kernel_name, name) || plan.bm != bm || plan.threads != threads || plan.row_tiles != row_tiles ||
        plan.n_splits != n_splits || plan.chunk != chunk || plan.smem || plan.kernel != PK_HIP_ATTN_TILED) {
        failures++;
        printf("FAIL line %d: got %s bm %d threads %d tiles %d splits %d chunk %d smem %u; want %s %d %d %d %d %d\n",
               line, plan.kernel_name, plan.bm, plan.threads, plan.row_tiles, plan.n_splits, plan.chunk, plan.smem,
               name, bm, threads, row_tiles, n_splits, chunk);
    }
}

#define EXPECT(p, ...) expect(&(p), __VA_ARGS__, __LINE__)

int main(void)
{
    /* prefill: one pass, the row tile of each head dim (tiled_cfg<D, false>) */
    pk_attention_problem p = problem(PK_F16, 1, 33, 33, 2, 2, 64);
    EXPECT(p, "pk_attn_tiled_f16_d64", 64, 256, 1, 1, 64);
    p = problem(PK_BF16, 1, 1024, 1024, 32, 8, 128); /* 4 heads of 1024 queries per kv head */
    EXPECT(p, "pk_attn_tiled_bf16_d128", 32, 128, 128, 1, 1024);
    p = problem(PK_F32, 1, 17, 17, 2, 2, 256);
    EXPECT(p, "pk_attn_tiled_f32_d256", 16, 128, 2, 1, 64);
    p = problem(PK_F32, 1, 33, 33, 2, 2, 80);
    EXPECT(p, "pk_attn_tiled_f32_d80", 32, 128, 2, 1, 64);

    /* at most 16 rows per kv head: the 16-row tile (D <= 128) */
    p = problem(PK_F16, 1, 1, 1000, 8, 8, 128);
    EXPECT(p, "pk_attn_tiled_f16_d128_rows16", 16, 256, 1, 3, 384);
    p = problem(PK_F16, 1, 4, 1027, 4, 4, 256); /* D = 256 keeps its own tile */
    EXPECT(p, "pk_attn_tiled_f16_d256", 16, 128, 1, 4, 320);

    /* split-KV: 104 CUs x 4 blocks over 4 blocks, at most skv / 256 splits */
    p = problem(PK_BF16, 2, 1, 4100, 8, 2, 128);
    EXPECT(p, "pk_attn_tiled_bf16_d128_rows16", 16, 256, 1, 13, 320); /* 16 splits of 257 round up to 320 keys */
    p = problem(PK_F16, 1, 1, 131072, 32, 8, 128); /* 8 blocks: 52 splits */
    EXPECT(p, "pk_attn_tiled_f16_d128_rows16", 16, 256, 1, 52, 2560);
    /* many rows per kv head, or a short key range: one pass */
    p = problem(PK_F16, 1, 65, 4096, 2, 2, 64);
    EXPECT(p, "pk_attn_tiled_f16_d64", 64, 256, 2, 1, 4096);
    p = problem(PK_F16, 1, 1, 511, 2, 2, 64);
    EXPECT(p, "pk_attn_tiled_f16_d64_rows16", 16, 256, 1, 1, 512);

    if (failures) printf("%d failures\n", failures);
    else printf("hip_attention_plan: ok\n");
    return failures != 0;
}
