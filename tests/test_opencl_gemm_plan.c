/* Unit test of the OpenCL GEMM plan: every table entry can be built and
 * launched within the limits the kernel assumes, the picks for
 * representative devices and shapes are the table's, and the skinny
 * kernel takes exactly the aligned linear-layout decode problems, splitting
 * k only where the column groups leave compute units idle. */
#include <stdio.h>
#include <string.h>

#include "opencl_gemm_plan.h"
#include "opencl_table_params.h"
#include "plan_check.h"

static pk_device_info device(const char *vendor, const char *name, int is_cpu, uint64_t local_mem,
                             int compute_units)
{
    pk_device_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.vendor, sizeof info.vendor, "%s", vendor);
    snprintf(info.name, sizeof info.name, "%s", name);
    info.is_cpu = is_cpu;
    info.local_mem_bytes = local_mem;
    info.compute_units = compute_units;
    return info;
}

static int same_tile(const pk_cl_gemm_tile *x, const pk_cl_gemm_tile *y)
{
    return x->tm == y->tm && x->tn == y->tn && x->tk == y->tk && x->wm == y->wm && x->wn == y->wn;
}

static void test_table_valid(void)
{
    for (int c = 0; c < PK_CL_VENDOR_COUNT; c++) {
        for (int s = 0; s < PK_CL_GEMM_SHAPE_COUNT; s++) {
            const pk_cl_gemm_tile *t = pk_cl_gemm_table((pk_cl_vendor)c, (pk_cl_gemm_shape)s);
            CHECK(t != NULL, "class %d shape %d has no entry", c, s);
            if (!t) continue;
            CHECK(pk_cl_gemm_tile_valid(t, PK_CL_GEMM_MAX_LOCAL_BYTES, PK_CL_GEMM_MAX_WORK_GROUP),
                  "class %d shape %d: tile %dx%dx%d / %dx%d is invalid", c, s, t->tm, t->tn, t->tk, t->wm,
                  t->wn);
            CHECK(t->tm % t->wm == 0 && t->tn % t->wn == 0, "class %d shape %d: micro-tile does not divide",
                  c, s);
            size_t threads = pk_cl_gemm_tile_threads(t);
            CHECK(threads <= 256, "class %d shape %d: %zu work-items", c, s, threads);
            CHECK((size_t)t->tm * t->tk % threads == 0 && (size_t)t->tn * t->tk % threads == 0,
                  "class %d shape %d: tile loads do not divide over %zu work-items", c, s, threads);
            CHECK(pk_cl_gemm_tile_local_bytes(t) <= 32 * 1024, "class %d shape %d: %zu bytes of local memory",
                  c, s, pk_cl_gemm_tile_local_bytes(t));
        }
    }
    CHECK(pk_cl_gemm_table(PK_CL_VENDOR_COUNT, PK_CL_GEMM_LARGE) == NULL, "out-of-range class");
    const pk_cl_gemm_tile *f = pk_cl_gemm_fallback();
    CHECK(pk_cl_gemm_tile_valid(f, 2048, 64), "fallback must fit 2 KiB and 64 work-items");
}

static void test_validity_rules(void)
{
    pk_cl_gemm_tile odd = {64, 64, 16, 3, 4, 0, 1, 0, 0};
    CHECK(!pk_cl_gemm_tile_valid(&odd, 65536, 1024), "WM that does not divide TM accepted");
    pk_cl_gemm_tile big = {128, 128, 64, 8, 8, 0, 1, 0, 0};
    CHECK(!pk_cl_gemm_tile_valid(&big, 65536, 1024), "64 KiB of local memory accepted");
    pk_cl_gemm_tile wide = {128, 128, 16, 4, 4, 0, 1, 0, 0};
    CHECK(!pk_cl_gemm_tile_valid(&wide, 65536, 1024), "1024 work-items accepted");
    pk_cl_gemm_tile uneven = {16, 16, 4, 1, 2, 0, 1, 0, 0};
    CHECK(!pk_cl_gemm_tile_valid(&uneven, 65536, 1024), "uneven tile loads accepted");
    /* warps of 4 x 8 items need the item grid in whole warps of that shape */
    pk_cl_gemm_tile lanes = {128, 128, 16, 8, 8, 1, 1, 0, 0}, flat = {8, 64, 32, 8, 4, 1, 1, 0, 0};
    CHECK(pk_cl_gemm_tile_valid(&lanes, 65536, 256), "16 x 16 items in warps of 4 x 8 rejected");
    CHECK(!pk_cl_gemm_tile_valid(&flat, 65536, 256), "16 x 1 items in warps of 4 x 8 accepted");
    pk_cl_gemm_tile ok = {64, 64, 16, 4, 4, 0, 1, 0, 0};
    CHECK(pk_cl_gemm_tile_valid(&ok, 65536, 256), "64x64x16/4x4 rejected");
    CHECK(!pk_cl_gemm_tile_valid(&ok, 65536, 128), "256 work-items accepted where the device allows 128");
    CHECK(!pk_cl_gemm_tile_valid(&ok, 4096, 256), "8 KiB tile accepted on a 4 KiB device");
}

static void test_classes(void)
{
    pk_device_info nv = device("NVIDIA Corporation", "NVIDIA H200", 0, 49152, 132);
    pk_device_info amd = device("Advanced Micro Devices, Inc.", "gfx90a", 0, 65536, 104);
    pk_device_info intel = device("Intel(R) Corporation", "Intel(R) Arc(TM) A770", 0, 65536, 512);
    pk_device_info pocl = device("GenuineIntel", "pthread-skylake-avx512", 1, 4u << 20, 16);
    pk_device_info other = device("ARM", "Mali-G78", 0, 32768, 24);
    CHECK(pk_cl_vendor_of(&nv) == PK_CL_VENDOR_NVIDIA, "NVIDIA");
    CHECK(pk_cl_vendor_of(&amd) == PK_CL_VENDOR_AMD, "AMD");
    CHECK(pk_cl_vendor_of(&intel) == PK_CL_VENDOR_INTEL, "Intel GPU");
    CHECK(pk_cl_vendor_of(&pocl) == PK_CL_VENDOR_CPU, "a CPU is a CPU whatever its vendor");
    CHECK(pk_cl_vendor_of(&other) == PK_CL_VENDOR_OTHER, "unknown vendor");
}

static void expect(const pk_device_info *info, int64_t batch, int64_t m, int64_t n, pk_cl_vendor cls,
                   pk_cl_gemm_shape shape)
{
    pk_cl_gemm_plan plan;
    int r = pk_cl_gemm_plan_pick(table_params(info), info, 1024, batch, m, n, &plan);
    CHECK(r == 0, "%s: no plan for %lldx%lldx%lld", info->name, (long long)batch, (long long)m, (long long)n);
    if (r) return;
    CHECK(plan.cls == cls && plan.shape == shape && !plan.fallback,
          "%s batch %lld m %lld n %lld: class %d shape %d fallback %d, expected class %d shape %d", info->name,
          (long long)batch, (long long)m, (long long)n, plan.cls, plan.shape, plan.fallback, cls, shape);
    const pk_cl_gemm_tile *t = pk_cl_gemm_table(cls, shape);
    CHECK(same_tile(&plan.tile, t), "%s: plan tile is not the table's", info->name);
    CHECK(plan.local[0] == (size_t)(t->tn / t->wn) && plan.local[1] == (size_t)(t->tm / t->wm),
          "%s: work-group size", info->name);
}

static void test_picks(void)
{
    pk_device_info nv = device("NVIDIA Corporation", "NVIDIA H200", 0, 49152, 132);
    pk_device_info pocl = device("GenuineIntel", "pthread-skylake-avx512", 1, 4u << 20, 2);
    expect(&nv, 1, 4096, 4096, PK_CL_VENDOR_NVIDIA, PK_CL_GEMM_LARGE);    /* 1024 tiles */
    expect(&nv, 1, 512, 512, PK_CL_VENDOR_NVIDIA, PK_CL_GEMM_SMALL);      /* 16 tiles < 264 */
    expect(&nv, 32, 512, 512, PK_CL_VENDOR_NVIDIA, PK_CL_GEMM_LARGE);     /* the batch fills it */
    expect(&nv, 1, 1, 4096, PK_CL_VENDOR_NVIDIA, PK_CL_GEMM_DECODE);
    expect(&nv, 1, 16, 11008, PK_CL_VENDOR_NVIDIA, PK_CL_GEMM_DECODE);
    expect(&nv, 1, 17, 11008, PK_CL_VENDOR_NVIDIA, PK_CL_GEMM_SMALL);
    expect(&pocl, 1, 512, 512, PK_CL_VENDOR_CPU, PK_CL_GEMM_LARGE);
    expect(&pocl, 1, 3, 4096, PK_CL_VENDOR_CPU, PK_CL_GEMM_DECODE);
    expect(&pocl, 1, 9, 4096, PK_CL_VENDOR_CPU, PK_CL_GEMM_LARGE);        /* past the 8-row decode tile */
    expect(&pocl, 1, 64, 64, PK_CL_VENDOR_CPU, PK_CL_GEMM_SMALL);         /* 1 tile < 4 */
}

static void test_fallback(void)
{
    /* 8 KiB of local memory: the NVIDIA large tile (16.1 KiB) does not fit */
    pk_device_info tiny = device("NVIDIA Corporation", "tiny", 0, 8192, 132);
    pk_cl_gemm_plan plan;
    CHECK(pk_cl_gemm_plan_pick(table_params(&tiny), &tiny, 1024, 1, 4096, 4096, &plan) == 0 && plan.fallback &&
              same_tile(&plan.tile, pk_cl_gemm_fallback()),
          "a device too small for the table's tile gets the fallback");
    /* work-groups of at most 128: the 256-item tile does not launch */
    pk_device_info nv = device("NVIDIA Corporation", "NVIDIA H200", 0, 49152, 132);
    CHECK(pk_cl_gemm_plan_pick(table_params(&nv), &nv, 128, 1, 4096, 4096, &plan) == 0 && plan.fallback,
          "a device with small work-groups gets the fallback");
    pk_device_info none = device("NVIDIA Corporation", "none", 0, 512, 1);
    CHECK(pk_cl_gemm_plan_pick(table_params(&none), &none, 1024, 1, 64, 64, &plan) == -1, "no tile fits 512 bytes");
}

/* x[m, k] @ W[n, k]^T in dtype dt, contiguous, as the router hands it over */
static pk_gemm_problem linear(pk_dtype dt, int64_t batch, int64_t m, int64_t n, int64_t k)
{
    pk_gemm_problem p;
    memset(&p, 0, sizeof p);
    p.batch = batch, p.m = m, p.n = n, p.k = k;
    p.a.dtype = p.b.dtype = p.d.dtype = dt;
    p.a.stride[0] = m * k, p.a.stride[1] = k, p.a.stride[2] = 1;
    p.b.stride[0] = n * k, p.b.stride[1] = 1, p.b.stride[2] = k;
    p.d.stride[0] = m * n, p.d.stride[1] = n, p.d.stride[2] = 1;
    return p;
}

static void test_skinny_table(void)
{
    for (int c = 0; c < PK_CL_VENDOR_COUNT; c++) {
        const pk_cl_skinny_params *t = pk_cl_skinny_table((pk_cl_vendor)c);
        CHECK(t != NULL, "class %d has no skinny entry", c);
        if (!t) continue;
        CHECK(t->kl > 0 && t->wg % t->kl == 0 && t->wg <= 256, "class %d: %d items in teams of %d", c, t->wg, t->kl);
        CHECK(t->loads >= 1 && t->max_splits >= 2 && t->min_split_k >= 1 && t->fill >= 1,
              "class %d: loads, splits or fill out of range", c);
        for (int b = 0; b < 5; b++) {
            pk_cl_skinny_plan sk = {.mr = 1 << b, .wg = t->wg, .kl = t->kl, .cpi = t->cpi[b], .rc = 4};
            CHECK(t->cpi[b] >= 1, "class %d bucket %d: no columns", c, b);
            CHECK(pk_cl_skinny_local_bytes(&sk) <= 16 * 1024, "class %d bucket %d: %zu bytes of local memory", c, b,
                  pk_cl_skinny_local_bytes(&sk));
        }
    }
    CHECK(pk_cl_skinny_table(PK_CL_VENDOR_COUNT) == NULL, "out-of-range class");
}

static void skinny_expect(const pk_device_info *info, const pk_gemm_problem *p, int mr, int vw, int splits)
{
    pk_cl_gemm_plan plan;
    int r = pk_cl_gemm_plan_problem(table_params(info), info, 1024, p, &plan);
    CHECK(r == 0 && plan.skinny, "%s m %lld n %lld k %lld: not skinny", info->name, (long long)p->m,
          (long long)p->n, (long long)p->k);
    if (r || !plan.skinny) return;
    const pk_cl_skinny_plan *sk = &plan.sk;
    CHECK(sk->mr == mr && sk->vw == vw && sk->splits == splits,
          "%s m %lld n %lld k %lld: mr %d vw %d splits %d, expected %d %d %d", info->name, (long long)p->m,
          (long long)p->n, (long long)p->k, sk->mr, sk->vw, sk->splits, mr, vw, splits);
    /* the splits cover k once, each a whole number of the team's rounds */
    CHECK(sk->ks * (sk->splits - 1) < p->k || (p->k == 0 && sk->splits == 1), "an empty split");
    CHECK(sk->ks * sk->splits >= p->k, "the splits do not cover k");
    CHECK(sk->splits == 1 || sk->ks % (sk->mma ? 32 : (int64_t)sk->vw * sk->kl) == 0, "a split starts inside a round");
    int64_t nc = sk->mma ? (int64_t)(sk->wg / 32 / sk->kw) * sk->cpi * 8 : (int64_t)(sk->wg / sk->kl) * sk->cpi;
    CHECK(!sk->mma || (sk->kw >= 1 && sk->wg / 32 % sk->kw == 0), "mma: %d warps split into strips of %d",
          sk->wg / 32, sk->kw);
    CHECK(sk->groups == (p->n + nc - 1) / nc, "column groups");
    CHECK(sk->mma || (sk->rc >= 1 && sk->mr % sk->rc == 0), "rows reduced at a time do not divide mr");
}

static void test_skinny_picks(void)
{
    pk_device_info nv = device("NVIDIA Corporation", "NVIDIA H200", 0, 49152, 132);
    pk_device_info pocl = device("GenuineIntel", "pthread-skylake-avx512", 1, 4u << 20, 2);
    pk_gemm_problem p;
    /* Llama decode shapes: enough columns to fill the H200 without a split */
    p = linear(PK_BF16, 1, 1, 4096, 4096);
    skinny_expect(&nv, &p, 1, 8, 1);
    p = linear(PK_BF16, 1, 1, 14336, 4096);
    skinny_expect(&nv, &p, 1, 8, 1);
    p = linear(PK_BF16, 1, 16, 14336, 4096);
    skinny_expect(&nv, &p, 16, 8, 1);
    p = linear(PK_F32, 1, 3, 8192, 4096);
    skinny_expect(&nv, &p, 4, 4, 1);
    /* 256 groups of 4 columns (2 teams of 64 a group, 2 columns a team):
     * fewer than 4 per unit, split in 3 */
    p = linear(PK_F32, 1, 3, 1024, 4096);
    skinny_expect(&nv, &p, 4, 4, 3);
    /* few columns: 10 groups on 132 units want 53 splits, k allows 8 of 1024 */
    p = linear(PK_F16, 1, 1, 40, 8192);
    skinny_expect(&nv, &p, 1, 8, 8);
    p = linear(PK_BF16, 1, 9, 37, 2600);
    skinny_expect(&nv, &p, 16, 8, 2);
    /* k too short to split */
    p = linear(PK_BF16, 1, 1, 40, 1000);
    skinny_expect(&nv, &p, 1, 8, 1);
    /* PoCL: 4096 columns fill 2 cores; 37 do not */
    p = linear(PK_BF16, 1, 1, 4096, 4096);
    skinny_expect(&pocl, &p, 1, 8, 1);
    p = linear(PK_BF16, 1, 5, 37, 2600);
    skinny_expect(&pocl, &p, 8, 8, 3); /* 3 groups of 16 columns want 3 splits */
    /* a batch fills the device as columns do */
    p = linear(PK_BF16, 64, 1, 37, 2600);
    skinny_expect(&pocl, &p, 1, 8, 1);

    /* not the linear layout, misaligned rows, too many rows: the tiled kernel */
    pk_cl_gemm_plan plan;
    const struct { const char *why; int field; } cases[] = {
        {"17 rows", 0}, {"b n-contiguous", 1}, {"a m-contiguous", 2}, {"odd k", 3}, {"b offset 4 bf16", 4},
        {"a row stride 12 bf16", 5}, {"no columns", 6},
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        p = linear(PK_BF16, 1, 4, 4096, 4096);
        switch (cases[i].field) {
        case 0: p = linear(PK_BF16, 1, 17, 4096, 4096); break;
        case 1: p.b.stride[1] = 4096, p.b.stride[2] = 1; break;
        case 2: p.a.stride[1] = 1, p.a.stride[2] = 4; break;
        case 3: p = linear(PK_BF16, 1, 4, 4096, 4097); break;
        case 4: p.b.offset = 4; break;
        case 5: p.a.stride[1] = 12; break;
        case 6: p.n = 0; break;
        }
        CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &p, &plan) == 0 && !plan.skinny, "%s: skinny", cases[i].why);
    }
    /* f32 rows need 4-element alignment only; one row ignores its row stride */
    p = linear(PK_F32, 1, 4, 8192, 4100);
    skinny_expect(&nv, &p, 4, 4, 1);
    p = linear(PK_BF16, 1, 1, 4096, 4096);
    p.a.stride[1] = 3;
    skinny_expect(&nv, &p, 1, 8, 1);
    /* with matrix units, 16-bit decode from mma_min_m rows on takes the
     * tensor cores; the H200's 14336 columns fill it without a split */
    pk_device_info nvm = nv;
    nvm.matrix_units = 1;
    p = linear(PK_BF16, 1, 16, 14336, 4096);
    skinny_expect(&nvm, &p, 16, 8, 1);
    CHECK(pk_cl_gemm_plan_problem(table_params(&nvm), &nvm, 1024, &p, &plan) == 0 && plan.sk.mma,
          "m 16 on matrix units: not the mma kernel");
    p = linear(PK_F16, 1, 9, 37, 2600);
    skinny_expect(&nvm, &p, 16, 8, 2);
    /* a device whose work-groups are too small for the team */
    p = linear(PK_BF16, 1, 1, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 64, &p, &plan) == 0 && !plan.skinny, "128-item group on a 64-item device");
}

/* The tensor-core kernel on a device with matrix units: 16-bit, a
 * k-contiguous, b either way, 16-byte rows; else the tiled kernel. */
static void test_mma_picks(void)
{
    pk_device_info nv = device("NVIDIA Corporation", "NVIDIA H200", 0, 49152, 132);
    nv.matrix_units = 1;
    pk_cl_gemm_plan plan;
    char name[96];
    pk_gemm_problem p = linear(PK_BF16, 1, 4096, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &p, &plan) == 0 && plan.mma && plan.b_kc,
          "bf16 4096^3 linear: not mma bk");
    pk_cl_gemm_plan_variant(&plan, name, sizeof name);
    CHECK(!strcmp(name, "mma_128x128_w2x2_s3_bk"), "variant %s", name);
    CHECK(pk_cl_mma_local_bytes(&plan.mt) <= 49152, "%zu bytes of local memory", pk_cl_mma_local_bytes(&plan.mt));
    /* b as [K, N] */
    p.b.stride[1] = 4096, p.b.stride[2] = 1;
    CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &p, &plan) == 0 && plan.mma && !plan.b_kc,
          "bf16 4096^3, b [K,N]: not mma bn");
    /* 16 rows in the linear layout stay with the skinny kernel; as [K, N]
     * they take mma, the small tile (the narrow one loads only
     * k-contiguous weights) */
    p = linear(PK_F16, 1, 16, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &p, &plan) == 0 && plan.skinny, "m 16: not skinny");
    p.b.stride[1] = 4096, p.b.stride[2] = 1;
    CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &p, &plan) == 0 && plan.mma &&
              plan.mma_shape == PK_CL_MMA_SMALL,
          "m 16 [K,N]: not the small mma tile");
    /* up to the narrow tile's 64 rows: that tile, k over the 8 warps of
     * each of its 128 work-groups of 32 columns (128 for 132 units: not
     * split over work-groups); past it the small one */
    p = linear(PK_BF16, 1, 64, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &p, &plan) == 0 && plan.mma &&
              plan.mma_shape == PK_CL_MMA_NARROW && plan.mt.kwarp && plan.mma_splits == 1,
          "m 64: not the narrow k-over-warps tile, unsplit (%d)", plan.mma_splits);
    pk_cl_gemm_plan_variant(&plan, name, sizeof name);
    CHECK(!strcmp(name, "mma_64x32_w1x1x8_s2_kwarp"), "variant %s", name);
    {
        /* 1024 columns: 32 blocks, k split in 4 pieces over work-groups */
        pk_gemm_problem q = linear(PK_BF16, 1, 64, 1024, 4096);
        pk_cl_gemm_plan qp;
        CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &q, &qp) == 0 && qp.mma && qp.mt.kwarp &&
                  qp.mma_splits == 4,
              "64 x 1024 x 4096: %d pieces", qp.mma_splits);
        pk_cl_gemm_plan_variant(&qp, name, sizeof name);
        CHECK(!strcmp(name, "mma_64x32_w1x1x8_s2_kwarp_split"), "variant %s", name);
    }
    /* its sums: 8 warps x 16 rows x (32 + 8) floats an m16 tile, two
     * tiles at once in 48 KiB, one in 20 KiB, none in less */
    CHECK(pk_cl_mma_local_bytes(&plan.mt) == 20480, "%zu bytes of local memory (one m16 tile's sums)",
          pk_cl_mma_local_bytes(&plan.mt));
    CHECK(pk_cl_mma_red_mt(&plan.mt, 49152) == 2 && pk_cl_mma_red_mt(&plan.mt, 20480) == 1 &&
              pk_cl_mma_red_mt(&plan.mt, 20479) == 0,
          "m16 tiles summed at once: %d, %d, %d", pk_cl_mma_red_mt(&plan.mt, 49152), pk_cl_mma_red_mt(&plan.mt, 20480),
          pk_cl_mma_red_mt(&plan.mt, 20479));
    /* the same as [K, N]: the small tile */
    p.b.stride[1] = 4096, p.b.stride[2] = 1;
    CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &p, &plan) == 0 && plan.mma &&
              plan.mma_shape == PK_CL_MMA_SMALL && !plan.b_kc,
          "m 64 [K,N]: not the small tile");
    p = linear(PK_BF16, 1, 65, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &p, &plan) == 0 && plan.mma &&
              plan.mma_shape == PK_CL_MMA_SMALL,
          "m 65: not the small tile");
    /* and before the large one, whose tiles would be half past M */
    p = linear(PK_BF16, 1, 64, 28672, 4096);
    CHECK(pk_cl_gemm_plan_problem(table_params(&nv), &nv, 1024, &p, &plan) == 0 && plan.mma &&
              plan.mma_shape == PK_CL_MMA_NARROW && plan.mma_splits == 1,
          "m 64 by 28672: not the narrow tile, unsplit");
    /* f32, a m-contiguous, a row of 12 elements, b offset 4, no matrix units, small local memory: tiled */
    const struct { const char *why; int field; } no[] = {
        {"f32", 0}, {"a m-contiguous", 1}, {"a rows of 12", 2}, {"b offset 4", 3}, {"no matrix units", 4},
        {"16 KiB of local memory", 5}, {"b strided both ways", 6},
    };
    for (int i = 0; i < (int)(sizeof no / sizeof no[0]); i++) {
        pk_device_info dev = nv;
        p = linear(PK_BF16, 1, 100, 200, 96);
        switch (no[i].field) {
        case 0: p = linear(PK_F32, 1, 100, 200, 96); break;
        case 1: p.a.stride[1] = 1, p.a.stride[2] = 100; break;
        case 2: p.a.stride[1] = 12, p.k = 12; break;
        case 3: p.b.offset = 4; break;
        case 4: dev.matrix_units = 0; break;
        case 5: dev.local_mem_bytes = 16384; break;
        case 6: p.b.stride[1] = 2, p.b.stride[2] = 2 * 96; break;
        }
        CHECK(pk_cl_gemm_plan_problem(table_params(&dev), &dev, 1024, &p, &plan) == 0 && !plan.mma && !plan.skinny,
              "%s: not the tiled kernel", no[i].why);
    }
}

/* Large tensor-core tiles when they number at least the compute units,
 * else the small tile; tiles the kernel cannot take are refused by name,
 * and one the device cannot hold is not planned. */
/* the pieces of k the plan gives a bf16 m x n x k linear GEMM on the
 * tensor cores; -1 if it takes another kernel */
static int mma_splits_of(const pk_cl_params *prm, const pk_device_info *info, int64_t m, int64_t n, int64_t k)
{
    pk_gemm_problem p = linear(PK_BF16, 1, m, n, k);
    pk_cl_gemm_plan plan;
    return pk_cl_gemm_plan_problem(prm, info, 1024, &p, &plan) == 0 && plan.mma ? plan.mma_splits : -1;
}

static void test_mma_shapes(void)
{
    pk_device_info nv = device("NVIDIA Corporation", "NVIDIA H200", 0, 49152, 132);
    nv.matrix_units = 1;
    pk_cl_params prm = *table_params(&nv);
    char why[256], name[96];
    /* a small tile of its own (not the table's), unsplit until said, and a
     * narrow one of 32 rows, so that M = 33..64 is the small tile's */
    CHECK(pk_cl_params_set(&prm,
                           "gemm_mma_small.bm=64,gemm_mma_small.bn=128,gemm_mma_small.warps_m=2,"
                           "gemm_mma_small.warps_n=2,gemm_mma_small.stages=3,gemm_mma_small.max_splits=1,"
                           "gemm_mma_narrow.bm=32,gemm_mma_narrow.warps_m=1",
                           why, sizeof why) == 0,
          "%s", why);
    pk_cl_gemm_plan plan;
    /* 4096 x 4096: 1024 large tiles; 256 x 4096: 64 of them, under 132 */
    pk_gemm_problem p = linear(PK_BF16, 1, 4096, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma && plan.mma_shape == PK_CL_MMA_LARGE,
          "4096^3: not the large tile");
    p = linear(PK_BF16, 1, 256, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma && plan.mma_shape == PK_CL_MMA_SMALL,
          "256 x 4096: not the small tile");
    pk_cl_gemm_plan_variant(&plan, name, sizeof name);
    CHECK(!strcmp(name, "mma_64x128_w2x2_s3_bk"), "small variant %s", name);
    /* a batch of them fills the device again */
    p = linear(PK_BF16, 3, 256, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma_shape == PK_CL_MMA_LARGE,
          "3 x 256 x 4096: not the large tile");

    /* split-K while the pieces do not outnumber the 132 units: 64 x 4096
     * is 32 tiles of 64 x 128, so 4 pieces (8 would make 256), 2 where
     * that is the most; 512 deep (16 steps of 32 k, pieces of at least
     * 8): 2; 128 rows (64 tiles): 2; 256 rows (128 tiles): none; 7 steps
     * of k: none; large tiles never */
    CHECK(pk_cl_params_set(&prm, "gemm_mma_small.max_splits=8", why, sizeof why) == 0, "%s", why);
    CHECK(mma_splits_of(&prm, &nv, 64, 4096, 1024) == 4, "64 x 4096 x 1024: %d splits", mma_splits_of(&prm, &nv, 64, 4096, 1024));
    CHECK(mma_splits_of(&prm, &nv, 64, 4096, 512) == 2, "64 x 4096 x 512: %d splits", mma_splits_of(&prm, &nv, 64, 4096, 512));
    {
        pk_cl_params q = prm;
        CHECK(pk_cl_params_set(&q, "gemm_mma_small.max_splits=2", why, sizeof why) == 0, "%s", why);
        CHECK(mma_splits_of(&q, &nv, 64, 4096, 4096) == 2, "64 x 4096 x 4096, at most 2: %d splits",
              mma_splits_of(&q, &nv, 64, 4096, 4096));
    }
    p = linear(PK_BF16, 1, 64, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma_shape == PK_CL_MMA_SMALL &&
              plan.mma_splits == 4,
          "64 x 4096 x 4096: %d splits", plan.mma_splits);
    pk_cl_gemm_plan_variant(&plan, name, sizeof name);
    CHECK(!strcmp(name, "mma_64x128_w2x2_s3_bk_split"), "split variant %s", name);
    CHECK(mma_splits_of(&prm, &nv, 128, 4096, 4096) == 2, "128 x 4096 x 4096: %d splits",
          mma_splits_of(&prm, &nv, 128, 4096, 4096));
    CHECK(mma_splits_of(&prm, &nv, 256, 4096, 4096) == 1, "256 x 4096 x 4096: %d splits",
          mma_splits_of(&prm, &nv, 256, 4096, 4096));
    CHECK(mma_splits_of(&prm, &nv, 64, 4096, 200) == 1, "k 200: %d splits", mma_splits_of(&prm, &nv, 64, 4096, 200));
    p = linear(PK_BF16, 1, 4096, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma_shape == PK_CL_MMA_LARGE &&
              plan.mma_splits == 1,
          "4096^3: %d splits", plan.mma_splits);
    {
        pk_cl_params q = prm;
        CHECK(pk_cl_params_set(&q, "gemm_mma_small.max_splits=3", why, sizeof why) != 0, "3 splits accepted");
    }
    /* fill 2: pieces up to twice the units (264 work-groups): 128 rows (64
     * tiles) in 4, 256 rows (128 tiles) in 2; fill 0 is refused */
    {
        pk_cl_params q = prm;
        CHECK(pk_cl_params_set(&q, "gemm_mma_small.fill=2", why, sizeof why) == 0, "%s", why);
        CHECK(mma_splits_of(&q, &nv, 128, 4096, 4096) == 4, "128 x 4096 x 4096, fill 2: %d splits",
              mma_splits_of(&q, &nv, 128, 4096, 4096));
        CHECK(mma_splits_of(&q, &nv, 256, 4096, 4096) == 2, "256 x 4096 x 4096, fill 2: %d splits",
              mma_splits_of(&q, &nv, 256, 4096, 4096));
        CHECK(pk_cl_params_set(&q, "gemm_mma_small.fill=0", why, sizeof why) != 0, "fill 0 accepted");
    }

    /* the kernel's rules */
    const char *bad[] = {
        "gemm_mma.bn=96",                                                           /* n swizzle groups */
        "gemm_mma.bm=64,gemm_mma.warps_m=8",                                        /* warps of 8 rows */
        "gemm_mma.bm=256,gemm_mma.bn=256,gemm_mma.warps_m=1,gemm_mma.warps_n=1",  /* 2048 accumulators */
        "gemm_mma.stages=1",                                                        /* out of range */
        "gemm_mma_narrow.warps_m=2,gemm_mma_narrow.warps_n=4",                      /* breg: warps share columns */
        "gemm_mma_narrow.breg=2",                                                   /* out of range */
        "gemm_mma_narrow.breg=1",                                                   /* kwarp: weights its own */
        "gemm_mma_narrow.bm=64,gemm_mma_narrow.bn=72",                              /* kwarp: 144 accumulators */
        "gemm_mma_narrow.stages=5",                                                 /* kwarp: 2..4 steps held */
        "gemm_mma_narrow.warps_m=8",                                                /* kwarp: rows of 8 */
        "gemm_mma_narrow.bn=36",                                                    /* kwarp: n8 blocks */
        "gemm_mma_narrow.warps_n=8",                                                /* kwarp: 2048 work-items */
        "gemm_mma_narrow.kwarp=17",                                                 /* out of range */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pk_cl_params q = prm;
        CHECK(pk_cl_params_set(&q, bad[i], why, sizeof why) != 0, "%s accepted", bad[i]);
    }
    /* 96 KiB of local memory: refused as a parameter (no GPU with matrix
     * units gives a work-group that much) */
    pk_cl_params q = prm;
    CHECK(pk_cl_params_set(&q, "gemm_mma.bm=256,gemm_mma.bn=256,gemm_mma.warps_m=4,gemm_mma.warps_n=4", why,
                           sizeof why) != 0,
          "a 96 KiB tile accepted");
    /* a device with less local memory than the tiles: the small tile where
     * it fits, else the narrow one (its sums one m16 tile at a time: 20
     * KiB), else the tiled kernel */
    pk_device_info small = nv;
    small.local_mem_bytes = 40 * 1024;
    p = linear(PK_BF16, 1, 4096, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &small, 1024, &p, &plan) == 0 && plan.mma && plan.mma_shape == PK_CL_MMA_SMALL,
          "40 KiB: not the small tile (36 KiB)");
    small.local_mem_bytes = 32 * 1024;
    CHECK(pk_cl_gemm_plan_problem(&prm, &small, 1024, &p, &plan) == 0 && plan.mma && plan.mma_shape == PK_CL_MMA_NARROW,
          "32 KiB: not the narrow tile");
    small.local_mem_bytes = 20 * 1024;
    CHECK(pk_cl_gemm_plan_problem(&prm, &small, 1024, &p, &plan) == 0 && plan.mma && plan.mma_shape == PK_CL_MMA_NARROW,
          "20 KiB: not the narrow tile");
    small.local_mem_bytes = 16 * 1024;
    CHECK(pk_cl_gemm_plan_problem(&prm, &small, 1024, &p, &plan) == 0 && !plan.mma && !plan.skinny,
          "16 KiB: not the tiled kernel");
}

/* On a device that runs wgmma (Hopper through NVIDIA's OpenCL): the
 * large wgmma tile for 16-bit problems with k-contiguous b, mma.sync's
 * tiles for the other shapes and for b as [K, N], and no wgmma tile where
 * the device lacks wgmma. */
/* tile `base` changed by `change` (on t) is invalid in 48 KiB and
 * work-groups of wg */
#define INVALID_IF(base, change, wg, what)                                                                 \
    do {                                                                                                   \
        pk_cl_mma_tile t = *(base);                                                                        \
        change;                                                                                            \
        CHECK(!pk_cl_mma_tile_valid(&t, 49152, wg), what);                                                 \
    } while (0)

/* The H200 through NVIDIA's OpenCL, and its parameters: the class's
 * table, the wgmma tiles over it, and with tma the TMA tiles over those */
static pk_device_info h200_params(int tma, pk_cl_params *prm)
{
    pk_device_info nv = device("NVIDIA Corporation", "NVIDIA H200", 0, 49152, 132);
    nv.matrix_units = 1;
    pk_cl_params_default(pk_cl_vendor_of(&nv), prm);
    pk_cl_params_wgmma(prm);
    if (tma) pk_cl_params_tma(prm);
    return nv;
}

static void test_wgmma_picks(void)
{
    pk_cl_params prm;
    const pk_device_info nv = h200_params(0, &prm);
    const pk_cl_mma_tile *lg = pk_cl_mma_wgmma_table(PK_CL_MMA_LARGE);
    CHECK(lg && lg->wgmma && pk_cl_mma_tile_valid(lg, 49152, 1024), "the large wgmma tile is invalid");
    CHECK(!pk_cl_mma_wgmma_table(PK_CL_MMA_SMALL) && !pk_cl_mma_wgmma_table(PK_CL_MMA_NARROW),
          "small and narrow stay mma.sync's");
    pk_cl_gemm_plan plan;
    char name[96];
    pk_gemm_problem p = linear(PK_BF16, 1, 4096, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma && plan.mt.wgmma &&
              plan.mma_shape == PK_CL_MMA_LARGE && plan.mma_splits == 1 && plan.mt.regs == 128,
          "4096^3: not the large wgmma tile at 128 registers");
    pk_cl_gemm_plan_variant(&plan, name, sizeof name);
    CHECK(!strcmp(name, "wgmma_128x128_s3"), "variant %s", name);
    CHECK(pk_cl_mma_local_bytes(&plan.mt) == 49152, "%zu bytes of local memory", pk_cl_mma_local_bytes(&plan.mt));
    /* M = 64: the kwarp tile; M = 256: the small mma.sync tile, unsplit (128 tiles) */
    p = linear(PK_BF16, 1, 64, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && !plan.mt.wgmma && plan.mt.kwarp &&
              plan.mma_shape == PK_CL_MMA_NARROW,
          "m 64: not the kwarp tile");
    p = linear(PK_F16, 1, 256, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && !plan.mt.wgmma &&
              plan.mma_shape == PK_CL_MMA_SMALL && plan.mma_splits == 1,
          "m 256: not the small mma.sync tile unsplit (%d)", plan.mma_splits);
    /* b as [K, N]: the class's mma.sync large tile */
    p = linear(PK_BF16, 1, 4096, 4096, 4096);
    p.b.stride[1] = 4096, p.b.stride[2] = 1;
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma && !plan.mt.wgmma && !plan.b_kc,
          "b [K,N]: not mma.sync");
    pk_cl_gemm_plan_variant(&plan, name, sizeof name);
    CHECK(!strcmp(name, "mma_128x128_w2x2_s3_bn"), "variant %s", name);
    /* the same parameters on a device without wgmma: the wgmma tile does
     * not fit, and the small one takes the shape */
    prm.wgmma_units = 0;
    p = linear(PK_BF16, 1, 4096, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma && !plan.mt.wgmma &&
              plan.mma_shape == PK_CL_MMA_SMALL,
          "wgmma tile without wgmma");
    /* the rules: one or two warpgroups, an instruction's n, 48 KiB */
    INVALID_IF(lg, t.bn = 96, 1024, "bn 96");
    INVALID_IF(lg, (t.warps_m = 2, t.bm = 32), 1024, "half a warpgroup");
    INVALID_IF(lg, t.stages = 4, 1024, "64 KiB of stages");
    INVALID_IF(lg, t.breg = 1, 1024, "wgmma with breg");
}

/* On a device whose TMA copies passed their probe (over wgmma): the small
 * shape's TMA tile for 16-bit problems with k-contiguous b (M = 128 by
 * 4096^2 in 2 pieces, M = 256 in one), the large and narrow shapes'
 * tiles as before, mma.sync's for b as [K, N], and no TMA tile where the
 * device lacks the copies. */
static void test_tma_picks(void)
{
    pk_cl_params prm;
    const pk_device_info nv = h200_params(1, &prm);
    const pk_cl_mma_tile *sm = pk_cl_mma_tma_table(PK_CL_MMA_SMALL);
    CHECK(sm && sm->tma && sm->wgmma && pk_cl_mma_tile_valid(sm, 49152, 1024), "the small TMA tile is invalid");
    CHECK(!pk_cl_mma_tma_table(PK_CL_MMA_LARGE) && !pk_cl_mma_tma_table(PK_CL_MMA_NARROW),
          "large and narrow keep their tiles");
    CHECK(pk_cl_mma_local_bytes(sm) == 5u * 128u * 64u + 80u + 256u, "%zu bytes of local memory",
          pk_cl_mma_local_bytes(sm));
    pk_cl_gemm_plan plan;
    char name[96];
    pk_gemm_problem p = linear(PK_BF16, 1, 128, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma && plan.mt.tma &&
              plan.mma_shape == PK_CL_MMA_SMALL && plan.mma_splits == 2,
          "m 128: not the TMA tile in 2 pieces (%d)", plan.mma_splits);
    pk_cl_gemm_plan_variant(&plan, name, sizeof name);
    CHECK(!strcmp(name, "tma_64x64_s5_split"), "variant %s", name);
    p = linear(PK_F16, 1, 256, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mt.tma && plan.mma_splits == 1,
          "m 256: not the TMA tile unsplit (%d)", plan.mma_splits);
    pk_cl_gemm_plan_variant(&plan, name, sizeof name);
    CHECK(!strcmp(name, "tma_64x64_s5"), "variant %s", name);
    /* the large and narrow shapes as without TMA */
    p = linear(PK_BF16, 1, 4096, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mt.wgmma && !plan.mt.tma &&
              plan.mma_shape == PK_CL_MMA_LARGE,
          "4096^3: not the large wgmma tile");
    p = linear(PK_BF16, 1, 64, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mt.kwarp && !plan.mt.tma,
          "m 64: not the kwarp tile");
    /* the grid: a tile's pieces beside its n tiles in dim 0, batches alone
     * in dim 2 (up to 65535); many batches take the large shape, here a
     * TMA tile set by hand */
    {
        pk_cl_params big = prm;
        big.mma[PK_CL_MMA_LARGE] = *sm;
        p = linear(PK_BF16, 40000, 128, 64, 64);
        CHECK(pk_cl_gemm_plan_problem(&big, &nv, 1024, &p, &plan) == 0 && plan.mt.tma, "40000 batches: not TMA");
        p = linear(PK_BF16, 65536, 128, 64, 64);
        CHECK(pk_cl_gemm_plan_problem(&big, &nv, 1024, &p, &plan) == 0 && plan.mma && !plan.mt.tma,
              "65536 batches: the TMA tile");
    }
    /* b as [K, N]: the class's small mma.sync tile */
    p = linear(PK_BF16, 1, 128, 4096, 4096);
    p.b.stride[1] = 4096, p.b.stride[2] = 1;
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma && !plan.mt.tma && !plan.mt.wgmma &&
              !plan.b_kc,
          "b [K,N]: not mma.sync");
    /* without the copies the TMA tile does not fit: the class's small tile */
    prm.tma_units = 0;
    p = linear(PK_BF16, 1, 128, 4096, 4096);
    CHECK(pk_cl_gemm_plan_problem(&prm, &nv, 1024, &p, &plan) == 0 && plan.mma && !plan.mt.tma,
          "TMA tile without TMA");
    CHECK(!pk_cl_params_wgmma_fits(&prm), "a TMA tile fits a device without TMA");
    /* the rules: wgmma's, bn at most 128, a producer warp's work-items */
    INVALID_IF(sm, t.bn = 256, 1024, "bn 256");
    INVALID_IF(sm, t.wgmma = 0, 1024, "TMA without wgmma");
    INVALID_IF(sm, t.stages = 6, 1024, "48 KiB of stages and more");
    INVALID_IF(sm, (void)0, 128, "a work-group of 160 items where 128 fit");
}

int main(void)
{
    test_mma_shapes();
    test_table_valid();
    test_validity_rules();
    test_classes();
    test_picks();
    test_fallback();
    test_skinny_table();
    test_skinny_picks();
    test_mma_picks();
    test_wgmma_picks();
    test_tma_picks();
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
