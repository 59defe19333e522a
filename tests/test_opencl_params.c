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

/* wgmma tiles: the table's over the class's on a device that runs wgmma,
 * and a tile that names wgmma fits only such a device */
static void test_wgmma(void)
{
    pk_cl_params p;
    pk_cl_params_default(PK_CL_VENDOR_NVIDIA, &p);
    CHECK(pk_cl_params_wgmma_fits(&p) && !p.wgmma_units, "the class's table names no wgmma");
    char why[200] = "";
    CHECK(pk_cl_params_set(&p, "gemm_mma.wgmma=1,gemm_mma.warps_m=8,gemm_mma.warps_n=1", why, sizeof why) == 0 && p.mma[PK_CL_MMA_LARGE].wgmma, "set: %s",
          why);
    CHECK(!pk_cl_params_wgmma_fits(&p), "a wgmma tile without wgmma fits");
    pk_cl_params_default(PK_CL_VENDOR_NVIDIA, &p);
    pk_cl_params_wgmma(&p);
    CHECK(p.wgmma_units && p.mma[PK_CL_MMA_LARGE].wgmma && !p.mma[PK_CL_MMA_SMALL].wgmma &&
              !p.mma[PK_CL_MMA_NARROW].wgmma && pk_cl_params_wgmma_fits(&p),
          "the wgmma table: the large tile alone");
    CHECK(pk_cl_params_set(&p, "gemm_mma.wgmma=0", why, sizeof why) == 0 && pk_cl_params_wgmma_fits(&p),
          "the large tile back on mma.sync: %s", why);
}

/* Register bounds (regs, NVIDIA's -cl-nv-maxrregcount) that a work-group
 * of the family cannot hold are refused up front: NVIDIA's OpenCL would
 * refuse the launch (CL_OUT_OF_RESOURCES). The tensor-core tiles reach it
 * at 16 warps (4 x 4, or 4 x 2 with kwarp 2) with 168 registers; decode
 * attention at 512 work-items with 168 or 255. */
static void test_regs(void)
{
    static const struct {
        const char *spec;
        int ok;
    } cases[] = {
        {"gemm_mma_small.regs=168", 1},                         /* 8 warps: 43008 registers */
        {"gemm_mma_small.warps_n=4,gemm_mma_small.regs=168", 0}, /* 16 warps: 86016 */
        {"gemm_mma_small.warps_n=4,gemm_mma_small.regs=128", 1}, /* 65536: the file */
        {"gemm_mma_small.warps_n=4,gemm_mma_small.regs=0", 1},   /* the compiler's choice */
        {"gemm_mma_small.kwarp=2,gemm_mma_small.regs=168", 0},   /* 4 x 2 warps, 2 each: 16 */
        {"gemm_mma_small.kwarp=1,gemm_mma_small.regs=168", 1},
        {"gemm_mma.warps_m=4,gemm_mma.warps_n=4,gemm_mma.regs=168", 0},
        {"attn_decode.wg=512,attn_decode.regs=168", 0},
        {"attn_decode.wg=512,attn_decode.regs=128", 1},
        {"attn_decode.wg=256,attn_decode.regs=255", 1},
        {"attn_decode.wg=512,attn_decode.regs=255", 0},
        {"gemm_large.regs=168", 1}, /* 256 work-items at most: any bound fits */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_cl_params p;
        pk_cl_params_default(PK_CL_VENDOR_NVIDIA, &p);
        char why[256] = "";
        const int got = pk_cl_params_set(&p, cases[i].spec, why, sizeof why) == 0;
        CHECK(got == cases[i].ok, "'%s': %s (%s)", cases[i].spec, got ? "accepted" : "refused", why);
        if (!cases[i].ok)
            CHECK(strstr(why, "registers of a work-group") != NULL, "'%s': the reason does not say registers: %s",
                  cases[i].spec, why);
    }
    char why[256] = "";
    pk_cl_params p;
    pk_cl_params_default(PK_CL_VENDOR_NVIDIA, &p);
    pk_cl_params_set(&p, "gemm_mma_small.warps_n=4,gemm_mma_small.regs=168", why, sizeof why);
    printf("refused: %s\n", why);

    /* every tile of the tensor-core search space around the NVIDIA entry
     * that the rules accept keeps regs x work-items inside the file (each
     * work-item's registers rounded to 8), and some are refused for that
     * alone */
    int accepted = 0, over = 0;
    int count;
    const pk_cl_param *ps = pk_cl_param_list(&count);
    for (int f = PK_CL_FAMILY_GEMM_MMA; f <= PK_CL_FAMILY_GEMM_MMA_NARROW; f++) {
        const pk_cl_param *wm = NULL, *wn = NULL, *regs = NULL, *kw = NULL;
        for (int i = 0; i < count; i++) {
            if ((int)ps[i].family != f) continue;
            if (!strcmp(ps[i].name, "warps_m")) wm = &ps[i];
            if (!strcmp(ps[i].name, "warps_n")) wn = &ps[i];
            if (!strcmp(ps[i].name, "regs")) regs = &ps[i];
            if (!strcmp(ps[i].name, "kwarp")) kw = &ps[i];
        }
        CHECK(wm && wn && regs, "family %d: no warps or regs", f);
        if (!wm || !wn || !regs) continue;
        const int nk = kw ? kw->nchoices : 1;
        for (int a = 0; a < wm->nchoices; a++)
            for (int b = 0; b < wn->nchoices; b++)
                for (int r = 0; r < regs->nchoices; r++)
                    for (int k = 0; k < nk; k++) {
                        pk_cl_params q;
                        pk_cl_params_default(PK_CL_VENDOR_NVIDIA, &q);
                        *pk_cl_param_ptr(&q, wm) = wm->choices[a];
                        *pk_cl_param_ptr(&q, wn) = wn->choices[b];
                        *pk_cl_param_ptr(&q, regs) = regs->choices[r];
                        if (kw) *pk_cl_param_ptr(&q, kw) = kw->choices[k];
                        const pk_cl_mma_tile *t = &q.mma[f - PK_CL_FAMILY_GEMM_MMA];
                        const long warps = (long)t->warps_m * t->warps_n * (t->kwarp > 0 ? t->kwarp : 1);
                        const long need = (t->regs + 7) / 8 * 8 * 32 * warps;
                        char w[256];
                        const int ok = pk_cl_params_check(&q, (pk_cl_family)f, w, sizeof w) == 0;
                        accepted += ok;
                        CHECK(!ok || need <= 65536, "%s: %dx%d warps (kwarp %d), regs %d accepted: %ld registers",
                              pk_cl_family_get((pk_cl_family)f)->name, t->warps_m, t->warps_n, t->kwarp, t->regs,
                              need);
                        /* refused for the registers alone: the same tile without a bound passes */
                        if (!ok && need > 65536) {
                            pk_cl_params u = q;
                            u.mma[f - PK_CL_FAMILY_GEMM_MMA].regs = 0;
                            over += pk_cl_params_check(&u, (pk_cl_family)f, w, sizeof w) == 0;
                        }
                    }
    }
    CHECK(accepted > 0 && over > 0, "the search space: %d accepted, %d refused for registers alone", accepted, over);

    /* a device with a smaller file (CL_DEVICE_REGISTERS_PER_BLOCK_NV) holds
     * the bound to its own */
    pk_cl_params_default(PK_CL_VENDOR_NVIDIA, &p);
    p.mma[PK_CL_MMA_SMALL].regs = 168;
    CHECK(pk_cl_params_check_regs(&p, PK_CL_FAMILY_GEMM_MMA_SMALL, 65536, why, sizeof why) == 0, "64 Ki: %s", why);
    CHECK(pk_cl_params_check_regs(&p, PK_CL_FAMILY_GEMM_MMA_SMALL, 32768, why, sizeof why) == -1 &&
              strstr(why, "32768"), "32 Ki: %s", why);
    size_t items;
    CHECK(pk_cl_family_regs(&p, PK_CL_FAMILY_GEMM_MMA_SMALL, &items) == 168 && items == 256, "regs %d, %zu items",
          pk_cl_family_regs(&p, PK_CL_FAMILY_GEMM_MMA_SMALL, &items), items);
    CHECK(pk_cl_family_regs(&p, PK_CL_FAMILY_ROWS, &items) == 0 && items == 0, "rows has no bound");
}

int main(void)
{
    test_tables();
    test_round_trip();
    test_errors();
    test_regs();
    test_wgmma();
    if (!failures) printf("opencl params: ok\n");
    return failures != 0;
}
