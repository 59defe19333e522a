/* The f32 multiply-add rate this machine's cores deliver to plain C, as a
 * ceiling for what any kernel on a CPU device (PoCL) can reach: 12
 * independent AVX-512 (or, built without it, AVX2) FMA chains per thread,
 * one thread per core, no memory traffic. Not a portkern kernel, so the
 * figure is not one our code set; the bench's CPU roof (bench/bench_cpu.c)
 * is the hardware's nominal rate instead, which a virtual machine may not
 * deliver.
 * Build and run: cc -O2 -march=native -pthread tools/cpu_fma_peak.c -o /tmp/fma && /tmp/fma [threads] */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHAINS 12
#define ITERS 150000000L
#ifdef __AVX512F__
typedef __m512 vec;
#define LANES 16
#define SET(x) _mm512_set1_ps(x)
#define FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#else
typedef __m256 vec;
#define LANES 8
#define SET(x) _mm256_set1_ps(x)
#define FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#endif

static void *chains(void *out)
{
    vec acc[CHAINS];
    for (int i = 0; i < CHAINS; i++) acc[i] = SET((float)i);
    const vec x = SET(1.0000001f), y = SET(0.9999999f);
    for (long it = 0; it < ITERS; it++)
        for (int i = 0; i < CHAINS; i++) acc[i] = FMA(acc[i], x, y);
    float s = 0;
    for (int i = 0; i < CHAINS; i++) s += ((float *)&acc[i])[0];
    *(float *)out = s; /* kept, so that the loop is not dropped */
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    if (threads < 1 || threads > 256) threads = 2;
    pthread_t th[256];
    float sink[256];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < threads; i++) pthread_create(&th[i], NULL, chains, &sink[i]);
    for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    double flop = 2.0 * LANES * CHAINS * (double)ITERS * threads;
    printf("%.1f GFLOP/s f32 (%d-lane FMA, %d threads, %.2f s; checksum %g)\n", flop / s / 1e9, LANES, threads, s,
           (double)sink[0]);
    return 0;
}
