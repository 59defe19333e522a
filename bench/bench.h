/* `portkern bench`: LLM-shaped cases timed with device events. */
#ifndef PK_BENCH_H
#define PK_BENCH_H

#include <stdint.h>

#include "portkern.h"

int pk_bench_main(int argc, char **argv);

typedef enum pk_bench_op {
    PK_BENCH_GEMM,
    PK_BENCH_ATTENTION,
    PK_BENCH_RMSNORM,
    PK_BENCH_SWIGLU,
    PK_BENCH_ROPE,
    PK_BENCH_ROPE_INV_FREQ, /* RoPE with the frequencies from a device table */
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
     * rope: batch sq hq hkv d (q [B,Sq,Hq,D] and k [B,Sq,Hkv,D], in place) */
    int64_t m, n, k;
    int linear;
    int64_t batch, sq, skv, hq, hkv, d;
    int causal;
    /* what the case is judged by: 'F' TFLOP/s, 'B' TB/s of all bytes, 'W' TB/s of
     * weights (decode GEMM), 'K' TB/s of K/V (decode attention) */
    char metric;
    double floor;  /* issue 3's floor in that unit; 0: none */
    const char *suite; /* set by pk_bench_suite: the suite the case came from */
} pk_bench_case;

/* The figures of one timed case. */
typedef struct pk_bench_result {
    double ms, spread;         /* median, (p90 - p10) / median */
    double flops, bytes, metric_bytes;
    double vendor_ms;          /* 0: no vendor baseline */
    const char *vendor;
    char note[160];            /* why a case did not run */
    double vendor_spread;
    char vendor_na[120];       /* why there is no vendor figure (the report prints "n/a (why)") */
} pk_bench_result;

int pk_bench_cases(const pk_bench_case **out);

/* Runs one case on ctx; fills r. Returns the status of the portkern op. */
pk_status pk_bench_run(pk_context *ctx, const pk_bench_case *c, int reps, pk_bench_result *r);

/* Times `reps` calls of run(state, i) with a device-event pair around each,
 * after a warm-up; fills r->ms (median) and r->spread. */
typedef pk_status (*pk_bench_run_fn)(void *state, int i);
pk_status pk_bench_time(pk_context *ctx, pk_bench_run_fn run, void *state, int reps, pk_bench_result *r);

/* cuBLAS on the same buffers (a CUDA context only); 0 ms when unavailable. */
double pk_bench_cublas_gemm(pk_context *ctx, const pk_bench_case *c, pk_buffer *x, pk_buffer *const *w, int copies,
                            pk_buffer *y, int reps, const char **why);

/* ---- the report (issue 5): suites, roofline, baselines, portability */

/* The cases of a named suite ("floors" is pk_bench_cases); -1 for an unknown name. */
int pk_bench_suite(const char *name, const pk_bench_case **out);
/* The suite names, NULL-terminated, and a line on each. */
extern const char *const pk_bench_suite_names[];
extern const char *const pk_bench_suite_about[];
/* One case from the command line: "op=gemm,m=1,n=4096,k=4096,dtype=bf16" or
 * "op=attention,b=1,sq=1,skv=8192,hq=32,hkv=8,d=128,causal=0" or
 * "op=rmsnorm|swiglu,rows=R,cols=C" or "op=rope,b=1,sq=2048,hq=32,hkv=8,
 * d=128,inv_freq=1". Fills c (c->name points at name_buf). */
int pk_bench_parse_case(const char *spec, pk_bench_case *c, char *name_buf, size_t name_len);

/* The minimal FLOPs and bytes of a case (what the roofline judges by). */
void pk_bench_counts(const pk_bench_case *c, double *flops, double *bytes);

/* A device's measured limits: device-to-device copy bandwidth and the best
 * matrix rate per dtype (index pk_dtype). */
typedef struct pk_bench_roof {
    double copy_bps;         /* bytes moved (read + write) per second */
    double flops[4];         /* FLOP/s per storage dtype; 0: not probed */
    int cached;              /* 1: read from the cache file */
    char source[160];        /* how the matrix rate was found */
} pk_bench_roof;

/* Measures (or reads from $PORTKERN_CACHE_DIR/bench-roof-*.txt) the limits
 * of ctx's device for the dtypes used by cases; refresh forces a new probe. */
pk_status pk_bench_roofline(pk_context *ctx, const pk_bench_case *cases, int n, int refresh, pk_bench_roof *roof);
/* The roofline's time for a case: max(flops / peak, bytes / bandwidth), in ms. */
double pk_bench_roof_ms(const pk_bench_roof *roof, const pk_bench_case *c);

/* CLBlast on the same buffers and queue as portkern's OpenCL GEMM (dlopen'ed). */
double pk_bench_clblast_gemm(pk_context *ctx, const pk_bench_case *c, pk_buffer *x, pk_buffer *const *w, int copies,
                             pk_buffer *y, int reps, const char **why);

/* The unfused path on ctx: attention as GEMM, softmax, GEMM with the score
 * matrix in memory; add+RMSNorm and SwiGLU as separate passes. Returns the
 * median ms, 0 with *why when it cannot run. */
double pk_bench_unfused(pk_context *ctx, const pk_bench_case *c, int reps, char *why, size_t why_len);

/* A buffer of n random values in [-1, 1] (bench_run.c). */
pk_status pk_bench_random_buffer(pk_context *ctx, pk_dtype dt, int64_t n, pk_buffer **out);

/* Pennycook et al.'s performance portability: the harmonic mean of the n
 * efficiencies, 0 if any is 0 (a platform that cannot run the case). */
double pk_bench_pp(const double *eff, int n);

#endif
