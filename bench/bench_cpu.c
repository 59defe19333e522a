/* The matrix roof of a CPU device, from the hardware rather than from any
 * GEMM: portkern's own GEMM cannot set the roof it is judged against.
 *
 *   peak f32 = physical cores x f32 lanes of the widest FMA x FMA units a
 *              core x 2 FLOP x clock
 *
 * read from the system: the cores are the distinct (physical id, core id)
 * pairs of /proc/cpuinfo (hyperthreads share their core's units), else its
 * processor entries; the lanes from its flags (avx512f 16, avx2 with fma 8,
 * avx 8 and sse 4 without FMA, where a multiply and an add port stand for
 * one FMA unit; AArch64 asimd 4). AMD before family 0x1a (Zen 4 and older)
 * runs 512-bit instructions on 256-bit units, so counts 8 lanes there. The
 * clock is cpufreq's cpuinfo_max_freq (the highest the core reaches: a roof
 * that does not flatter), else the highest "cpu MHz" of /proc/cpuinfo (a
 * virtual machine usually has no cpufreq; the figure is then the host's
 * nominal clock). The FMA units a core are not in /proc/cpuinfo: 2 is
 * assumed (every x86 core with AVX2 or AVX-512 since Haswell and Zen 1, but
 * some Xeon Silver/Bronze parts have 1), PORTKERN_CPU_FMA_UNITS overrides.
 *
 * The narrow dtypes count only instructions that accumulate in f32, as
 * portkern's numerics require: bf16 twice the f32 rate with avx512_bf16
 * (VDPBF16PS: two products a lane), 1024 multiply-adds a cycle a core with
 * AMX (amx_bf16; amx_fp16 for f16); otherwise the inputs are widened and
 * run at the f32 rate (avx512_fp16 accumulates in f16, so it does not count).
 *
 * No portkern header beyond bench.h's types and nothing but the C library,
 * so tests/test_bench_report.c includes this file to check the rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The value of the first "key : value" line of text with that key, or NULL. */
static const char *cpuinfo_value(const char *text, const char *key, const char **next)
{
    size_t klen = strlen(key);
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        if (!strncmp(line, key, klen) && (line[klen] == ' ' || line[klen] == '\t' || line[klen] == ':')) {
            const char *colon = strchr(line, ':');
            if (colon && (!end || colon < end)) {
                if (next) *next = end ? end + 1 : NULL;
                colon++;
                while (*colon == ' ' || *colon == '\t') colon++;
                return colon;
            }
        }
        line = end ? end + 1 : NULL;
    }
    if (next) *next = NULL;
    return NULL;
}

/* 1 if the flag list starting at v (up to the line's end) names flag. */
static int has_flag(const char *v, const char *flag)
{
    if (!v) return 0;
    size_t n = strlen(flag);
    const char *end = strchr(v, '\n');
    if (!end) end = v + strlen(v);
    for (const char *p = v; p < end;) {
        while (p < end && *p == ' ') p++;
        const char *q = p;
        while (q < end && *q != ' ') q++;
        if ((size_t)(q - p) == n && !strncmp(p, flag, n)) return 1;
        p = q;
    }
    return 0;
}

static int count_cores(const char *text, const char **how)
{
    /* distinct (physical id, core id) pairs, one per processor entry */
    long pairs[1024][2];
    int npairs = 0, procs = 0, have_ids = 1;
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, '\n');
        if (!strncmp(p, "processor", 9) && strchr(p, ':') && (!end || strchr(p, ':') < end)) {
            procs++;
            /* this entry's ids: between here and the next blank line */
            const char *stop = strstr(p, "\n\n");
            const char *pid = strstr(p, "\nphysical id"), *cid = strstr(p, "\ncore id");
            if (!pid || !cid || (stop && (pid > stop || cid > stop)) || !strchr(pid, ':') || !strchr(cid, ':'))
                have_ids = 0;
            else if (npairs < 1024) {
                long a = atol(strchr(pid, ':') + 1), b = atol(strchr(cid, ':') + 1);
                int seen = 0;
                for (int i = 0; i < npairs && !seen; i++) seen = pairs[i][0] == a && pairs[i][1] == b;
                if (!seen) pairs[npairs][0] = a, pairs[npairs][1] = b, npairs++;
            }
        }
        p = end ? end + 1 : NULL;
    }
    if (have_ids && npairs > 0) {
        *how = "distinct core ids in /proc/cpuinfo";
        return npairs;
    }
    *how = "processor entries in /proc/cpuinfo";
    return procs;
}

int pk_bench_cpu_peak_from(const char *cpuinfo, double max_khz, int fma_units, pk_bench_roof *roof)
{
    const char *cores_how = "";
    int cores = cpuinfo ? count_cores(cpuinfo, &cores_how) : 0;
    const char *flags = cpuinfo ? cpuinfo_value(cpuinfo, "flags", NULL) : NULL;
    const char *features = cpuinfo ? cpuinfo_value(cpuinfo, "Features", NULL) : NULL; /* AArch64 */
    const char *vendor = cpuinfo ? cpuinfo_value(cpuinfo, "vendor_id", NULL) : NULL;
    const char *family = cpuinfo ? cpuinfo_value(cpuinfo, "cpu family", NULL) : NULL;
    int amd = vendor && !strncmp(vendor, "AuthenticAMD", 12), fam = family ? atoi(family) : 0;

    int lanes = 0, fma = 1;
    char width[96] = "";
    if (has_flag(flags, "avx512f") && !(amd && fam < 0x1a)) lanes = 16, snprintf(width, sizeof width, "avx512f");
    else if (has_flag(flags, "avx512f"))
        lanes = 8, snprintf(width, sizeof width, "avx512f on AMD family %#x's 256-bit units", fam);
    else if (has_flag(flags, "avx2") && has_flag(flags, "fma")) lanes = 8, snprintf(width, sizeof width, "avx2+fma");
    else if (has_flag(flags, "avx")) lanes = 8, fma = 0, snprintf(width, sizeof width, "avx, no FMA");
    else if (has_flag(flags, "sse")) lanes = 4, fma = 0, snprintf(width, sizeof width, "sse, no FMA");
    else if (has_flag(features, "asimd")) lanes = 4, snprintf(width, sizeof width, "asimd");

    /* the clock: cpufreq's maximum, else the highest "cpu MHz" */
    double mhz = max_khz > 0 ? max_khz / 1e3 : 0;
    const char *mhz_how = "cpufreq cpuinfo_max_freq";
    if (mhz <= 0) {
        mhz_how = "highest 'cpu MHz' of /proc/cpuinfo; no cpufreq";
        const char *next = cpuinfo;
        for (const char *v; next && (v = cpuinfo_value(next, "cpu MHz", &next));)
            if (atof(v) > mhz) mhz = atof(v);
    }
    int units = fma_units > 0 ? fma_units : 2;
    const char *units_how = fma_units > 0 ? "PORTKERN_CPU_FMA_UNITS" : "assumed";
    for (int t = 0; t < 3; t++) snprintf(roof->matrix_from[t], sizeof roof->matrix_from[t], "none (hardware unknown)");
    if (cores <= 0 || lanes <= 0 || mhz <= 0) {
        snprintf(roof->matrix_detail, sizeof roof->matrix_detail,
                 "hardware peak unknown: %d cores, %d f32 lanes, %.0f MHz read from the system", cores, lanes, mhz);
        return 0;
    }
    double f32 = (double)cores * lanes * units * 2.0 * mhz * 1e6;
    double bf16 = f32, f16 = f32;
    const char *bf16_how = "widened to f32", *f16_how = "widened to f32";
    if (has_flag(flags, "amx_bf16")) bf16 = (double)cores * 1024 * 2.0 * mhz * 1e6, bf16_how = "amx_bf16";
    else if (has_flag(flags, "avx512_bf16")) bf16 = 2 * f32, bf16_how = "avx512_bf16, 2x f32";
    if (has_flag(flags, "amx_fp16")) f16 = (double)cores * 1024 * 2.0 * mhz * 1e6, f16_how = "amx_fp16";
    roof->flops[PK_F32] = f32;
    roof->flops[PK_F16] = f16;
    roof->flops[PK_BF16] = bf16;
    for (int t = 0; t < 3; t++) snprintf(roof->matrix_from[t], sizeof roof->matrix_from[t], "hardware peak");
    snprintf(roof->matrix_detail, sizeof roof->matrix_detail,
             "hardware peak: %d cores (%s) x %d f32 lanes (%s) x %d %s (%s) x 2 FLOP x %.0f MHz (%s) = %.4g GFLOP/s "
             "f32; bf16 %.4g (%s), f16 %.4g (%s)",
             cores, cores_how, lanes, width, units, fma ? "FMA units" : "multiply+add port pairs", units_how, mhz,
             mhz_how, f32 * 1e-9, bf16 * 1e-9, bf16_how, f16 * 1e-9, f16_how);
    return 1;
}

int pk_bench_cpu_peak(pk_bench_roof *roof)
{
    char *text = NULL;
    size_t len = 0, cap = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
            if (len + n + 1 > cap) {
                cap = (len + n + 1) * 2;
                char *grown = realloc(text, cap);
                if (!grown) break;
                text = grown;
            }
            memcpy(text + len, buf, n);
            len += n;
            text[len] = 0;
        }
        fclose(f);
    }
    double khz = 0;
    f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    if (f) {
        if (fscanf(f, "%lf", &khz) != 1) khz = 0;
        fclose(f);
    }
    const char *env = getenv("PORTKERN_CPU_FMA_UNITS");
    int ok = pk_bench_cpu_peak_from(text ? text : "", khz, env ? atoi(env) : 0, roof);
    free(text);
    return ok;
}
