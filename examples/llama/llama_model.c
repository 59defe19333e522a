/* Loading a checkpoint onto the device: shape checks by name, then one
 * buffer per tensor, except the projections that read the same input,
 * which are stacked row-wise into one buffer so that each pair is one GEMM
 * (K with V, gate with up: half the launches of a decode step's small
 * GEMMs, and wider ones). */
#include "llama_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The tensor `name` of exactly this shape, uploaded. */
static int llama_take(llama_model *m, const llama_weights *w, const char *name, int ndim, int64_t d0, int64_t d1,
                      pk_tensor *out, char *err, size_t errlen)
{
    const int64_t shape[2] = {d0, d1};
    const llama_tensor *t = llama_weights_expect(w, name, ndim, shape, err, errlen);
    return t ? llama_upload(m, t, out, err, errlen) : -1;
}

/* Layer i's [d0, d1] weights `first` and `second` stacked as one [2 d0, d1]
 * tensor: first's rows, then second's. */
static int llama_take_pair(llama_model *m, const llama_weights *w, int64_t i, const char *first,
                           const char *second, int64_t d0, int64_t d1, pk_tensor *out, char *err, size_t errlen)
{
    const int64_t shape[2] = {d0, d1};
    const char *parts[2] = {first, second};
    const size_t bytes = (size_t)(d0 * d1) * pk_dtype_size(m->dtype);
    pk_buffer *buf = NULL;
    for (int p = 0; p < 2; p++) {
        char name[128];
        snprintf(name, sizeof name, "model.layers.%lld.%s.weight", (long long)i, parts[p]);
        const llama_tensor *t = llama_weights_expect(w, name, 2, shape, err, errlen);
        if (!t || (!buf && llama_new_buffer(m, 2 * bytes, name, &buf, err, errlen)) ||
            llama_upload_at(m, t, buf, (size_t)p * bytes, err, errlen))
            return -1;
    }
    *out = pk_tensor_make(buf, 0, m->dtype, 2, (int64_t[]){2 * d0, d1});
    return 0;
}

static int llama_take_layer(llama_model *m, const llama_weights *w, int64_t i, char *err, size_t errlen)
{
    const llama_config *c = &m->cfg;
    const int64_t h = c->hidden_size, q = c->num_attention_heads * c->head_dim,
                  kv = c->num_key_value_heads * c->head_dim, ff = c->intermediate_size;
    llama_layer *l = &m->layers[i];
    const struct {
        const char *name;
        int ndim;
        int64_t d0, d1;
        pk_tensor *out;
    } parts[] = {
        {"input_layernorm", 1, h, 0, &l->attn_norm}, {"post_attention_layernorm", 1, h, 0, &l->ffn_norm},
        {"self_attn.q_proj", 2, q, h, &l->wq},       {"self_attn.o_proj", 2, h, q, &l->wo},
        {"mlp.down_proj", 2, h, ff, &l->w_down},
    };
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        char name[128];
        snprintf(name, sizeof name, "model.layers.%lld.%s.weight", (long long)i, parts[p].name);
        if (llama_take(m, w, name, parts[p].ndim, parts[p].d0, parts[p].d1, parts[p].out, err, errlen)) return -1;
    }
    return llama_take_pair(m, w, i, "self_attn.k_proj", "self_attn.v_proj", kv, h, &l->wkv, err, errlen) ||
                   llama_take_pair(m, w, i, "mlp.gate_proj", "mlp.up_proj", ff, h, &l->w_gate_up, err, errlen)
               ? -1
               : 0;
}

static int llama_take_all(llama_model *m, const llama_weights *w, char *err, size_t errlen)
{
    const llama_config *c = &m->cfg;
    const llama_tensor *emb = llama_weights_find(w, "model.embed_tokens.weight");
    if (emb) m->dtype = emb->dtype; /* else llama_take below names it missing */
    if (llama_take(m, w, "model.embed_tokens.weight", 2, c->vocab_size, c->hidden_size, &m->embed, err, errlen))
        return -1;
    for (int64_t i = 0; i < c->num_hidden_layers; i++)
        if (llama_take_layer(m, w, i, err, errlen)) return -1;
    if (llama_take(m, w, "model.norm.weight", 1, c->hidden_size, 0, &m->final_norm, err, errlen)) return -1;
    if (c->tie_word_embeddings) {
        m->lm_head = m->embed;
        return 0;
    }
    return llama_take(m, w, "lm_head.weight", 2, c->vocab_size, c->hidden_size, &m->lm_head, err, errlen);
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
    out->bufs = calloc((size_t)(9 * n_layers + 3), sizeof *out->bufs);
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
