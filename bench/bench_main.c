/* `portkern bench`: options, the case loop, the table, and the record in
 * bench/RESULTS.md (date, device, commit, medians, the vendor baseline of
 * the same run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_report.h"
#include "pk_commit.h"

static void usage(FILE *f)
{
    fputs("usage: portkern bench [options]\n"
          "Times the performance-floor cases (the \"floors\" suite) on one device with\n"
          "device events (warm-up, median of --reps intervals of back-to-back calls,\n"
          "each >= 0.25 ms, inputs rotated past the L2) beside the vendor library.\n"
          "  --backend NAME[:IDX]  auto (default), ref, opencl, cuda, hip; opencl:IDX/portable\n"
          "                        runs OpenCL with its inline PTX (tensor-core) kernels off\n"
          "  --case SUBSTR         only cases whose name contains SUBSTR\n"
          "  --reps N              timed intervals per case (default 20, at least 5)\n"
          "  --record FILE         append the table as markdown to FILE (e.g. bench/RESULTS.md)\n"
          "  --no-vendor           do not time the vendor library (cuBLAS, CLBlast); without it a\n"
          "                        vendor library that tools/setup.sh installs but that cannot be\n"
          "                        loaded fails the run (PORTKERN_CLBLAST=off skips CLBlast alone)\n"
          "  --list                print the case names\n"
          "The vendor comparison report (portkern bench --suite NAME --help): --suite,\n"
          "--shape, --all-backends, --out DIR and a --backend list select it.\n",
          f);
}

/* The case's own metric, in its unit (TFLOP/s or TB/s). */
static double metric(const pk_bench_case *c, const pk_bench_result *r, double ms)
{
    if (ms <= 0) return 0;
    if (c->metric == 'F') return r->flops / (ms * 1e-3) / 1e12;
    return r->metric_bytes / (ms * 1e-3) / 1e12;
}

static const char *unit(const pk_bench_case *c)
{
    switch (c->metric) {
    case 'F': return "TFLOP/s";
    case 'W': return "TB/s weights";
    case 'K': return "TB/s of KV";
    default: return "TB/s";
    }
}

/* The report's options; without them the floors table runs exactly as
 * before, since the lead's --record history depends on its format. */
static int wants_report(int argc, char **argv)
{
    static const char *const opts[] = {"--suite", "--shape", "--all-backends", "--with-ref", "--out",
                                       "--no-unfused", "--refresh-roofline"};
    for (int i = 1; i < argc; i++) {
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
            if (!strcmp(argv[i], opts[k])) return 1;
        if (!strcmp(argv[i], "--backend") && i + 1 < argc && strchr(argv[i + 1], ',')) return 1;
    }
    return 0;
}

int pk_bench_main(int argc, char **argv)
{
    if (wants_report(argc, argv)) return pk_bench_report_main(argc, argv);
    const char *backend = NULL, *filter = NULL, *record = NULL;
    int reps = 20, list = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(a, "--backend") && has_value) backend = argv[++i];
        else if (!strcmp(a, "--case") && has_value) filter = argv[++i];
        else if (!strcmp(a, "--record") && has_value) record = argv[++i];
        else if (!strcmp(a, "--reps") && has_value) reps = atoi(argv[++i]);
        else if (!strcmp(a, "--list")) list = 1;
        else if (!strcmp(a, "--no-vendor")) pk_bench_vendor_on = 0;
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
    const pk_bench_case *cases;
    int n = pk_bench_cases(&cases);
    if (list) {
        for (int i = 0; i < n; i++) printf("%s\n", cases[i].name);
        return 0;
    }
    pk_context *ctx;
    char label[48];
    if (!pk_bench_open(backend, &ctx, label, sizeof label)) return 1;
    pk_device_info info;
    pk_context_info(ctx, &info);
    const int portable = strstr(label, "/portable") != NULL;

    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    /* a tree copied to the GPU machine may carry a stale .git (or none):
     * the caller's word on which commit it is wins */
    const char *commit = getenv("PORTKERN_COMMIT") && *getenv("PORTKERN_COMMIT") ? getenv("PORTKERN_COMMIT") : PK_COMMIT;
    char header[768];
    snprintf(header, sizeof header, "%s, %s %d%s: %s (%s), commit %s, median of %d intervals of back-to-back calls (>= 0.25 ms each)", date,
             pk_backend_name(info.backend), info.index, portable ? " (portable kernels, inline PTX off)" : "",
             info.name, info.driver, commit, reps);
    printf("%s\n", header);
    printf("%-38s %9s %6s %10s %-13s %6s %9s %10s %6s  %s\n", "case", "ms", "spread", "result", "unit", "floor",
           "vendor ms", "vendor", "ratio", "calls/interval");

    char *table = NULL;
    size_t table_len = 0;
    FILE *t = open_memstream(&table, &table_len);
    fprintf(t, "\n### %s\n\n| case | ms | spread | result | unit | floor | vendor | vendor result | ours/vendor |\n"
               "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
            header);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const pk_bench_case *c = &cases[i];
        if (filter && !strstr(c->name, filter)) continue;
        if (isatty(2)) fprintf(stderr, "[%d/%d] %s ...\r", i + 1, n, c->name);
        pk_bench_result r;
        pk_status s = pk_bench_run(ctx, c, reps, &r);
        if (s != PK_SUCCESS) {
            printf("%-38s %s: %s\n", c->name, pk_status_string(s), pk_last_error(ctx));
            fprintf(t, "| %s | - | - | %s | | %g | | | |\n", c->name, pk_status_string(s), c->floor);
            failed += s != PK_ERR_UNSUPPORTED;
            continue;
        }
        if (r.vendor_error) {
            fprintf(stderr, "bench: error: %s: %s\n", c->name, r.vendor_na);
            failed++;
        }
        double ours = metric(c, &r, r.ms), theirs = metric(c, &r, r.vendor_ms);
        printf("%-38s %9.4f %5.1f%% %10.3f %-13s %6g %9.4f %10.3f %6.2f  x%d%s%s%s\n", c->name, r.ms, 100 * r.spread, ours,
               unit(c), c->floor, r.vendor_ms, theirs, theirs > 0 ? ours / theirs : 0, r.calls,
               r.spread > 0.10 ? "  (spread > 10%)" : "", r.note[0] ? "  " : "", r.note);
        fprintf(t, "| %s | %.4f | %.1f%% | %.3f | %s | %g | %s | %.3f | %.2f |\n", c->name, r.ms, 100 * r.spread,
                ours, unit(c), c->floor, r.vendor_ms > 0 ? r.vendor : "-", theirs, theirs > 0 ? ours / theirs : 0);
    }
    fclose(t);
    if (record) {
        FILE *f = fopen(record, "a");
        if (!f || fputs(table, f) < 0) fprintf(stderr, "bench: cannot append to %s\n", record);
        if (f) fclose(f);
    }
    free(table);
    pk_close(ctx);
    return failed ? 1 : 0;
}
