/* Unit test of the OpenCL attention plan: every decode tile it gives fits
 * the kernel's assumptions and the device, its chunks cover the keys, and
 * the decode shapes of the bench fill an H200 with work-groups. */
#include <stdio.h>
#include <string.h>

#include "opencl_attention_plan.h"
#include "opencl_table_params.h"
#include "plan_check.h"

static pk_device_info device(const char *name, int is_cpu, uint64_t local_mem, int compute_units)
{
    pk_device_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.name, sizeof info.name, "%s", name);
    if (!strcmp(name, "H200")) snprintf(info.vendor, sizeof info.vendor, "NVIDIA Corporation");
    info.is_cpu = is_cpu;
    info.local_mem_bytes = local_mem;
    info.compute_units = compute_units;
    return info;
}

/* [B, S, H, D] contiguous K and V (Q and O alike), bf16 unless dt says */
static pk_attention_problem problem(pk_dtype dt, int64_t b, int64_t sq, int64_t skv, int64_t hq, int64_t hkv,
                                    int64_t d)
{
    pk_attention_problem p;
    memset(&p, 0, sizeof p);
    p.batch = b, p.sq = sq, p.skv = skv, p.hq = hq, p.hkv = hkv, p.d = d;
    pk_view *kv[2] = {&p.k, &p.v};
    for (int i = 0; i < 2; i++) {
        kv[i]->dtype = dt;
        int64_t s[4] = {skv * hkv * d, hkv * d, d, 1};
        memcpy(kv[i]->stride, s, sizeof s);
    }
    p.q.dtype = p.o.dtype = dt;
    return p;
}

static void test_decode_tiles(void)
{
    const pk_device_info devs[] = {device("H200", 0, 48 * 1024, 132), device("PoCL", 1, 1024 * 1024, 2),
                                   device("small", 0, 16 * 1024, 8)};
    static const int dims[] = {64, 80, 96, 128, 256};
    static const int64_t skvs[] = {512, 1000, 4097, 131072};
    for (size_t x = 0; x < sizeof devs / sizeof devs[0]; x++)
        for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
            for (int64_t sq = 1; sq <= 4; sq++)
                for (int64_t group = 1; group <= 16; group *= 2)
                    for (size_t k = 0; k < sizeof skvs / sizeof skvs[0]; k++) {
                        const int d = dims[i];
                        const int64_t rows = sq * group, skv = skvs[k];
                        pk_attention_problem p = problem(PK_F16, 2, sq, skv, 2 * group, 2, d);
                        pk_cl_attn_plan pl;
                        pk_cl_attn_plan_make(table_params(&devs[x]), &p, &devs[x], &pl);
                        const pk_cl_attn_decode *t = &pl.dec;
                        char name[64];
                        pk_cl_attn_plan_variant(&pl, d, name, sizeof name);
                        CHECK(pl.split, "%s %s: sq %lld skv %lld is not decode", devs[x].name, name, (long long)sq,
                              (long long)skv);
                        CHECK(t->tpk * t->nv * 8 == d, "%s %s: lanes do not tile D", devs[x].name, name);
                        const int max_rows = table_params(&devs[x])->decode.max_rows;
                        CHECK((t->rows & (t->rows - 1)) == 0 && t->rows <= max_rows &&
                                  (t->rows >= rows || t->rows == max_rows),
                              "%s %s: %d rows for %lld (at most %d)", devs[x].name, name, t->rows, (long long)rows,
                              max_rows);
                        CHECK(t->rows * t->nv * 8 <= 64, "%s %s: %d floats of Q a work-item", devs[x].name, name,
                              t->rows * t->nv * 8);
                        CHECK(t->slots * t->tpk <= 128 && t->slots >= 1 && t->unroll >= 1, "%s %s: %d x %d",
                              devs[x].name, name, t->slots, t->tpk);
                        CHECK(pk_cl_attn_decode_local_bytes(d, *t) <= devs[x].local_mem_bytes,
                              "%s %s: %zu bytes of local memory", devs[x].name, name,
                              pk_cl_attn_decode_local_bytes(d, *t));
                        CHECK((int64_t)pl.row_tiles * t->rows >= rows && (pl.row_tiles - 1) * t->rows < rows,
                              "%s %s: %d row tiles", devs[x].name, name, pl.row_tiles);
                        CHECK(pl.chunk % (t->slots * t->unroll) == 0, "%s %s: chunk %d", devs[x].name, name,
                              pl.chunk);
                        CHECK((int64_t)pl.n_splits * pl.chunk >= skv && (int64_t)(pl.n_splits - 1) * pl.chunk < skv,
                              "%s %s: %d chunks of %d for %lld keys", devs[x].name, name, pl.n_splits, pl.chunk,
                              (long long)skv);
                        CHECK(pl.merge_groups >= 1 && pl.merge_groups * d <= 256, "%s %s: merge of %d x %d",
                              devs[x].name, name, pl.merge_groups, d);
                        CHECK(pl.n_splits >= 1 && pl.n_splits <= 256, "%s %s: %d splits", devs[x].name, name,
                              pl.n_splits);
                        const pk_cl_attn_decode_params *dp = &table_params(&devs[x])->decode;
                        CHECK(t->unroll == 1 || t->unroll * t->rows <= dp->q_floats, "%s %s: %d x %d weights a step",
                              devs[x].name, name, t->unroll, t->rows);
                        CHECK(pl.max_regs == (x == 0 ? dp->regs : 0), "%s %s: register bound %d", devs[x].name, name,
                              pl.max_regs);
                    }
}

static void test_bench_shapes_fill_h200(void)
{
    const pk_device_info h200 = device("H200", 0, 48 * 1024, 132);
    pk_cl_attn_plan pl;
    char name[64];

    /* the table's entry (portkern tune on the H200): registers for 64
     * floats give 8 lanes a key, 2 runs each, 4 keys a slot a step, and
     * work-groups for wg_per_cu per multiprocessor */
    const pk_cl_attn_decode_params *dp = &table_params(&h200)->decode;
    pk_attention_problem p = problem(PK_BF16, 32, 1, 4096, 32, 8, 128);
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    pk_cl_attn_plan_variant(&pl, p.d, name, sizeof name);
    CHECK(!strcmp(name, "decode_d128_r4_t8x2_u4_vec"), "B32 Skv4096: %s", name);
    CHECK(32 * 8 * pl.n_splits >= dp->wg_per_cu * 132, "B32 Skv4096: %d splits leave compute units idle",
          pl.n_splits);
    CHECK(pl.n_splits > 1, "B32 Skv4096: one split");
    /* enough kv heads to fill the device alone: one split, no merge */
    p = problem(PK_BF16, 33, 1, 4096, 32, 8, 128);
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(pl.split && pl.n_splits == 1 && pl.chunk >= 4096, "B33 Skv4096: %d splits of %d keys", pl.n_splits,
          pl.chunk);

    /* the kernel's local memory, counted by hand: Q (4 x 128), two steps'
     * partials (8 lanes x (16 slots x 4 keys x 4 rows + 4)), two steps' sums */
    CHECK(pk_cl_attn_decode_local_bytes(128, pl.dec) == 4 * (4 * 128 + 2 * 8 * (64 * 4 + 4) + 2 * 64 * 4),
          "B32 Skv4096: %zu bytes of local memory", pk_cl_attn_decode_local_bytes(128, pl.dec));
    CHECK(pl.max_regs == dp->regs, "B32 Skv4096: register bound %d", pl.max_regs);

    p = problem(PK_BF16, 1, 1, 131072, 32, 8, 128);
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(8 * pl.n_splits >= dp->wg_per_cu * 132, "B1 Skv131072: %d splits for 8 kv heads", pl.n_splits);
}

static void test_paths_and_loads(void)
{
    const pk_device_info h200 = device("H200", 0, 48 * 1024, 132);
    pk_cl_attn_plan pl;
    pk_attention_problem p = problem(PK_BF16, 1, 5, 4096, 8, 8, 128);
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(!pl.split, "sq 5 takes the prefill kernel");
    p = problem(PK_BF16, 1, 1, 511, 8, 8, 128);
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(!pl.split, "511 keys take the prefill kernel");

    p = problem(PK_BF16, 1, 1, 1000, 8, 8, 128);
    CHECK(pk_cl_attn_vec_ok(&p), "contiguous bf16 takes 16-byte loads");
    p.v.offset = 4;
    CHECK(!pk_cl_attn_vec_ok(&p), "bf16 V 8 bytes off a 16-byte boundary");
    p = problem(PK_F32, 1, 1, 1000, 8, 8, 128);
    p.k.offset = 4;
    CHECK(pk_cl_attn_vec_ok(&p), "f32 K 16 bytes in");
    p.k.stride[1] = 130;
    CHECK(!pk_cl_attn_vec_ok(&p), "f32 rows of 520 bytes");
    p = problem(PK_F16, 1, 1, 1000, 8, 8, 128);
    p.k.stride[3] = 8;
    CHECK(!pk_cl_attn_vec_ok(&p), "strided D");
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(pl.split && !pl.dec.vec, "strided D takes the element loads");
}

/* q [B, S, H, D] contiguous too: the layout the tensor-core kernel takes */
static pk_attention_problem dense(pk_dtype dt, int64_t sq, int64_t skv, int64_t d)
{
    pk_attention_problem p = problem(dt, 2, sq, skv, 8, 2, d);
    int64_t s[4] = {sq * 8 * d, 8 * d, d, 1};
    memcpy(p.q.stride, s, sizeof s);
    return p;
}

static void test_tensor_core_prefill(void)
{
    pk_device_info h200 = device("H200", 0, 48 * 1024, 132);
    h200.matrix_units = 1;
    pk_cl_attn_plan pl;
    char name[64];
    /* keys a tile: the most of 64, 32, 16 whose two stages of K and V fit
     * 48 KiB with the rows' windows */
    static const struct {
        int d, bn;
    } fits[] = {{64, 64}, {80, 64}, {96, 32}, {128, 32}, {256, 16}, {16, 64}, {192, 16}};
    for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++) {
        const int d = fits[i].d;
        for (int dt = PK_F16; dt <= PK_BF16; dt++) {
            pk_attention_problem p = dense((pk_dtype)dt, 2048, 2048, d);
            pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
            pk_cl_attn_plan_variant(&pl, d, name, sizeof name);
            char want[64];
            snprintf(want, sizeof want, "mma_d%d_w4_n%d_s2", d, fits[i].bn);
            CHECK(!pl.split && pl.mma && !strcmp(name, want), "D %d dtype %d: %s, not %s", d, dt, name, want);
            const size_t bytes = pk_cl_attn_mma_local_bytes(d, pl.mt, 0);
            CHECK(bytes <= 48 * 1024, "D %d: %zu bytes of local memory", d, bytes);
            CHECK((size_t)16 * pl.mt.nw * (d + 8) * 2 <= (size_t)2 * pl.mt.st * pl.mt.bn * (d + 8) * 2,
                  "D %d: the Q tile does not fit the stages", d);
        }
    }
    /* counted by hand: 2 stages x (K, V) x 32 keys x 136 elements x 2
     * bytes, and 64 rows' windows */
    pk_attention_problem p = dense(PK_BF16, 2048, 2048, 128);
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(pk_cl_attn_mma_local_bytes(128, pl.mt, 0) == 2 * 2 * 32 * 136 * 2 + 64 * 8, "D 128: %zu bytes",
          pk_cl_attn_mma_local_bytes(128, pl.mt, 0));

    /* what it refuses goes to the portable prefill */
    struct {
        const char *why;
        pk_attention_problem p;
    } no[] = {
        {"f32", dense(PK_F32, 64, 64, 128)}, {"D 72", dense(PK_BF16, 64, 64, 72)},
        {"D 272", dense(PK_BF16, 64, 64, 272)}, {"q 4 elements in", dense(PK_BF16, 64, 64, 128)},
        {"K rows of 132 elements", dense(PK_BF16, 64, 64, 128)}, {"strided D of V", dense(PK_BF16, 64, 64, 128)},
        {"K of another dtype", dense(PK_BF16, 64, 64, 128)},
    };
    no[3].p.q.offset = 4;
    no[4].p.k.stride[1] = 132;
    no[5].p.v.stride[3] = 2;
    no[6].p.k.dtype = PK_F16;
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        CHECK(!pk_cl_attn_mma_layout(&no[i].p), "%s: taken by the tensor-core kernel", no[i].why);
        pk_cl_attn_plan_make(table_params(&h200), &no[i].p, &h200, &pl);
        CHECK(!pl.split && !pl.mma, "%s: plan %s", no[i].why, pl.mma ? "mma" : "split");
    }
    /* devices without the probe's pass, and decode shapes, never take it */
    p = dense(PK_BF16, 64, 64, 128);
    h200.matrix_units = 0;
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(!pl.mma, "no matrix units: mma");
    const pk_device_info pocl = device("PoCL", 1, 1024 * 1024, 2);
    pk_cl_attn_plan_make(table_params(&pocl), &p, &pocl, &pl);
    CHECK(!pl.mma, "PoCL: mma");
}

/* problem() with q and o [B, sq, hq, D] contiguous too */
static pk_attention_problem dense_decode(pk_dtype dt, int64_t b, int64_t sq, int64_t skv, int64_t hq, int64_t hkv,
                                         int64_t d)
{
    pk_attention_problem p = problem(dt, b, sq, skv, hq, hkv, d);
    int64_t s[4] = {sq * hq * d, hq * d, d, 1};
    memcpy(p.q.stride, s, sizeof s);
    memcpy(p.o.stride, s, sizeof s);
    return p;
}

static void test_tensor_core_decode(void)
{
    pk_device_info h200 = device("H200", 0, 48 * 1024, 132);
    h200.matrix_units = 1;
    pk_cl_attn_plan pl;
    char name[64];
    /* 2 warps on tiles of 32 keys where two stages fit 48 KiB; D 256 only
     * with one warp on 16 keys (2 x 2 x 32 x 264 x 2 bytes would not) */
    static const struct {
        int d, nwn, bn;
    } fits[] = {{64, 2, 32}, {80, 2, 32}, {96, 2, 32}, {128, 2, 32}, {256, 1, 16}, {16, 2, 32}, {192, 1, 16}};
    for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++)
        for (int dt = PK_F16; dt <= PK_BF16; dt++)
            for (int64_t sq = 1; sq <= 4; sq++) {
                const int d = fits[i].d;
                pk_attention_problem p = dense_decode((pk_dtype)dt, 3, sq, 4097, 8, 2, d);
                pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
                pk_cl_attn_plan_variant(&pl, d, name, sizeof name);
                char want[64];
                snprintf(want, sizeof want, "mma_decode_d%d_k%d_n%d_s2", d, fits[i].nwn, fits[i].bn);
                CHECK(pl.split && pl.mma && !strcmp(name, want), "D %d sq %lld: %s, not %s", d, (long long)sq, name,
                      want);
                if (!pl.mma) continue;
                CHECK(pk_cl_attn_mma_local_bytes(d, pl.mt, 1) <= 48 * 1024, "D %d: %zu bytes", d,
                      pk_cl_attn_mma_local_bytes(d, pl.mt, 1));
                /* the warps' merge (f32 rows of d + 4) reuses the stages */
                CHECK((size_t)pl.mt.nwn * 16 * (d + 4) * 4 <= (size_t)2 * pl.mt.st * pl.mt.bn * (d + 8) * 2,
                      "D %d: the merge does not fit the stages", d);
                const int64_t rows = sq * 4;
                CHECK(pl.row_tiles == (rows + 15) / 16, "D %d: %d row tiles for %lld rows", d, pl.row_tiles,
                      (long long)rows);
                CHECK(pl.chunk % pl.mt.bn == 0 && (int64_t)pl.n_splits * pl.chunk >= 4097 &&
                          (int64_t)(pl.n_splits - 1) * pl.chunk < 4097,
                      "D %d: %d chunks of %d", d, pl.n_splits, pl.chunk);
            }
    /* counted by hand: 2 stages x (K, V) x 32 keys x 136 elements x 2
     * bytes, 16 rows' windows, and 2 warps' (m, l) of each row */
    pk_attention_problem p = dense_decode(PK_BF16, 32, 1, 4096, 32, 8, 128);
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(pk_cl_attn_mma_local_bytes(128, pl.mt, 1) == 2 * 2 * 32 * 136 * 2 + 16 * 8 + 2 * 16 * 8,
          "D 128: %zu bytes", pk_cl_attn_mma_local_bytes(128, pl.mt, 1));
    /* B32: 256 (batch, kv head) groups, one wave of 6 a compute unit:
     * 792 / 256 = 3 chunks, of 1366 keys rounded up to whole tiles */
    CHECK(pl.n_splits == 3 && pl.chunk == 1376, "B32: %d chunks of %d", pl.n_splits, pl.chunk);
    /* f32, or K with strided D: the portable decode kernel */
    p = dense_decode(PK_F32, 32, 1, 4096, 32, 8, 128);
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(pl.split && !pl.mma, "f32 decode on the tensor cores");
    p = dense_decode(PK_BF16, 32, 1, 4096, 32, 8, 128);
    p.k.stride[3] = 2;
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(pl.split && !pl.mma, "strided K on the tensor cores");
    h200.matrix_units = 0;
    p = dense_decode(PK_BF16, 32, 1, 4096, 32, 8, 128);
    pk_cl_attn_plan_make(table_params(&h200), &p, &h200, &pl);
    CHECK(pl.split && !pl.mma, "no matrix units: mma decode");
}

int main(void)
{
    test_tensor_core_prefill();
    test_tensor_core_decode();
    test_decode_tiles();
    test_bench_shapes_fill_h200();
    test_paths_and_loads();
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "OK", failures);
    return failures ? 1 : 0;
}
