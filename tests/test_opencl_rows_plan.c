/* Unit test of the OpenCL row-op plan: the table's entries fit the kernel's
 * limits, the vector path is taken exactly when every operand allows an
 * aligned wide access, leading dims fold only when the strides allow, and
 * the picks for representative devices and shapes are the ones the table
 * describes. */
#include <stdio.h>
#include <string.h>

#include "opencl_rows_plan.h"
#include "opencl_table_params.h"
#include "plan_check.h"

static char present; /* a view's mem: only whether it is NULL matters */

static pk_device_info device(const char *vendor, int is_cpu, int compute_units)
{
    pk_device_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.vendor, sizeof info.vendor, "%s", vendor);
    info.is_cpu = is_cpu;
    info.compute_units = compute_units;
    return info;
}

static void contig(pk_view *v, pk_dtype dt, const int64_t lead[3], int64_t cols)
{
    v->mem = &present;
    v->dtype = dt;
    v->offset = 0;
    v->stride[3] = 1;
    v->stride[2] = cols;
    v->stride[1] = cols * lead[2];
    v->stride[0] = cols * lead[2] * lead[1];
}

/* rows x cols, x and out contiguous, weight [cols] */
static pk_rows_problem problem(pk_dtype dt, int64_t rows, int64_t cols)
{
    pk_rows_problem p;
    memset(&p, 0, sizeof p);
    p.lead[0] = p.lead[1] = 1;
    p.lead[2] = rows;
    p.cols = cols;
    contig(&p.x, dt, p.lead, cols);
    contig(&p.out, dt, p.lead, cols);
    static const int64_t one[3] = {1, 1, 1};
    contig(&p.weight, dt, one, cols);
    return p;
}

static void test_table(void)
{
    for (int c = 0; c < PK_CL_VENDOR_COUNT; c++) {
        const pk_cl_rows_params *t = pk_cl_rows_table((pk_cl_vendor)c);
        CHECK(t != NULL, "class %d has no entry", c);
        if (!t) continue;
        CHECK(t->vec_bytes >= 4 && (t->vec_bytes & (t->vec_bytes - 1)) == 0, "class %d: vec_bytes %d", c,
              t->vec_bytes);
        CHECK(t->max_tpr >= 1 && (t->max_tpr & (t->max_tpr - 1)) == 0, "class %d: max_tpr %d", c, t->max_tpr);
        CHECK(t->min_group >= 1 && (t->min_group & (t->min_group - 1)) == 0, "class %d: min_group", c);
        CHECK(t->max_chunks >= t->target_chunks && t->max_chunks <= 8, "class %d: chunks %d..%d", c,
              t->target_chunks, t->max_chunks);
        CHECK(t->ew_local >= 1 && t->ew_per_item >= 1 && t->groups_per_cu >= 1, "class %d: launch sizes", c);
        CHECK((t->prefetch == 0 || t->prefetch == 1) && t->red_fan >= 2 && t->red_fan <= 64 &&
                  (t->red_fan & (t->red_fan - 1)) == 0,
              "class %d: prefetch %d red_fan %d", c, t->prefetch, t->red_fan);
        CHECK(t->ew_batch >= 1 && t->ew_per_item % t->ew_batch == 0 && t->ew_batch <= 8, "class %d: batch %d", c,
              t->ew_batch);
    }
    CHECK(pk_cl_rows_table(PK_CL_VENDOR_COUNT) == NULL, "out-of-range class");
}

static void test_class(void)
{
    pk_device_info nv = device("NVIDIA Corporation", 0, 132), cpu = device("GenuineIntel", 1, 2),
                   amd = device("Advanced Micro Devices, Inc.", 0, 110);
    CHECK(pk_cl_vendor_of(&nv) == PK_CL_VENDOR_NVIDIA, "NVIDIA");
    CHECK(pk_cl_vendor_of(&cpu) == PK_CL_VENDOR_CPU, "a CPU that names its vendor");
    CHECK(pk_cl_vendor_of(&amd) == PK_CL_VENDOR_AMD, "AMD");
}

/* The NVIDIA entry with 16-byte vectors, the values the plan's comments
 * reason from (the table holds what portkern tune found on the H200: 32
 * bytes); the picks below test the plan's logic on them. */
static const pk_cl_params *nv16(const pk_device_info *nv)
{
    static pk_cl_params p;
    p = *table_params(nv);
    p.rows.vec_bytes = 16;
    return &p;
}

static const pk_cl_rows_params *nv16_rows(void)
{
    static pk_cl_rows_params r;
    r = *pk_cl_rows_table(PK_CL_VENDOR_NVIDIA);
    r.vec_bytes = 16;
    return &r;
}

static void test_vec(void)
{
    pk_rows_problem p = problem(PK_BF16, 16, 4096);
    CHECK(pk_cl_rows_vec(nv16_rows(), 1, &p) == 8, "bf16 on NVIDIA: 16 bytes, got %d",
          pk_cl_rows_vec(nv16_rows(), 1, &p));
    CHECK(pk_cl_rows_vec(pk_cl_rows_table(PK_CL_VENDOR_CPU), 1, &p) == 16, "CPU: OpenCL's widest vector");
    p = problem(PK_F32, 16, 4096);
    CHECK(pk_cl_rows_vec(nv16_rows(), 1, &p) == 4, "f32 on NVIDIA");
    /* per-row: the widest vector that divides the row (and its stride);
     * elementwise: a partial last vector is allowed */
    const pk_cl_rows_params *nvt = nv16_rows();
    p = problem(PK_BF16, 16, 4100); /* rows start 4100 elements apart */
    CHECK(pk_cl_rows_vec(nvt, 1, &p) == 4 && pk_cl_rows_vec(nvt, 0, &p) == 1, "rows 4100 apart: %d, %d",
          pk_cl_rows_vec(nvt, 1, &p), pk_cl_rows_vec(nvt, 0, &p));
    p = problem(PK_BF16, 1, 4100); /* one row: only its start counts */
    CHECK(pk_cl_rows_vec(nvt, 1, &p) == 4 && pk_cl_rows_vec(nvt, 0, &p) == 8, "one row with a tail");
    p = problem(PK_BF16, 1, 4102);
    CHECK(pk_cl_rows_vec(nvt, 1, &p) == 1 && pk_cl_rows_vec(nvt, 0, &p) == 8, "a row of 4102: %d",
          pk_cl_rows_vec(nvt, 1, &p));
    p = problem(PK_F32, 1, 4100);
    CHECK(pk_cl_rows_vec(nvt, 1, &p) == 4, "f32, 4100");
    p = problem(PK_BF16, 16, 4104);
    CHECK(pk_cl_rows_vec(pk_cl_rows_table(PK_CL_VENDOR_CPU), 1, &p) == 8, "CPU, 4104: %d",
          pk_cl_rows_vec(pk_cl_rows_table(PK_CL_VENDOR_CPU), 1, &p));
    p = problem(PK_BF16, 16, 4096);
    p.out.offset = 4;
    CHECK(pk_cl_rows_vec(nv16_rows(), 1, &p) == 1, "an operand at an unaligned offset");
    p = problem(PK_BF16, 16, 4096);
    p.weight.stride[3] = 2;
    CHECK(pk_cl_rows_vec(nv16_rows(), 1, &p) == 1, "a strided weight");
    p = problem(PK_BF16, 16, 4096);
    p.residual = p.x;
    p.residual.stride[3] = 3;
    CHECK(pk_cl_rows_vec(nv16_rows(), 1, &p) == 1, "a strided residual");
    p = problem(PK_BF16, 16, 4);
    CHECK(pk_cl_rows_vec(nvt, 1, &p) == 4 && pk_cl_rows_vec(nvt, 0, &p) == 1, "a row shorter than a vector");
    p = problem(PK_BF16, 16, 2);
    CHECK(pk_cl_rows_vec(nvt, 1, &p) == 1, "a row shorter than the narrowest vector");
}

static void test_collapse(void)
{
    pk_rows_problem p = problem(PK_BF16, 1, 64);
    /* [2, 3, 5, 64] contiguous: one stride of 64 for 30 rows */
    p.lead[0] = 2, p.lead[1] = 3, p.lead[2] = 5;
    contig(&p.x, PK_BF16, p.lead, 64);
    contig(&p.out, PK_BF16, p.lead, 64);
    pk_cl_rows_collapse(&p);
    CHECK(p.lead[0] == 1 && p.lead[1] == 1 && p.lead[2] == 30 && p.x.stride[2] == 64 && p.out.stride[2] == 64,
          "contiguous: lead {%lld %lld %lld}", (long long)p.lead[0], (long long)p.lead[1], (long long)p.lead[2]);
    /* dims 1 and 2 swapped in storage: nothing folds into dim 2 */
    p.lead[0] = 2, p.lead[1] = 3, p.lead[2] = 5;
    contig(&p.x, PK_BF16, p.lead, 64);
    p.x.stride[1] = 64, p.x.stride[2] = 3 * 64;
    contig(&p.out, PK_BF16, p.lead, 64);
    pk_cl_rows_collapse(&p);
    CHECK(p.lead[1] * p.lead[2] == 15 && p.lead[2] == 5, "permuted: lead {%lld %lld %lld}", (long long)p.lead[0],
          (long long)p.lead[1], (long long)p.lead[2]);
    CHECK(p.lead[0] * p.lead[1] * p.lead[2] == 30, "rows kept");
    /* a leading dim of 1 between: the outer stride carries over */
    p = problem(PK_BF16, 1, 64);
    p.lead[0] = 4, p.lead[1] = 1, p.lead[2] = 1;
    p.x.stride[0] = 1000, p.out.stride[0] = 64;
    pk_cl_rows_collapse(&p);
    CHECK(p.lead[2] == 4 && p.x.stride[2] == 1000 && p.out.stride[2] == 64, "size-1 dims: x stride %lld",
          (long long)p.x.stride[2]);
}

static void test_picks(void)
{
    pk_device_info nv = device("NVIDIA Corporation", 0, 132), cpu = device("GenuineIntel", 1, 2);
    pk_cl_rows_plan plan;
    char name[96];

    /* add+RMSNorm [16384, 4096] bf16 on the H200: a row per 128 work-items,
     * 4 vectors (32 values) each, held in registers, the next row
     * prefetched, reductions 16 partials a level */
    pk_rows_problem p = problem(PK_BF16, 16384, 4096);
    pk_cl_rows_plan_pick(nv16(&nv), &nv, 1024, &p, 1, &plan);
    CHECK(plan.vec == 8 && plan.tpr == 128 && plan.chunks == 4 && plan.rpg == 1 && plan.local == 128,
          "rmsnorm 4096 on NVIDIA: vec %d tpr %d chunks %d rpg %d", plan.vec, plan.tpr, plan.chunks, plan.rpg);
    CHECK(plan.prefetch == 1 && plan.fan == 16, "prefetch %d fan %d", plan.prefetch, plan.fan);
    CHECK(plan.groups == 132 * 16, "groups capped per compute unit: %zu", plan.groups);
    pk_cl_rows_plan_variant(&plan, "rmsnorm", name, sizeof name);
    CHECK(!strcmp(name, "rmsnorm_vec8_c4_red_pf"), "variant %s", name);

    /* without prefetch the same plan, named without _pf */
    pk_cl_params np = *nv16(&nv);
    np.rows.prefetch = 0;
    np.rows.red_fan = 4;
    pk_cl_rows_plan_pick(&np, &nv, 1024, &p, 1, &plan);
    pk_cl_rows_plan_variant(&plan, "rmsnorm", name, sizeof name);
    CHECK(plan.prefetch == 0 && plan.fan == 4 && plan.tpr == 128 && !strcmp(name, "rmsnorm_vec8_c4_red"),
          "prefetch off: %s fan %d", name, plan.fan);

    /* a device (or kernel) that allows only 256 work-items: 4 vectors each */
    p = problem(PK_BF16, 16384, 8192);
    pk_cl_rows_plan_pick(nv16(&nv), &nv, 256, &p, 1, &plan);
    CHECK(plan.tpr == 256 && plan.chunks == 4, "8192 under 256: tpr %d chunks %d", plan.tpr, plan.chunks);
    p = problem(PK_BF16, 4, 65536);
    pk_cl_rows_plan_pick(nv16(&nv), &nv, 1024, &p, 1, &plan);
    CHECK(plan.tpr == 1024 && plan.chunks == 0 && plan.prefetch == 0, "65536 columns stream: tpr %d chunks %d pf %d",
          plan.tpr, plan.chunks, plan.prefetch);

    /* short rows share a work-group; a row of up to 4 vectors needs no
     * reduction, and every such row takes the one kernel (4 held) */
    p = problem(PK_BF16, 1000, 128);
    pk_cl_rows_plan_pick(nv16(&nv), &nv, 1024, &p, 1, &plan);
    CHECK(plan.tpr == 4 && plan.chunks == 4 && plan.rpg == 32 && plan.local == 128 && plan.groups == 32,
          "128 columns: tpr %d chunks %d rpg %d groups %zu", plan.tpr, plan.chunks, plan.rpg, plan.groups);
    static const int64_t short_cols[3] = {8, 16, 32};
    for (int i = 0; i < 3; i++) {
        p = problem(PK_BF16, 1000, short_cols[i]);
        pk_cl_rows_plan_pick(nv16(&nv), &nv, 1024, &p, 1, &plan);
        pk_cl_rows_plan_variant(&plan, "softmax", name, sizeof name);
        CHECK(plan.tpr == 1 && plan.rpg == 128 && !strcmp(name, "softmax_vec8_c4_solo_pf"), "%lld columns: %s",
              (long long)short_cols[i], name);
    }
    /* a work-group limit below the target's row: more vectors a work-item */
    p = problem(PK_BF16, 16, 4096);
    pk_cl_rows_plan_pick(nv16(&nv), &nv, 64, &p, 1, &plan);
    CHECK(plan.tpr == 64 && plan.chunks == 0, "4096 under 64: tpr %d chunks %d", plan.tpr, plan.chunks);

    /* SwiGLU [16384, 14336]: blocks of 64 x 16 vectors, as tuned on the H200 */
    p = problem(PK_BF16, 16384, 14336);
    pk_cl_rows_plan_pick(nv16(&nv), &nv, 1024, &p, 0, &plan);
    CHECK(plan.vec == 8 && plan.local == 64 && plan.per_item == 16 && plan.batch == 1 && plan.groups == 132 * 64,
          "swiglu on NVIDIA: vec %d local %zu per_item %d groups %zu", plan.vec, plan.local, plan.per_item,
          plan.groups);
    pk_cl_rows_plan_variant(&plan, "glu", name, sizeof name);
    CHECK(!strcmp(name, "glu_vec8"), "variant %s", name);
    p = problem(PK_BF16, 2, 8);
    pk_cl_rows_plan_pick(nv16(&nv), &nv, 1024, &p, 0, &plan);
    CHECK(plan.groups == 1, "a small problem takes one group: %zu", plan.groups);

    /* PoCL: a work-item streams a whole row; elementwise blocks of 1024 vectors */
    p = problem(PK_BF16, 16384, 4096);
    pk_cl_rows_plan_pick(table_params(&cpu), &cpu, 4096, &p, 1, &plan);
    CHECK(plan.vec == 16 && plan.tpr == 1 && plan.chunks == 0 && plan.local == 1 && plan.groups == 128,
          "rmsnorm on a CPU: vec %d tpr %d chunks %d local %zu groups %zu", plan.vec, plan.tpr, plan.chunks,
          plan.local, plan.groups);
    pk_cl_rows_plan_variant(&plan, "rmsnorm", name, sizeof name);
    CHECK(!strcmp(name, "rmsnorm_vec16_stream_solo"), "variant %s", name);
    p = problem(PK_F32, 16384, 14336);
    pk_cl_rows_plan_pick(table_params(&cpu), &cpu, 4096, &p, 0, &plan);
    CHECK(plan.vec == 8 && plan.local == 1 && plan.per_item == 1024 && plan.batch == 1,
          "glu on a CPU: vec %d local %zu per_item %d batch %d", plan.vec, plan.local, plan.per_item, plan.batch);
}

typedef struct names {
    char v[64][96];
    int n;
} names;

static void add_name(void *ctx, const char *name)
{
    names *s = ctx;
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], name)) return;
    if (s->n < 64) snprintf(s->v[s->n++], sizeof s->v[0], "%s", name);
}

static int has(const names *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], name)) return 1;
    return 0;
}

/* The variant lists name what the picks give, and nothing they cannot. */
static void test_variants(void)
{
    pk_device_info cpu = device("GenuineIntel", 1, 2), nv = device("NVIDIA Corporation", 0, 132);
    names s = {.n = 0};
    pk_cl_rows_plan_variants(table_params(&cpu), &cpu, 4096, "glu", 0, add_name, &s);
    /* 32-byte vectors: 16 lanes of a 16-bit type, 8 of f32 */
    CHECK(s.n == 3 && has(&s, "glu_vec16") && has(&s, "glu_vec8") && has(&s, "glu_str"), "glu on a CPU: %d names",
          s.n);
    s.n = 0;
    pk_cl_rows_plan_variants(table_params(&cpu), &cpu, 4096, "rmsnorm", 1, add_name, &s);
    CHECK(s.n == 4 && has(&s, "rmsnorm_vec16_stream_solo") && has(&s, "rmsnorm_vec8_stream_solo") &&
              has(&s, "rmsnorm_vec4_stream_solo") && has(&s, "rmsnorm_str_stream_solo"),
          "rmsnorm on a CPU: %d names", s.n);
    s.n = 0;
    pk_cl_rows_plan_variants(nv16(&nv), &nv, 1024, "rmsnorm", 1, add_name, &s);
    static const char *const expect[] = {"rmsnorm_vec8_c4_solo_pf", "rmsnorm_vec8_c4_red_pf", "rmsnorm_vec8_stream_red",
                                         "rmsnorm_vec4_c4_solo_pf", "rmsnorm_vec4_c4_red_pf", "rmsnorm_vec4_stream_red",
                                         "rmsnorm_str_c4_solo_pf",  "rmsnorm_str_c4_red_pf",  "rmsnorm_str_stream_red"};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
        CHECK(has(&s, expect[i]), "NVIDIA lacks %s", expect[i]);
    CHECK(!has(&s, "rmsnorm_vec8_c2_solo_pf") && !has(&s, "rmsnorm_vec8_stream_red_pf"),
          "NVIDIA names a variant no row length gives");
    CHECK(s.n == 9, "NVIDIA rmsnorm: %d names (3 a path)", s.n);
    /* the table's 32-byte vectors add a path of 16 */
    s.n = 0;
    pk_cl_rows_plan_variants(table_params(&nv), &nv, 1024, "rmsnorm", 1, add_name, &s);
    CHECK(s.n == 12 && has(&s, "rmsnorm_vec16_c4_red_pf") && has(&s, "rmsnorm_vec16_stream_red"),
          "NVIDIA table rmsnorm: %d names (3 a path)", s.n);
}

int main(void)
{
    test_table();
    test_class();
    test_vec();
    test_collapse();
    test_picks();
    test_variants();
    if (failures) printf("%d failure(s)\n", failures);
    else printf("OK\n");
    return failures ? 1 : 0;
}
