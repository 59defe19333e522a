/* The bench report's arithmetic and plots without a device: Pennycook's
 * metric (harmonic mean, zero for an unsupported platform) on known values,
 * the scoring of rows from raw times, and the SVG writers on a two-platform
 * report (well-formed ends, one marker per figure, no NaN leaking out). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report.h"

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
    CHECK(pk_bench_pp((double[]){NAN, 0.5}, 2) == 0);

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
    CHECK(near(rows[1].eff_best, 1.0) && near(rows[1].best_ms, 2.0));
    CHECK(near(pp_roof[0], 0.5) && near(pp_best[0], 2.0 / (2 + 1)));
    CHECK(pp_roof[1] == 0 && pp_best[1] == 0);
    CHECK(near(pk_bench_report_pp_mean(&rep, 0), 0.25));

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
