/* Attention cases: O = softmax(scale Q K^T + mask) V, GQA, windows,
 * per-batch lengths, LSE, decode shapes. Args: 0 q, 1 k, 2 v, 3 o, 4 desc->lse. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "conform.h"

enum { Q_ = 0, K_, V_, O_, LSE_ };
enum { AL_BSHD = 0, AL_BHSD, AL_PADDED, AL_DSTRIDED };

static pk_status run_attention(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    const cf_attn_params *p = &c->p.attn;
    pk_attention_desc d = PK_ATTENTION_DESC_INIT;
    d.scale = p->scale;
    d.causal = p->causal;
    d.window_left = p->window_left;
    d.window_right = p->window_right;
    d.seqlens_q = p->has_seqlens_q ? p->seqlens_q : NULL;
    d.seqlens_kv = p->has_seqlens_kv ? p->seqlens_kv : NULL;
    d.lse = cf_t(t, LSE_);
    return pk_attention(ctx, &d, cf_t(t, Q_), cf_t(t, K_), cf_t(t, V_), cf_t(t, O_));
}

typedef struct acfg {
    pk_dtype dt;
    int64_t b, sq, skv, hq, hkv, d;
    int causal;
    int64_t wl, wr;
    const int32_t *lq, *lkv; /* NULL or b entries */
    int lse;
    int layout;
    float scale;
    int nan_v;
    int nan_tail; /* K and V rows at and past each batch's Lkv are NaN: never to be read */
    int large; /* CF_SIZE_GPU */
    const char *knob; /* PORTKERN_CUDA_ATTN's value, or NULL */
} acfg;

static acfg A(pk_dtype dt, int64_t b, int64_t sq, int64_t skv, int64_t hq, int64_t hkv, int64_t d, int causal)
{
    acfg a;
    memset(&a, 0, sizeof a);
    a.dt = dt;
    a.b = b;
    a.sq = sq;
    a.skv = skv;
    a.hq = hq;
    a.hkv = hkv;
    a.d = d;
    a.causal = causal;
    a.wl = a.wr = -1;
    return a;
}

static cf_spec head_spec(const acfg *a, int64_t s, int64_t h)
{
    cf_spec sp = cf_shape(a->dt, 4, a->b, s, h, a->d);
    if (a->layout == AL_BHSD) {
        static const int ord[4] = {0, 2, 1, 3};
        cf_spec_order(&sp, ord);
    } else if (a->layout == AL_PADDED) {
        cf_spec_pad(&sp, 8);
        sp.offset = 24;
        sp.tail = 16;
    } else if (a->layout == AL_DSTRIDED) {
        /* stored [B, S, D, H] from an odd offset: no kernel that reads the
         * head dim in 16-byte units takes it */
        static const int ord[4] = {0, 1, 3, 2};
        cf_spec_order(&sp, ord);
        sp.offset = 3;
        sp.tail = 5;
    }
    return sp;
}

static int lens_str(char *buf, size_t n, const char *tag, const int32_t *v, int64_t b)
{
    if (!v) return 0;
    int k = snprintf(buf, n, "/%s", tag);
    for (int64_t i = 0; i < b && (size_t)k < n; i++) k += snprintf(buf + k, n - (size_t)k, "%s%d", i ? "," : "", v[i]);
    return k;
}

static void add(cf_case_list *l, const acfg *a)
{
    char mask[48], win[64] = "", lens[64] = "", extra[64] = "";
    snprintf(mask, sizeof mask, "%s", a->causal ? "causal" : "full");
    if (a->wl >= 0 || (!a->causal && a->wr >= 0))
        snprintf(win, sizeof win, "/window%lld,%lld", (long long)a->wl, (long long)(a->causal ? 0 : a->wr));
    int k = lens_str(lens, sizeof lens, "lq", a->lq, a->b);
    lens_str(lens + k, sizeof lens - (size_t)k, "lkv", a->lkv, a->b);
    size_t e = 0;
    if (a->lse) e += (size_t)snprintf(extra + e, sizeof extra - e, "/lse");
    if (a->layout == AL_BHSD) e += (size_t)snprintf(extra + e, sizeof extra - e, "/bhsd");
    if (a->layout == AL_PADDED) e += (size_t)snprintf(extra + e, sizeof extra - e, "/padded+offset");
    if (a->scale != 0.0f) e += (size_t)snprintf(extra + e, sizeof extra - e, "/scale%g", a->scale);
    if (a->layout == AL_DSTRIDED) e += (size_t)snprintf(extra + e, sizeof extra - e, "/bsdh+offset");
    if (a->nan_v) e += (size_t)snprintf(extra + e, sizeof extra - e, "/nan-v");
    if (a->nan_tail) e += (size_t)snprintf(extra + e, sizeof extra - e, "/nan-past-lkv");
    if (a->large) e += (size_t)snprintf(extra + e, sizeof extra - e, "/large");
    if (a->knob) snprintf(extra + e, sizeof extra - e, "/knob:%s", a->knob);

    cf_case *c = cf_case_add(l, CF_OP_ATTENTION, a->dt, run_attention,
                             "attention/%s/b%lldq%lldkv%lld/h%lld-%lld/d%lld/%s%s%s%s", cf_dtype_tag(a->dt),
                             (long long)a->b, (long long)a->sq, (long long)a->skv, (long long)a->hq,
                             (long long)a->hkv, (long long)a->d, mask, win, lens, extra);
    c->size = a->large ? CF_SIZE_GPU : CF_SIZE_ANY;
    if (a->knob) snprintf(c->knob, sizeof c->knob, "PORTKERN_CUDA_ATTN=%s", a->knob);
    cf_attn_params *p = &c->p.attn;
    p->scale = a->scale;
    p->causal = a->causal;
    p->window_left = a->wl;
    p->window_right = a->wr;
    if (a->lq) {
        p->has_seqlens_q = 1;
        memcpy(p->seqlens_q, a->lq, (size_t)a->b * sizeof(int32_t));
    }
    if (a->lkv) {
        p->has_seqlens_kv = 1;
        memcpy(p->seqlens_kv, a->lkv, (size_t)a->b * sizeof(int32_t));
    }
    cf_arg *q = cf_case_arg(c, Q_, "q", CF_IN, head_spec(a, a->sq, a->hq));
    cf_arg *kk = cf_case_arg(c, K_, "k", CF_IN, head_spec(a, a->skv, a->hkv));
    cf_arg *v = cf_case_arg(c, V_, "v", CF_IN, head_spec(a, a->skv, a->hkv));
    /* q, k ~ N(0,1): scores ~ N(0,1) after 1/sqrt(D), so softmax is not flat */
    cf_arg_gen(q, CF_GEN_NORMAL, 0.0f, 1.0f);
    cf_arg_gen(kk, CF_GEN_NORMAL, 0.0f, 1.0f);
    cf_arg_gen(v, CF_GEN_NORMAL, 0.0f, 1.0f);
    if (a->nan_v) {
        /* batch 0, key skv/2, kv head 0, channel 3: rows before it (causal) stay finite */
        int64_t j = a->skv / 2;
        cf_arg_special(v, (j * a->hkv + 0) * a->d + 3, 1, NAN);
    }
    if (a->nan_tail)
        /* a cache's rows past its length hold anything (an engine's
         * unwritten cache, a reused buffer): every kernel must leave them
         * unread, or a 0 weight times NaN poisons the row */
        for (int64_t b = 0; b < a->b && b < CF_MAX_SPECIAL; b++) {
            const int64_t row = a->hkv * a->d, start = (b * a->skv + a->lkv[b]) * row, count = (a->skv - a->lkv[b]) * row;
            if (count <= 0) continue;
            cf_arg_special(kk, start, count, NAN);
            cf_arg_special(v, start, count, NAN);
        }
    cf_case_arg(c, O_, "o", CF_OUT, head_spec(a, a->sq, a->hq));
    if (a->lse) {
        cf_spec ls = cf_shape(PK_F32, 3, a->b, a->hq, a->sq);
        if (a->layout == AL_PADDED) {
            cf_spec_pad(&ls, 3);
            ls.offset = 5;
        }
        cf_case_arg(c, LSE_, "desc->lse", CF_OUT, ls);
    }
}

/* a under a knob ("VAR=value" is built by add) */
static void add_knob(cf_case_list *l, acfg *a, const char *knob)
{
    a->knob = knob;
    add(l, a);
}

void cf_cases_attention(cf_case_list *l)
{
    static const pk_dtype dts[3] = {PK_F32, PK_F16, PK_BF16};
    static const int64_t hd[5] = {64, 80, 96, 128, 256};
    static const int32_t lq3[3] = {5, 0, 9}, lkv3[3] = {7, 3, 0}, lkv3b[3] = {17, 1, 33};
    static const int32_t lq2[2] = {3, 9}, lkv2[2] = {1000, 37};
    acfg a;

    for (int t = 0; t < 3; t++) {
        pk_dtype dt = dts[t];

        /* Every head dim, causal and not. */
        for (int i = 0; i < 5; i++)
            for (int causal = 0; causal < 2; causal++) {
                a = A(dt, 1, 33, 33, 2, 2, hd[i], causal);
                if (i == 4) a.sq = a.skv = 17;
                add(l, &a);
            }

        /* Causal with Sq != Skv (bottom-right), chunked prefill, Sq > Skv. */
        a = A(dt, 1, 5, 37, 2, 2, 64, 1);
        add(l, &a);
        a.lse = 1;
        a.d = 128;
        add(l, &a);
        a = A(dt, 2, 16, 80, 4, 2, 128, 1); /* a chunk of prefill after 64 cached tokens */
        add(l, &a);
        a = A(dt, 1, 64, 129, 2, 1, 64, 1);
        add(l, &a);
        a = A(dt, 1, 37, 5, 2, 2, 64, 1); /* first 32 rows see no key: zeros, lse -inf */
        a.lse = 1;
        add(l, &a);
        a = A(dt, 1, 5, 37, 2, 2, 96, 0);
        add(l, &a);

        /* GQA ratios 2, 4, 8 and MQA. */
        static const int64_t gq[4][2] = {{4, 2}, {8, 2}, {8, 1}, {4, 1}};
        for (int i = 0; i < 4; i++) {
            a = A(dt, 1, 17, 17, gq[i][0], gq[i][1], 128, i & 1);
            if (i == 2) a.d = 64;
            add(l, &a);
        }

        /* Sliding windows. */
        a = A(dt, 1, 40, 40, 2, 1, 64, 1);
        a.wl = 8;
        add(l, &a);
        a = A(dt, 1, 33, 33, 2, 2, 80, 0);
        a.wl = 4;
        a.wr = 3;
        add(l, &a);
        a = A(dt, 1, 9, 50, 2, 2, 128, 1);
        a.wl = 0;
        a.lse = 1;
        add(l, &a);
        a = A(dt, 1, 12, 30, 2, 2, 64, 0);
        a.wl = -1;
        a.wr = 2;
        add(l, &a);
        /* windows past the sequence reach every key (Sq > Skv) */
        a = A(dt, 1, 20, 12, 2, 2, 64, 0);
        a.wl = a.wr = INT64_MAX;
        a.lse = 1;
        add(l, &a);

        /* Per-batch lengths, including zero lengths. */
        a = A(dt, 3, 9, 13, 2, 2, 64, 1);
        a.lq = lq3;
        a.lkv = lkv3;
        a.lse = 1;
        add(l, &a);
        a = A(dt, 3, 1, 33, 4, 2, 128, 0);
        a.lkv = lkv3b;
        add(l, &a);
        a = A(dt, 2, 9, 1000, 2, 1, 64, 1);
        a.lq = lq2;
        a.lkv = lkv2;
        add(l, &a);
        /* NaN past each length in K and V: a KV cache's unwritten rows */
        static const int32_t lkv_nan[3] = {7, 3, 13};
        a = A(dt, 3, 9, 13, 2, 2, 64, 1);
        a.lkv = lkv_nan;
        a.nan_tail = 1;
        add(l, &a);

        /* Decode: Sq 1..4, long Skv (split-KV path), GQA decode. */
        a = A(dt, 1, 1, 1000, 8, 8, 128, 0);
        add(l, &a);
        a = A(dt, 2, 1, 4100, 8, 2, 128, 1);
        a.lse = 1;
        add(l, &a);
        a = A(dt, 1, 2, 2049, 8, 1, 64, 1);
        add(l, &a);
        a = A(dt, 1, 4, 1027, 4, 4, 256, 1);
        add(l, &a);
        a = A(dt, 2, 3, 3000, 4, 1, 96, 0);
        add(l, &a);
        /* Decode with per-batch lengths (one empty: zeros, lse -inf),
         * sliding windows on either side, a causal sq 4 whose first rows
         * see no key in the short batch, GQA 8 at D 256 over many chunks. */
        static const int32_t lkvd[3] = {1500, 0, 777}, lqd[2] = {2, 4}, lkvd2[2] = {1100, 3};
        a = A(dt, 3, 1, 1500, 8, 2, 128, 0);
        a.lkv = lkvd;
        a.lse = 1;
        add(l, &a);
        static const int32_t lkvd_nan[2] = {1301, 77};
        a = A(dt, 2, 1, 1500, 8, 2, 128, 0);
        a.lkv = lkvd_nan;
        a.nan_tail = 1;
        add(l, &a);
        a = A(dt, 2, 1, 2000, 16, 2, 64, 1);
        a.wl = 300;
        a.lse = 1;
        add(l, &a);
        a = A(dt, 1, 2, 1800, 4, 1, 80, 0);
        a.wl = 100;
        a.wr = 50;
        add(l, &a);
        a = A(dt, 2, 4, 1200, 4, 4, 128, 1);
        a.lq = lqd;
        a.lkv = lkvd2;
        a.lse = 1;
        add(l, &a);
        a = A(dt, 1, 1, 5000, 8, 1, 256, 0);
        add(l, &a);

        /* Odd S. */
        a = A(dt, 1, 1, 1, 1, 1, 64, 1);
        add(l, &a);
        a = A(dt, 2, 7, 7, 3, 1, 80, 1);
        add(l, &a);
        a = A(dt, 1, 129, 129, 1, 1, 64, 1);
        add(l, &a);

        /* Layouts through strides and offsets; explicit scale. */
        a = A(dt, 2, 17, 17, 4, 2, 64, 1);
        a.layout = AL_BHSD;
        add(l, &a);
        a = A(dt, 2, 5, 23, 2, 2, 128, 0);
        a.layout = AL_PADDED;
        a.lse = 1;
        add(l, &a);
        a = A(dt, 1, 9, 9, 2, 2, 64, 0);
        a.scale = 0.3f;
        add(l, &a);

        /* A NaN in V: only rows that see that key get NaN (one channel). */
        a = A(dt, 1, 16, 16, 2, 2, 64, 1);
        a.nan_v = 1;
        add(l, &a);
        /* Decode beside a NaN in V: key 350 sits in the tile of the
         * window's first key (351), masked: the output stays finite (the
         * tensor-core decode's path for non-finite V in edge tiles). */
        a = A(dt, 1, 1, 700, 8, 2, 128, 0);
        a.nan_v = 1;
        a.wl = 348;
        add(l, &a);
    }

    /* Every kernel variant at every head dim (tests/test_cover_attention.c
     * names them). Decode, split-KV: 1, 2, 4, 8, 16 rows per kv head (the
     * OpenCL decode tiles, the CUDA keys and HIP rows16 kernels) and 32 or
     * 48 (the 17-64 row kernels), each 16-bit dtype on both sides of 16. */
    static const struct { int dt; int64_t b, sq, hq, hkv; } dec[] = {
        {0, 1, 1, 2, 2},  {1, 2, 1, 4, 2}, {2, 1, 2, 4, 2},  {0, 1, 2, 8, 2},
        {2, 1, 4, 4, 1},  {0, 2, 4, 16, 2}, {1, 1, 1, 32, 1}, {2, 1, 3, 16, 1},
        /* f32 at 2 and 4 rows: where 16-bit decode runs on tensor cores
         * (NVIDIA's OpenCL), f32 is what reaches the portable tiles */
        {0, 1, 1, 4, 2},  {0, 2, 1, 8, 2},
    };
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < (int)(sizeof dec / sizeof dec[0]); j++) {
            a = A(dts[dec[j].dt], dec[j].b, dec[j].sq, 512 + 97 * j + 13 * i, dec[j].hq, dec[j].hkv, hd[i],
                  (i + j) % 2);
            a.lse = j == 3;
            add(l, &a);
        }
    /* Short decode (one pass) and layouts no 16-byte copy reads (the
     * CUDA-core and HIP tiled kernels for 16-bit types), prefill and split. */
    for (int i = 0; i < 5; i++) {
        for (int t = 0; t < 3; t++) {
            a = A(dts[t], 1, 1 + t, 77 + 23 * t, 4 * (1 + t), 1 + t, hd[i], t != 1);
            add(l, &a);
        }
        for (int t = 1; t < 3; t++) {
            a = A(dts[t], 1, 33, 40, 4, 2, hd[i], t == 1);
            a.layout = AL_DSTRIDED;
            add(l, &a);
            a = A(dts[t], 1, 1, 600 + 11 * i, 32, 1, hd[i], t == 2);
            a.layout = AL_DSTRIDED;
            add(l, &a);
        }
        /* the OpenCL decode kernel's element-by-element loads at 1, 2 and
         * 4 rows per kv head (32 rows above), every dtype */
        static const int64_t rq[3][3] = {{1, 2, 2}, {1, 2, 1}, {2, 4, 2}};
        for (int r = 0; r < 3; r++) {
            a = A(dts[(i + r) % 3], 1, rq[r][0], 530 + 7 * i, rq[r][1], rq[r][2], hd[i], r == 1);
            a.layout = AL_DSTRIDED;
            add(l, &a);
        }
    }

    /* The OpenCL decode kernel storing its output itself: enough batches
     * and kv heads that every work-group takes the whole key range (one
     * split, no merge). 32 groups fill PoCL's two cores: each head dim,
     * both loads, its tiles of 1 and 2 rows. 264 fill the H200 (GPU only;
     * the float64 reference makes these slow, so a few): 1 to 8 rows, both
     * loads, lse, three head dims. */
    for (int i = 0; i < 5; i++)
        for (int dstr = 0; dstr < 2; dstr++)
            for (int r = 1; r <= 2; r *= 2) {
                a = A(dts[(i + r) % 3], 4, 1, 512 + 5 * i, 8 * r, 8, hd[i], 0);
                a.layout = dstr ? AL_DSTRIDED : a.layout;
                a.lse = r == 2;
                add(l, &a);
            }
    static const struct { int i, dstr, r; } fill[] = {{0, 0, 8}, {3, 0, 4}, {2, 1, 1}, {3, 1, 2}};
    for (int j = 0; j < 4; j++) {
        const int i = fill[j].i, r = fill[j].r;
        a = A(dts[1 + (i + r) % 2], 33, 1, 512 + 3 * i, 8 * r, 8, hd[i], 0);
        a.layout = fill[j].dstr ? AL_DSTRIDED : a.layout;
        a.lse = r == 4;
        a.large = 1;
        add(l, &a);
    }
    /* The tensor-core decode (NVIDIA's OpenCL) storing its output itself:
     * 400 groups, more than half of the one wave it aims at on the H200
     * (6 work-groups on each of 132 compute units), so one split; GQA 4
     * and one head per kv head, each 16-bit dtype */
    for (int t = 1; t < 3; t++) {
        a = A(dts[t], 50, 1, 520, 8 * (t == 1 ? 4 : 1), 8, 128, 0);
        a.lse = 1;
        a.large = 1;
        add(l, &a);
    }

    /* The CUDA prefill kernel's 128-row blocks (D <= 128): more than 64
     * rows per kv head and at least two blocks per SM (264 on a 132-SM
     * H200, which covers a 108-SM A100). GPU-only; heads rather than
     * sequence make up the count so that the float64 reference stays
     * quick: one block per head, GQA rows of two heads, four blocks of
     * four heads' rows, a window. */
    static const struct { int64_t b, sq, skv, hq, hkv, wl; } big[] = {
        {2, 65, 65, 132, 132, -1}, {2, 40, 90, 264, 132, -1}, {1, 100, 100, 264, 66, -1}, {2, 65, 130, 132, 132, 40},
    };
    for (int t = 1; t < 3; t++)
        for (int i = 0; i < 4; i++) {
            a = A(dts[t], big[i].b, big[i].sq, big[i].skv, big[i].hq, big[i].hkv, hd[i], (i + t) % 2);
            a.wl = big[i].wl;
            a.large = 1;
            add(l, &a);
        }

    /* The mma.sync prefill kernels at the Hopper kernel's head dims, which
     * on sm_90 with its module run only under PORTKERN_CUDA_ATTN=mma (the
     * plan gives those problems to the Hopper kernel): few rows in one
     * pass (64-row blocks) and the 128-row blocks' shapes above (D 64 and
     * 128). Elsewhere the same cases again. */
    static const int big_wg[2] = {0, 3};
    for (int t = 1; t < 3; t++) {
        for (int i = 0; i < 5; i++) {
            if (hd[i] == 80 || hd[i] == 96) continue;
            a = A(dts[t], 1, 33, 33, 2, 2, hd[i], (i + t) % 2);
            if (hd[i] == 256) a.sq = a.skv = 17;
            add_knob(l, &a, "mma");
        }
        for (int j = 0; j < 2; j++) {
            const int i = big_wg[j];
            a = A(dts[t], big[i].b, big[i].sq, big[i].skv, big[i].hq, big[i].hkv, hd[i], (i + t + 1) % 2);
            a.wl = big[i].wl;
            a.large = 1;
            add_knob(l, &a, "mma");
        }
    }

    /* The CUDA 128-row variants that only PORTKERN_CUDA_ATTN picks (32-key
     * tiles; eight warps of 16 rows), at every head dim they are built
     * for: 80 rows in one pass, and 40 rows over 600 keys, split. */
    static const char *const knobs[] = {"rows128n32", "rows128w8"};
    for (int t = 1; t < 3; t++)
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 2; k++)
                for (int split = 0; split < 2; split++) {
                    a = split ? A(dts[t], 1, 40, 600, 2, 2, hd[i], k) : A(dts[t], 1, 80, 80, 2, 2, hd[i], k);
                    a.knob = knobs[k];
                    add(l, &a);
                }

    /* The CUDA Hopper kernel (sm_90a, PORTKERN_CUDA_ATTN=wgmma or
     * =wgmma-pp only): 128 packed rows a block, 128-key tiles (64 at D
     * 256; 176 under wgmma-pp176 at D 128 without masks, the cases
     * here without causal or window) in a two-stage ring. Each dtype and head dim, causal and not, with rows and keys
     * that are no multiple of the tiles and more key tiles than stages;
     * then, per dtype: causal with Sq < Skv and Sq > Skv (rows that see no
     * key), GQA and MQA with row tiles across heads, windows (whole tiles
     * skipped on the left), per-batch lengths with an empty batch, NaN
     * past each len_kv, a NaN in V beside the causal edge (the masked-tile
     * path on the CUDA cores), strided and padded layouts, LSE, an
     * explicit scale, and a long case over many tiles (GPU only). */
    static const int64_t wg_d[3] = {64, 128, 256};
    static const int32_t wg_lq[3] = {140, 0, 77}, wg_lkv[3] = {200, 9, 150}, wg_nan[2] = {131, 250};
    /* each case twice: the kernel and its ping-pong form (wgmma-pp) */
    for (int pp = 0; pp < 2; pp++) {
        const char *wg = pp ? "wgmma-pp" : "wgmma";
        for (int t = 1; t < 3; t++) {
            for (int i = 0; i < 3; i++)
                for (int causal = 0; causal < 2; causal++) {
                    a = A(dts[t], 1, 150, 300, 2, 2, wg_d[i], causal);
                    a.lse = causal;
                    add_knob(l, &a, wg);
                }
            a = A(dts[t], 2, 100, 300, 4, 2, 128, 1); /* chunked prefill after 200 cached keys */
            a.lse = 1;
            add_knob(l, &a, wg);
            a = A(dts[t], 1, 200, 70, 2, 2, 64, 1); /* the first 130 rows see no key: zeros, lse -inf */
            a.lse = 1;
            add_knob(l, &a, wg);
            a = A(dts[t], 1, 100, 260, 8, 2, 128, 1); /* GQA 4: 400 rows a kv head, tiles across heads */
            add_knob(l, &a, wg);
            a = A(dts[t], 1, 50, 333, 4, 1, 256, 0); /* MQA */
            a.lse = 1;
            add_knob(l, &a, wg);
            a = A(dts[t], 1, 300, 300, 2, 1, 64, 1);
            a.wl = 40;
            add_knob(l, &a, wg);
            a = A(dts[t], 1, 200, 260, 2, 2, 128, 0);
            a.wl = 70;
            a.wr = 20;
            a.lse = 1;
            add_knob(l, &a, wg);
            a = A(dts[t], 3, 140, 200, 2, 2, 128, 1);
            a.lq = wg_lq;
            a.lkv = wg_lkv;
            a.lse = 1;
            add_knob(l, &a, wg);
            a = A(dts[t], 2, 130, 260, 2, 2, t == 1 ? 64 : 256, 1);
            a.lkv = wg_nan;
            a.nan_tail = 1;
            add_knob(l, &a, wg);
            a = A(dts[t], 1, 150, 150, 2, 2, t == 1 ? 128 : 64, 1);
            a.nan_v = 1;
            add_knob(l, &a, wg);
            a = A(dts[t], 2, 70, 90, 4, 2, t == 1 ? 256 : 128, 0);
            a.layout = t == 1 ? AL_BHSD : AL_PADDED;
            a.lse = 1;
            add_knob(l, &a, wg);
            a = A(dts[t], 1, 130, 130, 2, 2, 128, 1);
            a.scale = 0.3f;
            add_knob(l, &a, wg);
            a = A(dts[t], 1, 520, 1030, 4, 2, t == 1 ? 128 : 256, 1);
            a.lse = 1;
            a.large = 1;
            add_knob(l, &a, wg);
            if (!pp) continue;
            /* the ping-pong form's 176-key tiles (wgmma-pp176: D = 128, no
             * causal or window mask): per-batch lengths with an empty
             * batch, NaN past each len_kv (edge tiles on the CUDA cores),
             * many tiles */
            a = A(dts[t], 3, 140, 200, 2, 2, 128, 0);
            a.lq = wg_lq;
            a.lkv = wg_lkv;
            a.lse = 1;
            add_knob(l, &a, "wgmma-pp176");
            a = A(dts[t], 2, 130, 260, 2, 2, 128, 0);
            a.lkv = wg_nan;
            a.nan_tail = 1;
            add_knob(l, &a, "wgmma-pp176");
            a = A(dts[t], 1, 520, 1030, 4, 2, 128, 0);
            a.large = 1;
            add_knob(l, &a, "wgmma-pp176");
        }
    }
    /* The plan's kernel with every tile by cp.async (wgmma-pp-cpasync;
     * by default the tiles whose keys all exist come by TMA): causal and
     * not, per-batch lengths, NaN past len_kv, many tiles */
    for (int t = 1; t < 3; t++) {
        a = A(dts[t], 3, 140, 200, 2, 2, 128, t == 1);
        a.lq = wg_lq;
        a.lkv = wg_lkv;
        a.lse = 1;
        add_knob(l, &a, "wgmma-pp-cpasync");
        a = A(dts[t], 2, 130, 260, 2, 2, t == 1 ? 64 : 256, 1);
        a.lkv = wg_nan;
        a.nan_tail = 1;
        add_knob(l, &a, "wgmma-pp-cpasync");
        a = A(dts[t], 1, 520, 1030, 4, 2, 128, t == 2);
        a.large = 1;
        add_knob(l, &a, "wgmma-pp-cpasync");
    }
}
