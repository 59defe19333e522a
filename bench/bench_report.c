/* The report mode of `portkern bench`: a suite on every platform asked for
 * (or every one present), each case beside the device's measured roofline,
 * the vendor library and the unfused path; the portability across the
 * platforms; a table on the terminal and, with --out, report.csv,
 * report.json, roofline.svg and portability.svg. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_report.h"
#include "pk_commit.h"

#define MAX_PLATFORMS 16

static void usage(FILE *f)
{
    fputs("usage: portkern bench --suite NAME | --shape SPEC [options]\n"
          "A vendor comparison report: per case, time and spread, the fraction of the device's\n"
          "measured roofline, the vendor library and the unfused path on the same device; across\n"
          "the platforms of the run, Pennycook's performance portability.\n"
          "  --suite NAME          one of the suites below (repeatable)\n"
          "  --shape SPEC          one case, e.g. op=gemm,m=1,n=4096,k=4096,dtype=bf16 or\n"
          "                        op=attention,b=1,sq=1,skv=8192,hq=32,hkv=8,d=128,causal=0 or\n"
          "                        op=rmsnorm,rows=16,cols=4096 (op=swiglu likewise) or\n"
          "                        op=rope,b=32,sq=1,hq=32,hkv=8,d=128,inv_freq=1\n"
          "  --backend LIST        platforms, e.g. cuda,opencl:0,hip (default: auto); opencl:1/portable\n"
          "                        is that OpenCL device with its inline PTX kernels off\n"
          "  --all-backends        every device of every backend present (ref only with --with-ref)\n"
          "  --with-ref            add the reference backend to --all-backends\n"
          "  --case SUBSTR         only cases whose name contains SUBSTR\n"
          "  --reps N              timed runs per case (default 20, at least 5)\n"
          "  --out DIR             write report.csv, report.json, roofline.svg, portability.svg\n"
          "  --no-unfused          skip the unfused baseline\n"
          "  --no-vendor           skip the vendor library (else one that tools/setup.sh installs\n"
          "                        but that cannot be loaded is an error; PORTKERN_CLBLAST=off\n"
          "                        skips CLBlast alone)\n"
          "  --refresh-roofline    probe the roofline again instead of reading the cache\n"
          "suites:\n",
          f);
    for (int i = 0; pk_bench_suite_names[i]; i++)
        fprintf(f, "  %-16s %s\n", pk_bench_suite_names[i], pk_bench_suite_about[i]);
}

/* spec: "backend[:index][/portable]" (pk_bench_open) */
static int add_platform(pk_bench_platform *p, int *np, pk_context **ctx, const char *spec)
{
    if (*np >= MAX_PLATFORMS) return 0;
    pk_context *c;
    char label[48];
    if (!pk_bench_open(spec, &c, label, sizeof label)) return 0;
    memset(&p[*np], 0, sizeof p[*np]);
    pk_context_info(c, &p[*np].info);
    snprintf(p[*np].label, sizeof p[*np].label, "%s", label);
    ctx[(*np)++] = c;
    return 1;
}

/* Clocks where the system shows them: nvidia-smi for NVIDIA GPUs (whatever
 * the backend), /proc/cpuinfo for CPU devices. */
static void read_clocks(pk_bench_platform *p)
{
    if (p->info.is_cpu) {
        FILE *f = fopen("/proc/cpuinfo", "r");
        char line[256];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "cpu MHz", 7) && strchr(line, ':')) {
                snprintf(p->clocks, sizeof p->clocks, "cpu %.0f MHz (first core, at start)", atof(strchr(line, ':') + 1));
                break;
            }
        if (f) fclose(f);
        return;
    }
    if (!strstr(p->info.vendor, "NVIDIA") && !strstr(p->info.name, "NVIDIA") &&
        p->info.backend != PK_BACKEND_CUDA)
        return;
    FILE *f = popen("nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks.max.sm,power.limit --format=csv,noheader "
                    "2>/dev/null | head -1",
                    "r");
    if (!f) return;
    char line[128] = "";
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        snprintf(p->clocks, sizeof p->clocks, "sm, mem, max sm, power limit: %s", line);
    }
    pclose(f);
}

static int write_file(const char *dir, const char *name, int (*fn)(const pk_bench_report *, FILE *),
                      const pk_bench_report *rep)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    int ok = f && fn(rep, f) == 0;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "bench: cannot write %s\n", path);
    else fprintf(stderr, "wrote %s\n", path);
    return ok;
}

/* The roof and where each of its figures came from (the "roof source"). */
static void print_roof(const pk_bench_platform *p, const char *what)
{
    printf("%-9s %s: copy %.1f GB/s (%s)\n", p->label, what, p->roof.copy_bps * 1e-9, p->roof.source);
    static const pk_dtype order[3] = {PK_F32, PK_F16, PK_BF16};
    for (int k = 0; k < 3; k++) {
        pk_dtype t = order[k];
        if (p->roof.flops[t] > 0)
            printf("          matrix %-4s %.4g TFLOP/s, roof source: %s\n", pk_dtype_name(t), p->roof.flops[t] * 1e-12,
                   p->roof.matrix_from[t]);
        else
            printf("          matrix %-4s n/a, roof source: %s\n", pk_dtype_name(t), p->roof.matrix_from[t]);
    }
    if (p->roof.matrix_detail[0]) printf("          (%s)\n", p->roof.matrix_detail);
}

static const char *fmt_pp(double v, char *buf)
{
    if (v == v) snprintf(buf, 16, "%.3f", v);
    else snprintf(buf, 16, "n/a");
    return buf;
}

static void print_row(const pk_bench_report *rep, const pk_bench_row *w)
{
    const pk_bench_case *c = w->c;
    if (!w->ran) {
        printf("%-46s %-17s %s\n", c->name, rep->p[w->platform].label, w->status);
        return;
    }
    double ms = w->r.ms;
    char vendor[48] = "-", unfused[24] = "-";
    if (w->r.vendor_ms > 0) snprintf(vendor, sizeof vendor, "%s %.4g (%.2fx)", w->r.vendor, w->r.vendor_ms, w->r.vendor_ms / ms);
    else if (w->r.vendor_error) snprintf(vendor, sizeof vendor, "ERROR: %s not loaded", w->r.vendor);
    else if (w->r.vendor_na[0]) snprintf(vendor, sizeof vendor, "n/a");
    char roof[16] = "n/a";
    if (w->eff_roof == w->eff_roof) snprintf(roof, sizeof roof, "%5.1f%%", 100 * w->eff_roof);
    if (w->unfused_ms > 0) snprintf(unfused, sizeof unfused, "%.4g (%.2fx)", w->unfused_ms, w->unfused_ms / ms);
    printf("%-46s %-17s %9.4g %5.1f%% %8.3f %8.1f %6s %-26s %-18s%s\n", c->name, rep->p[w->platform].label, ms,
           100 * w->r.spread, w->r.flops / ms * 1e-9, w->r.bytes / ms * 1e-6, roof, vendor, unfused,
           w->r.spread > 0.10 ? "  spread > 10%" : "");
}

/* Platforms that drive one device (CUDA, HIP on CUDA and OpenCL on one
 * GPU) share its limits: the best copy and matrix rate any of them
 * reached. A backend's own probe only shows what that backend gets, and a
 * slow backend measured against itself would look close to the device's
 * roof. Same device: same name and memory size. */
static void share_device_roofs(pk_bench_report *rep)
{
    for (int p = 0; p < rep->np; p++)
        for (int q = 0; q < rep->np; q++) {
            pk_bench_platform *a = &rep->p[p], *b = &rep->p[q];
            if (p == q || strcmp(a->info.name, b->info.name) || a->info.global_mem_bytes != b->info.global_mem_bytes)
                continue;
            int raised = 0;
            if (b->roof.copy_bps > a->roof.copy_bps) a->roof.copy_bps = b->roof.copy_bps, raised = 1;
            for (int t = 0; t < 4; t++)
                if (b->roof.flops[t] > a->roof.flops[t]) {
                    a->roof.flops[t] = b->roof.flops[t], raised = 1;
                    char from[96];
                    snprintf(from, sizeof from, "%s", b->roof.matrix_from[t]);
                    snprintf(a->roof.matrix_from[t], sizeof a->roof.matrix_from[t], "%.56s of %.31s", from, b->label);
                }
            if (raised) {
                size_t len = strlen(a->roof.source);
                snprintf(a->roof.source + len, sizeof a->roof.source - len, "; device limits from %s", b->label);
            }
        }
}

/* A vendor GEMM of the run that beats the roof (a shape that suits the
 * device better, or a quieter moment on a shared machine) is the better
 * estimate of the matrix rate. Only the vendor library's: portkern's own
 * GEMM never sets the roof it is judged against, so a portkern GEMM above
 * its roof shows as more than 100% (a hardware peak read too low). */
static void raise_roofs(pk_bench_report *rep)
{
    for (int i = 0; i < rep->nc * rep->np; i++) {
        pk_bench_row *w = &rep->rows[i];
        if (w->c->op != PK_BENCH_GEMM || !(w->r.vendor_ms > 0)) continue;
        pk_bench_roof *roof = &rep->p[w->platform].roof;
        double rate = w->r.flops / (w->r.vendor_ms * 1e-3);
        if (rate > roof->flops[w->c->dtype]) {
            roof->flops[w->c->dtype] = rate;
            snprintf(roof->matrix_from[w->c->dtype], sizeof roof->matrix_from[w->c->dtype], "%s in '%.40s'",
                     w->r.vendor, w->c->name);
        }
    }
    share_device_roofs(rep);
    for (int i = 0; i < rep->nc * rep->np; i++)
        rep->rows[i].roof_ms = pk_bench_roof_ms(&rep->p[rep->rows[i].platform].roof, rep->rows[i].c);
}

int pk_bench_report_main(int argc, char **argv)
{
    const char *suites[16], *backends = NULL, *filter = NULL, *out = NULL;
    char shape_names[8][128];
    pk_bench_case shapes[8];
    int ns = 0, nshape = 0, reps = 20, all = 0, with_ref = 0, no_unfused = 0, refresh = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int v = i + 1 < argc;
        if (!strcmp(a, "--suite") && v && ns < 16) suites[ns++] = argv[++i];
        else if (!strcmp(a, "--shape") && v && nshape < 8) {
            if (!pk_bench_parse_case(argv[++i], &shapes[nshape], shape_names[nshape], sizeof shape_names[0])) {
                fprintf(stderr, "bench: bad --shape '%s'\n", argv[i]);
                return 2;
            }
            nshape++;
        } else if (!strcmp(a, "--backend") && v) backends = argv[++i];
        else if (!strcmp(a, "--case") && v) filter = argv[++i];
        else if (!strcmp(a, "--reps") && v) reps = atoi(argv[++i]);
        else if (!strcmp(a, "--out") && v) out = argv[++i];
        else if (!strcmp(a, "--all-backends")) all = 1;
        else if (!strcmp(a, "--with-ref")) with_ref = 1;
        else if (!strcmp(a, "--no-unfused")) no_unfused = 1;
        else if (!strcmp(a, "--no-vendor")) pk_bench_vendor_on = 0;
        else if (!strcmp(a, "--refresh-roofline")) refresh = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "bench: bad option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (reps < PK_BENCH_MIN_REPS) reps = PK_BENCH_MIN_REPS;
    /* the cases: the named suites in order, then the command line's */
    static pk_bench_case cases[512];
    int nc = 0;
    char suite_label[160] = "";
    if (ns == 0 && nshape == 0) suites[ns++] = "floors";
    for (int s = 0; s < ns; s++) {
        const pk_bench_case *src;
        int n = pk_bench_suite(suites[s], &src);
        if (n < 0) {
            fprintf(stderr, "bench: unknown suite '%s'\n", suites[s]);
            usage(stderr);
            return 2;
        }
        for (int i = 0; i < n && nc < 512; i++)
            if (!filter || strstr(src[i].name, filter)) cases[nc++] = src[i];
        snprintf(suite_label + strlen(suite_label), sizeof suite_label - strlen(suite_label), "%s%s", s ? "+" : "",
                 suites[s]);
    }
    for (int i = 0; i < nshape && nc < 512; i++) cases[nc++] = shapes[i];
    if (nshape)
        snprintf(suite_label + strlen(suite_label), sizeof suite_label - strlen(suite_label), "%scommand line",
                 ns ? "+" : "");

    pk_bench_platform plat[MAX_PLATFORMS];
    pk_context *ctx[MAX_PLATFORMS];
    int np = 0;
    if (all) {
        static const pk_backend order[] = {PK_BACKEND_CUDA, PK_BACKEND_HIP, PK_BACKEND_OPENCL, PK_BACKEND_REF};
        for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
            int n = 0;
            if (order[k] == PK_BACKEND_REF && !with_ref) continue;
            if (pk_device_count(order[k], &n) != PK_SUCCESS) continue;
            for (int i = 0; i < n; i++) {
                char spec[48];
                snprintf(spec, sizeof spec, "%s:%d", pk_backend_name(order[k]), i);
                add_platform(plat, &np, ctx, spec);
            }
        }
    } else {
        char list[256];
        snprintf(list, sizeof list, "%s", backends ? backends : "auto");
        for (char *save = NULL, *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
            /* an unknown name is a usage error; a device that does not open
             * is left out (said on stderr) */
            char name[32];
            pk_backend be;
            snprintf(name, sizeof name, "%.*s", (int)strcspn(b, ":/"), b);
            if (pk_backend_from_name(name, &be) != PK_SUCCESS) {
                fprintf(stderr, "bench: unknown backend '%s'\n", name);
                return 2;
            }
            add_platform(plat, &np, ctx, b);
        }
    }
    if (np == 0 || nc == 0) {
        fprintf(stderr, "bench: %s\n", np == 0 ? "no platform could be opened" : "no case matches");
        for (int p = 0; p < np; p++) pk_close(ctx[p]);
        return 1;
    }

    pk_bench_report rep = {0};
    rep.suite = suite_label;
    const char *env_commit = getenv("PORTKERN_COMMIT");
    rep.commit = env_commit && *env_commit ? env_commit : PK_COMMIT;
    time_t now = time(NULL);
    strftime(rep.date, sizeof rep.date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    rep.reps = reps;
    rep.np = np;
    rep.nc = nc;
    rep.p = plat;
    rep.cases = cases;
    rep.rows = calloc((size_t)(np * nc), sizeof *rep.rows);
    rep.pp_roof = calloc((size_t)nc, sizeof(double));
    rep.pp_best = calloc((size_t)nc, sizeof(double));
    rep.pp_vendor_roof = calloc((size_t)nc, sizeof(double));
    if (!rep.rows || !rep.pp_roof || !rep.pp_best || !rep.pp_vendor_roof) return 1;

    printf("portkern bench --suite %s, %s, commit %s, median of %d intervals of back-to-back calls (>= 0.25 ms each)\n", suite_label, rep.date, rep.commit, reps);
    for (int p = 0; p < np; p++) {
        read_clocks(&plat[p]);
        pk_status s = pk_bench_roofline(ctx[p], cases, nc, refresh, &plat[p].roof);
        if (s != PK_SUCCESS) fprintf(stderr, "bench: roofline probe on %s failed: %s\n", plat[p].label, pk_status_string(s));
        printf("%-9s %s (%s)%s%s\n", plat[p].label, plat[p].info.name, plat[p].info.driver,
               plat[p].clocks[0] ? "; " : "", plat[p].clocks);
        print_roof(&plat[p], "roofline");
    }
    int failed = 0, step = 0;
    for (int c = 0; c < nc; c++)
        for (int p = 0; p < np; p++) {
            pk_bench_row *w = &rep.rows[c * np + p];
            w->c = &cases[c];
            w->platform = p;
            step++;
            if (isatty(2)) fprintf(stderr, "\033[K[%d/%d] %s on %s ...\r", step, nc * np, cases[c].name, plat[p].label);
            pk_status s = pk_bench_run(ctx[p], &cases[c], reps, &w->r);
            w->ran = s == PK_SUCCESS;
            if (!w->ran) {
                snprintf(w->status, sizeof w->status, "%s: %s", pk_status_string(s), pk_last_error(ctx[p]));
                failed += s != PK_ERR_UNSUPPORTED;
            }
            if (w->r.vendor_error) {
                fprintf(stderr, "%sbench: error: %s on %s: %s\n", isatty(2) ? "\033[K" : "", cases[c].name,
                        plat[p].label, w->r.vendor_na);
                failed++;
            }
            pk_bench_counts(&cases[c], &w->r.flops, &w->r.bytes);
            w->roof_ms = pk_bench_roof_ms(&plat[p].roof, &cases[c]);
            if (cases[c].op != PK_BENCH_GEMM && !w->r.vendor_na[0])
                snprintf(w->r.vendor_na, sizeof w->r.vendor_na, "no vendor library for this op");
            if (no_unfused) snprintf(w->unfused_na, sizeof w->unfused_na, "skipped (--no-unfused)");
            else w->unfused_ms = pk_bench_unfused(ctx[p], &cases[c], reps, w->unfused_na, sizeof w->unfused_na);
            if (!isatty(2)) fprintf(stderr, "[%d/%d] %s on %s: %s\n", step, nc * np, cases[c].name, plat[p].label,
                                    w->ran ? "done" : w->status);
        }
    if (isatty(2)) fprintf(stderr, "\033[K");
    raise_roofs(&rep);
    for (int p = 0; p < np; p++) print_roof(&plat[p], "roofline as used");
    pk_bench_report_score(&rep);
    printf("%-46s %-17s %9s %6s %8s %8s %6s %-26s %-18s\n", "case", "platform", "ms", "spread", "TFLOP/s", "GB/s",
           "roof", "vendor ms (vendor/ours)", "unfused ms (x)");
    for (int i = 0; i < nc * np; i++) print_row(&rep, &rep.rows[i]);
    printf("\nperformance portability over %d platform(s) (Pennycook et al.; 0 when one cannot run the case;\n"
           "PP best against the best other implementation on each platform, vendor library or unfused path,\n"
           "n/a where a platform has neither)\n",
           np);
    printf("%-46s %10s %10s %12s\n", "case", "PP roof", "PP best", "vendor PP");
    char b1[16], b2[16], b3[16];
    for (int c = 0; c < nc; c++)
        printf("%-46s %10s %10s %12s\n", cases[c].name, fmt_pp(rep.pp_roof[c], b1), fmt_pp(rep.pp_best[c], b2),
               fmt_pp(rep.pp_vendor_roof[c], b3));
    printf("%-46s %10s %10s   (means over the cases with a figure: %d and %d of %d)\n", "suite mean",
           fmt_pp(pk_bench_report_pp_mean(&rep, 0), b1), fmt_pp(pk_bench_report_pp_mean(&rep, 1), b2),
           pk_bench_report_pp_count(&rep, 0), pk_bench_report_pp_count(&rep, 1), nc);
    for (int i = 0; i < nc * np; i++)
        if (rep.rows[i].r.vendor_na[0] && rep.rows[i].c->op == PK_BENCH_GEMM)
            printf("vendor %s: %s on %s: %s\n", rep.rows[i].r.vendor_error ? "ERROR" : "n/a", rep.rows[i].c->name,
                   plat[rep.rows[i].platform].label, rep.rows[i].r.vendor_na);
    if (out) {
        mkdir(out, 0755);
        int ok = write_file(out, "report.csv", pk_bench_write_csv, &rep);
        ok &= write_file(out, "report.json", pk_bench_write_json, &rep);
        ok &= write_file(out, "roofline.svg", pk_bench_svg_roofline, &rep);
        ok &= write_file(out, "portability.svg", pk_bench_svg_portability, &rep);
        if (!ok) failed++;
    }
    for (int p = 0; p < np; p++) pk_close(ctx[p]);
    free(rep.rows);
    free(rep.pp_roof);
    free(rep.pp_best);
    free(rep.pp_vendor_roof);
    return failed ? 1 : 0;
}
