/* config.json -> llama_config. Every key the forward pass depends on is
 * checked here, so that a bad or unsupported checkpoint fails at load with
 * the key's name rather than as wrong logits later. */
#include "llama_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama_json.h"
#include "portkern.h"

typedef struct config_ctx {
    const llama_json *root;
    const char *path;
    char *err;
    size_t errlen;
} config_ctx;

/* A member of obj and its name for messages: "factor" inside
 * "rope_parameters" reads "rope_parameters.factor". */
typedef struct config_key {
    const llama_json *obj;
    const char *prefix; /* NULL at the top */
    const char *key;
} config_key;

static const char *key_name(const config_key *k, char *buf, size_t n)
{
    if (k->prefix) snprintf(buf, n, "%s.%s", k->prefix, k->key);
    else snprintf(buf, n, "%s", k->key);
    return buf;
}

/* HF writes null for "use the default" (head_dim on some models), so null
 * counts as absent. */
static const llama_json *config_get(const config_key *k)
{
    const llama_json *v = llama_json_get(k->obj, k->key);
    return v && v->type != LLAMA_JSON_NULL ? v : NULL;
}

static config_key top(const config_ctx *c, const char *key)
{
    return (config_key){c->root, NULL, key};
}

static int config_fail(const config_ctx *c, const config_key *k, const char *fmt, const char *what)
{
    char name[96];
    char msg[256];
    snprintf(msg, sizeof msg, fmt, what);
    snprintf(c->err, c->errlen, "%s: %s: %s", c->path, key_name(k, name, sizeof name), msg);
    return -1;
}

/* A JSON string equal to want, embedded NULs included. */
static int str_is(const llama_json *v, const char *want)
{
    return v && v->type == LLAMA_JSON_STRING && v->length == strlen(want) && memcmp(v->string, want, v->length) == 0;
}

/* The value as text for messages: strings quoted, numbers as written. */
static const char *json_text(const llama_json *v, char *buf, size_t n)
{
    if (v->type == LLAMA_JSON_STRING) snprintf(buf, n, "\"%.*s\"", (int)strnlen(v->string, 64), v->string);
    else if (v->type == LLAMA_JSON_NUMBER && v->is_int) snprintf(buf, n, "%lld", (long long)v->integer);
    else if (v->type == LLAMA_JSON_NUMBER) snprintf(buf, n, "%.17g", v->number);
    else if (v->type == LLAMA_JSON_BOOL) snprintf(buf, n, "%s", v->boolean ? "true" : "false");
    else snprintf(buf, n, "%s", llama_json_type_name(v->type));
    return buf;
}

/* An integer in [min, max], min 0 or 1. */
static int config_int_in(const config_ctx *c, const config_key *k, int required, int64_t dflt, int64_t min,
                         int64_t max, int64_t *out)
{
    const llama_json *v = config_get(k);
    if (!v) {
        if (required) return config_fail(c, k, "%s", "missing (required)");
        *out = dflt;
        return 0;
    }
    char text[96];
    /* an integer past int64 is still an integer: "expected an integer,
     * found 9.2233720368547758e+18" sent readers looking for a fraction */
    if (v->type == LLAMA_JSON_NUMBER && v->integral && !v->is_int)
        return config_fail(c, k, "out of range: an integer %s", v->number > 0 ? "above 2^63 - 1" : "below -2^63");
    if (v->type != LLAMA_JSON_NUMBER || !v->is_int)
        return config_fail(c, k, "expected an integer, found %s",
                           v->type == LLAMA_JSON_NUMBER ? json_text(v, text, sizeof text)
                                                        : llama_json_type_name(v->type));
    if (v->integer < min)
        return config_fail(c, k, min ? "must be positive, found %s" : "must not be negative, found %s",
                           json_text(v, text, sizeof text));
    if (v->integer > max) {
        char msg[96];
        snprintf(msg, sizeof msg, "%lld is past the largest this engine takes, %lld", (long long)v->integer,
                 (long long)max);
        return config_fail(c, k, "%s", msg);
    }
    *out = v->integer;
    return 0;
}

static int config_int(const config_ctx *c, const config_key *k, int required, int64_t dflt, int64_t max,
                      int64_t *out)
{
    return config_int_in(c, k, required, dflt, 1, max, out);
}

/* A finite number > 0. */
static int config_real(const config_ctx *c, const config_key *k, int required, double dflt, double *out)
{
    const llama_json *v = config_get(k);
    if (!v) {
        if (required) return config_fail(c, k, "%s", "missing (required)");
        *out = dflt;
        return 0;
    }
    char text[96];
    if (v->type != LLAMA_JSON_NUMBER)
        return config_fail(c, k, "expected a number, found %s", llama_json_type_name(v->type));
    if (!(v->number > 0) || !isfinite(v->number))
        return config_fail(c, k, "must be finite and positive, found %s", json_text(v, text, sizeof text));
    *out = v->number;
    return 0;
}

static int config_bool(const config_ctx *c, const config_key *k, int dflt, int *out)
{
    const llama_json *v = config_get(k);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (v->type != LLAMA_JSON_BOOL)
        return config_fail(c, k, "expected true or false, found %s", llama_json_type_name(v->type));
    *out = v->boolean;
    return 0;
}

/* ---------------------------------------------------------------- family and features */

static const struct {
    const char *name;
    llama_family family;
    int64_t max_position_embeddings;
} families[] = {
    {"llama", LLAMA_FAMILY_LLAMA, 2048},
    {"mistral", LLAMA_FAMILY_MISTRAL, 131072},
    {"qwen2", LLAMA_FAMILY_QWEN2, 32768},
};

const char *llama_family_name(llama_family f)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i].family == f) return families[i].name;
    return "?";
}

static int config_family(const config_ctx *c, llama_config *o, int64_t *max_pos_default)
{
    const config_key k = top(c, "model_type");
    const llama_json *v = config_get(&k);
    if (!v) return config_fail(c, &k, "%s", "missing (required: llama, mistral or qwen2)");
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (str_is(v, families[i].name)) {
            o->family = families[i].family;
            *max_pos_default = families[i].max_position_embeddings;
            return 0;
        }
    char text[96];
    return config_fail(c, &k, "%s is not supported (llama, mistral and qwen2 run)", json_text(v, text, sizeof text));
}

/* Keys whose presence alone changes the math and that nothing here implements. */
static int config_unsupported(const config_ctx *c)
{
    char text[96];
    config_key k = top(c, "hidden_act");
    const llama_json *v = config_get(&k);
    if (v && !str_is(v, "silu") && !str_is(v, "swish"))
        return config_fail(c, &k, "%s is not supported (silu only)", json_text(v, text, sizeof text));
    /* (pretraining_tp, read by 4.x, slices the same products: only rounding differs) */
    k = top(c, "quantization_config");
    if (config_get(&k)) return config_fail(c, &k, "%s", "quantized checkpoints are not supported");
    return 0;
}

static int config_biases(const config_ctx *c, llama_config *o)
{
    if (o->family == LLAMA_FAMILY_QWEN2) {
        o->bias_qkv = 1; /* transformers' Qwen2 always has them, whatever attention_bias says */
        return 0;
    }
    if (o->family != LLAMA_FAMILY_LLAMA) return 0; /* Mistral has none and reads no such key */
    int attn, mlp;
    config_key ka = top(c, "attention_bias"), km = top(c, "mlp_bias");
    if (config_bool(c, &ka, 0, &attn) || config_bool(c, &km, 0, &mlp)) return -1;
    o->bias_qkv = o->bias_o = attn;
    o->bias_mlp = mlp;
    return 0;
}

/* ---------------------------------------------------------------- RoPE */

static const struct {
    const char *name;
    llama_rope_type type;
} rope_types[] = {
    {"default", LLAMA_ROPE_DEFAULT}, {"linear", LLAMA_ROPE_LINEAR}, {"dynamic", LLAMA_ROPE_DYNAMIC},
    {"llama3", LLAMA_ROPE_LLAMA3},   {"yarn", LLAMA_ROPE_YARN},
};

static double yarn_mscale(double scale, double m)
{
    return scale <= 1 ? 1.0 : 0.1 * m * log(scale) + 1.0;
}

/* original_max_position_embeddings: transformers 5 lets a top-level key
 * override the dictionary's, 4 reads the dictionary's; where both are
 * given they must agree, so that either version computes the same. */
static int rope_original_max(const config_ctx *c, const config_key *in_dict, const llama_config *o, int64_t *out)
{
    const config_key at_top = top(c, "original_max_position_embeddings");
    int64_t a = 0, b = 0;
    if (config_int(c, in_dict, 0, 0, INT32_MAX, &a) || config_int(c, &at_top, 0, 0, INT32_MAX, &b)) return -1;
    if (a && b && a != b) {
        char msg[128];
        snprintf(msg, sizeof msg, "%lld disagrees with the top-level original_max_position_embeddings %lld",
                 (long long)a, (long long)b);
        return config_fail(c, in_dict, "%s", msg);
    }
    *out = a ? a : b ? b : o->max_position_embeddings;
    return 0;
}

static int rope_yarn(const config_ctx *c, const llama_json *d, const char *dn, llama_config *o)
{
    llama_rope_config *r = &o->rope;
    const config_key kf = {d, dn, "factor"}, kom = {d, dn, "original_max_position_embeddings"},
                     kaf = {d, dn, "attention_factor"}, kbf = {d, dn, "beta_fast"}, kbs = {d, dn, "beta_slow"},
                     km = {d, dn, "mscale"}, kma = {d, dn, "mscale_all_dim"}, kt = {d, dn, "truncate"};
    double mscale = 0, mscale_all = 0;
    if (rope_original_max(c, &kom, o, &r->original_max_position_embeddings) ||
        config_real(c, &kf, 0, (double)o->max_position_embeddings / (double)r->original_max_position_embeddings,
                    &r->factor) ||
        config_real(c, &kbf, 0, 32.0, &r->beta_fast) || config_real(c, &kbs, 0, 1.0, &r->beta_slow) ||
        config_real(c, &km, 0, 0.0, &mscale) || config_real(c, &kma, 0, 0.0, &mscale_all) ||
        config_bool(c, &kt, 1, &r->truncate))
        return -1;
    double dflt = mscale > 0 && mscale_all > 0 ? yarn_mscale(r->factor, mscale) / yarn_mscale(r->factor, mscale_all)
                                                : yarn_mscale(r->factor, 1.0);
    return config_real(c, &kaf, 0, dflt, &r->attention_factor);
}

static int rope_params(const config_ctx *c, const llama_json *d, const char *dn, llama_config *o)
{
    llama_rope_config *r = &o->rope;
    const config_key kf = {d, dn, "factor"}, klo = {d, dn, "low_freq_factor"}, khi = {d, dn, "high_freq_factor"},
                     kom = {d, dn, "original_max_position_embeddings"}, kp = {d, dn, "partial_rotary_factor"};
    double partial = 1.0;
    if (config_real(c, &kp, 0, 1.0, &partial)) return -1;
    if (partial != 1.0) {
        char text[64];
        snprintf(text, sizeof text, "%g", partial);
        return config_fail(c, &kp, "%s: the llama family rotates the whole head (1.0 only)", text);
    }
    switch (r->type) {
    case LLAMA_ROPE_DEFAULT: return 0;
    case LLAMA_ROPE_LINEAR:
    case LLAMA_ROPE_DYNAMIC: return config_real(c, &kf, 1, 0, &r->factor);
    case LLAMA_ROPE_LLAMA3:
        if (config_real(c, &kf, 1, 0, &r->factor) || config_real(c, &klo, 1, 0, &r->low_freq_factor) ||
            config_real(c, &khi, 1, 0, &r->high_freq_factor) ||
            rope_original_max(c, &kom, o, &r->original_max_position_embeddings))
            return -1;
        if (!(r->high_freq_factor > r->low_freq_factor))
            return config_fail(c, &khi, "%s", "must be above low_freq_factor");
        return 0;
    case LLAMA_ROPE_YARN: return rope_yarn(c, d, dn, o);
    }
    return 0;
}

/* 4.x: rope_theta at the top, rope_scaling (null or a dictionary with
 * "rope_type", or the older "type"); 5.x: rope_parameters holding both. */
static int config_rope(const config_ctx *c, llama_config *o)
{
    const config_key ks = top(c, "rope_scaling"), kp = top(c, "rope_parameters"), kt = top(c, "rope_theta");
    const llama_json *scaling = config_get(&ks), *params = config_get(&kp);
    if (scaling && params)
        return config_fail(c, &ks, "%s", "given beside rope_parameters: one of the two, please");
    const llama_json *d = params ? params : scaling;
    const char *dn = params ? "rope_parameters" : "rope_scaling";
    if (d && d->type != LLAMA_JSON_OBJECT) {
        const config_key kd = top(c, dn);
        return config_fail(c, &kd, "expected an object, found %s", llama_json_type_name(d->type));
    }
    o->rope = (llama_rope_config){.type = LLAMA_ROPE_DEFAULT, .attention_factor = 1.0};
    if (config_real(c, &kt, 0, 10000.0, &o->rope.theta)) return -1;
    if (!d) return 0;
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].type == LLAMA_JSON_OBJECT) {
            const config_key kn = {d, dn, d->items[i].key};
            return config_fail(c, &kn, "%s", "RoPE per layer type is not supported");
        }
    const config_key kdt = {d, dn, "rope_theta"}, krt = {d, dn, "rope_type"}, kty = {d, dn, "type"};
    if (config_real(c, &kdt, 0, o->rope.theta, &o->rope.theta)) return -1;
    const config_key *tk = config_get(&krt) ? &krt : &kty;
    const llama_json *tv = config_get(tk);
    if (tv) {
        size_t i = 0;
        while (i < sizeof rope_types / sizeof rope_types[0] && !str_is(tv, rope_types[i].name)) i++;
        if (i == sizeof rope_types / sizeof rope_types[0]) {
            char text[96];
            return config_fail(c, tk, "%s is not supported (default, linear, dynamic, llama3, yarn)",
                               json_text(tv, text, sizeof text));
        }
        o->rope.type = rope_types[i].type;
    }
    return rope_params(c, d, dn, o);
}

/* ---------------------------------------------------------------- windows, dtype, stop tokens */

static int config_windows(const config_ctx *c, llama_config *o)
{
    const config_key kw = top(c, "sliding_window"), ku = top(c, "use_sliding_window"),
                     kmw = top(c, "max_window_layers"), klt = top(c, "layer_types");
    int64_t window = 0;
    if (config_int(c, &kw, 0, o->family == LLAMA_FAMILY_MISTRAL ? 4096 : 0, INT32_MAX, &window)) return -1;
    /* mistral's default is 4096 only when the key is absent; null means none */
    const llama_json *raw = llama_json_get(c->root, "sliding_window");
    if (raw && raw->type == LLAMA_JSON_NULL) window = 0;
    if (o->family == LLAMA_FAMILY_LLAMA) {
        o->sliding_window = window; /* refused by llama_config_check_context where it bites */
        return 0;
    }
    if (o->family == LLAMA_FAMILY_MISTRAL) {
        o->sliding_window = window;
        memset(o->layer_sliding, window > 0, sizeof o->layer_sliding);
        return 0;
    }
    /* qwen2: the window exists only with use_sliding_window; which layers
     * slide is layer_types' (5.x), else layers from max_window_layers on */
    int use = 0;
    int64_t first = 28;
    if (config_bool(c, &ku, 0, &use) || config_int_in(c, &kmw, 0, 28, 0, INT32_MAX, &first)) return -1;
    o->sliding_window = use ? window : 0;
    const llama_json *types = config_get(&klt);
    if (types) {
        if (types->type != LLAMA_JSON_ARRAY || (int64_t)types->count != o->num_hidden_layers) {
            char msg[96];
            snprintf(msg, sizeof msg, "expected a list of num_hidden_layers = %lld entries",
                     (long long)o->num_hidden_layers);
            return config_fail(c, &klt, "%s", msg);
        }
        for (size_t i = 0; i < types->count; i++) {
            const llama_json *t = &types->items[i];
            if (!str_is(t, "full_attention") && !str_is(t, "sliding_attention")) {
                char text[96];
                return config_fail(c, &klt, "%s is not supported (full_attention, sliding_attention)",
                                   json_text(t, text, sizeof text));
            }
            o->layer_sliding[i] = str_is(t, "sliding_attention") && o->sliding_window > 0;
            if (str_is(t, "sliding_attention") && o->sliding_window == 0 && use)
                return config_fail(c, &kw, "%s", "null, but layer_types has sliding_attention layers");
        }
        return 0;
    }
    for (int64_t i = 0; i < o->num_hidden_layers; i++) o->layer_sliding[i] = o->sliding_window > 0 && i >= first;
    return 0;
}

static int config_dtype(const config_ctx *c, llama_config *o)
{
    static const struct {
        const char *name;
        pk_dtype dtype;
    } names[] = {{"float32", PK_F32}, {"float16", PK_F16}, {"bfloat16", PK_BF16}};
    static const char *const keys[] = {"dtype", "torch_dtype"};
    o->dtype = -1;
    for (size_t k = 0; k < 2; k++) {
        const config_key key = top(c, keys[k]);
        const llama_json *v = config_get(&key);
        if (!v) continue;
        size_t i = 0;
        while (i < 3 && !str_is(v, names[i].name)) i++;
        char text[96];
        if (i == 3)
            return config_fail(c, &key, "%s is not supported (float32, float16, bfloat16)",
                               json_text(v, text, sizeof text));
        if (o->dtype >= 0 && o->dtype != (int)names[i].dtype) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s disagrees with dtype", json_text(v, text, sizeof text));
            return config_fail(c, &key, "%s", msg);
        }
        if (o->dtype < 0) {
            snprintf(o->dtype_key, sizeof o->dtype_key, "%s", keys[k]);
            snprintf(o->dtype_name, sizeof o->dtype_name, "%s", names[i].name);
        }
        o->dtype = (int)names[i].dtype;
    }
    return 0;
}

/* eos_token_id: an id or a list of ids, each within the vocabulary; o's
 * stop tokens change only when all of them are good. */
static int config_eos(const config_ctx *c, llama_config *o)
{
    int32_t eos[LLAMA_MAX_EOS];
    const config_key k = top(c, "eos_token_id");
    const llama_json *v = config_get(&k);
    if (!v) return 0;
    const llama_json *items = v->type == LLAMA_JSON_ARRAY ? v->items : v;
    size_t n = v->type == LLAMA_JSON_ARRAY ? v->count : 1;
    if (n > LLAMA_MAX_EOS) return config_fail(c, &k, "%s", "more ids than this engine keeps (16)");
    for (size_t i = 0; i < n; i++) {
        const llama_json *e = &items[i];
        if (e->type != LLAMA_JSON_NUMBER || !e->is_int || e->integer < 0 || e->integer >= o->vocab_size) {
            char text[96];
            return config_fail(c, &k, "%s is not a token id of the vocabulary", json_text(e, text, sizeof text));
        }
        eos[i] = (int32_t)e->integer;
    }
    memcpy(o->eos, eos, n * sizeof *eos);
    o->n_eos = (int)n;
    return 0;
}

/* ---------------------------------------------------------------- the whole file */

static int config_shape(const config_ctx *c, llama_config *o, int64_t max_pos_default)
{
    const config_key kh = top(c, "hidden_size"), ki = top(c, "intermediate_size"), kl = top(c, "num_hidden_layers"),
                     ka = top(c, "num_attention_heads"), kv = top(c, "vocab_size"), kk = top(c, "num_key_value_heads"),
                     km = top(c, "max_position_embeddings"), ke = top(c, "rms_norm_eps"), kd = top(c, "head_dim");
    const int64_t big = (int64_t)1 << 31;
    if (config_int(c, &kh, 1, 0, big, &o->hidden_size) || config_int(c, &ki, 1, 0, big, &o->intermediate_size) ||
        config_int(c, &kl, 1, 0, LLAMA_MAX_LAYERS, &o->num_hidden_layers) ||
        config_int(c, &ka, 1, 0, 65536, &o->num_attention_heads) || config_int(c, &kv, 1, 0, big, &o->vocab_size) ||
        config_int(c, &kk, 0, o->num_attention_heads, 65536, &o->num_key_value_heads) ||
        config_int(c, &km, 0, max_pos_default, INT32_MAX, &o->max_position_embeddings) ||
        config_real(c, &ke, 0, 1e-6, &o->rms_norm_eps))
        return -1;
    if (!config_get(&kd) && o->hidden_size % o->num_attention_heads != 0) {
        snprintf(c->err, c->errlen,
                 "%s: num_attention_heads: %lld does not divide hidden_size %lld (and head_dim is not given)",
                 c->path, (long long)o->num_attention_heads, (long long)o->hidden_size);
        return -1;
    }
    if (config_int(c, &kd, 0, o->hidden_size / o->num_attention_heads, 4096, &o->head_dim)) return -1;
    if (o->num_attention_heads % o->num_key_value_heads != 0) {
        snprintf(c->err, c->errlen, "%s: num_key_value_heads: %lld does not divide num_attention_heads %lld",
                 c->path, (long long)o->num_key_value_heads, (long long)o->num_attention_heads);
        return -1;
    }
    /* RoPE rotates pairs of dimensions */
    if (o->head_dim % 2 != 0) {
        snprintf(c->err, c->errlen, "%s: head_dim: must be even, found %lld", c->path, (long long)o->head_dim);
        return -1;
    }
    return 0;
}

static int config_read(const config_ctx *c, llama_config *o)
{
    if (c->root->type != LLAMA_JSON_OBJECT) {
        snprintf(c->err, c->errlen, "%s: expected an object at the top, found %s", c->path,
                 llama_json_type_name(c->root->type));
        return -1;
    }
    int64_t max_pos_default = 2048;
    const config_key kt = top(c, "tie_word_embeddings");
    if (config_family(c, o, &max_pos_default) || config_shape(c, o, max_pos_default) || config_rope(c, o) ||
        config_unsupported(c) || config_biases(c, o) || config_windows(c, o) || config_dtype(c, o) ||
        config_eos(c, o) || config_bool(c, &kt, 0, &o->tie_word_embeddings))
        return -1;
    return 0;
}

/* Takes root (possibly NULL after a failed parse) and frees it. */
static int config_from_json(llama_json *root, const char *path, llama_config *out, char *err, size_t errlen)
{
    if (!root) return -1;
    config_ctx c = {root, path, err, errlen};
    llama_config *o = calloc(1, sizeof *o);
    int rc = -1;
    if (!o) snprintf(err, errlen, "%s: out of host memory", path);
    else rc = config_read(&c, o);
    llama_json_free(root);
    if (rc == 0) *out = *o;
    free(o);
    return rc;
}

/* The tree of text, or NULL with err naming path. */
static llama_json *parse_text(const char *text, size_t len, const char *path, char *err, size_t errlen)
{
    char msg[256];
    llama_json *root = llama_json_parse(text, len, msg, sizeof msg);
    if (!root) snprintf(err, errlen, "%s: %s", path, msg);
    return root;
}

int llama_config_parse(const char *text, size_t len, const char *path, llama_config *out, char *err,
                       size_t errlen)
{
    return config_from_json(parse_text(text, len, path, err, errlen), path, out, err, errlen);
}

static int generation_from_json(llama_json *root, const char *path, llama_config *cfg, char *err, size_t errlen)
{
    if (!root) return -1;
    int rc = 0;
    if (root->type != LLAMA_JSON_OBJECT) {
        snprintf(err, errlen, "%s: expected an object at the top, found %s", path, llama_json_type_name(root->type));
        rc = -1;
    } else {
        /* as in transformers, the file's eos_token_id (none, when it has
         * none) replaces config.json's */
        config_ctx c = {root, path, err, errlen};
        const config_key k = top(&c, "eos_token_id");
        if (config_get(&k)) rc = config_eos(&c, cfg);
        else cfg->n_eos = 0;
    }
    llama_json_free(root);
    return rc;
}

int llama_generation_parse(const char *text, size_t len, const char *path, llama_config *cfg, char *err,
                           size_t errlen)
{
    return generation_from_json(parse_text(text, len, path, err, errlen), path, cfg, err, errlen);
}

int llama_config_load(const char *dir, llama_config *out, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (config_from_json(llama_json_load(path, err, errlen), path, out, err, errlen)) return -1;
    snprintf(path, sizeof path, "%s/generation_config.json", dir);
    FILE *f = fopen(path, "rb");
    if (!f) return 0; /* optional */
    fclose(f);
    return generation_from_json(llama_json_load(path, err, errlen), path, out, err, errlen);
}

int llama_config_check_context(const llama_config *c, int64_t context, char *err, size_t errlen)
{
    if (c->family == LLAMA_FAMILY_LLAMA && c->sliding_window > 0 && c->sliding_window < context) {
        snprintf(err, errlen,
                 "config.json: sliding_window: %lld is below the context in use (%lld positions), and the llama "
                 "model_type has no sliding window (mistral and qwen2 do)",
                 (long long)c->sliding_window, (long long)context);
        return -1;
    }
    return 0;
}
