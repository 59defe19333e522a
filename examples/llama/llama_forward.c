/* One transformer pass as a queue of portkern ops. The residual stream
 * ping-pongs between two buffers because a GEMM's residual input may not
 * overlap its output: the O and down projections add the stream in their
 * epilogue and write the other buffer, two swaps per layer.
 *
 * A layer's KV cache is one [max_seq, 2, Hkv, hd] buffer: position p's K
 * row, then its V row. The stacked K/V projection writes the new
 * positions' rows to a staging buffer, RoPE turns their K half, and a
 * scatter puts them into the cache at their positions; attention reads K
 * and V as strided views of the whole cache, up to a length held on the
 * device. Likewise the stacked gate/up projection writes [n, 2 I] rows
 * whose halves SwiGLU reads as two views.
 *
 * Everything a step changes (token ids, positions, the cache length) is a
 * small device tensor uploaded before the step; no op takes a host array
 * and no view depends on the position, so one decode step can be recorded
 * as a graph and replayed for every later one (llama_state_use_graph). */
#include "llama_forward.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct llama_state {
    const llama_model *m;
    int64_t max_tokens, max_seq, pos;
    pk_buffer *x[2], *xn, *q, *kv_new, *attn, *gate_up, *act, *logits;
    pk_buffer **kv_cache;           /* one per layer */
    /* one int32 buffer on the device, uploaded once a step: [0, T) token
     * ids, [T, 2T) their positions, [2T] the cache length (T = max_tokens) */
    pk_buffer *step;
    int32_t *host;                  /* its 2 T + 1 values, staged */
    int use_graph, decode_steps;
    pk_graph *graph;                /* the recorded decode step */
};

#define LLAMA_TRY(call, what)                                                                            \
    do {                                                                                                 \
        pk_status s_ = (call);                                                                           \
        if (s_ != PK_SUCCESS) {                                                                          \
            snprintf(err, errlen, "%s: %s: %s", (what), pk_status_string(s_), pk_last_error(m->ctx));     \
            return -1;                                                                                   \
        }                                                                                                \
    } while (0)

int64_t llama_state_pos(const llama_state *s)
{
    return s->pos;
}

/* Rows [row0, row0 + rows) of a row-major [*, cols] matrix in buf. */
static pk_tensor llama_rows(pk_buffer *buf, pk_dtype dt, int64_t row0, int64_t rows, int64_t cols)
{
    return pk_tensor_make(buf, (size_t)(row0 * cols) * pk_dtype_size(dt), dt, 2, (int64_t[]){rows, cols});
}

/* Columns [col0, col0 + n) of those rows: a strided view. */
static pk_tensor llama_cols(pk_buffer *buf, pk_dtype dt, int64_t row0, int64_t rows, int64_t cols, int64_t col0,
                            int64_t n)
{
    pk_tensor t = pk_tensor_make(buf, (size_t)(row0 * cols + col0) * pk_dtype_size(dt), dt, 2, (int64_t[]){rows, n});
    t.stride[0] = cols;
    return t;
}

/* The same rows seen as [1, rows, heads, hd] for RoPE and attention. */
static pk_tensor llama_heads(pk_buffer *buf, pk_dtype dt, int64_t row0, int64_t rows, int64_t heads, int64_t hd)
{
    return pk_tensor_make(buf, (size_t)(row0 * heads * hd) * pk_dtype_size(dt), dt, 4,
                          (int64_t[]){1, rows, heads, hd});
}

/* K (half 0) or V (half 1) of cache positions [row0, row0 + rows) as
 * [1, rows, Hkv, hd]; a position's row in the cache holds both. */
static pk_tensor llama_cache_heads(const llama_state *s, int64_t layer, int half, int64_t row0, int64_t rows)
{
    const llama_config *c = &s->m->cfg;
    const int64_t kv = c->num_key_value_heads * c->head_dim;
    pk_tensor t = pk_tensor_make(s->kv_cache[layer], (size_t)(row0 * 2 * kv + half * kv) * pk_dtype_size(s->m->dtype),
                                 s->m->dtype, 4, (int64_t[]){1, rows, c->num_key_value_heads, c->head_dim});
    t.stride[1] = 2 * kv;
    t.stride[0] = rows * 2 * kv;
    return t;
}

/* out = x W^T (+ bias, when the checkpoint has one) (+ residual) */
static pk_status llama_linear(pk_context *ctx, const pk_tensor *x, const pk_tensor *w, const pk_tensor *bias,
                              const pk_tensor *residual, const pk_tensor *out)
{
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    g.trans_b = 1; /* HF stores W as [out, in] */
    g.bias = bias && bias->buf ? bias : NULL;
    g.residual = residual;
    return pk_gemm(ctx, &g, x, w, NULL, out);
}

static pk_status llama_norm(const llama_model *m, const pk_tensor *x, const pk_tensor *w, const pk_tensor *out)
{
    pk_norm_desc d = PK_NORM_DESC_INIT;
    d.eps = (float)m->cfg.rms_norm_eps;
    return pk_rmsnorm(m->ctx, &d, x, w, out);
}

static int llama_alloc(const llama_model *m, pk_buffer **out, int64_t elems, pk_dtype dt, const char *what, char *err,
                       size_t errlen)
{
    LLAMA_TRY(pk_alloc(m->ctx, (size_t)elems * pk_dtype_size(dt), out), what);
    return 0;
}

int llama_state_create(const llama_model *m, int64_t max_tokens, int64_t max_seq, llama_state **out, char *err,
                       size_t errlen)
{
    const llama_config *c = &m->cfg;
    *out = NULL;
    if (max_tokens < 1 || max_seq < max_tokens || max_seq > c->max_position_embeddings) {
        snprintf(err, errlen, "context of %lld positions does not fit max_position_embeddings %lld",
                 (long long)max_seq, (long long)c->max_position_embeddings);
        return -1;
    }
    if (llama_config_check_context(c, max_seq, err, errlen)) return -1;
    llama_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    *out = s;
    s->m = m;
    s->max_tokens = max_tokens;
    s->max_seq = max_seq;
    s->kv_cache = calloc((size_t)c->num_hidden_layers, sizeof *s->kv_cache);
    s->host = calloc(2 * (size_t)max_tokens + 1, sizeof *s->host);
    if (!s->kv_cache || !s->host) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    const pk_dtype dt = m->dtype;
    const int64_t h = c->hidden_size, q = c->num_attention_heads * c->head_dim, ff = c->intermediate_size,
                  kv_row = 2 * c->num_key_value_heads * c->head_dim, kv = max_seq * kv_row;
    if (llama_alloc(m, &s->x[0], max_tokens * h, dt, "residual stream", err, errlen) ||
        llama_alloc(m, &s->x[1], max_tokens * h, dt, "residual stream", err, errlen) ||
        llama_alloc(m, &s->xn, max_tokens * h, dt, "normed activations", err, errlen) ||
        llama_alloc(m, &s->q, max_tokens * q, dt, "queries", err, errlen) ||
        llama_alloc(m, &s->kv_new, max_tokens * kv_row, dt, "new keys and values", err, errlen) ||
        llama_alloc(m, &s->step, 2 * max_tokens + 1, PK_I32, "token ids and positions", err, errlen) ||
        llama_alloc(m, &s->attn, max_tokens * q, dt, "attention output", err, errlen) ||
        llama_alloc(m, &s->gate_up, max_tokens * 2 * ff, dt, "gate and up", err, errlen) ||
        llama_alloc(m, &s->act, max_tokens * ff, dt, "SwiGLU output", err, errlen) ||
        llama_alloc(m, &s->logits, c->vocab_size, PK_F32, "logits", err, errlen))
        return -1;
    /* zeros past what the steps have written: attention reads only up to
     * the length, but unwritten memory is never left for a kernel to meet */
    const uint32_t zero = 0;
    for (int64_t l = 0; l < c->num_hidden_layers; l++) {
        if (llama_alloc(m, &s->kv_cache[l], kv, dt, "KV cache", err, errlen)) return -1;
        LLAMA_TRY(pk_fill(s->kv_cache[l], 0, (size_t)kv * pk_dtype_size(dt), &zero, 4), "KV cache fill");
    }
    return 0;
}

void llama_state_free(llama_state *s)
{
    if (!s) return;
    if (s->graph) pk_graph_free(s->graph);
    pk_buffer *bufs[] = {s->x[0], s->x[1], s->xn, s->q, s->kv_new, s->attn, s->gate_up, s->act, s->logits,
                         s->step};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) pk_free(bufs[i]);
    for (int64_t l = 0; s->kv_cache && l < s->m->cfg.num_hidden_layers; l++)
        if (s->kv_cache[l]) pk_free(s->kv_cache[l]);
    free(s->kv_cache);
    free(s->host);
    free(s);
}

/* The n tokens' embedding rows, gathered by the ids on the device. */
static int llama_embed(llama_state *s, int64_t n, char *err, size_t errlen)
{
    const llama_model *m = s->m;
    const pk_tensor ids = pk_tensor_make(s->step, 0, PK_I32, 1, &n);
    const pk_tensor x = llama_rows(s->x[0], m->dtype, 0, n, m->cfg.hidden_size);
    LLAMA_TRY(pk_gather_rows(m->ctx, &m->embed, &ids, &x), "embedding lookup");
    return 0;
}

/* Self-attention of n new tokens; the stream moves from x[0] to x[1]. The
 * new K/V rows go through kv_new into the cache at their positions. */
static int llama_attention_block(llama_state *s, const llama_layer *l, int64_t layer, int64_t n, char *err,
                                 size_t errlen)
{
    const llama_model *m = s->m;
    const llama_config *c = &m->cfg;
    const pk_dtype dt = m->dtype;
    const int64_t h = c->hidden_size, hq = c->num_attention_heads, hkv = c->num_key_value_heads, hd = c->head_dim;
    const int64_t kv_row = 2 * hkv * hd;
    const pk_tensor x = llama_rows(s->x[0], dt, 0, n, h), xn = llama_rows(s->xn, dt, 0, n, h);
    const pk_tensor q = llama_rows(s->q, dt, 0, n, hq * hd);
    const pk_tensor kv_new = llama_rows(s->kv_new, dt, 0, n, kv_row);
    LLAMA_TRY(llama_norm(m, &x, &l->attn_norm, &xn), "input_layernorm");
    LLAMA_TRY(llama_linear(m->ctx, &xn, &l->wq, &l->b_q, NULL, &q), "q_proj");
    LLAMA_TRY(llama_linear(m->ctx, &xn, &l->wkv, &l->b_kv, NULL, &kv_new), "k_proj and v_proj");

    const pk_tensor positions = pk_tensor_make(s->step, (size_t)s->max_tokens * sizeof(int32_t), PK_I32, 1, &n);
    const pk_tensor q4 = llama_heads(s->q, dt, 0, n, hq, hd);
    pk_tensor k4_new = llama_heads(s->kv_new, dt, 0, n, hkv, hd); /* the K half of each row */
    k4_new.stride[1] = kv_row;
    k4_new.stride[0] = n * kv_row;
    pk_rope_desc r = PK_ROPE_DESC_INIT;
    r.inv_freq = &m->inv_freq;
    r.interleaved = 0; /* HF Llama's rotate_half */
    r.device_positions = &positions;
    LLAMA_TRY(pk_rope(m->ctx, &r, &q4, &k4_new), "rope");
    const pk_tensor cache = llama_rows(s->kv_cache[layer], dt, 0, s->max_seq, kv_row);
    LLAMA_TRY(pk_scatter_rows(m->ctx, &kv_new, &positions, &cache), "KV cache write");

    const pk_tensor k_all = llama_cache_heads(s, layer, 0, 0, s->max_seq);
    const pk_tensor v_all = llama_cache_heads(s, layer, 1, 0, s->max_seq);
    const pk_tensor o4 = llama_heads(s->attn, dt, 0, n, hq, hd);
    const int64_t one = 1;
    const pk_tensor len = pk_tensor_make(s->step, 2 * (size_t)s->max_tokens * sizeof(int32_t), PK_I32, 1, &one);
    pk_attention_desc a = PK_ATTENTION_DESC_INIT;
    a.causal = 1; /* bottom-right aligned: query i sees keys up to pos + i */
    a.device_seqlens_kv = &len;
    if (m->qk_scale != 1.0) a.scale = (float)(m->qk_scale / sqrt((double)hd));
    if (c->layer_sliding[layer]) a.window_left = c->sliding_window - 1;
    LLAMA_TRY(pk_attention(m->ctx, &a, &q4, &k_all, &v_all, &o4), "attention");

    const pk_tensor o = llama_rows(s->attn, dt, 0, n, hq * hd), x_out = llama_rows(s->x[1], dt, 0, n, h);
    LLAMA_TRY(llama_linear(m->ctx, &o, &l->wo, &l->b_o, &x, &x_out), "o_proj");
    return 0;
}

/* The SwiGLU MLP; the stream moves from x[1] back to x[0]. */
static int llama_mlp_block(llama_state *s, const llama_layer *l, int64_t n, char *err, size_t errlen)
{
    const llama_model *m = s->m;
    const pk_dtype dt = m->dtype;
    const int64_t h = m->cfg.hidden_size, ff = m->cfg.intermediate_size;
    const pk_tensor x = llama_rows(s->x[1], dt, 0, n, h), xn = llama_rows(s->xn, dt, 0, n, h);
    const pk_tensor gate_up = llama_rows(s->gate_up, dt, 0, n, 2 * ff);
    const pk_tensor gate = llama_cols(s->gate_up, dt, 0, n, 2 * ff, 0, ff),
                    up = llama_cols(s->gate_up, dt, 0, n, 2 * ff, ff, ff), act = llama_rows(s->act, dt, 0, n, ff),
                    x_out = llama_rows(s->x[0], dt, 0, n, h);
    LLAMA_TRY(llama_norm(m, &x, &l->ffn_norm, &xn), "post_attention_layernorm");
    LLAMA_TRY(llama_linear(m->ctx, &xn, &l->w_gate_up, &l->b_gate_up, NULL, &gate_up), "gate_proj and up_proj");
    LLAMA_TRY(pk_glu(m->ctx, PK_ACT_SILU, &gate, &up, &act), "SwiGLU");
    LLAMA_TRY(llama_linear(m->ctx, &act, &l->w_down, &l->b_down, &x, &x_out), "down_proj");
    return 0;
}

/* Final norm and LM head on the last position only: the only row sampled.
 * The GEMM writes f32 logits directly (mixed output dtype). */
static int llama_logits(llama_state *s, int64_t n, char *err, size_t errlen)
{
    const llama_model *m = s->m;
    const int64_t h = m->cfg.hidden_size, v = m->cfg.vocab_size;
    const pk_tensor last = llama_rows(s->x[0], m->dtype, n - 1, 1, h), xn = llama_rows(s->xn, m->dtype, 0, 1, h);
    const pk_tensor out = llama_rows(s->logits, PK_F32, 0, 1, v);
    LLAMA_TRY(llama_norm(m, &last, &m->final_norm, &xn), "model.norm");
    LLAMA_TRY(llama_linear(m->ctx, &xn, &m->lm_head, NULL, NULL, &out), "lm_head");
    return 0;
}

/* Every op of a pass over n tokens, queued (or recorded). */
static int llama_pass(llama_state *s, int64_t n, char *err, size_t errlen)
{
    if (llama_embed(s, n, err, errlen)) return -1;
    for (int64_t l = 0; l < s->m->cfg.num_hidden_layers; l++) {
        const llama_layer *layer = &s->m->layers[l];
        if (llama_attention_block(s, layer, l, n, err, errlen) || llama_mlp_block(s, layer, n, err, errlen)) {
            char op[512];
            snprintf(op, sizeof op, "%s", err);
            snprintf(err, errlen, "layer %lld: %s", (long long)l, op);
            return -1;
        }
    }
    return llama_logits(s, n, err, errlen);
}

int llama_state_use_graph(llama_state *s, int on)
{
    s->use_graph = on != 0;
    return 0;
}

int llama_forward(llama_state *s, const int32_t *tokens, int64_t n, float *logits, char *err, size_t errlen)
{
    const llama_model *m = s->m;
    if (n < 1 || n > s->max_tokens || s->pos + n > s->max_seq) {
        snprintf(err, errlen, "%lld tokens at position %lld do not fit (at most %lld a call, %lld in all)",
                 (long long)n, (long long)s->pos, (long long)s->max_tokens, (long long)s->max_seq);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= m->cfg.vocab_size) {
            snprintf(err, errlen, "token id %d is outside the vocabulary [0, %lld)", tokens[i],
                     (long long)m->cfg.vocab_size);
            return -1;
        }
    /* the step's inputs, on the device */
    const int64_t t = s->max_tokens;
    for (int64_t i = 0; i < n; i++) {
        s->host[i] = tokens[i];
        s->host[t + i] = (int32_t)(s->pos + i);
    }
    s->host[2 * t] = (int32_t)(s->pos + n);
    LLAMA_TRY(pk_upload(s->step, 0, s->host, (2 * (size_t)t + 1) * sizeof *s->host), "token ids and positions upload");
    /* a decode step: recorded at the second one (the first has loaded its
     * kernels and grown the buffers a recording may not grow), replayed
     * from then on */
    if (s->use_graph && n == 1 && s->decode_steps++ >= 1) {
        if (!s->graph) {
            LLAMA_TRY(pk_graph_begin(m->ctx), "graph recording");
            int bad = llama_pass(s, 1, err, errlen);
            pk_graph *g = NULL;
            pk_status st = pk_graph_end(m->ctx, &g);
            if (bad) {
                if (g) pk_graph_free(g);
                return -1;
            }
            LLAMA_TRY(st, "graph recording");
            s->graph = g;
        }
        LLAMA_TRY(pk_graph_launch(s->graph), "graph launch");
    } else if (llama_pass(s, n, err, errlen)) {
        return -1;
    }
    LLAMA_TRY(pk_download(s->logits, 0, logits, (size_t)m->cfg.vocab_size * sizeof(float)), "logits download");
    s->pos += n;
    return 0;
}
