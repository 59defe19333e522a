/* Unit test of the HIP attention plan: the MFMA kernels on CDNA and the
 * WMMA kernels of its generation on RDNA3/RDNA4 (and on HIP on NVIDIA when
 * PORTKERN_HIP_WMMA asks) for f16/bf16 with the head dim contiguous, the
 * tiled kernel and its row tile
 * per head dim elsewhere, the 16-row tile for decode, and the split-KV rule
 * (chunks of whole 64-key tiles, splits filling the CUs once). */
#include <stdio.h>
#include <string.h>

#include "hip_attention_plan.h"

static int failures;

static const pk_hip_target mi250 = {"gfx90a", 64, 104, 65536, 1, 0, 0};
static const pk_hip_target rdna = {"gfx1030", 32, 104, 65536, 0, 0, 0};
static const pk_hip_target nvidia = {"sm_90", 32, 104, 232448, 0, 1, 0};
static const pk_hip_target rdna3 = {"gfx1100", 32, 96, 65536, 0, 0, 11};
static const pk_hip_target rdna4 = {"gfx1201", 32, 64, 65536, 0, 0, 12};
static const pk_hip_target nvidia_wmma11 = {"sm_90", 32, 104, 232448, 0, 1, 11};

static pk_attention_problem problem(pk_dtype dt, int64_t b, int64_t sq, int64_t skv, int64_t hq, int64_t hkv,
                                    int64_t d)
{
    pk_attention_problem p;
    memset(&p, 0, sizeof p);
    p.batch = b, p.sq = sq, p.skv = skv, p.hq = hq, p.hkv = hkv, p.d = d;
    p.q.dtype = p.k.dtype = p.v.dtype = p.o.dtype = dt;
    /* contiguous {B, S, H, D} */
    p.q.stride[0] = sq * hq * d, p.q.stride[1] = hq * d, p.q.stride[2] = d, p.q.stride[3] = 1;
    p.k.stride[0] = skv * hkv * d, p.k.stride[1] = hkv * d, p.k.stride[2] = d, p.k.stride[3] = 1;
    p.v = p.k;
    p.o = p.q;
    p.window_left = p.window_right = -1;
    p.uniform_lengths = 1;
    return p;
}

static void expect_on(const pk_hip_target *t, const pk_attention_problem *p, const char *name, int bm, int threads,
                      int row_tiles, int n_splits, int chunk, int line)
{
    pk_hip_attn_plan plan;
    pk_hip_attn_plan_make(p, t, &plan);
    const pk_hip_attn_kind kind = !strncmp(name, "pk_attn_mfma_", 13)   ? PK_HIP_ATTN_MFMA
                                  : !strncmp(name, "pk_attn_wmma", 12) ? PK_HIP_ATTN_WMMA
                                                                        : PK_HIP_ATTN_TILED;
    static const char *const merges[3] = {"pk_attn_merge_f32", "pk_attn_merge_f16", "pk_attn_merge_bf16"};
    const char *got = pk_hip_attn_kernel_names[plan.kernel];
    if (strcmp(got, name) || strcmp(pk_hip_attn_kernel_names[plan.merge], merges[p->o.dtype]) || plan.bm != bm ||
        plan.threads != threads || plan.row_tiles != row_tiles || plan.n_splits != n_splits || plan.chunk != chunk ||
        plan.smem || plan.kind != (int)kind) {
        failures++;
        printf("FAIL line %d: got %s bm %d threads %d tiles %d splits %d chunk %d smem %u; want %s %d %d %d %d %d\n",
               line, got, plan.bm, plan.threads, plan.row_tiles, plan.n_splits, plan.chunk, plan.smem,
               name, bm, threads, row_tiles, n_splits, chunk);
    }
}

#define EXPECT_ON(t, p, ...) expect_on(&(t), &(p), __VA_ARGS__, __LINE__)
#define EXPECT(p, ...) EXPECT_ON(mi250, p, __VA_ARGS__)

int main(void)
{
    /* prefill on CDNA, f16/bf16: the MFMA kernels, 128 rows a block */
    pk_attention_problem p = problem(PK_F16, 1, 33, 33, 2, 2, 64);
    EXPECT(p, "pk_attn_mfma_f16_d64", 128, 256, 1, 1, 64);
    EXPECT_ON(rdna, p, "pk_attn_tiled_f16_d64", 64, 256, 1, 1, 64);   /* no matrix cores */
    EXPECT_ON(nvidia, p, "pk_attn_tiled_f16_d64", 64, 256, 1, 1, 64); /* HIP on NVIDIA */
    p.k.stride[3] = 2;                                                /* head dim not contiguous */
    EXPECT(p, "pk_attn_tiled_f16_d64", 64, 256, 1, 1, 64);
    p = problem(PK_BF16, 1, 1024, 1024, 32, 8, 128); /* 4 heads of 1024 queries per kv head */
    EXPECT(p, "pk_attn_mfma_bf16_d128", 128, 256, 32, 1, 1024);
    EXPECT_ON(rdna, p, "pk_attn_tiled_bf16_d128", 32, 128, 128, 1, 1024);
    p = problem(PK_F16, 2, 100, 300, 4, 4, 80);
    EXPECT(p, "pk_attn_mfma_f16_d80", 128, 256, 1, 1, 320);
    p = problem(PK_BF16, 1, 300, 300, 1, 1, 96);
    EXPECT(p, "pk_attn_mfma_bf16_d96", 128, 256, 3, 1, 320);
    /* RDNA3 and RDNA4: the WMMA kernels of their generation where MFMA
     * would be picked, 128 rows a block (64 at D = 256); HIP on NVIDIA
     * when asked (emulated there) */
    p = problem(PK_F16, 1, 33, 33, 2, 2, 64);
    EXPECT_ON(rdna3, p, "pk_attn_wmma11_f16_d64", 128, 256, 1, 1, 64);
    EXPECT_ON(rdna4, p, "pk_attn_wmma12_f16_d64", 128, 256, 1, 1, 64);
    EXPECT_ON(nvidia_wmma11, p, "pk_attn_wmma11_f16_d64", 128, 256, 1, 1, 64);
    p.v.stride[3] = 2; /* head dim not contiguous */
    EXPECT_ON(rdna3, p, "pk_attn_tiled_f16_d64", 64, 256, 1, 1, 64);
    p = problem(PK_BF16, 1, 1024, 1024, 32, 8, 128);
    EXPECT_ON(rdna4, p, "pk_attn_wmma12_bf16_d128", 128, 256, 32, 1, 1024);
    p = problem(PK_BF16, 2, 100, 300, 4, 4, 80);
    EXPECT_ON(rdna3, p, "pk_attn_wmma11_bf16_d80", 128, 256, 1, 1, 320);
    p = problem(PK_F16, 1, 300, 300, 1, 1, 256);
    EXPECT_ON(rdna3, p, "pk_attn_wmma11_f16_d256", 64, 128, 5, 1, 320);
    EXPECT_ON(rdna4, p, "pk_attn_wmma12_f16_d256", 64, 128, 5, 1, 320);
    p = problem(PK_F32, 1, 300, 300, 1, 1, 96); /* f32: tiled */
    EXPECT_ON(rdna4, p, "pk_attn_tiled_f32_d96", 32, 128, 10, 1, 320);
    p = problem(PK_F16, 1, 1, 1000, 8, 8, 128); /* decode: the 16-row tile */
    EXPECT_ON(rdna3, p, "pk_attn_tiled_f16_d128_rows16", 16, 256, 1, 3, 384);

    /* f32: the tiled kernels everywhere */
    p = problem(PK_F32, 1, 17, 17, 2, 2, 256);
    EXPECT(p, "pk_attn_tiled_f32_d256", 16, 128, 2, 1, 64);
    p = problem(PK_F32, 1, 33, 33, 2, 2, 80);
    EXPECT(p, "pk_attn_tiled_f32_d80", 32, 128, 2, 1, 64);

    /* at most 16 rows per kv head: the 16-row tile (D <= 128) */
    p = problem(PK_F16, 1, 1, 1000, 8, 8, 128);
    EXPECT(p, "pk_attn_tiled_f16_d128_rows16", 16, 256, 1, 3, 384);
    p = problem(PK_F16, 1, 4, 1027, 4, 4, 256); /* D = 256 has no 16-row tile: MFMA (split) on CDNA */
    EXPECT(p, "pk_attn_mfma_f16_d256", 128, 256, 1, 4, 320);
    EXPECT_ON(rdna, p, "pk_attn_tiled_f16_d256", 16, 128, 1, 4, 320);

    /* split-KV: 104 CUs x 4 blocks over 4 blocks, at most skv / 256 splits */
    p = problem(PK_BF16, 2, 1, 4100, 8, 2, 128);
    EXPECT(p, "pk_attn_tiled_bf16_d128_rows16", 16, 256, 1, 13, 320); /* 16 splits of 257 round up to 320 keys */
    p = problem(PK_F16, 1, 1, 131072, 32, 8, 128); /* 8 blocks: 52 splits */
    EXPECT(p, "pk_attn_tiled_f16_d128_rows16", 16, 256, 1, 52, 2560);
    p = problem(PK_F16, 1, 40, 8192, 1, 1, 128); /* 40 rows: MFMA, 32 splits of 256 keys */
    EXPECT(p, "pk_attn_mfma_f16_d128", 128, 256, 1, 32, 256);
    /* many rows per kv head, or a short key range: one pass */
    p = problem(PK_F16, 1, 65, 4096, 2, 2, 64);
    EXPECT(p, "pk_attn_mfma_f16_d64", 128, 256, 1, 1, 4096);
    EXPECT_ON(rdna, p, "pk_attn_tiled_f16_d64", 64, 256, 2, 1, 4096);
    p = problem(PK_F16, 1, 1, 511, 2, 2, 64);
    EXPECT(p, "pk_attn_tiled_f16_d64_rows16", 16, 256, 1, 1, 512);

    if (failures) printf("%d failures\n", failures);
    else printf("hip_attention_plan: ok\n");
    return failures != 0;
}
