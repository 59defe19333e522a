/* `portkern bench`: LLM-shaped cases timed with device events. */
#ifndef PK_BENCH_H
#define PK_BENCH_H

#include <stdint.h>

#include "portkern.h"

int pk_bench_main(int argc, char **argv);

/* Opens the platform spec names, "backend[:index][/portable]" ("auto" when
 * spec is NULL or empty; "/portable": OpenCL with its inline PTX kernels
 * off), and writes its label ("opencl:1/portable"). 1, or 0 after saying
 * why on stderr. */
int pk_bench_open(const char *spec, pk_context **ctx, char *label, size_t n);

typedef enum pk_bench_op {
    PK_BENCH_GEMM,
    PK_BENCH_ATTENTION,
    PK_BENCH_RMSNORM,
    PK_BENCH_SWIGLU,
    PK_BENCH_ROPE,
    PK_BENCH_ROPE_INV_FREQ, /* RoPE with the frequencies from a device table */
    PK_BENCH_GATHER,        /* pk_gather_rows: m rows of n columns out of a table of k rows */
    PK_BENCH_SCATTER,       /* pk_scatter_rows: m rows of n columns into a table of k rows */
} pk_bench_op;

/* Timed runs a case takes at the least, whatever --reps asks: fewer give
 * no meaningful median or p10..p90 spread. */
#define PK_BENCH_MIN_REPS 5

typedef struct pk_bench_case {
    const char *name;
    pk_bench_op op;
    pk_dtype dtype;
    /* gemm: m n k (linear layout x[M,K] @ W[N,K]^T, or row-major B if !linear);
     * attention: batch sq skv hq hkv d causal; rows: rows cols;
     * rope: batch sq hq hkv d (q [B,Sq,Hq,D] and k [B,Sq,Hkv,D], in place);
     * gather, scatter: m n k (m indices, n columns, a table of k rows) */
    int64_t m, n, k;
    int linear;
    int64_t batch, sq, skv, hq, hkv, d;
    int causal;
    /* what the case is judged by: 'F' TFLOP/s, 'B' TB/s of all bytes, 'W' TB/s of
     * weights (decode GEMM), 'K' TB/s of K/V (decode attention) */
    char metric;
    double floor;  /* the speed goal of the CUDA backend on an H200 in that unit; 0: none */
    const char *suite; /* set by pk_bench_suite: the suite the case came from */
} pk_bench_case;

/* The figures of one timed case. */
typedef struct pk_bench_result {
    double ms, spread;         /* median, (p90 - p10) / median, of the intervals' time a call */
    int calls;                 /* calls an interval held */
    double flops, bytes, metric_bytes;
    double vendor_ms;          /* 0: no vendor baseline */
    const char *vendor;
    char note[160];            /* why a case did not run */
    double vendor_spread;
    char vendor_na[200];       /* why there is no vendor figure (the report prints "n/a (why)") */
    int vendor_error;          /* 1: a vendor library that tools/setup.sh installs could not be used
                                * (vendor_na says why): the run fails, it is not a silent n/a */
} pk_bench_result;

int pk_bench_cases(const pk_bench_case **out);

/* Runs one case on ctx; fills r. Returns the status of the portkern op. */
pk_status pk_bench_run(pk_context *ctx, const pk_bench_case *c, int reps, pk_bench_result *r);

/* Times `reps` intervals of back-to-back calls of run(state, i) (as many
 * calls as fill PK_BENCH_INTERVAL_MS, at least one), a device event between
 * each two intervals, after a warm-up; fills r->ms (median time a call),
 * r->spread and r->calls. */
typedef pk_status (*pk_bench_run_fn)(void *state, int i);
pk_status pk_bench_time(pk_context *ctx, pk_bench_run_fn run, void *state, int reps, pk_bench_result *r);

/* cuBLAS on the same buffers (a CUDA context only); 0 ms when unavailable. */
double pk_bench_cublas_gemm(pk_context *ctx, const pk_bench_case *c, pk_buffer *x, pk_buffer *const *w, int copies,
                            pk_buffer *y, int reps, const char **why);

/* ---- the vendor comparison report: suites, roofline, baselines, portability */

/* The cases of a named suite ("floors" is pk_bench_cases); -1 for an unknown name. */
int pk_bench_suite(const char *name, const pk_bench_case **out);
/* The suite names, NULL-terminated, and a line on each. */
extern const char *const pk_bench_suite_names[];
extern const char *const pk_bench_suite_about[];
/* One case from the command line: "op=gemm,m=1,n=4096,k=4096,dtype=bf16" or
 * "op=attention,b=1,sq=1,skv=8192,hq=32,hkv=8,d=128,causal=0" or
 * "op=rmsnorm|swiglu,rows=R,cols=C" or "op=rope,b=1,sq=2048,hq=32,hkv=8,
 * d=128,inv_freq=1" or "op=gather|scatter,m=32,n=4096,k=128256". Fills c
 * (c->name points at name_buf). */
int pk_bench_parse_case(const char *spec, pk_bench_case *c, char *name_buf, size_t name_len);

/* The minimal FLOPs and bytes of a case (what the roofline judges by). */
void pk_bench_counts(const pk_bench_case *c, double *flops, double *bytes);

/* A device's limits: the device-to-device copy bandwidth (the driver's copy,
 * measured) and the matrix rate per dtype. The matrix rate never comes from
 * portkern's own kernels, or portkern's GEMM would be measured against
 * itself: on a CPU it is the hardware's peak (cores x SIMD lanes x FMA
 * units x clock, read from the system: pk_bench_cpu_peak), on a GPU the
 * vendor library's rate timed on the device (cuBLAS; CLBlast on OpenCL);
 * a vendor GEMM of the run that beats it raises it. Where neither exists
 * the rate is 0 and the roof fractions of GEMM and attention are n/a. */
typedef struct pk_bench_roof {
    double copy_bps;         /* bytes moved (read + write) per second */
    double flops[4];         /* FLOP/s per storage dtype; 0: unknown */
    int cached;              /* 1: read from the cache file */
    char source[160];        /* how the copy rate was found (measured, cached) */
    char matrix_from[4][96]; /* per dtype: "hardware peak", "cuBLAS (probe)", ...; "none (why)" */
    char matrix_detail[400]; /* how the hardware peak was computed, or the vendor probe's case */
} pk_bench_roof;

/* Measures (or reads from $PORTKERN_CACHE_DIR/bench-roof-*.txt) the limits
 * of ctx's device for the dtypes used by cases; refresh forces a new probe. */
pk_status pk_bench_roofline(pk_context *ctx, const pk_bench_case *cases, int n, int refresh, pk_bench_roof *roof);
/* The roofline's time for a case: max(flops / peak, bytes / bandwidth), in
 * ms; 0 (n/a) for GEMM and attention where the dtype's matrix rate is unknown. */
double pk_bench_roof_ms(const pk_bench_roof *roof, const pk_bench_case *c);

/* The peak matrix rate of the CPU from its hardware (bench_cpu.c): physical
 * cores x f32 lanes of the widest FMA x FMA units a core x 2 x clock. cpuinfo
 * is the text of /proc/cpuinfo, max_khz cpufreq's cpuinfo_max_freq (0: none,
 * then cpuinfo's "cpu MHz"), fma_units the FMA units a core (0: assume 2).
 * Fills roof->flops[f32, f16, bf16], matrix_from and matrix_detail; returns 0
 * when the text says too little (flops stay 0). */
int pk_bench_cpu_peak_from(const char *cpuinfo, double max_khz, int fma_units, pk_bench_roof *roof);
/* The same from this machine's /proc/cpuinfo, cpufreq and PORTKERN_CPU_FMA_UNITS. */
int pk_bench_cpu_peak(pk_bench_roof *roof);

/* Vendor libraries: 1 (default) times them beside portkern; 0 (--no-vendor)
 * skips them ("n/a (skipped: --no-vendor)"). */
extern int pk_bench_vendor_on;

/* CLBlast on the same buffers and queue as portkern's OpenCL GEMM (dlopen'ed).
 * 0 ms with *why when it gives no figure; *missing is set when the library
 * could not be loaded at all (tools/setup.sh installs it, so that is an
 * error unless PORTKERN_CLBLAST=off), not for a dtype it lacks. */
double pk_bench_clblast_gemm(pk_context *ctx, const pk_bench_case *c, pk_buffer *x, pk_buffer *const *w, int copies,
                             pk_buffer *y, int reps, const char **why, int *missing);

/* The unfused path on ctx: attention as GEMM, softmax, GEMM with the score
 * matrix in memory; add+RMSNorm and SwiGLU as separate passes. Returns the
 * median ms, 0 with *why when it cannot run. */
double pk_bench_unfused(pk_context *ctx, const pk_bench_case *c, int reps, char *why, size_t why_len);

/* A buffer of n random values in [-1, 1] (bench_run.c). */
pk_status pk_bench_random_buffer(pk_context *ctx, pk_dtype dt, int64_t n, pk_buffer **out);

/* Pennycook et al.'s performance portability: the harmonic mean of the n
 * efficiencies; 0 if any is 0 (a platform that cannot run the case), else
 * NaN (n/a) if any is NaN (an efficiency with nothing to judge it by). */
double pk_bench_pp(const double *eff, int n);

/* A buffer's native handle and a context's native queue (portkern.h), for
 * handing the same memory and queue to the vendor's library */
static inline uintptr_t bench_handle(const pk_buffer *b)
{
    uintptr_t h = 0;
    pk_buffer_handle(b, &h);
    return h;
}
static inline void *bench_queue(const pk_context *ctx)
{
    void *q = NULL;
    pk_context_queue(ctx, &q);
    return q;
}

#endif
