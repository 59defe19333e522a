/* Windows past the sequence (up to INT64_MAX) reach every key: on the
 * reference backend their output equals the unbounded window's bit for
 * bit. They once overflowed the bound arithmetic (pos - window) and came
 * back as zeros with LSE -inf. Sq > Skv, so the left bound's position
 * goes negative too. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "portkern.h"

enum { B = 1, SQ = 5, SKV = 3, H = 1, D = 64 };

static int run(pk_context *ctx, int64_t wl, int64_t wr, float *o, float *lse)
{
    static float q[B * SQ * H * D], kv[B * SKV * H * D];
    for (int i = 0; i < B * SQ * H * D; i++) q[i] = (float)((i * 37) % 11) / 11.0f - 0.5f;
    for (int i = 0; i < B * SKV * H * D; i++) kv[i] = (float)((i * 53) % 13) / 13.0f - 0.5f;
    pk_buffer *bq, *bk, *bo, *bl;
    if (pk_alloc(ctx, sizeof q, &bq) || pk_alloc(ctx, sizeof kv, &bk) || pk_alloc(ctx, sizeof q, &bo) ||
        pk_alloc(ctx, B * H * SQ * sizeof(float), &bl) || pk_upload(bq, 0, q, sizeof q) ||
        pk_upload(bk, 0, kv, sizeof kv))
        return -1;
    pk_tensor tq = pk_tensor_make(bq, 0, PK_F32, 4, (int64_t[]){B, SQ, H, D});
    pk_tensor tk = pk_tensor_make(bk, 0, PK_F32, 4, (int64_t[]){B, SKV, H, D});
    pk_tensor to = pk_tensor_make(bo, 0, PK_F32, 4, (int64_t[]){B, SQ, H, D});
    pk_tensor tl = pk_tensor_make(bl, 0, PK_F32, 3, (int64_t[]){B, H, SQ});
    pk_attention_desc a = PK_ATTENTION_DESC_INIT;
    a.window_left = wl;
    a.window_right = wr;
    a.lse = &tl;
    pk_status s = pk_attention(ctx, &a, &tq, &tk, &tk, &to);
    if (s != PK_SUCCESS) {
        fprintf(stderr, "pk_attention: %s\n", pk_last_error(ctx));
        return -1;
    }
    return pk_download(bo, 0, o, sizeof q) || pk_download(bl, 0, lse, B * H * SQ * sizeof(float)) ? -1 : 0;
}

int main(void)
{
    pk_context *ctx;
    if (pk_open(PK_BACKEND_REF, 0, &ctx) != PK_SUCCESS) return 1;
    static float o0[B * SQ * H * D], o1[B * SQ * H * D], l0[SQ], l1[SQ];
    static const int64_t wide[][2] = {{INT64_MAX, INT64_MAX}, {INT64_MAX, -1}, {-1, INT64_MAX}, {SKV, SQ}};
    int fail = run(ctx, -1, -1, o0, l0) != 0;
    for (size_t w = 0; !fail && w < sizeof wide / sizeof wide[0]; w++) {
        if (run(ctx, wide[w][0], wide[w][1], o1, l1)) fail = 1;
        else if (memcmp(o0, o1, sizeof o0) || memcmp(l0, l1, sizeof l0)) {
            fprintf(stderr, "window (%lld, %lld) differs from the unbounded one (lse[0] %g against %g)\n",
                    (long long)wide[w][0], (long long)wide[w][1], l1[0], l0[0]);
            fail = 1;
        }
    }
    pk_close(ctx);
    printf("attention windows past the sequence: %s\n", fail ? "FAIL" : "ok");
    return fail;
}
