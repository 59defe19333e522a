/* The device's limits. Bandwidth is measured: a device-to-device copy by
 * the driver (clEnqueueCopyBuffer, cuMemcpyDtoDAsync, hipMemcpyDtoDAsync).
 * The matrix rate never comes from portkern's kernels, which would make
 * portkern's GEMM a fraction of itself: on a CPU it is the hardware's peak
 * (bench_cpu.c: cores x lanes x FMA units x clock, read from the system);
 * on a GPU it is the vendor library's rate on a large square GEMM of each
 * dtype (cuBLAS; CLBlast on OpenCL), and none where there is no vendor
 * library (HIP on its own); the report then shares the limits of the
 * platforms that drive the same device, and raises a rate where a vendor
 * GEMM of the run beats it. Measured figures are kept per device in
 * $PORTKERN_CACHE_DIR so a report does not pay the probe every run; the
 * hardware peak is read afresh each time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "pk_disk_cache.h"

static const char *dt_key[3] = {"flops_f32", "flops_f16", "flops_bf16"};

/* The roof file of a device in the kernel caches' folder (pk_cache_dir);
 * 0: no cache. */
static int cache_path(const pk_device_info *info, char *path, size_t n)
{
    char dir[768];
    if (!pk_cache_dir(dir, sizeof dir)) return 0;
    /* the name and driver, hashed: a driver update re-measures */
    const uint64_t h = pk_hash_part(pk_hash_part(PK_HASH_INIT, info->name), info->driver);
    /* roof2: the format without portkern's own matrix rate (older files held it) */
    snprintf(path, n, "%s/bench-roof2-%s-%d-%016llx.txt", dir, pk_backend_name(info->backend), info->index,
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

/* The vendor library's rate on a large square GEMM; portkern's own time of
 * the same GEMM (pk_bench_run takes both) is not used. */
static pk_status probe_matrix(pk_context *ctx, pk_dtype dt, pk_bench_roof *roof)
{
    int64_t n = 8192;
    char name[64];
    snprintf(name, sizeof name, "roofline probe %s %lld^3", pk_dtype_name(dt), (long long)n);
    pk_bench_case c = {name, PK_BENCH_GEMM, dt, n, n, n, 1, 0, 0, 0, 0, 0, 0, 0, 'F', 0, "probe"};
    pk_bench_result r;
    pk_status s = pk_bench_run(ctx, &c, 10, &r);
    if (s != PK_SUCCESS) return s;
    if (r.vendor_ms > 0) {
        roof->flops[dt] = r.flops / (r.vendor_ms * 1e-3);
        snprintf(roof->matrix_from[dt], sizeof roof->matrix_from[dt], "%s (probe %lld^3)", r.vendor, (long long)n);
    } else {
        roof->flops[dt] = -1;
        snprintf(roof->matrix_from[dt], sizeof roof->matrix_from[dt], "none (%.50s)",
                 r.vendor_na[0] ? r.vendor_na : "no vendor library");
    }
    return PK_SUCCESS;
}

static const char *vendor_of(pk_backend b) { return b == PK_BACKEND_CUDA ? "cuBLAS" : b == PK_BACKEND_OPENCL ? "CLBlast" : "vendor"; }

pk_status pk_bench_roofline(pk_context *ctx, const pk_bench_case *cases, int n, int refresh, pk_bench_roof *roof)
{
    memset(roof, 0, sizeof *roof);
    pk_device_info info;
    pk_status s = pk_context_info(ctx, &info);
    if (s != PK_SUCCESS) return s;
    char path[1024];
    int cache = cache_path(&info, path, sizeof path);
    if (cache && !refresh) read_cache(path, roof);
    for (int t = 0; t < 3; t++)
        if (roof->flops[t] > 0)
            snprintf(roof->matrix_from[t], sizeof roof->matrix_from[t], "%s (probe, cached)", vendor_of(info.backend));
    int measured = 0, copy_new = 0;
    if (roof->copy_bps <= 0) {
        if (isatty(2)) fprintf(stderr, "roofline: copy bandwidth of %s ...\r", info.name);
        s = probe_copy(ctx, &info, roof);
        if (s != PK_SUCCESS) return s;
        measured = copy_new = 1;
    }
    if (info.is_cpu) {
        /* the hardware's peak, whatever a cached file says */
        for (int t = 0; t < 3; t++) roof->flops[t] = 0;
        pk_bench_cpu_peak(roof);
    } else {
        snprintf(roof->matrix_detail, sizeof roof->matrix_detail, "the vendor library's best rate on the device%s",
                 info.backend == PK_BACKEND_CUDA || info.backend == PK_BACKEND_OPENCL
                     ? ""
                     : " (none for this backend: platforms on the same device lend theirs)");
        for (int i = 0; i < n; i++) {
            pk_dtype dt = cases[i].dtype;
            if (roof->flops[dt] != 0) continue;
            if (info.backend != PK_BACKEND_CUDA && info.backend != PK_BACKEND_OPENCL) {
                roof->flops[dt] = -1;
                snprintf(roof->matrix_from[dt], sizeof roof->matrix_from[dt], "none (no vendor library for %s)",
                         pk_backend_name(info.backend));
                continue;
            }
            /* without the vendor library the probe's own GEMM would be
             * timed for nothing (and launched before every case's) */
            if (!pk_bench_vendor_on) {
                roof->flops[dt] = -1;
                snprintf(roof->matrix_from[dt], sizeof roof->matrix_from[dt], "none (skipped (--no-vendor))");
                continue;
            }
            if (isatty(2)) fprintf(stderr, "roofline: %s matrix rate of %s ...\r", pk_dtype_name(dt), info.name);
            /* a dtype the device cannot run has no roof: its cases say so themselves */
            if (probe_matrix(ctx, dt, roof) != PK_SUCCESS) {
                roof->flops[dt] = -1;
                snprintf(roof->matrix_from[dt], sizeof roof->matrix_from[dt], "none (the probe GEMM failed)");
            } else if (roof->flops[dt] > 0) measured = 1;
        }
    }
    for (int t = 0; t < 3; t++) {
        if (roof->flops[t] < 0) roof->flops[t] = 0;
        if (!roof->matrix_from[t][0]) snprintf(roof->matrix_from[t], sizeof roof->matrix_from[t], "none (not probed)");
    }
    roof->cached = !measured;
    snprintf(roof->source, sizeof roof->source, "copy: %s, %s%s",
             info.backend == PK_BACKEND_REF ? "the C library's memcpy" : "the driver's copy", copy_new ? "measured" : "cached",
             cache ? (copy_new ? " (saved to the cache)" : " in $PORTKERN_CACHE_DIR") : "");
    if (cache && measured) {
        pk_bench_roof keep = *roof;
        if (info.is_cpu) memset(keep.flops, 0, sizeof keep.flops); /* computed each run, not cached */
        write_cache(path, &keep);
    }
    return PK_SUCCESS;
}

double pk_bench_roof_ms(const pk_bench_roof *roof, const pk_bench_case *c)
{
    double flops, bytes;
    pk_bench_counts(c, &flops, &bytes);
    /* a matrix op without a known matrix rate has no roof (n/a): the
     * bandwidth term alone would put the roof too low */
    if (roof->flops[c->dtype] <= 0 && (c->op == PK_BENCH_GEMM || c->op == PK_BENCH_ATTENTION)) return 0;
    double tf = roof->flops[c->dtype] > 0 ? flops / roof->flops[c->dtype] : 0;
    double tb = roof->copy_bps > 0 ? bytes / roof->copy_bps : 0;
    return 1e3 * (tf > tb ? tf : tb);
}
