/* Loading a checkpoint onto the device: shape checks by name, then one
 * buffer per tensor, except the projections that read the same input,
 * which are stacked row-wise into one buffer so that each pair is one GEMM
 * (K with V, gate with up: half the launches of a decode step's small
 * GEMMs, and wider ones). */
#include "llama_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama_rope.h"
#include "llama_safetensors.h"

static float llama_load_elem(pk_dtype dt, const void *p, size_t i)
{
    if (dt == PK_F32) {
        float f;
        memcpy(&f, (const char *)p + 4 * i, 4);
        return f;
    }
    uint16_t h;
    memcpy(&h, (const char *)p + 2 * i, 2);
    return dt == PK_F16 ? pk_f16_to_f32(h) : pk_bf16_to_f32(h);
}

static void llama_store_elem(pk_dtype dt, void *p, size_t i, float f)
{
    if (dt == PK_F32) {
        memcpy((char *)p + 4 * i, &f, 4);
        return;
    }
    uint16_t h = dt == PK_F16 ? pk_f32_to_f16(f) : pk_f32_to_bf16(f);
    memcpy((char *)p + 2 * i, &h, 2);
}

static int llama_pk_fail(const llama_model *m, pk_status s, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s: %s", what, pk_status_string(s), pk_last_error(m->ctx));
    return -1;
}

static size_t llama_numel(const llama_tensor *t)
{
    size_t n = 1;
    for (int d = 0; d < t->ndim; d++) n *= (size_t)t->shape[d];
    return n;
}

/* A new buffer of `bytes` owned by m. */
static int llama_new_buffer(llama_model *m, size_t bytes, const char *what, pk_buffer **out, char *err,
                            size_t errlen)
{
    pk_status s = pk_alloc(m->ctx, bytes, out);
    if (s != PK_SUCCESS) return llama_pk_fail(m, s, what, err, errlen);
    m->bufs[m->n_bufs++] = *out;
    return 0;
}

/* Uploads t as m->dtype into buf at byte offset. */
static int llama_upload_at(llama_model *m, const llama_tensor *t, pk_buffer *buf, size_t offset, char *err,
                           size_t errlen)
{
    if (m->cfg.dtype >= 0 && t->dtype != (pk_dtype)m->cfg.dtype) {
        snprintf(err, errlen, "config.json: %s: \"%s\" disagrees with %s, stored as %s", m->cfg.dtype_key,
                 m->cfg.dtype_name, t->name, pk_dtype_name(t->dtype));
        return -1;
    }
    size_t n = llama_numel(t);
    size_t bytes = n * pk_dtype_size(m->dtype);
    const void *src = t->data;
    void *conv = NULL;
    if (t->dtype != m->dtype) {
        conv = malloc(bytes);
        if (!conv) {
            snprintf(err, errlen, "%s: out of host memory converting to %s", t->name, pk_dtype_name(m->dtype));
            return -1;
        }
        for (size_t i = 0; i < n; i++) llama_store_elem(m->dtype, conv, i, llama_load_elem(t->dtype, t->data, i));
        src = conv;
    }
    pk_status s = pk_upload(buf, offset, src, bytes);
    free(conv);
    return s == PK_SUCCESS ? 0 : llama_pk_fail(m, s, t->name, err, errlen);
}

/* Uploads t as m->dtype into a new buffer owned by m. */
static int llama_upload(llama_model *m, const llama_tensor *t, pk_tensor *out, char *err, size_t errlen)
{
    pk_buffer *buf = NULL;
    if (llama_new_buffer(m, llama_numel(t) * pk_dtype_size(m->dtype), t->name, &buf, err, errlen) ||
        llama_upload_at(m, t, buf, 0, err, errlen))
        return -1;
    *out = pk_tensor_make(buf, 0, m->dtype, t->ndim, t->shape);
    return 0;
}

/* The tensor `name` of exactly this shape ([d0] when d1 is 0), uploaded. */
static int llama_take(llama_model *m, const llama_weights *w, const char *name, int64_t d0, int64_t d1,
                      pk_tensor *out, char *err, size_t errlen)
{
    const int64_t shape[2] = {d0, d1};
    const llama_tensor *t = llama_weights_expect(w, name, d1 ? 2 : 1, shape, err, errlen);
    return t ? llama_upload(m, t, out, err, errlen) : -1;
}

/* "model.layers.I.PART.KIND" */
static void llama_layer_name(char *buf, size_t n, int64_t i, const char *part, const char *kind)
{
    snprintf(buf, n, "model.layers.%lld.%s.%s", (long long)i, part, kind);
}

/* Layer i's [d0, d1] tensors `first` and `second` (KIND "weight" or, with
 * d1 = 0, [d0] "bias") stacked as one: first's rows, then second's. */
static int llama_take_pair(llama_model *m, const llama_weights *w, int64_t i, const char *first,
                           const char *second, const char *kind, int64_t d0, int64_t d1, pk_tensor *out,
                           char *err, size_t errlen)
{
    const int64_t shape[2] = {d0, d1};
    const char *parts[2] = {first, second};
    const size_t bytes = (size_t)(d0 * (d1 ? d1 : 1)) * pk_dtype_size(m->dtype);
    pk_buffer *buf = NULL;
    for (int p = 0; p < 2; p++) {
        char name[128];
        llama_layer_name(name, sizeof name, i, parts[p], kind);
        const llama_tensor *t = llama_weights_expect(w, name, d1 ? 2 : 1, shape, err, errlen);
        if (!t || (!buf && llama_new_buffer(m, 2 * bytes, name, &buf, err, errlen)) ||
            llama_upload_at(m, t, buf, (size_t)p * bytes, err, errlen))
            return -1;
    }
    *out = d1 ? pk_tensor_make(buf, 0, m->dtype, 2, (int64_t[]){2 * d0, d1})
              : pk_tensor_make(buf, 0, m->dtype, 1, (int64_t[]){2 * d0});
    return 0;
}

static int llama_take_layer(llama_model *m, const llama_weights *w, int64_t i, char *err, size_t errlen)
{
    const llama_config *c = &m->cfg;
    const int64_t h = c->hidden_size, q = c->num_attention_heads * c->head_dim,
                  kv = c->num_key_value_heads * c->head_dim, ff = c->intermediate_size;
    llama_layer *l = &m->layers[i];
    const struct {
        const char *part, *kind;
        int64_t d0, d1;
        pk_tensor *out;
        int present;
    } parts[] = {
        {"input_layernorm", "weight", h, 0, &l->attn_norm, 1},
        {"post_attention_layernorm", "weight", h, 0, &l->ffn_norm, 1},
        {"self_attn.q_proj", "weight", q, h, &l->wq, 1},
        {"self_attn.o_proj", "weight", h, q, &l->wo, 1},
        {"mlp.down_proj", "weight", h, ff, &l->w_down, 1},
        {"self_attn.q_proj", "bias", q, 0, &l->b_q, c->bias_qkv},
        {"self_attn.o_proj", "bias", h, 0, &l->b_o, c->bias_o},
        {"mlp.down_proj", "bias", h, 0, &l->b_down, c->bias_mlp},
    };
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        char name[128];
        llama_layer_name(name, sizeof name, i, parts[p].part, parts[p].kind);
        if (parts[p].present && llama_take(m, w, name, parts[p].d0, parts[p].d1, parts[p].out, err, errlen))
            return -1;
    }
    if (llama_take_pair(m, w, i, "self_attn.k_proj", "self_attn.v_proj", "weight", kv, h, &l->wkv, err, errlen) ||
        llama_take_pair(m, w, i, "mlp.gate_proj", "mlp.up_proj", "weight", ff, h, &l->w_gate_up, err, errlen))
        return -1;
    if (c->bias_qkv &&
        llama_take_pair(m, w, i, "self_attn.k_proj", "self_attn.v_proj", "bias", kv, 0, &l->b_kv, err, errlen))
        return -1;
    if (c->bias_mlp &&
        llama_take_pair(m, w, i, "mlp.gate_proj", "mlp.up_proj", "bias", ff, 0, &l->b_gate_up, err, errlen))
        return -1;
    return 0;
}

/* head_dim and tie_word_embeddings against the files, named as keys: a
 * shape error on q_proj alone would not say which number is wrong. */
static int llama_check_files(const llama_model *m, const llama_weights *w, char *err, size_t errlen)
{
    const llama_config *c = &m->cfg;
    const llama_tensor *q = llama_weights_find(w, "model.layers.0.self_attn.q_proj.weight");
    if (q && q->ndim == 2 && q->shape[0] != c->num_attention_heads * c->head_dim) {
        snprintf(err, errlen,
                 "config.json: head_dim: %lld x num_attention_heads %lld = %lld rows, but "
                 "model.layers.0.self_attn.q_proj.weight has %lld",
                 (long long)c->head_dim, (long long)c->num_attention_heads,
                 (long long)(c->head_dim * c->num_attention_heads), (long long)q->shape[0]);
        return -1;
    }
    const int has_head = llama_weights_find(w, "lm_head.weight") != NULL;
    if (c->tie_word_embeddings && has_head) {
        snprintf(err, errlen, "config.json: tie_word_embeddings: true, but the checkpoint has its own lm_head.weight");
        return -1;
    }
    if (!c->tie_word_embeddings && !has_head) {
        snprintf(err, errlen, "config.json: tie_word_embeddings: false (or absent), but lm_head.weight is missing");
        return -1;
    }
    return 0;
}

static int llama_take_rope(llama_model *m, char *err, size_t errlen)
{
    const int64_t half = m->cfg.head_dim / 2;
    float *f = malloc((size_t)half * sizeof *f);
    pk_buffer *buf = NULL;
    if (!f) {
        snprintf(err, errlen, "out of host memory for the RoPE table");
        return -1;
    }
    llama_rope_inv_freq(&m->cfg, f, &m->qk_scale);
    int rc = llama_new_buffer(m, (size_t)half * sizeof *f, "RoPE frequencies", &buf, err, errlen);
    if (rc == 0) {
        pk_status s = pk_upload(buf, 0, f, (size_t)half * sizeof *f);
        rc = s == PK_SUCCESS ? 0 : llama_pk_fail(m, s, "RoPE frequencies", err, errlen);
        m->inv_freq = pk_tensor_make(buf, 0, PK_F32, 1, (int64_t[]){half});
    }
    free(f);
    return rc;
}

static int llama_take_all(llama_model *m, const llama_weights *w, char *err, size_t errlen)
{
    const llama_config *c = &m->cfg;
    const llama_tensor *emb = llama_weights_find(w, "model.embed_tokens.weight");
    if (c->dtype >= 0) m->dtype = (pk_dtype)c->dtype;
    else if (emb) m->dtype = emb->dtype; /* else llama_take below names it missing */
    if (llama_check_files(m, w, err, errlen) || llama_take_rope(m, err, errlen) ||
        llama_take(m, w, "model.embed_tokens.weight", c->vocab_size, c->hidden_size, &m->embed, err, errlen))
        return -1;
    for (int64_t i = 0; i < c->num_hidden_layers; i++)
        if (llama_take_layer(m, w, i, err, errlen)) return -1;
    if (llama_take(m, w, "model.norm.weight", c->hidden_size, 0, &m->final_norm, err, errlen)) return -1;
    if (c->tie_word_embeddings) {
        m->lm_head = m->embed;
        return 0;
    }
    return llama_take(m, w, "lm_head.weight", c->vocab_size, c->hidden_size, &m->lm_head, err, errlen);
}

int llama_model_load(pk_context *ctx, const char *dir, llama_model *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->ctx = ctx;
    if (llama_config_load(dir, &out->cfg, err, errlen)) return -1;
    llama_weights *w = NULL;
    if (llama_weights_open(dir, &w, err, errlen)) return -1;
    const int64_t n_layers = out->cfg.num_hidden_layers;
    out->layers = calloc((size_t)n_layers, sizeof *out->layers);
    out->bufs = calloc((size_t)(14 * n_layers + 4), sizeof *out->bufs);
    int rc = -1;
    if (!out->layers || !out->bufs)
        snprintf(err, errlen, "out of host memory for %lld layers", (long long)n_layers);
    else
        rc = llama_take_all(out, w, err, errlen);
    llama_weights_close(w);
    if (rc) llama_model_free(out);
    return rc;
}

void llama_model_free(llama_model *m)
{
    for (size_t i = 0; i < m->n_bufs; i++) pk_free(m->bufs[i]);
    free(m->bufs);
    free(m->layers);
    memset(m, 0, sizeof *m);
}
