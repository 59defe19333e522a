/* The bench report's arithmetic and plots without a device: Pennycook's
 * metric (harmonic mean, zero for an unsupported platform, n/a for an
 * efficiency with nothing to judge it by) on known values, the scoring of
 * rows from raw times (PP best never against portkern's own time), the SVG
 * writers on a two-platform report (well-formed ends, one marker per
 * figure, no NaN leaking out), and the CPU roof read from /proc/cpuinfo
 * text (bench_cpu.c, included: the test links no device code). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report.h"
#include "bench_cpu.c"

static int failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1, fabs(b)); }

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static char *render(int (*fn)(const pk_bench_report *, FILE *), const pk_bench_report *rep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(fn(rep, f) == 0);
    fclose(f);
    return buf;
}

int main(void)
{
    /* Pennycook: |H| / sum 1/e */
    CHECK(near(pk_bench_pp((double[]){0.5, 0.25}, 2), 2.0 / (2 + 4)));
    CHECK(near(pk_bench_pp((double[]){0.8}, 1), 0.8));
    CHECK(near(pk_bench_pp((double[]){1, 1, 1}, 3), 1));
    CHECK(pk_bench_pp((double[]){0.9, 0, 0.7}, 3) == 0); /* one platform cannot run it */
    CHECK(pk_bench_pp(NULL, 0) == 0);
    CHECK(isnan(pk_bench_pp((double[]){NAN, 0.5}, 2)));   /* n/a: nothing to judge one by */
    CHECK(pk_bench_pp((double[]){NAN, 0, 0.5}, 3) == 0);  /* unsupported outranks n/a */

    /* two cases on two platforms; the second platform cannot run case 1 */
    pk_bench_case cases[2] = {
        {"gemm <f32> & 64", PK_BENCH_GEMM, PK_F32, 64, 64, 64, 1, 0, 0, 0, 0, 0, 0, 0, 'F', 0, "test"},
        {"swiglu [4,8]", PK_BENCH_SWIGLU, PK_BF16, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'B', 0, "test"},
    };
    pk_bench_platform plat[2] = {{.label = "cuda:0"}, {.label = "opencl:0"}};
    snprintf(plat[0].info.name, sizeof plat[0].info.name, "GPU \"A\"");
    snprintf(plat[1].info.name, sizeof plat[1].info.name, "CPU <B>");
    for (int p = 0; p < 2; p++) {
        plat[p].roof.copy_bps = p ? 1e10 : 1e12;
        plat[p].roof.flops[PK_F32] = p ? 1e11 : 5e13;
        plat[p].roof.flops[PK_BF16] = p ? 1e11 : 5e14;
    }
    pk_bench_row rows[4] = {0};
    double pp_roof[2], pp_best[2], pp_vendor[2];
    pk_bench_report rep = {"test", "abc123", "2025-01-01 00:00 UTC", 5, 2, 2, plat, cases, rows,
                           pp_roof, pp_best, pp_vendor};
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 2; p++) {
            pk_bench_row *w = &rows[c * 2 + p];
            w->c = &cases[c];
            w->platform = p;
            w->ran = !(c == 1 && p == 1);
            w->r.ms = w->ran ? 2.0 : 0;
            w->roof_ms = 1.0;
            w->r.flops = 1e6;
            w->r.bytes = 1e5;
        }
    rows[0].r.vendor_ms = 1.0; /* the vendor is twice as fast on cuda:0 */
    rows[0].r.vendor = "cuBLAS";
    rows[1].unfused_ms = 4.0;
    pk_bench_report_score(&rep);
    CHECK(near(rows[0].eff_roof, 0.5) && near(rows[0].eff_best, 0.5) && near(rows[0].vendor_eff_roof, 1.0));
    /* faster than the only other implementation there (unfused, 4 ms): 1, capped */
    CHECK(near(rows[1].eff_best, 1.0) && near(rows[1].best_ms, 4.0));
    CHECK(near(pp_roof[0], 0.5) && near(pp_best[0], 2.0 / (2 + 1)));
    CHECK(pp_roof[1] == 0 && pp_best[1] == 0);
    /* case 1 on cuda:0 ran with neither vendor nor unfused figure: n/a, not 1 */
    CHECK(isnan(rows[2].eff_best) && rows[2].best_ms == 0);
    CHECK(near(pk_bench_report_pp_mean(&rep, 0), 0.25));

    /* A platform with no vendor library and no unfused form, its kernel at
     * 2.5% of the card, must not count as its own best: that would give it
     * 1.0 and lift PP best to 2/(1/0.5 + 1) = 0.667. Its best is n/a, and
     * so is the case's PP best; the suite mean leaves the case out. Its
     * roof for the dtype is unknown too (no vendor library lent one): n/a,
     * not 0. */
    {
        pk_bench_case g = {"gemm bf16 4096^3", PK_BENCH_GEMM, PK_BF16, 4096, 4096, 4096, 1, 0, 0, 0, 0, 0, 0, 0,
                           'F', 0, "test"};
        pk_bench_platform pl[2] = {{.label = "cuda:0"}, {.label = "hip:0"}};
        pk_bench_row rw[2] = {0};
        double r1[1], r2[1], r3[1];
        pk_bench_report r = {"test", "abc123", "2025-01-01 00:00 UTC", 5, 2, 1, pl, &g, rw, r1, r2, r3};
        for (int p = 0; p < 2; p++) rw[p].c = &g, rw[p].platform = p, rw[p].ran = 1;
        rw[0].r.ms = 0.3, rw[0].r.vendor_ms = 0.15, rw[0].r.vendor = "cuBLAS", rw[0].roof_ms = 0.15;
        rw[1].r.ms = 6.0, rw[1].roof_ms = 0; /* 2.5% of the card; no roof known on hip:0 */
        snprintf(rw[1].r.vendor_na, sizeof rw[1].r.vendor_na, "no vendor library for hip");
        snprintf(rw[1].unfused_na, sizeof rw[1].unfused_na, "no unfused form");
        pk_bench_report_score(&r);
        CHECK(near(rw[0].eff_best, 0.5) && near(rw[0].eff_roof, 0.5));
        CHECK(isnan(rw[1].eff_best) && !(rw[1].eff_best >= 0.99)); /* the old code gave 1.0 */
        CHECK(isnan(rw[1].eff_roof));
        CHECK(isnan(r2[0]) && isnan(r1[0]));
        CHECK(isnan(pk_bench_report_pp_mean(&r, 1)) && pk_bench_report_pp_count(&r, 1) == 0);
        char *svg = render(pk_bench_svg_portability, &r);
        CHECK(!strstr(svg, "nan") && strstr(svg, "n/a"));
        free(svg);
    }

    /* The CPU roof comes from the hardware: this machine's kind of text
     * (AMD family 25, Zen 4: AVX-512 on 256-bit units; no cpufreq) */
    {
        const char *zen4 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
                           "cpu MHz\t\t: 2596.132\nphysical id\t: 0\ncore id\t\t: 0\n"
                           "flags\t\t: fpu sse fma avx f16c avx2 avx512f avx512_bf16\n\n"
                           "processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
                           "cpu MHz\t\t: 2596.132\nphysical id\t: 0\ncore id\t\t: 1\n"
                           "flags\t\t: fpu sse fma avx f16c avx2 avx512f avx512_bf16\n\n";
        pk_bench_roof roof = {0};
        CHECK(pk_bench_cpu_peak_from(zen4, 0, 0, &roof) == 1);
        CHECK(near(roof.flops[PK_F32], 2.0 * 8 * 2 * 2 * 2596.132e6));
        CHECK(near(roof.flops[PK_BF16], 2 * roof.flops[PK_F32]) && near(roof.flops[PK_F16], roof.flops[PK_F32]));
        CHECK(!strcmp(roof.matrix_from[PK_F32], "hardware peak") && strstr(roof.matrix_detail, "assumed") &&
              strstr(roof.matrix_detail, "cpu MHz"));
        /* an Intel part with two threads a core, AMX and cpufreq; one FMA unit given */
        const char *spr = "processor : 0\nvendor_id : GenuineIntel\ncpu family : 6\ncpu MHz : 800.0\n"
                          "physical id : 0\ncore id : 0\nflags : sse avx avx2 fma avx512f amx_bf16 avx512_fp16\n\n"
                          "processor : 1\nvendor_id : GenuineIntel\ncpu family : 6\ncpu MHz : 800.0\n"
                          "physical id : 0\ncore id : 0\nflags : sse avx avx2 fma avx512f amx_bf16 avx512_fp16\n\n";
        memset(&roof, 0, sizeof roof);
        CHECK(pk_bench_cpu_peak_from(spr, 3.0e6, 1, &roof) == 1);
        CHECK(near(roof.flops[PK_F32], 1.0 * 16 * 1 * 2 * 3e9));
        CHECK(near(roof.flops[PK_BF16], 1.0 * 1024 * 2 * 3e9) && near(roof.flops[PK_F16], roof.flops[PK_F32]));
        CHECK(strstr(roof.matrix_detail, "cpuinfo_max_freq") && strstr(roof.matrix_detail, "PORTKERN_CPU_FMA_UNITS"));
        memset(&roof, 0, sizeof roof);
        CHECK(pk_bench_cpu_peak_from("", 0, 0, &roof) == 0 && roof.flops[PK_F32] == 0);
        CHECK(!strncmp(roof.matrix_from[PK_F32], "none", 4));
    }

    char *svg = render(pk_bench_svg_roofline, &rep);
    CHECK(!strncmp(svg, "<svg ", 5) && strstr(svg, "</svg>\n") && !strstr(svg, "nan") && !strstr(svg, "inf"));
    CHECK(count(svg, "<circle") == 3 + 1); /* a portkern point per row that ran, and the legend's */
    CHECK(strstr(svg, "&lt;f32&gt; &amp; 64") && !strstr(svg, "<f32>"));
    CHECK(count(svg, "<polyline") == 4);    /* a roof per platform and probed dtype */
    free(svg);
    svg = render(pk_bench_svg_portability, &rep);
    CHECK(!strncmp(svg, "<svg ", 5) && strstr(svg, "</svg>\n") && !strstr(svg, "nan"));
    CHECK(strstr(svg, "CPU &lt;B&gt;") && strstr(svg, "GPU &quot;A&quot;"));
    free(svg);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
