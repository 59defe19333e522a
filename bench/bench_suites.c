/* The workload suites of `portkern bench --suite NAME`: the shapes one
 * forward pass of a real model runs, prefill (a 2048-token prompt) and
 * decode (batch 1 and 32), so a result speaks for a model, not for a
 * synthetic square. Llama-3-70B is the slice one GPU holds under
 * tensor-parallel 8 (heads and the MLP width split 8 ways, hidden whole).
 * The small model is Llama-3.2-1B. "floors" stays the performance-floor
 * cases of bench_cases.c, which the CUDA speed floors are judged by. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* linear-layout GEMM; decode-sized M is judged by weight bandwidth */
#define G(name, dt, m, n, k) {name, PK_BENCH_GEMM, dt, m, n, k, 1, 0, 0, 0, 0, 0, 0, 0, (m) <= 32 ? 'W' : 'F', 0, 0}
/* attention; a single query row is decode, judged by K/V bandwidth */
#define A(name, dt, b, sq, skv, hq, hkv, d, causal)                                                                    \
    {name, PK_BENCH_ATTENTION, dt, 0, 0, 0, 0, b, sq, skv, hq, hkv, d, causal, (sq) == 1 ? 'K' : 'F', 0, 0}
#define N(name, dt, rows, cols) {name, PK_BENCH_RMSNORM, dt, rows, cols, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'B', 0, 0}
#define S(name, dt, rows, cols) {name, PK_BENCH_SWIGLU, dt, rows, cols, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'B', 0, 0}
/* rows by device index: m rows of n columns, a table of k rows */
#define X(name, op, dt, m, n, k) {name, op, dt, m, n, k, 0, 0, 0, 0, 0, 0, 0, 0, 'B', 0, 0}
/* RoPE in place on q and k; freq: from a device table (scaled RoPE) instead of theta */
#define R(name, dt, b, s, hq, hkv, d, freq)                                                                            \
    {name, (freq) ? PK_BENCH_ROPE_INV_FREQ : PK_BENCH_ROPE, dt, 0, 0, 0, 0, b, s, 0, hq, hkv, d, 0, 'B', 0, 0}

/* hidden 4096, 32 query / 8 KV heads of 128, MLP 14336 */
static const pk_bench_case llama3_8b[] = {
    G("8b prefill qkv 2048x6144x4096", PK_BF16, 2048, 6144, 4096),
    G("8b prefill o 2048x4096x4096", PK_BF16, 2048, 4096, 4096),
    G("8b prefill gate_up 2048x28672x4096", PK_BF16, 2048, 28672, 4096),
    G("8b prefill down 2048x4096x14336", PK_BF16, 2048, 4096, 14336),
    A("8b prefill attn B1 S2048 causal", PK_BF16, 1, 2048, 2048, 32, 8, 128, 1),
    N("8b prefill add+rmsnorm [2048,4096]", PK_BF16, 2048, 4096),
    S("8b prefill swiglu [2048,14336]", PK_BF16, 2048, 14336),
    G("8b decode qkv M=1", PK_BF16, 1, 6144, 4096),
    G("8b decode gate_up M=1", PK_BF16, 1, 28672, 4096),
    G("8b decode down M=1", PK_BF16, 1, 4096, 14336),
    G("8b decode qkv M=32", PK_BF16, 32, 6144, 4096),
    G("8b decode gate_up M=32", PK_BF16, 32, 28672, 4096),
    A("8b decode attn B32 Skv4096", PK_BF16, 32, 1, 4096, 32, 8, 128, 0),
    A("8b decode attn B1 Skv131072", PK_BF16, 1, 1, 131072, 32, 8, 128, 0),
};

/* per GPU of TP8: hidden 8192, 8 query / 1 KV head of 128, MLP 28672/8 */
static const pk_bench_case llama3_70b_tp8[] = {
    G("70b/8 prefill qkv 2048x1280x8192", PK_BF16, 2048, 1280, 8192),
    G("70b/8 prefill o 2048x8192x1024", PK_BF16, 2048, 8192, 1024),
    G("70b/8 prefill gate_up 2048x7168x8192", PK_BF16, 2048, 7168, 8192),
    G("70b/8 prefill down 2048x8192x3584", PK_BF16, 2048, 8192, 3584),
    A("70b/8 prefill attn B1 S2048 causal", PK_BF16, 1, 2048, 2048, 8, 1, 128, 1),
    N("70b/8 prefill add+rmsnorm [2048,8192]", PK_BF16, 2048, 8192),
    S("70b/8 prefill swiglu [2048,3584]", PK_BF16, 2048, 3584),
    G("70b/8 decode qkv M=1", PK_BF16, 1, 1280, 8192),
    G("70b/8 decode gate_up M=1", PK_BF16, 1, 7168, 8192),
    G("70b/8 decode down M=1", PK_BF16, 1, 8192, 3584),
    G("70b/8 decode gate_up M=32", PK_BF16, 32, 7168, 8192),
    A("70b/8 decode attn B32 Skv4096", PK_BF16, 32, 1, 4096, 8, 1, 128, 0),
    A("70b/8 decode attn B1 Skv131072", PK_BF16, 1, 1, 131072, 8, 1, 128, 0),
};

/* Llama-3.2-1B: hidden 2048, 32 query / 8 KV heads of 64, MLP 8192 */
static const pk_bench_case small[] = {
    G("1b prefill qkv 2048x3072x2048", PK_BF16, 2048, 3072, 2048),
    G("1b prefill gate_up 2048x16384x2048", PK_BF16, 2048, 16384, 2048),
    G("1b prefill down 2048x2048x8192", PK_BF16, 2048, 2048, 8192),
    A("1b prefill attn B1 S2048 causal", PK_BF16, 1, 2048, 2048, 32, 8, 64, 1),
    N("1b prefill add+rmsnorm [2048,2048]", PK_BF16, 2048, 2048),
    S("1b prefill swiglu [2048,8192]", PK_BF16, 2048, 8192),
    G("1b decode qkv M=1", PK_BF16, 1, 3072, 2048),
    G("1b decode gate_up M=1", PK_BF16, 1, 16384, 2048),
    G("1b decode down M=32", PK_BF16, 32, 2048, 8192),
    A("1b decode attn B8 Skv4096", PK_BF16, 8, 1, 4096, 32, 8, 64, 0),
};

/* linear layout over batch 1..4096; f32 and f16 too, where CLBlast can answer */
static const pk_bench_case gemm[] = {
    G("gemm bf16 M=1 4096x4096", PK_BF16, 1, 4096, 4096),
    G("gemm bf16 M=4 4096x4096", PK_BF16, 4, 4096, 4096),
    G("gemm bf16 M=16 4096x4096", PK_BF16, 16, 4096, 4096),
    G("gemm bf16 M=64 4096x4096", PK_BF16, 64, 4096, 4096),
    G("gemm bf16 M=128 4096x4096", PK_BF16, 128, 4096, 4096),
    G("gemm bf16 M=256 4096x4096", PK_BF16, 256, 4096, 4096),
    G("gemm bf16 M=512 4096x4096", PK_BF16, 512, 4096, 4096),
    G("gemm bf16 M=1024 4096x4096", PK_BF16, 1024, 4096, 4096),
    G("gemm bf16 M=64 1024x4096", PK_BF16, 64, 1024, 4096),
    G("gemm bf16 M=4096 4096x4096", PK_BF16, 4096, 4096, 4096),
    G("gemm bf16 M=1 14336x4096", PK_BF16, 1, 14336, 4096),
    G("gemm bf16 M=4096 14336x4096", PK_BF16, 4096, 14336, 4096),
    G("gemm bf16 M=8192 8192x8192", PK_BF16, 8192, 8192, 8192),
    G("gemm f16 M=4096 4096x4096", PK_F16, 4096, 4096, 4096),
    G("gemm f32 M=1 4096x4096", PK_F32, 1, 4096, 4096),
    G("gemm f32 M=256 4096x4096", PK_F32, 256, 4096, 4096),
    G("gemm f32 M=4096 4096x4096", PK_F32, 4096, 4096, 4096),
};

static const pk_bench_case attention[] = {
    A("attn prefill B8 H32 S2048 D128", PK_BF16, 8, 2048, 2048, 32, 32, 128, 0),
    A("attn prefill B8 H32 S2048 D128 causal", PK_BF16, 8, 2048, 2048, 32, 32, 128, 1),
    A("attn prefill GQA B2 Hq32 Hkv8 S4096 causal", PK_BF16, 2, 4096, 4096, 32, 8, 128, 1),
    A("attn prefill B4 H16 S2048 D64 causal", PK_BF16, 4, 2048, 2048, 16, 16, 64, 1),
    A("attn prefill GQA B1 Hq32 Hkv8 S8192 causal", PK_BF16, 1, 8192, 8192, 32, 8, 128, 1),
    A("attn prefill B4 H16 S2048 D256 causal", PK_BF16, 4, 2048, 2048, 16, 16, 256, 1),
    A("attn decode GQA B32 Hq32 Hkv8 Skv8192", PK_BF16, 32, 1, 8192, 32, 8, 128, 0),
    A("attn decode GQA B1 Hq32 Hkv8 Skv131072", PK_BF16, 1, 1, 131072, 32, 8, 128, 0),
    A("attn decode MQA B32 Hq8 Hkv1 Skv8192", PK_BF16, 32, 1, 8192, 8, 1, 128, 0),
    A("attn prefill f16 B8 H32 S2048 causal", PK_F16, 8, 2048, 2048, 32, 32, 128, 1),
};

static const pk_bench_case elementwise[] = {
    N("add+rmsnorm bf16 [16384,4096]", PK_BF16, 16384, 4096),
    N("add+rmsnorm bf16 [32,4096]", PK_BF16, 32, 4096),
    N("add+rmsnorm f32 [4096,4096]", PK_F32, 4096, 4096),
    S("swiglu bf16 [16384,14336]", PK_BF16, 16384, 14336),
    S("swiglu bf16 [32,14336]", PK_BF16, 32, 14336),
    S("swiglu f16 [4096,14336]", PK_F16, 4096, 14336),
    /* Llama-3-8B's q and k: 32 and 8 heads of 128 */
    R("rope bf16 8b prefill S2048", PK_BF16, 1, 2048, 32, 8, 128, 0),
    R("rope bf16 8b prefill S2048 inv_freq", PK_BF16, 1, 2048, 32, 8, 128, 1),
    R("rope bf16 8b decode B32", PK_BF16, 32, 1, 32, 8, 128, 0),
    R("rope bf16 8b decode B32 inv_freq", PK_BF16, 32, 1, 32, 8, 128, 1),
    /* Llama-3-8B's embedding lookup (vocabulary 128256, hidden 4096) and
     * KV-cache write (8 KV heads of 128, K and V: 2048 columns, 8192 rows) */
    X("gather bf16 embedding B32 [128256,4096]", PK_BENCH_GATHER, PK_BF16, 32, 4096, 128256),
    X("gather bf16 embedding S2048 [128256,4096]", PK_BENCH_GATHER, PK_BF16, 2048, 4096, 128256),
    X("scatter bf16 kv write B32 [8192,2048]", PK_BENCH_SCATTER, PK_BF16, 32, 2048, 8192),
    X("scatter bf16 kv write S2048 [8192,2048]", PK_BENCH_SCATTER, PK_BF16, 2048, 2048, 8192),
};

/* tools/run.sh's suite: a slice of every kind that a CPU device finishes in
 * a minute or two and a GPU in seconds */
static const pk_bench_case short_suite[] = {
    G("short gemm f32 512x2048x2048", PK_F32, 512, 2048, 2048),
    G("short gemm bf16 128x3072x2048", PK_BF16, 128, 3072, 2048),
    G("short gemm bf16 M=1 8192x2048", PK_BF16, 1, 8192, 2048),
    A("short attn prefill B1 Hq32 Hkv8 S512 D64 causal", PK_BF16, 1, 512, 512, 32, 8, 64, 1),
    A("short attn decode B4 Hq32 Hkv8 Skv2048 D64", PK_BF16, 4, 1, 2048, 32, 8, 64, 0),
    N("short add+rmsnorm [512,2048]", PK_BF16, 512, 2048),
    S("short swiglu [512,8192]", PK_BF16, 512, 8192),
};

#define COUNT(a) (int)(sizeof a / sizeof a[0])

const char *const pk_bench_suite_names[] = {"floors", "llama3-8b", "llama3-70b-tp8", "small", "gemm", "attention",
                                            "elementwise", "short", NULL};
const char *const pk_bench_suite_about[] = {
    "the performance-floor cases that the CUDA speed floors are judged by (the default)",
    "Llama-3-8B prefill (2048 tokens) and decode (batch 1, 32)",
    "Llama-3-70B, one GPU's slice under tensor-parallel 8",
    "Llama-3.2-1B prefill and decode",
    "linear-layout GEMM, batch 1 to 8192, bf16/f16/f32",
    "prefill causal and non-causal, GQA, MQA, decode with long KV",
    "add+RMSNorm, SwiGLU and RoPE (theta or a frequency table), large and decode-sized",
    "a slice of each kind for tools/run.sh (short on a CPU device)",
};

int pk_bench_suite(const char *name, const pk_bench_case **out)
{
    static pk_bench_case copy[64];
    const pk_bench_case *src;
    int n;
    if (!strcmp(name, "floors")) n = pk_bench_cases(&src);
    else if (!strcmp(name, "llama3-8b")) src = llama3_8b, n = COUNT(llama3_8b);
    else if (!strcmp(name, "llama3-70b-tp8")) src = llama3_70b_tp8, n = COUNT(llama3_70b_tp8);
    else if (!strcmp(name, "small")) src = small, n = COUNT(small);
    else if (!strcmp(name, "gemm")) src = gemm, n = COUNT(gemm);
    else if (!strcmp(name, "attention")) src = attention, n = COUNT(attention);
    else if (!strcmp(name, "elementwise")) src = elementwise, n = COUNT(elementwise);
    else if (!strcmp(name, "short")) src = short_suite, n = COUNT(short_suite);
    else return -1;
    if (n > COUNT(copy)) n = COUNT(copy);
    /* the suite name travels with each case into the CSV and JSON */
    for (int i = 0; i < n; i++) {
        copy[i] = src[i];
        copy[i].suite = name;
    }
    *out = copy;
    return n;
}

static int parse_dtype(const char *v, pk_dtype *t)
{
    for (int i = 0; i < PK_I32; i++) /* the float types: ops compute on those */
        if (!strcmp(v, pk_dtype_name((pk_dtype)i))) {
            *t = (pk_dtype)i;
            return 1;
        }
    return 0;
}

int pk_bench_parse_case(const char *spec, pk_bench_case *c, char *name_buf, size_t name_len)
{
    pk_bench_case z = {0};
    *c = z;
    c->dtype = PK_BF16;
    c->linear = 1;
    c->m = c->n = c->k = -1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    int op_seen = 0, inv_freq = 0;
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) return 0;
        *eq = 0;
        const char *k = kv, *v = eq + 1;
        long long x = atoll(v);
        if (!strcmp(k, "op")) {
            op_seen = 1;
            if (!strcmp(v, "gemm")) c->op = PK_BENCH_GEMM;
            else if (!strcmp(v, "attention")) c->op = PK_BENCH_ATTENTION;
            else if (!strcmp(v, "rmsnorm")) c->op = PK_BENCH_RMSNORM;
            else if (!strcmp(v, "swiglu")) c->op = PK_BENCH_SWIGLU;
            else if (!strcmp(v, "rope")) c->op = PK_BENCH_ROPE;
            else if (!strcmp(v, "gather")) c->op = PK_BENCH_GATHER;
            else if (!strcmp(v, "scatter")) c->op = PK_BENCH_SCATTER;
            else return 0;
        } else if (!strcmp(k, "dtype")) {
            if (!parse_dtype(v, &c->dtype)) return 0;
        } else if (!strcmp(k, "m") || !strcmp(k, "rows")) c->m = x;
        else if (!strcmp(k, "n") || !strcmp(k, "cols")) c->n = x;
        else if (!strcmp(k, "k")) c->k = x;
        else if (!strcmp(k, "linear")) c->linear = (int)x;
        else if (!strcmp(k, "b")) c->batch = x;
        else if (!strcmp(k, "sq")) c->sq = x;
        else if (!strcmp(k, "skv")) c->skv = x;
        else if (!strcmp(k, "hq")) c->hq = x;
        else if (!strcmp(k, "hkv")) c->hkv = x;
        else if (!strcmp(k, "d")) c->d = x;
        else if (!strcmp(k, "causal")) c->causal = (int)x;
        else if (!strcmp(k, "inv_freq")) inv_freq = (int)x;
        else return 0;
    }
    if (!op_seen) return 0;
    if (c->op == PK_BENCH_ATTENTION) {
        if (c->batch <= 0) c->batch = 1;
        if (c->skv <= 0) c->skv = c->sq;
        if (c->hkv <= 0) c->hkv = c->hq;
        if (c->sq <= 0 || c->hq <= 0 || c->d <= 0) return 0;
        c->metric = c->sq == 1 ? 'K' : 'F';
        snprintf(name_buf, name_len, "attn %s B%lld Hq%lld Hkv%lld Sq%lld Skv%lld D%lld%s", pk_dtype_name(c->dtype),
                 (long long)c->batch, (long long)c->hq, (long long)c->hkv, (long long)c->sq, (long long)c->skv,
                 (long long)c->d, c->causal ? " causal" : "");
    } else if (c->op == PK_BENCH_ROPE) {
        if (c->batch <= 0) c->batch = 1;
        if (c->hkv <= 0) c->hkv = c->hq;
        if (c->sq <= 0 || c->hq <= 0 || c->d <= 0 || c->d % 2) return 0;
        if (inv_freq) c->op = PK_BENCH_ROPE_INV_FREQ;
        c->metric = 'B';
        snprintf(name_buf, name_len, "rope %s B%lld S%lld Hq%lld Hkv%lld D%lld%s", pk_dtype_name(c->dtype),
                 (long long)c->batch, (long long)c->sq, (long long)c->hq, (long long)c->hkv, (long long)c->d,
                 inv_freq ? " inv_freq" : "");
    } else if (c->op == PK_BENCH_GATHER || c->op == PK_BENCH_SCATTER) {
        if (c->m <= 0 || c->n <= 0 || c->k <= 0) return 0;
        c->metric = 'B';
        snprintf(name_buf, name_len, "%s %s %lld rows [%lld,%lld]", c->op == PK_BENCH_GATHER ? "gather" : "scatter",
                 pk_dtype_name(c->dtype), (long long)c->m, (long long)c->k, (long long)c->n);
    } else if (c->op == PK_BENCH_GEMM) {
        if (c->m <= 0 || c->n <= 0 || c->k <= 0) return 0;
        c->metric = c->m <= 32 ? 'W' : 'F';
        snprintf(name_buf, name_len, "gemm %s %lldx%lldx%lld%s", pk_dtype_name(c->dtype), (long long)c->m,
                 (long long)c->n, (long long)c->k, c->linear ? "" : " row-major B");
    } else {
        if (c->m <= 0 || c->n <= 0) return 0;
        c->metric = 'B';
        snprintf(name_buf, name_len, "%s %s [%lld,%lld]", c->op == PK_BENCH_RMSNORM ? "add+rmsnorm" : "swiglu",
                 pk_dtype_name(c->dtype), (long long)c->m, (long long)c->n);
    }
    c->name = name_buf;
    c->suite = "command line";
    return 1;
}

void pk_bench_counts(const pk_bench_case *c, double *flops, double *bytes)
{
    double es = (double)pk_dtype_size(c->dtype);
    if (c->op == PK_BENCH_GEMM) {
        *flops = 2.0 * c->m * c->n * c->k;
        *bytes = es * ((double)c->m * c->k + (double)c->n * c->k + (double)c->m * c->n);
    } else if (c->op == PK_BENCH_ATTENTION) {
        double pairs = (double)c->sq * c->skv;
        if (c->causal) /* visible (query, key) pairs, bottom-right aligned */
            pairs = c->sq <= c->skv ? (double)c->sq * (c->skv - c->sq) + c->sq * (c->sq + 1.0) / 2
                                    : c->skv * (c->skv + 1.0) / 2;
        *flops = 4.0 * c->batch * c->hq * pairs * c->d;
        double qo = es * c->batch * c->sq * c->hq * c->d, kv = 2 * es * c->batch * c->skv * c->hkv * c->d;
        *bytes = 2 * qo + kv;
    } else if (c->op == PK_BENCH_ROPE || c->op == PK_BENCH_ROPE_INV_FREQ) {
        /* per element 2 products and a sum; per (token, pair) the angle,
         * its sine and cosine; q and k read and written once, the
         * positions and frequencies read */
        double tokens = (double)c->batch * c->sq, elems = tokens * (c->hq + c->hkv) * c->d;
        *flops = 3 * elems + 1.5 * tokens * c->d;
        *bytes = 2 * es * elems + 4 * tokens + 2.0 * c->d;
    } else if (c->op == PK_BENCH_GATHER || c->op == PK_BENCH_SCATTER) {
        /* a move: no arithmetic; the rows read and written and the indices */
        *flops = 0;
        *bytes = 2 * es * c->m * c->n + 4.0 * c->m;
    } else {
        /* the arithmetic a minimal kernel must do per element, a
         * transcendental counted as one: add, square-and-sum, two scalings
         * (RMSNorm); exp, add, divide, two products (SwiGLU). It places the
         * ops on the roofline plot; their limit is bandwidth either way. */
        double t = es * c->m * c->n;
        *flops = 5.0 * c->m * c->n;
        *bytes = c->op == PK_BENCH_RMSNORM ? 4 * t + es * c->n : 3 * t;
    }
}
