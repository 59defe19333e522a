/* Unit test of the OpenCL GEMM plan: every table entry can be built and
 * launched within the limits the kernel assumes, and the picks for
 * representative devices and shapes are the table's. */
#include <stdio.h>
#include <string.h>

#include "opencl_gemm_plan.h"

static int failures;

#define CHECK(cond, ...)                                 \
    do {                                                 \
        if (!(cond)) {                                   \
            failures++;                                  \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);  \
            printf(__VA_ARGS__);                         \
            printf("\n");                                \
        }                                                \
    } while (0)

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
    for (int c = 0; c < PK_CL_GEMM_CLASS_COUNT; c++) {
        for (int s = 0; s < PK_CL_GEMM_SHAPE_COUNT; s++) {
            const pk_cl_gemm_tile *t = pk_cl_gemm_table((pk_cl_gemm_class)c, (pk_cl_gemm_shape)s);
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
    CHECK(pk_cl_gemm_table(PK_CL_GEMM_CLASS_COUNT, PK_CL_GEMM_LARGE) == NULL, "out-of-range class");
    const pk_cl_gemm_tile *f = pk_cl_gemm_fallback();
    CHECK(pk_cl_gemm_tile_valid(f, 2048, 64), "fallback must fit 2 KiB and 64 work-items");
}

static void test_validity_rules(void)
{
    pk_cl_gemm_tile odd = {64, 64, 16, 3, 4};
    CHECK(!pk_cl_gemm_tile_valid(&odd, 65536, 1024), "WM that does not divide TM accepted");
    pk_cl_gemm_tile big = {128, 128, 64, 8, 8};
    CHECK(!pk_cl_gemm_tile_valid(&big, 65536, 1024), "64 KiB of local memory accepted");
    pk_cl_gemm_tile wide = {128, 128, 16, 4, 4};
    CHECK(!pk_cl_gemm_tile_valid(&wide, 65536, 1024), "1024 work-items accepted");
    pk_cl_gemm_tile uneven = {16, 16, 4, 1, 2};
    CHECK(!pk_cl_gemm_tile_valid(&uneven, 65536, 1024), "uneven tile loads accepted");
    pk_cl_gemm_tile ok = {64, 64, 16, 4, 4};
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
    CHECK(pk_cl_gemm_class_of(&nv) == PK_CL_GEMM_NVIDIA, "NVIDIA");
    CHECK(pk_cl_gemm_class_of(&amd) == PK_CL_GEMM_AMD, "AMD");
    CHECK(pk_cl_gemm_class_of(&intel) == PK_CL_GEMM_INTEL, "Intel GPU");
    CHECK(pk_cl_gemm_class_of(&pocl) == PK_CL_GEMM_CPU, "a CPU is a CPU whatever its vendor");
    CHECK(pk_cl_gemm_class_of(&other) == PK_CL_GEMM_OTHER, "unknown vendor");
}

static void expect(const pk_device_info *info, int64_t batch, int64_t m, int64_t n, pk_cl_gemm_class cls,
                   pk_cl_gemm_shape shape)
{
    pk_cl_gemm_plan plan;
    int r = pk_cl_gemm_plan_pick(info, 1024, batch, m, n, &plan);
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
    expect(&nv, 1, 4096, 4096, PK_CL_GEMM_NVIDIA, PK_CL_GEMM_LARGE);    /* 1024 tiles */
    expect(&nv, 1, 512, 512, PK_CL_GEMM_NVIDIA, PK_CL_GEMM_SMALL);      /* 16 tiles < 264 */
    expect(&nv, 32, 512, 512, PK_CL_GEMM_NVIDIA, PK_CL_GEMM_LARGE);     /* the batch fills it */
    expect(&nv, 1, 1, 4096, PK_CL_GEMM_NVIDIA, PK_CL_GEMM_DECODE);
    expect(&nv, 1, 16, 11008, PK_CL_GEMM_NVIDIA, PK_CL_GEMM_DECODE);
    expect(&nv, 1, 17, 11008, PK_CL_GEMM_NVIDIA, PK_CL_GEMM_SMALL);
    expect(&pocl, 1, 512, 512, PK_CL_GEMM_CPU, PK_CL_GEMM_LARGE);
    expect(&pocl, 1, 3, 4096, PK_CL_GEMM_CPU, PK_CL_GEMM_DECODE);
    expect(&pocl, 1, 9, 4096, PK_CL_GEMM_CPU, PK_CL_GEMM_LARGE);        /* past the 8-row decode tile */
    expect(&pocl, 1, 64, 64, PK_CL_GEMM_CPU, PK_CL_GEMM_SMALL);         /* 1 tile < 4 */
}

static void test_fallback(void)
{
    /* 8 KiB of local memory: the NVIDIA large tile (16.1 KiB) does not fit */
    pk_device_info tiny = device("NVIDIA Corporation", "tiny", 0, 8192, 132);
    pk_cl_gemm_plan plan;
    CHECK(pk_cl_gemm_plan_pick(&tiny, 1024, 1, 4096, 4096, &plan) == 0 && plan.fallback &&
              same_tile(&plan.tile, pk_cl_gemm_fallback()),
          "a device too small for the table's tile gets the fallback");
    /* work-groups of at most 128: the 256-item tile does not launch */
    pk_device_info nv = device("NVIDIA Corporation", "NVIDIA H200", 0, 49152, 132);
    CHECK(pk_cl_gemm_plan_pick(&nv, 128, 1, 4096, 4096, &plan) == 0 && plan.fallback,
          "a device with small work-groups gets the fallback");
    pk_device_info none = device("NVIDIA Corporation", "none", 0, 512, 1);
    CHECK(pk_cl_gemm_plan_pick(&none, 1024, 1, 64, 64, &plan) == -1, "no tile fits 512 bytes");
}

int main(void)
{
    test_table_valid();
    test_validity_rules();
    test_classes();
    test_picks();
    test_fallback();
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
