/* Layouts the overlap checks must accept (api/ERRORS.md): outputs that
 * share a buffer with inputs without sharing a byte (column slices of one
 * matrix, the slots of a fused QKV tensor), and the in-place forms the API
 * documents. Each call must succeed and give, bit for bit, what the same
 * call gives on separate buffers. Runs on the reference backend. */
#include <stdio.h>
#include <string.h>

#include "portkern.h"

static pk_context *ctx;
static int failures;

static float val(int i) { return (float)((i * 37 + 11) % 29) / 29.0f - 0.5f; }

static pk_buffer *filled(size_t n)
{
    float host[4096];
    pk_buffer *b = NULL;
    if (n > 4096 || pk_alloc(ctx, n * sizeof(float), &b)) return NULL;
    for (size_t i = 0; i < n; i++) host[i] = val((int)i);
    return pk_upload(b, 0, host, n * sizeof(float)) ? NULL : b;
}

static void get(pk_buffer *b, size_t off_floats, size_t n, float *out)
{
    if (pk_download(b, off_floats * sizeof(float), out, n * sizeof(float))) memset(out, 0xff, n * sizeof(float));
}

static char first_error[600];

/* The call on the shared buffer: its message outlives the second call. */
static pk_status first(pk_status s)
{
    snprintf(first_error, sizeof first_error, "%s", s ? pk_last_error(ctx) : "");
    return s;
}

static void check(const char *name, pk_status s, const float *got, const float *want, size_t n)
{
    if (s != PK_SUCCESS) {
        printf("FAIL %s: %s\n", name, *first_error ? first_error : pk_last_error(ctx));
        failures++;
    } else if (memcmp(got, want, n * sizeof(float))) {
        printf("FAIL %s: differs from the same call on separate buffers\n", name);
        failures++;
    } else {
        printf("ok   %s\n", name);
    }
}

static pk_tensor mat(pk_buffer *b, size_t off_floats, int64_t r, int64_t c, int64_t ld)
{
    pk_tensor t = pk_tensor_make(b, off_floats * sizeof(float), PK_F32, 2, (int64_t[]){r, c});
    t.stride[0] = ld;
    return t;
}

/* D = A B with A and D the two halves of the columns of one [4, 16] X. */
static void gemm_column_slices(void)
{
    enum { M = 4, N = 8 };
    pk_buffer *x = filled(M * 2 * N), *b = filled(N * N), *a2 = filled(M * 2 * N), *d2 = filled(M * N);
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    pk_tensor tb = mat(b, 0, N, N, N);
    pk_tensor a = mat(x, N, M, N, 2 * N), d = mat(x, 0, M, N, 2 * N);
    pk_status s = first(pk_gemm(ctx, &g, &a, &tb, NULL, &d));
    pk_tensor sa = mat(a2, N, M, N, 2 * N), sd = mat(d2, 0, M, N, N);
    pk_status s2 = pk_gemm(ctx, &g, &sa, &tb, NULL, &sd);
    float got[M * 2 * N], want[M * N], row[M * N];
    get(x, 0, M * 2 * N, got);
    get(d2, 0, M * N, want);
    for (int i = 0; i < M; i++) memcpy(row + i * N, got + i * 2 * N, N * sizeof(float));
    check("gemm: D and A column slices of one matrix", s2 ? s2 : s, row, want, M * N);
}

/* C is exactly D (documented), beta 1. */
static void gemm_c_is_d(void)
{
    enum { M = 4, N = 8, K = 8 };
    pk_buffer *a = filled(M * K), *b = filled(K * N), *d = filled(M * N), *c2 = filled(M * N), *d2 = filled(M * N);
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    g.beta = 1.0f;
    pk_tensor ta = mat(a, 0, M, K, K), tb = mat(b, 0, K, N, N), td = mat(d, 0, M, N, N);
    pk_status s = first(pk_gemm(ctx, &g, &ta, &tb, &td, &td));
    pk_tensor tc2 = mat(c2, 0, M, N, N), td2 = mat(d2, 0, M, N, N);
    pk_status s2 = pk_gemm(ctx, &g, &ta, &tb, &tc2, &td2);
    float got[M * N], want[M * N];
    get(d, 0, M * N, got);
    get(d2, 0, M * N, want);
    check("gemm: C is exactly D", s2 ? s2 : s, got, want, M * N);
}

/* q, k, v and o in the four slots of one [1, S, 4, H, D] tensor. */
static void attention_fused_slots(void)
{
    enum { S = 3, H = 2, D = 64, SLOT = H * D, ROW = 4 * SLOT };
    pk_buffer *f = filled(S * ROW), *g = filled(S * ROW), *o2 = filled(S * SLOT);
    pk_tensor t[4];
    for (int i = 0; i < 4; i++) {
        t[i] = pk_tensor_make(f, (size_t)(i * SLOT) * sizeof(float), PK_F32, 4, (int64_t[]){1, S, H, D});
        t[i].stride[0] = S * ROW;
        t[i].stride[1] = ROW;
    }
    pk_attention_desc a = PK_ATTENTION_DESC_INIT;
    a.causal = 1;
    pk_status s = first(pk_attention(ctx, &a, &t[0], &t[1], &t[2], &t[3]));
    pk_tensor u[3];
    for (int i = 0; i < 3; i++) {
        u[i] = t[i];
        u[i].buf = g;
    }
    pk_tensor o = pk_tensor_make(o2, 0, PK_F32, 4, (int64_t[]){1, S, H, D});
    pk_status s2 = pk_attention(ctx, &a, &u[0], &u[1], &u[2], &o);
    float got[S * ROW], row[S * SLOT], want[S * SLOT];
    get(f, 0, S * ROW, got);
    for (int i = 0; i < S; i++) memcpy(row + i * SLOT, got + i * ROW + 3 * SLOT, SLOT * sizeof(float));
    get(o2, 0, S * SLOT, want);
    check("attention: q, k, v, o slots of one fused tensor", s2 ? s2 : s, row, want, S * SLOT);
}

/* out is exactly x (documented for bias_act and chain). */
static void elementwise_in_place(void)
{
    enum { R = 3, C = 16 };
    pk_buffer *x = filled(R * C), *bias = filled(C), *x2 = filled(R * C), *o2 = filled(R * C);
    pk_tensor tx = mat(x, 0, R, C, C), tb = pk_tensor_make(bias, 0, PK_F32, 1, (int64_t[]){C});
    pk_status s = first(pk_bias_act(ctx, PK_ACT_SILU, &tx, &tb, &tx));
    pk_tensor tx2 = mat(x2, 0, R, C, C), to2 = mat(o2, 0, R, C, C);
    pk_status s2 = pk_bias_act(ctx, PK_ACT_SILU, &tx2, &tb, &to2);
    float got[R * C], want[R * C];
    get(x, 0, R * C, got);
    get(o2, 0, R * C, want);
    check("bias_act: out is exactly x", s2 ? s2 : s, got, want, R * C);

    pk_buffer *y = filled(R * C), *y2 = filled(R * C), *p2 = filled(R * C);
    pk_chain_step st[2] = {{PK_CHAIN_MUL, 0, 1, 0.0f}, {PK_CHAIN_ADD_IMM, 2, 0, 1.0f}};
    pk_tensor in[2] = {mat(y, 0, R, C, C), tb};
    pk_chain_desc d = {2, in, 2, st};
    s = first(pk_chain(ctx, &d, &in[0]));
    pk_tensor in2[2] = {mat(y2, 0, R, C, C), tb}, out2 = mat(p2, 0, R, C, C);
    pk_chain_desc d2 = {2, in2, 2, st};
    s2 = pk_chain(ctx, &d2, &out2);
    get(y, 0, R * C, got);
    get(p2, 0, R * C, want);
    check("chain: out is exactly its first input", s2 ? s2 : s, got, want, R * C);
}

/* RMSNorm of the left half of [3, 32] rows into the right half. */
static void rmsnorm_column_halves(void)
{
    enum { R = 3, C = 16 };
    pk_buffer *x = filled(R * 2 * C), *w = filled(C), *x2 = filled(R * 2 * C), *o2 = filled(R * C);
    pk_tensor tw = pk_tensor_make(w, 0, PK_F32, 1, (int64_t[]){C});
    pk_tensor in = mat(x, 0, R, C, 2 * C), out = mat(x, C, R, C, 2 * C);
    pk_norm_desc d = PK_NORM_DESC_INIT;
    pk_status s = first(pk_rmsnorm(ctx, &d, &in, &tw, &out));
    pk_tensor in2 = mat(x2, 0, R, C, 2 * C), out2 = mat(o2, 0, R, C, C);
    pk_status s2 = pk_rmsnorm(ctx, &d, &in2, &tw, &out2);
    float got[R * 2 * C], row[R * C], want[R * C];
    get(x, 0, R * 2 * C, got);
    for (int i = 0; i < R; i++) memcpy(row + i * C, got + i * 2 * C + C, C * sizeof(float));
    get(o2, 0, R * C, want);
    check("rmsnorm: x and out column halves of one matrix", s2 ? s2 : s, row, want, R * C);
}

int main(void)
{
    if (pk_open(PK_BACKEND_REF, 0, &ctx) != PK_SUCCESS) return 1;
    gemm_column_slices();
    gemm_c_is_d();
    attention_fused_slots();
    elementwise_in_place();
    rmsnorm_column_halves();
    pk_close(ctx);
    printf("overlap checks accept disjoint and documented in-place layouts: %s\n", failures ? "FAIL" : "ok");
    return failures != 0;
}
