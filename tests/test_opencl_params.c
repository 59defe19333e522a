/* The OpenCL kernel parameters as named data (opencl_params.c): every
 * class's table entry is inside its ranges and rules, names round-trip
 * through the text form, and a bad assignment changes nothing. */
#include <string.h>

#include "opencl_params.h"
#include "plan_check.h"

static void test_tables(void)
{
    int count;
    const pk_cl_param *ps = pk_cl_param_list(&count);
    CHECK(count > 0, "no parameters");
    for (int c = 0; c < PK_CL_VENDOR_COUNT; c++) {
        pk_cl_params p;
        pk_cl_params_default((pk_cl_vendor)c, &p);
        for (int i = 0; i < count; i++) {
            int v = pk_cl_param_get(&p, &ps[i]);
            CHECK(v >= ps[i].lo && v <= ps[i].hi, "class %d: %s.%s = %d outside [%d, %d]", c,
                  pk_cl_family_get(ps[i].family)->name, ps[i].name, v, ps[i].lo, ps[i].hi);
        }
        for (int f = 0; f < PK_CL_FAMILY_COUNT; f++) {
            char why[200] = "";
            CHECK(pk_cl_params_check(&p, (pk_cl_family)f, why, sizeof why) == 0, "class %d family %s: %s", c,
                  pk_cl_family_get((pk_cl_family)f)->name, why);
        }
    }
    /* every family is searchable, and its choices are values it accepts */
    int searched[PK_CL_FAMILY_COUNT] = {0};
    for (int i = 0; i < count; i++) {
        searched[ps[i].family] += ps[i].nchoices > 0;
        for (int k = 0; k < ps[i].nchoices; k++)
            CHECK(ps[i].choices[k] >= ps[i].lo && ps[i].choices[k] <= ps[i].hi, "%s: choice %d out of range",
                  ps[i].name, ps[i].choices[k]);
        for (int j = 0; j < i; j++)
            CHECK(ps[j].family != ps[i].family || strcmp(ps[j].name, ps[i].name), "%s named twice", ps[i].name);
    }
    for (int f = 0; f < PK_CL_FAMILY_COUNT; f++) {
        const pk_cl_family_info *fi = pk_cl_family_get((pk_cl_family)f);
        CHECK(fi && fi->name && fi->source && searched[f] > 0, "family %d: no name, source or choice", f);
        CHECK(pk_cl_family_find(fi->name) == f, "family %s not found by name", fi->name);
    }
    CHECK(pk_cl_family_find("nope") == -1, "unknown family found");
}

static void test_round_trip(void)
{
    pk_cl_params nv, back;
    pk_cl_params_default(PK_CL_VENDOR_NVIDIA, &nv);
    pk_cl_params_default(PK_CL_VENDOR_CPU, &back);
    char why[200];
    for (int f = 0; f < PK_CL_FAMILY_COUNT; f++) {
        char spec[2048];
        int len = pk_cl_params_format(&nv, (pk_cl_family)f, spec, sizeof spec);
        CHECK(len > 0 && len < (int)sizeof spec, "format %d", f);
        CHECK(pk_cl_params_set(&back, spec, why, sizeof why) == 0, "set '%s': %s", spec, why);
    }
    CHECK(!memcmp(&nv, &back, sizeof nv), "the CPU entry set to every NVIDIA value is not the NVIDIA entry");
    /* a short buffer gets a truncated, terminated string and the full length */
    char small[8];
    int len = pk_cl_params_format(&nv, PK_CL_FAMILY_SKINNY, small, sizeof small);
    CHECK(len > (int)sizeof small && strlen(small) == sizeof small - 1, "truncation: %d", len);
}

static void test_errors(void)
{
    pk_cl_params p, before;
    pk_cl_params_default(PK_CL_VENDOR_NVIDIA, &p);
    before = p;
    static const char *const bad[] = {
        "skinny.wg=100",                 /* not a multiple of kl (32) */
        "skinny.wg=64,skinny.bogus=1",   /* unknown name: the first must not stick either */
        "nope.wg=1",                     /* unknown family */
        "skinny.wg",                     /* no value */
        "skinny.wg=12x",                 /* not an integer */
        "skinny.wg=99999999999",         /* out of int */
        "rows.vec_bytes=24",             /* not a power of two */
        "elementwise.batch=3",           /* does not divide per_item */
        "gemm_large.tm=100",             /* tm % wm */
        "gemm_large.tm=256,gemm_large.tn=256", /* too many work-items and too much local memory */
        "skinny.loads=0",                /* below its range */
        "chain.wg=96",                   /* not a power of two */
        "wg=128",                        /* no family */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[200] = "";
        CHECK(pk_cl_params_set(&p, bad[i], why, sizeof why) == -1 && why[0], "'%s' accepted", bad[i]);
        CHECK(!memcmp(&p, &before, sizeof p), "'%s' changed the values", bad[i]);
    }
    char why[200];
    CHECK(pk_cl_params_set(&p, " skinny.wg=64 , skinny.kl=16 ", why, sizeof why) == 0 && p.skinny.wg == 64 &&
              p.skinny.kl == 16, "spaces and commas: %s", why);
    CHECK(pk_cl_params_set(&p, "", why, sizeof why) == 0, "an empty spec is no change");
}

int main(void)
{
    test_tables();
    test_round_trip();
    test_errors();
    if (!failures) printf("opencl params: ok\n");
    return failures != 0;
}
