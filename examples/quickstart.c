/* The README's example: a linear layer y = silu(x @ W^T + b) in bf16 on the
 * best device present. Built and run by the test suite, so the README's
 * code is known to work. */
#include <math.h>
#include <stdio.h>

#include "portkern.h"

#define CHECK(call)                                                                     \
    do {                                                                                \
        pk_status s_ = (call);                                                          \
        if (s_ != PK_SUCCESS) {                                                         \
            fprintf(stderr, "%s: %s\n", pk_status_string(s_), pk_last_error(ctx));      \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

int main(void)
{
    enum { M = 4, N = 8, K = 16 };
    pk_context *ctx = NULL;
    CHECK(pk_open(PK_BACKEND_AUTO, 0, &ctx)); /* PORTKERN_BACKEND=opencl picks another */

    uint16_t x[M * K], w[N * K], b[N], y[M * N];
    for (int i = 0; i < M * K; i++) x[i] = pk_f32_to_bf16((float)(i % 7) / 7.0f);
    for (int i = 0; i < N * K; i++) w[i] = pk_f32_to_bf16((float)(i % 5) / 10.0f - 0.2f);
    for (int i = 0; i < N; i++) b[i] = pk_f32_to_bf16(0.01f * (float)i);

    pk_buffer *bx, *bw, *bb, *by;
    CHECK(pk_alloc(ctx, sizeof x, &bx));
    CHECK(pk_alloc(ctx, sizeof w, &bw));
    CHECK(pk_alloc(ctx, sizeof b, &bb));
    CHECK(pk_alloc(ctx, sizeof y, &by));
    CHECK(pk_upload(bx, 0, x, sizeof x));
    CHECK(pk_upload(bw, 0, w, sizeof w));
    CHECK(pk_upload(bb, 0, b, sizeof b));

    pk_tensor tx = pk_tensor_make(bx, 0, PK_BF16, 2, (int64_t[]){M, K});
    pk_tensor tw = pk_tensor_make(bw, 0, PK_BF16, 2, (int64_t[]){N, K}); /* W is [N, K] */
    pk_tensor tb = pk_tensor_make(bb, 0, PK_BF16, 1, (int64_t[]){N});
    pk_tensor ty = pk_tensor_make(by, 0, PK_BF16, 2, (int64_t[]){M, N});

    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    g.trans_b = 1;          /* x @ W^T */
    g.bias = &tb;
    g.act = PK_ACT_SILU;
    CHECK(pk_gemm(ctx, &g, &tx, &tw, NULL, &ty));
    CHECK(pk_download(by, 0, y, sizeof y)); /* waits for the GEMM */

    /* check against a plain loop on the host */
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = pk_bf16_to_f32(b[j]);
            for (int k = 0; k < K; k++) acc += (double)pk_bf16_to_f32(x[i * K + k]) * pk_bf16_to_f32(w[j * K + k]);
            double want = acc / (1.0 + exp(-acc));
            double err = fabs(pk_bf16_to_f32(y[i * N + j]) - want);
            worst = err > worst ? err : worst;
        }
    pk_device_info info;
    CHECK(pk_context_info(ctx, &info));
    printf("%s on %s: y[0][0..3] = %.4f %.4f %.4f %.4f, max error %.2g\n", pk_backend_name(info.backend),
           info.name, pk_bf16_to_f32(y[0]), pk_bf16_to_f32(y[1]), pk_bf16_to_f32(y[2]), pk_bf16_to_f32(y[3]),
           worst);
    CHECK(pk_close(ctx)); /* frees the buffers too */
    return worst < 0.05 ? 0 : 1;
}
