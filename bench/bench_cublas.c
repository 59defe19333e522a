/* cuBLAS on the same shapes, buffers and stream as portkern's CUDA GEMM,
 * timed with the same events. cuBLAS is loaded with dlopen, so the CLI
 * runs on machines without it; its few entry points are declared here
 * with the values of cublas_api.h and library_types.h. */
#include <dlfcn.h>

#include "bench.h"
#include "pk_internal.h"

typedef int (*cublas_create_fn)(void **handle);
typedef int (*cublas_destroy_fn)(void *handle);
typedef int (*cublas_set_stream_fn)(void *handle, void *stream);
typedef int (*cublas_gemm_ex_fn)(void *handle, int transa, int transb, int m, int n, int k, const void *alpha,
                                 const void *a, int atype, int lda, const void *b, int btype, int ldb,
                                 const void *beta, void *c, int ctype, int ldc, int compute, int algo);

enum { OP_N = 0, OP_T = 1, R_32F = 0, R_16F = 2, R_16BF = 14, COMPUTE_32F = 68, GEMM_DEFAULT = -1 };

static int cuda_type(pk_dtype t) { return t == PK_F32 ? R_32F : t == PK_F16 ? R_16F : R_16BF; }

typedef struct cublas_state {
    cublas_gemm_ex_fn gemm;
    void *handle;
    const pk_bench_case *c;
    pk_buffer *x, *const *w, *y;
    int copies;
} cublas_state;

static pk_status cublas_run(void *state, int i)
{
    const cublas_state *s = state;
    const pk_bench_case *c = s->c;
    const float alpha = 1.0f, beta = 0.0f;
    int t = cuda_type(c->dtype), m = (int)c->m, n = (int)c->n, k = (int)c->k;
    /* column-major: y^T [N, M] = op(W) [N, K] @ x^T [K, M] */
    int r = s->gemm(s->handle, c->linear ? OP_T : OP_N, OP_N, n, m, k, &alpha,
                    (const void *)bench_handle(s->w[i % s->copies]), t, c->linear ? k : n,
                    (const void *)bench_handle(s->x), t, k, &beta, (void *)bench_handle(s->y),
                    t, n, COMPUTE_32F, GEMM_DEFAULT);
    return r == 0 ? PK_SUCCESS : PK_ERR_DEVICE_FAILURE;
}

double pk_bench_cublas_gemm(pk_context *ctx, const pk_bench_case *c, pk_buffer *x, pk_buffer *const *w, int copies,
                            pk_buffer *y, int reps, const char **why)
{
    static void *lib;
    if (!lib) lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcublas.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        *why = "libcublas not found";
        return 0;
    }
    cublas_create_fn create = (cublas_create_fn)dlsym(lib, "cublasCreate_v2");
    cublas_destroy_fn destroy = (cublas_destroy_fn)dlsym(lib, "cublasDestroy_v2");
    cublas_set_stream_fn set_stream = (cublas_set_stream_fn)dlsym(lib, "cublasSetStream_v2");
    cublas_state st = {(cublas_gemm_ex_fn)dlsym(lib, "cublasGemmEx"), NULL, c, x, w, y, copies};
    if (!create || !destroy || !set_stream || !st.gemm || create(&st.handle) != 0) {
        *why = "cublasCreate failed";
        return 0;
    }
    set_stream(st.handle, bench_queue(ctx));
    pk_bench_result r = {0};
    pk_status s = pk_bench_time(ctx, cublas_run, &st, reps, &r);
    destroy(st.handle);
    if (s != PK_SUCCESS) {
        *why = "cublasGemmEx failed";
        return 0;
    }
    return r.ms;
}
