/* Faults (api/ERRORS.md, "Faults"), on one backend and device:
 *   test_faults BACKEND [INDEX]      (ref, opencl, cuda, hip; 77: skipped)
 *
 * 1. Allocation failures: for each op case and n = 0, 1, 2, ... the n-th
 *    allocation site the op reaches on a fresh context fails
 *    (pk_internal_fault_inject), until the op runs without reaching it.
 *    Each injected run returns PK_ERR_OUT_OF_MEMORY with a message, every
 *    buffer keeps its bytes, and the same op right after succeeds with the
 *    bytes a context without faults gives. Leaks show under ASan.
 * 2. Load failures: a corrupt module, a library that is no backend, and a
 *    backend module of another kind in $PORTKERN_MODULE_DIR give
 *    PK_ERR_BACKEND_UNAVAILABLE naming the file, and ref keeps working
 *    (each in a child process: the registry loads a module once per
 *    process). On OpenCL, truncated and garbage binaries in the program
 *    cache are rebuilt from source, with the same bytes out.
 * 3. On OpenCL, launches that do not fit: each op's first kernel launch
 *    refused as NVIDIA's OpenCL refuses one too large for the device
 *    (PK_INTERNAL_FAULT_LAUNCH) gives PK_ERR_UNSUPPORTED, loses nothing,
 *    and the op right after gives the bytes of a fresh context.
 * 4. Device faults: after PK_INTERNAL_FAULT_DEVICE, pk_finish returns
 *    PK_ERR_DEVICE_FAILURE, every later call on the context
 *    PK_ERR_CONTEXT_LOST, pk_free and pk_close still succeed, and once it
 *    is closed a new context on the device works.
 * Prints "test_faults: N checks, N failed" last. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pk_internal.h"
#include "portkern.h"
#include "pk_test_check.h"


static pk_backend backend;
static int device_index;

/* ------------------------------------------------------------ op cases */

#define MAX_BUFS 8

typedef struct bufs {
    pk_buffer *b[MAX_BUFS];
    size_t bytes[MAX_BUFS];
    int n;
} bufs;

typedef struct op_case {
    const char *name;
    size_t bytes[MAX_BUFS]; /* every operand its own buffer; 0 ends the list */
    pk_dtype dtype[MAX_BUFS];
    pk_status (*run)(pk_context *ctx, const bufs *b);
    int ref_scratch; /* ref allocates scratch for it */
} op_case;

static pk_tensor t2(const bufs *b, int i, pk_dtype dt, int64_t r, int64_t c)
{
    return pk_tensor_make(b->b[i], 0, dt, 2, (int64_t[]){r, c});
}

static pk_tensor t4(const bufs *b, int i, pk_dtype dt, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    return pk_tensor_make(b->b[i], 0, dt, 4, (int64_t[]){d0, d1, d2, d3});
}

enum { GM = 8, GN = 16, GK = 32 };

static pk_status gemm_plain(pk_context *ctx, const bufs *b)
{
    pk_tensor a = t2(b, 0, PK_F32, GM, GK), w = t2(b, 1, PK_F32, GN, GK), d = t2(b, 2, PK_F32, GM, GN);
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    g.trans_b = 1;
    return pk_gemm(ctx, &g, &a, &w, NULL, &d);
}

/* bf16 in, f32 out, C with beta, bias, activation and residual */
static pk_status gemm_epilogue(pk_context *ctx, const bufs *b)
{
    pk_tensor a = t2(b, 0, PK_BF16, GM, GK), w = t2(b, 1, PK_BF16, GK, GN), c = t2(b, 2, PK_F32, GM, GN),
              bias = pk_tensor_make(b->b[3], 0, PK_F32, 1, (int64_t[]){GN}), res = t2(b, 4, PK_F32, GM, GN),
              d = t2(b, 5, PK_F32, GM, GN);
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    g.beta = 0.5f;
    g.act = PK_ACT_SILU;
    g.bias = &bias;
    g.residual = &res;
    return pk_gemm(ctx, &g, &a, &w, &c, &d);
}

/* one row, long K: the decode (skinny / split) kernels */
static pk_status gemm_decode(pk_context *ctx, const bufs *b)
{
    pk_tensor a = t2(b, 0, PK_F16, 1, 1024), w = t2(b, 1, PK_F16, 64, 1024), d = t2(b, 2, PK_F16, 1, 64);
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    g.trans_b = 1;
    return pk_gemm(ctx, &g, &a, &w, NULL, &d);
}

static pk_status gemm_batched(pk_context *ctx, const bufs *b)
{
    pk_tensor a = pk_tensor_make(b->b[0], 0, PK_F32, 3, (int64_t[]){3, GM, GK});
    pk_tensor w = pk_tensor_make(b->b[1], 0, PK_F32, 3, (int64_t[]){3, GK, GN});
    pk_tensor d = pk_tensor_make(b->b[2], 0, PK_F32, 3, (int64_t[]){3, GM, GN});
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    return pk_gemm(ctx, &g, &a, &w, NULL, &d);
}

enum { AD = 64 };

static pk_status attention_causal(pk_context *ctx, const bufs *b)
{
    pk_tensor q = t4(b, 0, PK_F16, 1, 16, 2, AD), k = t4(b, 1, PK_F16, 1, 16, 1, AD), v = t4(b, 2, PK_F16, 1, 16, 1, AD),
              o = t4(b, 3, PK_F16, 1, 16, 2, AD);
    pk_attention_desc a = PK_ATTENTION_DESC_INIT;
    a.causal = 1;
    return pk_attention(ctx, &a, &q, &k, &v, &o);
}

/* one query row over a long cache, lengths per batch and LSE: the
 * split-KV path with its scratch and uploaded lengths */
static pk_status attention_decode(pk_context *ctx, const bufs *b)
{
    static const int32_t lq[2] = {1, 1}, lkv[2] = {512, 300};
    pk_tensor q = t4(b, 0, PK_F32, 2, 1, 4, AD), k = t4(b, 1, PK_F32, 2, 512, 2, AD), v = t4(b, 2, PK_F32, 2, 512, 2, AD),
              o = t4(b, 3, PK_F32, 2, 1, 4, AD), lse = pk_tensor_make(b->b[4], 0, PK_F32, 3, (int64_t[]){2, 4, 1});
    pk_attention_desc a = PK_ATTENTION_DESC_INIT;
    a.seqlens_q = lq;
    a.seqlens_kv = lkv;
    a.lse = &lse;
    return pk_attention(ctx, &a, &q, &k, &v, &o);
}

enum { RR = 4, RC = 96 };

static pk_status rows_rmsnorm(pk_context *ctx, const bufs *b)
{
    pk_tensor x = t2(b, 0, PK_BF16, RR, RC), w = pk_tensor_make(b->b[1], 0, PK_BF16, 1, (int64_t[]){RC}),
              res = t2(b, 2, PK_BF16, RR, RC), res_out = t2(b, 3, PK_BF16, RR, RC), out = t2(b, 4, PK_BF16, RR, RC);
    pk_norm_desc n = PK_NORM_DESC_INIT;
    n.residual = &res;
    n.residual_out = &res_out;
    return pk_rmsnorm(ctx, &n, &x, &w, &out);
}

static pk_status rows_layernorm(pk_context *ctx, const bufs *b)
{
    pk_tensor x = t2(b, 0, PK_F32, RR, RC), w = pk_tensor_make(b->b[1], 0, PK_F32, 1, (int64_t[]){RC}),
              bias = pk_tensor_make(b->b[2], 0, PK_F32, 1, (int64_t[]){RC}), out = t2(b, 3, PK_F32, RR, RC);
    pk_norm_desc n = PK_NORM_DESC_INIT;
    return pk_layernorm(ctx, &n, &x, &w, &bias, &out);
}

static pk_status rows_softmax(pk_context *ctx, const bufs *b)
{
    pk_tensor x = t2(b, 0, PK_F16, RR, RC), out = t2(b, 1, PK_F16, RR, RC);
    return pk_softmax(ctx, 0.5f, &x, &out);
}

static pk_status rows_glu(pk_context *ctx, const bufs *b)
{
    pk_tensor g = t2(b, 0, PK_F32, RR, RC), u = t2(b, 1, PK_F32, RR, RC), out = t2(b, 2, PK_F32, RR, RC);
    return pk_glu(ctx, PK_ACT_SILU, &g, &u, &out);
}

static pk_status rows_bias_act(pk_context *ctx, const bufs *b)
{
    pk_tensor x = t2(b, 0, PK_F32, RR, RC), bias = pk_tensor_make(b->b[1], 0, PK_F32, 1, (int64_t[]){RC}),
              out = t2(b, 2, PK_F32, RR, RC);
    return pk_bias_act(ctx, PK_ACT_GELU, &x, &bias, &out);
}

static pk_status rope_theta(pk_context *ctx, const bufs *b)
{
    static const int32_t pos[2 * 3] = {0, 1, 2, 7, 8, 9};
    pk_tensor q = t4(b, 0, PK_F32, 2, 3, 4, AD), k = t4(b, 1, PK_F32, 2, 3, 2, AD);
    pk_rope_desc r = PK_ROPE_DESC_INIT;
    r.positions = pos;
    return pk_rope(ctx, &r, &q, &k);
}

static pk_status rope_table(pk_context *ctx, const bufs *b)
{
    pk_tensor q = t4(b, 0, PK_BF16, 1, 5, 2, AD), f = pk_tensor_make(b->b[1], 0, PK_F32, 1, (int64_t[]){AD / 2});
    pk_rope_desc r = PK_ROPE_DESC_INIT;
    r.interleaved = 1;
    r.inv_freq = &f;
    return pk_rope(ctx, &r, &q, NULL);
}

static pk_status chain(pk_context *ctx, const bufs *b)
{
    pk_tensor in[2] = {t2(b, 0, PK_F32, RR, RC), pk_tensor_make(b->b[1], 0, PK_F16, 1, (int64_t[]){RC})};
    pk_tensor out = t2(b, 2, PK_BF16, RR, RC);
    static const pk_chain_step steps[] = {
        {PK_CHAIN_MUL, 0, 1, 0}, {PK_CHAIN_ADD_IMM, 2, 0, 0.25f}, {PK_CHAIN_SILU, 3, 0, 0}};
    pk_chain_desc c = {2, in, 3, steps};
    return pk_chain(ctx, &c, &out);
}

#define F4 PK_F32
#define H2 PK_F16
#define B2 PK_BF16
static const op_case cases[] = {
    {"gemm", {GM * GK * 4, GN * GK * 4, GM * GN * 4}, {F4, F4, F4}, gemm_plain, 1},
    {"gemm_epilogue", {GM * GK * 2, GK * GN * 2, GM * GN * 4, GN * 4, GM * GN * 4, GM * GN * 4},
     {B2, B2, F4, F4, F4, F4}, gemm_epilogue, 1},
    {"gemm_decode", {1024 * 2, 64 * 1024 * 2, 64 * 2}, {H2, H2, H2}, gemm_decode, 1},
    {"gemm_batched", {3 * GM * GK * 4, 3 * GK * GN * 4, 3 * GM * GN * 4}, {F4, F4, F4}, gemm_batched, 1},
    {"attention_causal", {16 * 2 * AD * 2, 16 * AD * 2, 16 * AD * 2, 16 * 2 * AD * 2}, {H2, H2, H2, H2},
     attention_causal, 1},
    {"attention_decode", {2 * 4 * AD * 4, 2 * 512 * 2 * AD * 4, 2 * 512 * 2 * AD * 4, 2 * 4 * AD * 4, 2 * 4 * 4},
     {F4, F4, F4, F4, F4}, attention_decode, 1},
    {"rmsnorm", {RR * RC * 2, RC * 2, RR * RC * 2, RR * RC * 2, RR * RC * 2}, {B2, B2, B2, B2, B2}, rows_rmsnorm, 1},
    {"layernorm", {RR * RC * 4, RC * 4, RC * 4, RR * RC * 4}, {F4, F4, F4, F4}, rows_layernorm, 1},
    {"softmax", {RR * RC * 2, RR * RC * 2}, {H2, H2}, rows_softmax, 1},
    {"glu", {RR * RC * 4, RR * RC * 4, RR * RC * 4}, {F4, F4, F4}, rows_glu, 0},
    {"bias_act", {RR * RC * 4, RC * 4, RR * RC * 4}, {F4, F4, F4}, rows_bias_act, 0},
    {"rope", {2 * 3 * 4 * AD * 4, 2 * 3 * 2 * AD * 4}, {F4, F4}, rope_theta, 1},
    {"rope_table", {5 * 2 * AD * 2, AD / 2 * 4}, {B2, F4}, rope_table, 1},
    {"chain", {RR * RC * 4, RC * 2, RR * RC * 2}, {F4, H2, B2}, chain, 0},
};

/* Every buffer's first bytes: inputs get small values of their dtype, so
 * that nothing overflows; outputs are written over anyway. */
static unsigned char *initial_bytes(const op_case *c, int i)
{
    unsigned char *h = malloc(c->bytes[i]);
    if (!h) return NULL;
    size_t es = c->dtype[i] == PK_F32 ? 4 : 2;
    for (size_t e = 0; e < c->bytes[i] / es; e++) {
        float x = (float)(((e * 2654435761u + (size_t)i * 40503u) >> 7) % 1000) / 1000.0f - 0.5f;
        if (c->dtype[i] == PK_F32) memcpy(h + e * 4, &x, 4);
        else {
            uint16_t v = c->dtype[i] == PK_F16 ? pk_f32_to_f16(x) : pk_f32_to_bf16(x);
            memcpy(h + e * 2, &v, 2);
        }
    }
    return h;
}

static int n_bufs(const op_case *c)
{
    int n = 0;
    while (n < MAX_BUFS && c->bytes[n]) n++;
    return n;
}

typedef struct snapshot {
    unsigned char *data[MAX_BUFS];
    int n;
} snapshot;

static void snapshot_free(snapshot *s)
{
    for (int i = 0; i < s->n; i++) free(s->data[i]);
    s->n = 0;
}

static int open_ctx(pk_context **ctx)
{
    pk_status s = pk_open(backend, device_index, ctx);
    return check(s == PK_SUCCESS, "pk_open: %s: %s", pk_status_string(s), pk_last_error(NULL));
}

/* Allocates and uploads the case's buffers on ctx. */
static int setup(pk_context *ctx, const op_case *c, const snapshot *init, bufs *b)
{
    b->n = n_bufs(c);
    for (int i = 0; i < b->n; i++) {
        b->bytes[i] = c->bytes[i];
        if (pk_alloc(ctx, c->bytes[i], &b->b[i]) || pk_upload(b->b[i], 0, init->data[i], c->bytes[i]))
            return check(0, "%s: setup: %s", c->name, pk_last_error(ctx));
    }
    return 1;
}

static int download_all(pk_context *ctx, const bufs *b, snapshot *out)
{
    out->n = 0;
    for (int i = 0; i < b->n; i++) {
        out->data[i] = malloc(b->bytes[i]);
        out->n = i + 1;
        if (!out->data[i] || pk_download(b->b[i], 0, out->data[i], b->bytes[i]) != PK_SUCCESS)
            return check(0, "download: %s", pk_last_error(ctx));
    }
    return 1;
}

static int same_bytes(const bufs *b, const snapshot *x, const snapshot *y)
{
    for (int i = 0; i < b->n; i++)
        if (memcmp(x->data[i], y->data[i], b->bytes[i])) return 0;
    return 1;
}

/* The case on a context without faults: every buffer after it. */
static int reference(const op_case *c, const snapshot *init, snapshot *want)
{
    pk_context *ctx;
    bufs b;
    if (!open_ctx(&ctx)) return 0;
    int ok = setup(ctx, c, init, &b);
    pk_status s = ok ? c->run(ctx, &b) : PK_ERR_INTERNAL;
    ok = ok && check(s == PK_SUCCESS, "%s: %s: %s", c->name, pk_status_string(s), pk_last_error(ctx));
    ok = ok && download_all(ctx, &b, want);
    pk_close(ctx);
    return ok;
}

/* The n-th allocation site fails on a fresh context; 1 when the op
 * reached it, 0 when it ran to the end without, -1 on a failed check. */
static int inject_run(const op_case *c, const snapshot *init, const snapshot *want, int n)
{
    pk_context *ctx;
    bufs b;
    if (!open_ctx(&ctx)) return -1;
    if (!setup(ctx, c, init, &b)) {
        pk_close(ctx);
        return -1;
    }
    int result = -1, reached = 0, fired = 0;
    pk_status si = pk_internal_fault_inject(ctx, PK_INTERNAL_FAULT_ALLOC, n);
    pk_status s = c->run(ctx, &b);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pk_last_error(ctx));
    pk_internal_fault_report(ctx, &reached, &fired);
    pk_internal_fault_inject(ctx, PK_INTERNAL_FAULT_OFF, 0);
    snapshot got = {0};
    if (!check(si == PK_SUCCESS, "%s: inject: %s", c->name, pk_last_error(ctx))) goto out;
    if (!fired) {
        if (check(s == PK_SUCCESS, "%s, site %d not reached: %s: %s", c->name, n, pk_status_string(s), msg) &&
            check(pk_finish(ctx) == PK_SUCCESS, "%s: pk_finish: %s", c->name, pk_last_error(ctx)) &&
            download_all(ctx, &b, &got) && check(same_bytes(&b, &got, want), "%s: bytes differ from a fresh context", c->name))
            result = 0;
        goto out;
    }
    if (!check(s == PK_ERR_OUT_OF_MEMORY && strstr(msg, "injected"),
               "%s, site %d of %d: got %s \"%s\", want PK_ERR_OUT_OF_MEMORY naming the injection", c->name, n,
               reached, pk_status_string(s), msg))
        goto out;
    if (!check(pk_finish(ctx) == PK_SUCCESS, "%s, site %d: pk_finish after the failure: %s", c->name, n,
               pk_last_error(ctx)))
        goto out;
    if (!download_all(ctx, &b, &got) || !check(same_bytes(&b, &got, init), "%s, site %d: a buffer changed", c->name, n))
        goto out;
    snapshot_free(&got);
    s = c->run(ctx, &b);
    if (!check(s == PK_SUCCESS, "%s, site %d: the op after the failure: %s: %s", c->name, n, pk_status_string(s),
               pk_last_error(ctx)))
        goto out;
    if (download_all(ctx, &b, &got) &&
        check(same_bytes(&b, &got, want), "%s, site %d: the op after the failure gives other bytes", c->name, n))
        result = 1;
out:
    snapshot_free(&got);
    pk_close(ctx);
    return result;
}

static void alloc_faults(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const op_case *c = &cases[i];
        snapshot init = {0}, want = {0};
        init.n = n_bufs(c);
        int ok = 1;
        for (int j = 0; j < init.n; j++) ok = ok && (init.data[j] = initial_bytes(c, j));
        if (ok && reference(c, &init, &want)) {
            int n = 0, r;
            while ((r = inject_run(c, &init, &want, n)) == 1 && n < 64) n++;
            check(r == 0, "%s: injection stops at site %d", c->name, n);
            /* the hook is wired: a fresh context's op builds or looks up
             * its kernel (GPU backends), ref allocates its scratch rows */
            check(r != 0 || n > 0 || (backend == PK_BACKEND_REF && !c->ref_scratch),
                  "%s: no allocation site reached on a fresh context", c->name);
            printf("alloc faults: %-18s %d allocation site(s)%s\n", c->name, n, r == 0 ? "" : ", FAILED");
        }
        snapshot_free(&init);
        snapshot_free(&want);
    }
}

/* ------------------------------------------------------------ launches that do not fit */

/* OpenCL: each op's first kernel launch refused as NVIDIA's OpenCL refuses
 * one too large for the device (CL_OUT_OF_RESOURCES on a healthy queue):
 * PK_ERR_UNSUPPORTED saying so, the context not lost, no buffer changed,
 * and the same op right after gives the bytes of a context without it. */
static void launch_faults(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const op_case *c = &cases[i];
        snapshot init = {0}, want = {0}, got = {0};
        init.n = n_bufs(c);
        int ok = 1;
        for (int j = 0; j < init.n; j++) ok = ok && (init.data[j] = initial_bytes(c, j));
        pk_context *ctx = NULL;
        bufs b = {0};
        if (!ok || !reference(c, &init, &want) || !open_ctx(&ctx)) goto next;
        if (!setup(ctx, c, &init, &b)) goto next;
        int reached = 0, fired = 0;
        pk_status si = pk_internal_fault_inject(ctx, PK_INTERNAL_FAULT_LAUNCH, 0);
        pk_status s = c->run(ctx, &b);
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", pk_last_error(ctx));
        pk_internal_fault_report(ctx, &reached, &fired);
        pk_internal_fault_inject(ctx, PK_INTERNAL_FAULT_OFF, 0);
        ok = check(si == PK_SUCCESS, "%s: inject launch: %s", c->name, pk_last_error(ctx)) &&
             check(fired, "%s: no kernel launch reached", c->name) &&
             check(s == PK_ERR_UNSUPPORTED && strstr(msg, "did not fit") && strstr(msg, "injected"),
                   "%s: a launch that does not fit: got %s \"%s\", want PK_ERR_UNSUPPORTED saying so", c->name,
                   pk_status_string(s), msg) &&
             check(pk_finish(ctx) == PK_SUCCESS, "%s: pk_finish after the refused launch: %s", c->name,
                   pk_last_error(ctx)) &&
             download_all(ctx, &b, &got) &&
             check(same_bytes(&b, &got, &init), "%s: a buffer changed under the refused launch", c->name);
        snapshot_free(&got);
        if (ok) {
            s = c->run(ctx, &b);
            ok = check(s == PK_SUCCESS, "%s: the op after the refused launch: %s: %s", c->name, pk_status_string(s),
                       pk_last_error(ctx)) &&
                 download_all(ctx, &b, &got) &&
                 check(same_bytes(&b, &got, &want), "%s: the op after the refused launch gives other bytes", c->name);
        }
        if (i == 0) printf("launch fault: %s\n", msg);
        printf("launch faults: %-18s %s\n", c->name, ok ? "refused, context kept" : "FAILED");
    next:
        if (ctx) pk_close(ctx);
        snapshot_free(&got);
        snapshot_free(&init);
        snapshot_free(&want);
    }
}

/* ------------------------------------------------------------ device faults */

typedef struct later_call {
    const char *what;
    pk_status s;
} later_call;

static void device_fault(void)
{
    const op_case *c = &cases[0];
    snapshot init = {0}, want = {0}, got = {0};
    init.n = n_bufs(c);
    for (int j = 0; j < init.n; j++) init.data[j] = initial_bytes(c, j);
    pk_context *ctx, *other = NULL;
    bufs b = {0};
    if (!reference(c, &init, &want) || !open_ctx(&ctx)) goto out;
    if (!setup(ctx, c, &init, &b)) {
        pk_close(ctx);
        goto out;
    }
    check(c->run(ctx, &b) == PK_SUCCESS, "device fault: the op before: %s", pk_last_error(ctx));
    pk_context *bystander = NULL; /* opened before the fault */
    check(pk_open(backend, device_index, &bystander) == PK_SUCCESS, "device fault: bystander: %s",
          pk_last_error(NULL));
    pk_status s = pk_internal_fault_inject(ctx, PK_INTERNAL_FAULT_DEVICE, 0);
    check(s == PK_SUCCESS || s == PK_ERR_DEVICE_FAILURE, "device fault: inject: %s: %s", pk_status_string(s),
          pk_last_error(ctx));
    if (s == PK_SUCCESS) {
        s = pk_finish(ctx);
        check(s == PK_ERR_DEVICE_FAILURE && pk_last_error(ctx)[0], "device fault: pk_finish: %s \"%s\"",
              pk_status_string(s), pk_last_error(ctx));
    }
    printf("device fault: %s\n", pk_last_error(ctx));
    /* ref, OpenCL and HIP on AMD simulate the fault; CUDA and HIP on
     * NVIDIA fault for real, which the driver keeps for the process */
    const int real = !strstr(pk_last_error(ctx), "simulated");

    /* a second context of the device while the lost one is open: its own
     * where the fault is simulated; refused, saying why, where it is real */
    s = pk_open(backend, device_index, &other);
    if (real)
        check(s == PK_ERR_DEVICE_FAILURE && strstr(pk_last_error(NULL), "sticky"),
              "device fault: a second context: %s \"%s\"", pk_status_string(s), pk_last_error(NULL));
    else if (check(s == PK_SUCCESS, "device fault: a second context: %s", pk_last_error(NULL)))
        check(pk_finish(other) == PK_SUCCESS, "device fault: a second context: %s", pk_last_error(other));
    if (s == PK_SUCCESS) pk_close(other);
    /* a context opened before: untouched by a simulated fault; a real one
     * reaches it through the shared primary context */
    if (bystander) {
        s = pk_finish(bystander);
        check(real ? s == PK_ERR_DEVICE_FAILURE : s == PK_SUCCESS, "device fault: bystander's pk_finish: %s \"%s\"",
              pk_status_string(s), pk_last_error(bystander));
        printf("device fault: bystander's pk_finish: %s %s\n", pk_status_string(s), pk_last_error(bystander));
        s = pk_close(bystander);
        check(s == PK_SUCCESS, "device fault: bystander's pk_close: %s", pk_last_error(NULL));
    }

    later_call later[12];
    int n = 0;
    unsigned char host[16] = {0};
    pk_buffer *nb = NULL;
    later[n++] = (later_call){"pk_finish", pk_finish(ctx)};
    later[n++] = (later_call){"the op", c->run(ctx, &b)};
    later[n++] = (later_call){"pk_alloc", pk_alloc(ctx, 64, &nb)};
    later[n++] = (later_call){"pk_upload", pk_upload(b.b[0], 0, host, sizeof host)};
    later[n++] = (later_call){"pk_download", pk_download(b.b[2], 0, host, sizeof host)};
    later[n++] = (later_call){"pk_copy", pk_copy(b.b[2], 0, b.b[0], 0, 16)};
    later[n++] = (later_call){"pk_fill", pk_fill(b.b[2], 0, 16, host, 4)};
    later[n++] = (later_call){"attention", cases[4].run(ctx, &b)};
    later[n++] = (later_call){"rmsnorm", cases[6].run(ctx, &b)};
    later[n++] = (later_call){"rope", cases[11].run(ctx, &b)};
    later[n++] = (later_call){"chain", cases[13].run(ctx, &b)};
    later[n++] = (later_call){"fault inject", pk_internal_fault_inject(ctx, PK_INTERNAL_FAULT_ALLOC, 0)};
    for (int i = 0; i < n; i++)
        check(later[i].s == PK_ERR_CONTEXT_LOST, "device fault: %s afterwards: %s", later[i].what,
              pk_status_string(later[i].s));
    s = pk_free(b.b[1]);
    check(s == PK_SUCCESS, "device fault: pk_free afterwards: %s", pk_status_string(s));
    s = pk_close(ctx);
    check(s == PK_SUCCESS, "device fault: pk_close afterwards: %s %s", pk_status_string(s), pk_last_error(NULL));

    /* where the fault was simulated, the device itself is fine: a new
     * context computes as before; a real one stays for the process */
    s = pk_open(backend, device_index, &ctx);
    printf("device fault: a new context after closing: %s %s\n", pk_status_string(s), pk_last_error(NULL));
    if (real) {
        check(s == PK_ERR_DEVICE_FAILURE && strstr(pk_last_error(NULL), "sticky"),
              "device fault: a new context after closing: %s \"%s\"", pk_status_string(s), pk_last_error(NULL));
        if (s == PK_SUCCESS) pk_close(ctx);
        goto out;
    }
    if (!check(s == PK_SUCCESS, "device fault: a new context: %s", pk_last_error(NULL))) goto out;
    if (setup(ctx, c, &init, &b)) {
        s = c->run(ctx, &b);
        if (check(s == PK_SUCCESS, "device fault: new context: %s", pk_last_error(ctx)) && download_all(ctx, &b, &got))
            check(same_bytes(&b, &got, &want), "device fault: new context gives other bytes");
    }
    pk_close(ctx);
out:
    snapshot_free(&init);
    snapshot_free(&want);
    snapshot_free(&got);
}

/* ------------------------------------------------------------ load failures */

static char tmp_root[] = "/tmp/pk_faults_XXXXXX";

static int write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static int copy_file(const char *from, const char *to)
{
    FILE *f = fopen(from, "rb");
    if (!f) return 0;
    FILE *g = fopen(to, "wb");
    char buf[1 << 16];
    size_t n;
    int ok = g != NULL;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0) ok = fwrite(buf, 1, n, g) == n;
    fclose(f);
    return g && fclose(g) == 0 && ok;
}

/* The directory of libportkern (modules are built beside it). */
static int core_dir(char *dir, size_t n)
{
    Dl_info info;
    if (!dladdr((void *)&pk_open, &info) || !info.dli_fname) return 0;
    snprintf(dir, n, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (!slash) return 0;
    *slash = '\0';
    return 1;
}

/* In a child: $PORTKERN_MODULE_DIR = dir, backend b must not open, with
 * PK_ERR_BACKEND_UNAVAILABLE and a message naming `file`, and ref must
 * still compute. */
static int module_child(const char *dir, pk_backend b, const char *file)
{
    setenv("PORTKERN_MODULE_DIR", dir, 1);
    pk_context *ctx = NULL;
    pk_status s = pk_open(b, 0, &ctx);
    int ok = check(s == PK_ERR_BACKEND_UNAVAILABLE && strstr(pk_last_error(NULL), file),
                   "module %s/%s: pk_open: %s \"%s\"", dir, file, pk_status_string(s), pk_last_error(NULL));
    printf("module %s: %s\n", file, pk_last_error(NULL));
    if (ctx) pk_close(ctx);
    int count = -1;
    s = pk_device_count(b, &count);
    ok &= check(s == PK_ERR_BACKEND_UNAVAILABLE && count == 0, "module %s: pk_device_count: %s, %d", file,
                pk_status_string(s), count);
    s = pk_open(PK_BACKEND_REF, 0, &ctx);
    ok &= check(s == PK_SUCCESS, "module %s: ref does not open: %s", file, pk_last_error(NULL));
    if (s == PK_SUCCESS) {
        const op_case *c = &cases[0];
        snapshot init = {0};
        bufs bb;
        init.n = n_bufs(c);
        for (int j = 0; j < init.n; j++) init.data[j] = initial_bytes(c, j);
        if (setup(ctx, c, &init, &bb))
            ok &= check(c->run(ctx, &bb) == PK_SUCCESS, "module %s: ref gemm: %s", file, pk_last_error(ctx));
        snapshot_free(&init);
        pk_close(ctx);
    }
    return ok;
}

static void in_child(const char *dir, pk_backend b, const char *file)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int ok = module_child(dir, b, file);
        fflush(stdout);
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    int waited = pid > 0 && waitpid(pid, &status, 0) == pid;
    check(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0, "module %s: the child failed or crashed (status %d)",
          file, status);
}

/* Runs before anything loads a backend in this process: the children
 * inherit an empty registry. */
static void module_faults(void)
{
    static const struct {
        pk_backend b;
        const char *file;
    } mods[] = {{PK_BACKEND_OPENCL, "libportkern-opencl.so"},
                {PK_BACKEND_CUDA, "libportkern-cuda.so"},
                {PK_BACKEND_HIP, "libportkern-hip.so"}};
    char core[1024], dir[1200], path[1300], lib[1300];
    if (!check(core_dir(core, sizeof core), "cannot find libportkern's directory")) return;
    snprintf(lib, sizeof lib, "%s/libportkern.so", core);
    for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
        /* not a shared object at all */
        snprintf(dir, sizeof dir, "%s/corrupt-%zu", tmp_root, i);
        mkdir(dir, 0700);
        snprintf(path, sizeof path, "%s/%s", dir, mods[i].file);
        static const char junk[] = "\177ELF this is not a backend module";
        check(write_bytes(path, junk, sizeof junk), "cannot write %s", path);
        in_child(dir, mods[i].b, mods[i].file);

        /* a shared object without pk_backend_entry: the core library */
        snprintf(dir, sizeof dir, "%s/nosymbol-%zu", tmp_root, i);
        mkdir(dir, 0700);
        snprintf(path, sizeof path, "%s/%s", dir, mods[i].file);
        if (check(copy_file(lib, path), "cannot copy %s to %s", lib, path)) in_child(dir, mods[i].b, mods[i].file);
    }
    /* a real backend module under another backend's name */
    snprintf(path, sizeof path, "%s/libportkern-opencl.so", core);
    if (access(path, F_OK) == 0) {
        snprintf(dir, sizeof dir, "%s/wrongkind", tmp_root);
        mkdir(dir, 0700);
        snprintf(lib, sizeof lib, "%s/libportkern-cuda.so", dir);
        if (check(copy_file(path, lib), "cannot copy %s", path)) in_child(dir, PK_BACKEND_CUDA, "libportkern-cuda.so");
    }
}

/* Every file of dir cut to half its size, overwritten with garbage, or
 * with one byte in the middle flipped, in turn; returns how many. */
static int spoil_cache(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    char path[1400];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        int ok = 0;
        if (n % 3 == 0) {
            ok = truncate(path, st.st_size / 2) == 0;
        } else if (n % 3 == 1) {
            static const char junk[] = "not a program binary";
            ok = write_bytes(path, junk, sizeof junk);
        } else {
            FILE *f = fopen(path, "r+b");
            int c = f && fseek(f, st.st_size / 2, SEEK_SET) == 0 ? fgetc(f) : EOF;
            ok = c != EOF && fseek(f, st.st_size / 2, SEEK_SET) == 0 && fputc(c ^ 0x5a, f) != EOF;
            if (f) ok = fclose(f) == 0 && ok;
        }
        n += ok;
    }
    closedir(d);
    return n;
}

static void cache_faults(void)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/cache", tmp_root);
    const char *old = getenv("PORTKERN_CACHE_DIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("PORTKERN_CACHE_DIR", dir, 1);
    const op_case *c[] = {&cases[0], &cases[5], &cases[7]}; /* gemm, split attention, layernorm */
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        snapshot init = {0}, want = {0}, got = {0};
        init.n = n_bufs(c[i]);
        for (int j = 0; j < init.n; j++) init.data[j] = initial_bytes(c[i], j);
        pk_context *ctx;
        bufs b;
        if (reference(c[i], &init, &want)) { /* fills the cache */
            int spoiled = spoil_cache(dir);
            check(spoiled > 0, "cache: %s left no program binary in %s", c[i]->name, dir);
            if (open_ctx(&ctx)) {
                if (setup(ctx, c[i], &init, &b)) {
                    pk_status s = c[i]->run(ctx, &b);
                    if (check(s == PK_SUCCESS, "cache: %s over a spoiled cache: %s", c[i]->name, pk_last_error(ctx)) &&
                        download_all(ctx, &b, &got))
                        check(same_bytes(&b, &got, &want), "cache: %s over a spoiled cache gives other bytes",
                              c[i]->name);
                }
                pk_close(ctx);
            }
            printf("cache: %s rebuilt over %d spoiled binaries\n", c[i]->name, spoiled);
        }
        snapshot_free(&init);
        snapshot_free(&want);
        snapshot_free(&got);
    }
    if (saved) setenv("PORTKERN_CACHE_DIR", saved, 1);
    else unsetenv("PORTKERN_CACHE_DIR");
    free(saved);
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        char sub[1400];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                remove_tree(sub);
            }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || pk_backend_from_name(argv[1], &backend) != PK_SUCCESS || backend == PK_BACKEND_AUTO) {
        fprintf(stderr, "usage: test_faults ref|opencl|cuda|hip [index]\n");
        return 2;
    }
    device_index = argc > 2 ? atoi(argv[2]) : 0;
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    module_faults();

    int count = 0;
    if (pk_device_count(backend, &count) != PK_SUCCESS || device_index >= count) {
        printf("test_faults: %s:%d unavailable: %s\n", argv[1], device_index, pk_last_error(NULL));
        remove_tree(tmp_root);
        return n_failed ? 1 : 77;
    }
    alloc_faults();
    if (backend == PK_BACKEND_OPENCL) {
        cache_faults();
        launch_faults();
    }
    device_fault();
    remove_tree(tmp_root);
    printf("test_faults: %d checks, %d failed\n", n_checks, n_failed);
    return n_failed ? 1 : 0;
}
