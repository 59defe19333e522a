/* The device's own limits, measured rather than taken from a data sheet
 * (which no OpenCL or CPU device reports, and which clocks and power caps
 * make optimistic): a device-to-device copy for bandwidth, and a large
 * square GEMM for the matrix rate of each dtype, the better of portkern's
 * and the vendor library's (so the roof is never our own ceiling alone
 * where a vendor library can beat it). Kept per device in
 * $PORTKERN_CACHE_DIR so a report does not pay the probe every run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

static const char *dt_key[3] = {"flops_f32", "flops_f16", "flops_bf16"};

/* Same resolution as the OpenCL program cache; 0: no cache. */
static int cache_path(const pk_device_info *info, char *path, size_t n)
{
    char dir[768];
    const char *env = getenv("PORTKERN_CACHE_DIR");
    if (env && !strcmp(env, "off")) return 0;
    if (env && *env) snprintf(dir, sizeof dir, "%s", env);
    else if (getenv("XDG_CACHE_HOME") && *getenv("XDG_CACHE_HOME"))
        snprintf(dir, sizeof dir, "%s/portkern", getenv("XDG_CACHE_HOME"));
    else if (getenv("HOME") && *getenv("HOME")) snprintf(dir, sizeof dir, "%s/.cache/portkern", getenv("HOME"));
    else return 0;
    mkdir(dir, 0755);
    /* the name and driver, hashed: a driver update re-measures */
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = info->name; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    for (const char *s = info->driver; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    snprintf(path, n, "%s/bench-roof-%s-%d-%016llx.txt", dir, pk_backend_name(info->backend), info->index,
             (unsigned long long)h);
    return 1;
}

static void read_cache(const char *path, pk_bench_roof *roof)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char key[64], line[256];
    double v;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%63s %lf", key, &v) != 2) continue;
        if (!strcmp(key, "copy_bps")) roof->copy_bps = v;
        for (int t = 0; t < 3; t++)
            if (!strcmp(key, dt_key[t])) roof->flops[t] = v;
    }
    fclose(f);
}

static void write_cache(const char *path, const pk_bench_roof *roof)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "copy_bps %.6g\n", roof->copy_bps);
    for (int t = 0; t < 3; t++)
        if (roof->flops[t] > 0) fprintf(f, "%s %.6g\n", dt_key[t], roof->flops[t]);
    fclose(f);
}

typedef struct copy_state {
    pk_buffer *a, *b;
    size_t bytes;
} copy_state;

static pk_status copy_run(void *state, int i)
{
    copy_state *c = state;
    return i % 2 ? pk_copy(c->a, 0, c->b, 0, c->bytes) : pk_copy(c->b, 0, c->a, 0, c->bytes);
}

static pk_status probe_copy(pk_context *ctx, const pk_device_info *info, pk_bench_roof *roof)
{
    /* far past any cache, yet a small share of the device's memory */
    size_t bytes = info->is_cpu ? (size_t)128 << 20 : (size_t)1 << 30;
    while (bytes > ((size_t)16 << 20) && bytes > info->global_mem_bytes / 16) bytes /= 2;
    copy_state st = {NULL, NULL, bytes};
    pk_status s = pk_alloc(ctx, bytes, &st.a);
    if (s == PK_SUCCESS) s = pk_alloc(ctx, bytes, &st.b);
    pk_bench_result r = {0};
    if (s == PK_SUCCESS) s = pk_bench_time(ctx, copy_run, &st, 10, &r);
    if (s == PK_SUCCESS) roof->copy_bps = 2.0 * (double)bytes / (r.ms * 1e-3);
    if (st.a) pk_free(st.a);
    if (st.b) pk_free(st.b);
    return s;
}

static pk_status probe_matrix(pk_context *ctx, const pk_device_info *info, pk_dtype dt, pk_bench_roof *roof)
{
    /* large enough to be compute-bound everywhere; the reference backend
     * (f64 accumulation, one core) gets a size it finishes in seconds */
    int64_t n = info->backend == PK_BACKEND_REF ? 256 : info->is_cpu ? 1024 : 8192;
    char name[64];
    snprintf(name, sizeof name, "roofline probe %s %lld^3", pk_dtype_name(dt), (long long)n);
    pk_bench_case c = {name, PK_BENCH_GEMM, dt, n, n, n, 1, 0, 0, 0, 0, 0, 0, 0, 'F', 0, "probe"};
    pk_bench_result r;
    pk_status s = pk_bench_run(ctx, &c, 10, &r);
    if (s != PK_SUCCESS) return s;
    double ours = r.flops / (r.ms * 1e-3), vendor = r.vendor_ms > 0 ? r.flops / (r.vendor_ms * 1e-3) : 0;
    roof->flops[dt] = ours > vendor ? ours : vendor;
    return PK_SUCCESS;
}

pk_status pk_bench_roofline(pk_context *ctx, const pk_bench_case *cases, int n, int refresh, pk_bench_roof *roof)
{
    memset(roof, 0, sizeof *roof);
    pk_device_info info;
    pk_status s = pk_context_info(ctx, &info);
    if (s != PK_SUCCESS) return s;
    char path[1024];
    int cache = cache_path(&info, path, sizeof path);
    if (cache && !refresh) read_cache(path, roof);
    int measured = 0;
    if (roof->copy_bps <= 0) {
        if (isatty(2)) fprintf(stderr, "roofline: copy bandwidth of %s ...\r", info.name);
        s = probe_copy(ctx, &info, roof);
        if (s != PK_SUCCESS) return s;
        measured = 1;
    }
    for (int i = 0; i < n; i++) {
        pk_dtype dt = cases[i].dtype;
        if (roof->flops[dt] > 0) continue;
        if (isatty(2)) fprintf(stderr, "roofline: %s matrix rate of %s ...\r", pk_dtype_name(dt), info.name);
        /* a dtype the device cannot run has no roof: its cases say so themselves */
        if (probe_matrix(ctx, &info, dt, roof) != PK_SUCCESS) roof->flops[dt] = -1;
        measured = 1;
    }
    for (int t = 0; t < 3; t++)
        if (roof->flops[t] < 0) roof->flops[t] = 0;
    roof->cached = !measured;
    snprintf(roof->source, sizeof roof->source, "%s%s", measured ? "measured" : "cached",
             cache ? (measured ? ", saved to the cache" : " in $PORTKERN_CACHE_DIR") : "");
    if (cache && measured) write_cache(path, roof);
    return PK_SUCCESS;
}

double pk_bench_roof_ms(const pk_bench_roof *roof, const pk_bench_case *c)
{
    double flops, bytes;
    pk_bench_counts(c, &flops, &bytes);
    double tf = roof->flops[c->dtype] > 0 ? flops / roof->flops[c->dtype] : 0;
    double tb = roof->copy_bps > 0 ? bytes / roof->copy_bps : 0;
    return 1e3 * (tf > tb ? tf : tb);
}
