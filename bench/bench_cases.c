/* The performance-floor cases (the "floors" suite), each with the speed
 * the CUDA backend is to reach on an H200: Llama-3-8B/70B-shaped GEMMs,
 * prefill and decode attention, and the fused elementwise ops. */
#include "bench.h"

static const pk_bench_case cases[] = {
    {"gemm linear 4096x4096x4096", PK_BENCH_GEMM, PK_BF16, 4096, 4096, 4096, 1, 0, 0, 0, 0, 0, 0, 0, 'F', 400, NULL},
    {"gemm linear 2048x14336x4096", PK_BENCH_GEMM, PK_BF16, 2048, 14336, 4096, 1, 0, 0, 0, 0, 0, 0, 0, 'F', 400, NULL},
    {"gemm linear M=1 N=14336 K=4096", PK_BENCH_GEMM, PK_BF16, 1, 14336, 4096, 1, 0, 0, 0, 0, 0, 0, 0, 'W', 3.2, NULL},
    {"gemm linear M=16 N=14336 K=4096", PK_BENCH_GEMM, PK_BF16, 16, 14336, 4096, 1, 0, 0, 0, 0, 0, 0, 0, 'W', 3.0, NULL},
    {"gemm linear M=1 N=4096 K=4096", PK_BENCH_GEMM, PK_BF16, 1, 4096, 4096, 1, 0, 0, 0, 0, 0, 0, 0, 'W', 2.0, NULL},
    {"gemm f32 4096x4096x4096", PK_BENCH_GEMM, PK_F32, 4096, 4096, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 'F', 35, NULL},
    {"attention B8 H32 S2048 D128", PK_BENCH_ATTENTION, PK_BF16, 0, 0, 0, 0, 8, 2048, 2048, 32, 32, 128, 0, 'F', 280, NULL},
    {"attention B8 H32 S2048 D128 causal", PK_BENCH_ATTENTION, PK_BF16, 0, 0, 0, 0, 8, 2048, 2048, 32, 32, 128, 1,
     'F', 240, NULL},
    {"decode B32 Hq32 Hkv8 Skv4096 D128", PK_BENCH_ATTENTION, PK_BF16, 0, 0, 0, 0, 32, 1, 4096, 32, 8, 128, 0, 'K',
     3.0, NULL},
    {"decode B1 Hq32 Hkv8 Skv131072 D128", PK_BENCH_ATTENTION, PK_BF16, 0, 0, 0, 0, 1, 1, 131072, 32, 8, 128, 0,
     'K', 3.2, NULL},
    {"add+rmsnorm [16384, 4096]", PK_BENCH_RMSNORM, PK_BF16, 16384, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'B', 3.4, NULL},
    {"swiglu [16384, 14336]", PK_BENCH_SWIGLU, PK_BF16, 16384, 14336, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'B', 3.5, NULL},
};

int pk_bench_cases(const pk_bench_case **out)
{
    *out = cases;
    return (int)(sizeof cases / sizeof cases[0]);
}
