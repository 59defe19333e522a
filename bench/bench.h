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
} pk_bench_op;

typedef struct pk_bench_case {
    const char *name;
    pk_bench_op op;
    pk_dtype dtype;
    /* gemm: m n k (linear layout x[M,K] @ W[N,K]^T, or row-major B if !linear);
     * attention: batch sq skv hq hkv d causal; rows: rows cols */
    int64_t m, n, k;
    int linear;
    int64_t batch, sq, skv, hq, hkv, d;
    int causal;
    /* what the case is judged by: 'F' TFLOP/s, 'B' TB/s of all bytes, 'W' TB/s of
     * weights (decode GEMM), 'K' TB/s of K/V (decode attention) */
    char metric;
    double floor;  /* issue 3's floor in that unit; 0: none */
} pk_bench_case;

/* The figures of one timed case. */
typedef struct pk_bench_result {
    double ms, spread;         /* median, (p90 - p10) / median */
    double flops, bytes, metric_bytes;
    double vendor_ms;          /* 0: no vendor baseline */
    const char *vendor;
    char note[160];            /* why a case did not run */
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

#endif
