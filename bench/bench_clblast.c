/* CLBlast, the vendor-neutral tuned BLAS of OpenCL, on the same buffers and
 * in-order queue as portkern's OpenCL GEMM, timed with the same events.
 * Loaded with dlopen so that neither the build nor the CLI needs it; its
 * two entry points are declared here with the values of clblast_c.h.
 * CLBlast has no bf16, and refuses f16 where the device lacks cl_khr_fp16
 * (NVIDIA's OpenCL): both come back as a reason, never as a zero. A
 * library that cannot be loaded is an error the caller reports (*missing):
 * tools/setup.sh installs it, so its absence is a broken set-up, not a
 * result; PORTKERN_CLBLAST=off (or --no-vendor) runs without it. */
#include <string.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <stdio.h>

#include "bench.h"
#include "pk_internal.h"

typedef int (*clblast_sgemm_fn)(int layout, int ta, int tb, size_t m, size_t n, size_t k, float alpha, void *a,
                                size_t a_off, size_t lda, void *b, size_t b_off, size_t ldb, float beta, void *c,
                                size_t c_off, size_t ldc, void **queue, void **event);
typedef int (*clblast_hgemm_fn)(int layout, int ta, int tb, size_t m, size_t n, size_t k, uint16_t alpha, void *a,
                                size_t a_off, size_t lda, void *b, size_t b_off, size_t ldb, uint16_t beta, void *c,
                                size_t c_off, size_t ldc, void **queue, void **event);

enum { ROW_MAJOR = 101, TRANS_NO = 111, TRANS_YES = 112, NO_HALF = -2045, HALF_ONE = 0x3c00 };

typedef struct clblast_state {
    clblast_sgemm_fn sgemm;
    clblast_hgemm_fn hgemm;
    void *queue;
    const pk_bench_case *c;
    pk_buffer *x, *const *w, *y;
    int copies;
    int last; /* CLBlast's status of the last call */
} clblast_state;

static pk_status clblast_run(void *state, int i)
{
    clblast_state *s = state;
    const pk_bench_case *c = s->c;
    void *a = (void *)bench_handle(s->x), *b = (void *)bench_handle(s->w[i % s->copies]);
    void *y = (void *)bench_handle(s->y);
    size_t m = (size_t)c->m, n = (size_t)c->n, k = (size_t)c->k, ldb = c->linear ? k : n;
    int tb = c->linear ? TRANS_YES : TRANS_NO;
    s->last = c->dtype == PK_F32
                  ? s->sgemm(ROW_MAJOR, TRANS_NO, tb, m, n, k, 1.0f, a, 0, k, b, 0, ldb, 0.0f, y, 0, n, &s->queue, NULL)
                  : s->hgemm(ROW_MAJOR, TRANS_NO, tb, m, n, k, HALF_ONE, a, 0, k, b, 0, ldb, 0, y, 0, n, &s->queue,
                             NULL);
    return s->last == 0 ? PK_SUCCESS : PK_ERR_DEVICE_FAILURE;
}

double pk_bench_clblast_gemm(pk_context *ctx, const pk_bench_case *c, pk_buffer *x, pk_buffer *const *w, int copies,
                             pk_buffer *y, int reps, const char **why, int *missing)
{
    static void *lib;
    static char msg[160];
    *missing = 0;
    if (c->dtype == PK_BF16) {
        *why = "CLBlast has no bf16";
        return 0;
    }
    /* PORTKERN_CLBLAST names a copy outside the loader's path, or is "off" */
    const char *path = getenv("PORTKERN_CLBLAST");
    if (path && !strcmp(path, "off")) {
        *why = "skipped (PORTKERN_CLBLAST=off)";
        return 0;
    }
    if (!lib && path && *path) {
        lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            snprintf(msg, sizeof msg, "CLBlast not loaded: PORTKERN_CLBLAST=%.80s: %.40s", path, dlerror());
            *why = msg;
            *missing = 1;
            return 0;
        }
    }
    if (!lib) lib = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libclblast.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        *why = "libclblast not found: run tools/setup.sh (Debian: libclblast1), name a copy with PORTKERN_CLBLAST, "
               "or PORTKERN_CLBLAST=off / --no-vendor to run without it";
        *missing = 1;
        return 0;
    }
    clblast_state st = {(clblast_sgemm_fn)dlsym(lib, "CLBlastSgemm"), (clblast_hgemm_fn)dlsym(lib, "CLBlastHgemm"),
                        bench_queue(ctx), c, x, w, y, copies, 0};
    if (!st.sgemm || !st.hgemm || !st.queue) {
        *why = "CLBlast entry points or queue missing";
        *missing = 1;
        return 0;
    }
    pk_bench_result r = {0};
    pk_status s = pk_bench_time(ctx, clblast_run, &st, reps, &r);
    if (s != PK_SUCCESS) {
        if (st.last == NO_HALF) snprintf(msg, sizeof msg, "CLBlast refuses f16 on this device (no cl_khr_fp16)");
        else snprintf(msg, sizeof msg, "CLBlast status %d", st.last);
        *why = msg;
        return 0;
    }
    return r.ms;
}
