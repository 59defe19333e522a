/* The tuner and the tuning cache on an OpenCL device (PoCL in CI): a
 * search within its time limit stores its winner, a new context loads it
 * and says so, a search whose first candidate cannot build in time is
 * stopped at its limit, one without a worker process (or whose worker
 * cannot open the device) runs in this one,
 * PORTKERN_CL_TUNED=off and a damaged, stale or invalid cache file are
 * ignored, PORTKERN_CL_PARAMS sets values over them (or stops an open
 * with values that break a rule), a candidate whose launch does not fit
 * the device is refused and the search goes on, bad requests are refused with a message, and the inline PTX
 * state agrees with the device's matrix units and PORTKERN_OPENCL_PTX.
 * Usage: test_tune [device index]; skips (exit 77) without OpenCL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pk_internal.h"
#include "opencl_open.h"
#include "plan_check.h"

static char dir[256];

/* "table", "tuned" or "set" for family f on a fresh context */
static const char *status_of(const char *f)
{
    static char where[16];
    char reply[4096], key[64];
    pk_context *ctx = open_cl();
    snprintf(where, sizeof where, "?");
    if (pk_internal_params(ctx, "status", reply, sizeof reply) == PK_SUCCESS) {
        snprintf(key, sizeof key, "\n%s ", f);
        const char *at = strstr(reply, key);
        if (at) sscanf(at + strlen(key), "%15s", where);
    }
    pk_close(ctx);
    return where;
}

static char *tuned_file(void)
{
    static char path[512];
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls %s/tuned-*.txt 2>/dev/null | head -1", dir);
    FILE *p = popen(cmd, "r");
    path[0] = 0;
    if (p && fgets(path, sizeof path, p)) path[strcspn(path, "\n")] = 0;
    if (p) pclose(p);
    return path;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A cache file around `lines` with the right checksum (FNV-1a of all
 * that precedes "end"), as opencl_tuned.c writes it. */
static void write_checked(const char *path, const char *lines)
{
    char text[8192];
    int n = snprintf(text, sizeof text, "portkern-tuned 1\n%s", lines);
    unsigned long long h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    snprintf(text + n, sizeof text - (size_t)n, "end %016llx\n", h);
    write_file(path, text);
}

static char *read_all(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f) fclose(f);
    return buf;
}

/* The worker run directly, as the tuner runs it, with the caller's device
 * given as `index` and `name`: its event lines, stdout and stderr (the
 * worker checks that its parent is the pid passed, which it is here). */
static void run_worker(const char *index, const char *name, const char *start, char *out, size_t n)
{
    const char *exe = getenv("PK_TEST_TUNE_WORKER");
    out[0] = 0;
    int fds[2];
    if (!exe || pipe(fds) != 0) return;
    char dl[48], parent[24];
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(dl, sizeof dl, "%.6f", (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + 2.0);
    snprintf(parent, sizeof parent, "%ld", (long)getpid());
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        execl(exe, exe, "opencl", index, "rope", dl, name, start, parent, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t at = 0;
    ssize_t got;
    while (pid > 0 && at + 1 < n && (got = read(fds[0], out + at, n - 1 - at)) > 0) at += (size_t)got;
    out[at] = 0;
    close(fds[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
    open_cl_index(argc, argv);
    snprintf(dir, sizeof dir, "/tmp/pk-test-tune-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    setenv("PORTKERN_CACHE_DIR", dir, 1);
    unsetenv("PORTKERN_CL_TUNED");

    /* bad requests */
    pk_context *ctx = open_cl();
    char reply[4096], report[1024];
    CHECK(pk_internal_params(ctx, "set chain.wg=96", reply, sizeof reply) == PK_ERR_INVALID_ARGUMENT &&
              strstr(pk_last_error(ctx), "power of two"), "bad set: %s", pk_last_error(ctx));
    CHECK(pk_internal_params(ctx, "get nope", reply, sizeof reply) == PK_ERR_INVALID_ARGUMENT, "unknown family");
    CHECK(pk_internal_params(ctx, "frobnicate", reply, sizeof reply) == PK_ERR_INVALID_ARGUMENT, "unknown verb");
    CHECK(pk_internal_params(ctx, "list", reply, 8) == PK_ERR_INVALID_ARGUMENT, "a short reply buffer is an error");
    pk_internal_tune_opts opts = {3, 1, NULL, NULL};
    CHECK(pk_internal_tune(ctx, "nope", &opts, report, sizeof report) == PK_ERR_INVALID_ARGUMENT, "unknown family");
    /* inline PTX: on exactly where the device has matrix units (the probe
     * passed), and off by PORTKERN_OPENCL_PTX=0, saying so */
    pk_device_info info;
    pk_context_info(ctx, &info);
    CHECK(pk_internal_params(ctx, "ptx", reply, sizeof reply) == PK_SUCCESS &&
              !strncmp(reply, info.matrix_units ? "on " : "off ", info.matrix_units ? 3 : 4),
          "ptx: %s (matrix units %d)", reply, info.matrix_units);
    printf("ptx: %s", reply);
    /* a wgmma tile set where wgmma does not run: refused, saying so */
    if (!strstr(reply, "\nwgmma on ")) {
        CHECK(pk_internal_params(ctx, "set gemm_mma.wgmma=1,gemm_mma.warps_m=8,gemm_mma.warps_n=1", report, sizeof report) == PK_ERR_INVALID_ARGUMENT &&
                  strstr(pk_last_error(ctx), "does not run wgmma"),
              "a wgmma tile without wgmma: %s", pk_last_error(ctx));
        pk_internal_params(ctx, "ptx", reply, sizeof reply);
    }
    /* wgmma's line follows: off wherever inline PTX is, saying why */
    const char *wg_line = strstr(reply, "\nwgmma ");
    CHECK(wg_line && (info.matrix_units || !strncmp(wg_line, "\nwgmma off ", 11)), "wgmma line: %s", reply);
    if (info.matrix_units) {
        setenv("PORTKERN_OPENCL_WGMMA", "0", 1);
        CHECK(pk_internal_params(ctx, "ptx", reply, sizeof reply) == PK_SUCCESS &&
                  strstr(reply, "\nwgmma off turned off by PORTKERN_OPENCL_WGMMA=0"),
              "ptx with PORTKERN_OPENCL_WGMMA=0: %s", reply);
        unsetenv("PORTKERN_OPENCL_WGMMA");
    }
    setenv("PORTKERN_OPENCL_PTX", "0", 1);
    CHECK(pk_internal_params(ctx, "ptx", reply, sizeof reply) == PK_SUCCESS && !strncmp(reply, "off ", 4) &&
              strstr(reply, "PORTKERN_OPENCL_PTX=0"), "ptx with PORTKERN_OPENCL_PTX=0: %s", reply);
    pk_context *no_ptx = open_cl();
    pk_context_info(no_ptx, &info);
    CHECK(!info.matrix_units, "matrix units with PORTKERN_OPENCL_PTX=0");
    pk_close(no_ptx);
    unsetenv("PORTKERN_OPENCL_PTX");
    pk_context *ref;
    if (pk_open(PK_BACKEND_REF, 0, &ref) == PK_SUCCESS) {
        CHECK(pk_internal_tune(ref, "chain", &opts, report, sizeof report) == PK_ERR_UNSUPPORTED,
              "ref has no parameters");
        pk_close(ref);
    }

    /* a search within its limit, stored */
    CHECK(!strcmp(status_of("chain"), "table"), "untuned chain says %s", status_of("chain"));
    double limit = 6;
    opts.seconds = limit;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pk_status s = pk_internal_tune(ctx, "chain", &opts, report, sizeof report);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("%s (%.1f s)\n", report, took);
    CHECK(s == PK_SUCCESS && strstr(report, "stored"), "tune chain: %s", report);
    CHECK(took <= limit + 1, "took %.1f s over a %.0f s limit", took, limit);
    pk_internal_params(ctx, "get chain", reply, sizeof reply);
    char winner[4096];
    snprintf(winner, sizeof winner, "%s", reply);

    /* The limit holds when a build would not: gemm_large's kernels built
     * from nothing (PoCL's own cache emptied for the worker) take longer
     * than 3 s here, and the worker is stopped at 3 s. (Where they build
     * faster, the search ends in time by itself.) Nothing is stored. */
    char pocl[300];
    snprintf(pocl, sizeof pocl, "%.256s/pocl", dir);
    setenv("POCL_CACHE_DIR", pocl, 1);
    pk_internal_tune_opts quick = {3, 0, NULL, NULL};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    s = pk_internal_tune(ctx, "gemm_large", &quick, report, sizeof report);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("%s (%.1f s)\n", report, took);
    CHECK(took <= quick.seconds + 1, "gemm_large took %.1f s over a %.0f s limit", took, quick.seconds);
    CHECK(s == PK_SUCCESS || (s == PK_ERR_INVALID_ARGUMENT && strstr(report, "no candidate finished")),
          "gemm_large: %s", report);
    unsetenv("POCL_CACHE_DIR");
    pk_internal_params(ctx, "get chain", reply, sizeof reply);
    CHECK(!strcmp(reply, winner), "tuning gemm_large changed chain: %s", reply);

    /* without a worker process: in this one, on a context of its own */
    setenv("PORTKERN_TUNE_WORKER", "off", 1);
    s = pk_internal_tune(ctx, "rope", &quick, report, sizeof report);
    printf("%s\n", report);
    CHECK(s == PK_SUCCESS && strstr(report, "rope.wg="), "rope in this process: %s", report);
    /* a candidate whose launch does not fit the device (injected into the
     * search's first kernel launch, the starting values' check, as NVIDIA's
     * OpenCL refuses one: CL_OUT_OF_RESOURCES on a healthy queue) is
     * refused, and the search goes on to a winner on the same context */
    int reached = 0, fired = 0, refused = 0;
    CHECK(pk_internal_fault_inject(ctx, PK_INTERNAL_FAULT_LAUNCH, 0) == PK_SUCCESS, "inject: %s",
          pk_last_error(ctx));
    s = pk_internal_tune(ctx, "rope", &quick, report, sizeof report);
    pk_internal_fault_report(ctx, &reached, &fired);
    pk_internal_fault_inject(ctx, PK_INTERNAL_FAULT_OFF, 0);
    printf("%s\n", report);
    const char *rc = strstr(report, " refused, ");
    while (rc && rc > report && rc[-1] >= '0' && rc[-1] <= '9') rc--;
    if (rc) refused = atoi(rc);
    CHECK(fired && s == PK_SUCCESS && strstr(report, "rope.wg=") && refused >= 1,
          "rope with a launch that does not fit (fired %d, %d refused): %s", fired, refused, report);
    unsetenv("PORTKERN_TUNE_WORKER");
    /* the worker finds the caller's device by its name where its own
     * listing moved the index; a name it does not list, it reports with
     * what it does list */
    if (getenv("PK_TEST_TUNE_WORKER")) {
        pk_device_info self;
        pk_context_info(ctx, &self);
        char spec[4096], out[8192];
        pk_internal_params(ctx, "get rope", spec, sizeof spec);
        spec[strcspn(spec, "\n")] = 0;
        run_worker("7", self.name, spec, out, sizeof out);
        CHECK(strstr(out, "pk-tune E 0 ") && !strstr(out, "pk-tune O "), "the worker at index 7: %.600s", out);
        run_worker("0", "no such device", spec, out, sizeof out);
        CHECK(strstr(out, "pk-tune O ") && strstr(out, "no device \"no such device\"") && strstr(out, self.name),
              "the worker given a name it does not list: %.600s", out);
    }
    /* a worker that cannot open the device (here: no OpenCL drivers in its
     * environment; this process listed them before): in this one, saying so */
    const char *icd = getenv("OCL_ICD_VENDORS");
    char icd_was[512];
    snprintf(icd_was, sizeof icd_was, "%s", icd ? icd : "");
    setenv("OCL_ICD_VENDORS", "/nonexistent-portkern-test", 1);
    s = pk_internal_tune(ctx, "rope", &quick, report, sizeof report);
    printf("%s\n", report);
    CHECK(s == PK_SUCCESS && strstr(report, "rope.wg=") && strstr(report, "the worker could not open the device"),
          "rope with a worker that cannot open the device: %s", report);
    if (icd) setenv("OCL_ICD_VENDORS", icd_was, 1);
    else unsetenv("OCL_ICD_VENDORS");
    pk_close(ctx);

    /* a new context loads it */
    CHECK(!strcmp(status_of("chain"), "tuned"), "chain after tuning says %s", status_of("chain"));
    ctx = open_cl();
    pk_internal_params(ctx, "get chain", reply, sizeof reply);
    CHECK(!strcmp(reply, winner), "loaded %s, stored %s", reply, winner);
    pk_close(ctx);
    setenv("PORTKERN_CL_TUNED", "off", 1);
    CHECK(!strcmp(status_of("chain"), "table"), "PORTKERN_CL_TUNED=off: %s", status_of("chain"));
    unsetenv("PORTKERN_CL_TUNED");
    /* PORTKERN_CL_PARAMS over both; one that breaks a rule stops the open */
    setenv("PORTKERN_CL_PARAMS", "rope.wg=64", 1);
    CHECK(!strcmp(status_of("rope"), "set") && !strcmp(status_of("chain"), "tuned"),
          "PORTKERN_CL_PARAMS: rope %s, chain %s", status_of("rope"), status_of("chain"));
    ctx = open_cl();
    pk_internal_params(ctx, "get rope", reply, sizeof reply);
    CHECK(strstr(reply, "rope.wg=64,") != NULL, "PORTKERN_CL_PARAMS: %s", reply);
    pk_close(ctx);
    setenv("PORTKERN_CL_PARAMS", "rope.wg=0", 1);
    ctx = NULL;
    CHECK(pk_open(PK_BACKEND_OPENCL, idx, &ctx) == PK_ERR_INVALID_ARGUMENT && !ctx &&
              strstr(pk_last_error(NULL), "PORTKERN_CL_PARAMS") != NULL,
          "PORTKERN_CL_PARAMS=rope.wg=0 opened: %s", pk_last_error(NULL));
    if (ctx) pk_close(ctx);
    unsetenv("PORTKERN_CL_PARAMS");

    /* damaged, stale and invalid files count for nothing */
    char path[512];
    snprintf(path, sizeof path, "%s", tuned_file());
    CHECK(path[0], "no tuning cache file in %s", dir);
    char good[8192];
    snprintf(good, sizeof good, "%s", read_all(path));
    char *chain = strstr(good, "\nchain ");
    CHECK(chain != NULL, "no chain line in %s", good);
    if (chain) {
        char text[8192];
        snprintf(text, sizeof text, "%s", good);
        text[chain - good + 8] ^= 1; /* one character of the source hash: the checksum fails */
        write_file(path, text);
        CHECK(!strcmp(status_of("chain"), "table"), "a damaged file was loaded");
        write_file(path, "portkern-tuned 1\nchain 0000000000000000 chain.wg=64\nend 0\n");
        CHECK(!strcmp(status_of("chain"), "table"), "a file with a bad checksum was loaded");
    }
    /* a stale source hash, an invalid value and another family's name, in
     * files whose checksum is right */
    ctx = open_cl();
    CHECK(pk_internal_params(ctx, "set rope.wg=64", reply, sizeof reply) == PK_SUCCESS &&
              pk_internal_params(ctx, "store rope", reply, sizeof reply) == PK_SUCCESS, "store rope: %s",
          pk_last_error(ctx));
    pk_close(ctx);
    CHECK(!strcmp(status_of("rope"), "tuned"), "stored rope says %s", status_of("rope"));
    char *rope = strstr(read_all(path), "\nrope ");
    char hash[17] = "";
    if (rope) sscanf(rope + 6, "%16s", hash);
    CHECK(strlen(hash) == 16, "no rope line");
    char lines[512];
    snprintf(lines, sizeof lines, "rope %s rope.wg=64\n", hash);
    write_checked(path, lines);
    CHECK(!strcmp(status_of("rope"), "tuned"), "a hand-written valid file was not loaded: %s", status_of("rope"));
    write_checked(path, "rope 0123456789abcdef rope.wg=64\n");
    CHECK(!strcmp(status_of("rope"), "table"), "a stale source hash was loaded");
    snprintf(lines, sizeof lines, "rope %s rope.wg=0\n", hash);
    write_checked(path, lines);
    CHECK(!strcmp(status_of("rope"), "table"), "an out-of-range value was loaded");
    snprintf(lines, sizeof lines, "rope %s chain.wg=64\n", hash);
    write_checked(path, lines);
    CHECK(!strcmp(status_of("rope"), "table") && !strcmp(status_of("chain"), "table"),
          "a line set another family's parameter");

    unsetenv("PORTKERN_CACHE_DIR");
    setenv("PORTKERN_CACHE_DIR", "off", 1);
    ctx = open_cl();
    CHECK(pk_internal_params(ctx, "store rope", reply, sizeof reply) == PK_ERR_UNSUPPORTED,
          "store without a cache directory");
    pk_close(ctx);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) return 1;
    if (!failures) printf("tune: ok\n");
    return failures != 0;
}
