/* config.json -> llama_config. Every key the forward pass depends on is
 * checked here, so that a bad checkpoint fails at load with the key's name
 * rather than as wrong logits later. */
#include "llama_config.h"

#include <stdio.h>
#include <string.h>

#include "llama_json.h"

typedef struct config_ctx {
    const llama_json *root;
    const char *path;
    char *err;
    size_t errlen;
} config_ctx;

/* HF writes null for "use the default" (head_dim on some models), so null
 * counts as absent. */
static const llama_json *config_get(const config_ctx *c, const char *key)
{
    const llama_json *v = llama_json_get(c->root, key);
    return v && v->type != LLAMA_JSON_NULL ? v : NULL;
}

static int config_int(const config_ctx *c, const char *key, int required, int64_t dflt, int64_t *out)
{
    const llama_json *v = config_get(c, key);
    if (!v) {
        if (required) {
            snprintf(c->err, c->errlen, "%s: %s: missing (required)", c->path, key);
            return -1;
        }
        *out = dflt;
        return 0;
    }
    if (v->type != LLAMA_JSON_NUMBER || !v->is_int) {
        snprintf(c->err, c->errlen, "%s: %s: expected an integer, found %s", c->path, key,
                 v->type == LLAMA_JSON_NUMBER ? "a fraction" : llama_json_type_name(v->type));
        return -1;
    }
    if (v->integer <= 0) {
        snprintf(c->err, c->errlen, "%s: %s: must be positive, found %lld", c->path, key, (long long)v->integer);
        return -1;
    }
    *out = v->integer;
    return 0;
}

static int config_real(const config_ctx *c, const char *key, double dflt, double *out)
{
    const llama_json *v = config_get(c, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (v->type != LLAMA_JSON_NUMBER) {
        snprintf(c->err, c->errlen, "%s: %s: expected a number, found %s", c->path, key,
                 llama_json_type_name(v->type));
        return -1;
    }
    if (!(v->number > 0)) {
        snprintf(c->err, c->errlen, "%s: %s: must be positive, found %g", c->path, key, v->number);
        return -1;
    }
    *out = v->number;
    return 0;
}

/* Features this engine does not implement: refusing them beats computing
 * different logits from what transformers would. */
static int config_unsupported(const config_ctx *c)
{
    const llama_json *v = config_get(c, "hidden_act");
    if (v && (v->type != LLAMA_JSON_STRING || strcmp(v->string, "silu") != 0)) {
        snprintf(c->err, c->errlen, "%s: hidden_act: only \"silu\" is supported", c->path);
        return -1;
    }
    if (config_get(c, "rope_scaling")) {
        snprintf(c->err, c->errlen, "%s: rope_scaling: not supported (must be null or absent)", c->path);
        return -1;
    }
    static const char *const biases[] = {"attention_bias", "mlp_bias"};
    for (size_t i = 0; i < sizeof biases / sizeof biases[0]; i++) {
        v = config_get(c, biases[i]);
        if (v && (v->type != LLAMA_JSON_BOOL || v->boolean)) {
            snprintf(c->err, c->errlen, "%s: %s: only false is supported", c->path, biases[i]);
            return -1;
        }
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
    if (config_int(c, "hidden_size", 1, 0, &o->hidden_size) ||
        config_int(c, "intermediate_size", 1, 0, &o->intermediate_size) ||
        config_int(c, "num_hidden_layers", 1, 0, &o->num_hidden_layers) ||
        config_int(c, "num_attention_heads", 1, 0, &o->num_attention_heads) ||
        config_int(c, "vocab_size", 1, 0, &o->vocab_size) ||
        config_int(c, "num_key_value_heads", 0, o->num_attention_heads, &o->num_key_value_heads) ||
        config_int(c, "max_position_embeddings", 0, 2048, &o->max_position_embeddings) ||
        config_real(c, "rms_norm_eps", 1e-6, &o->rms_norm_eps) ||
        config_real(c, "rope_theta", 10000.0, &o->rope_theta) || config_unsupported(c))
        return -1;
    if (!config_get(c, "head_dim") && o->hidden_size % o->num_attention_heads != 0) {
        snprintf(c->err, c->errlen,
                 "%s: num_attention_heads: %lld does not divide hidden_size %lld (and head_dim is not given)",
                 c->path, (long long)o->num_attention_heads, (long long)o->hidden_size);
        return -1;
    }
    if (config_int(c, "head_dim", 0, o->hidden_size / o->num_attention_heads, &o->head_dim))
        return -1;
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
    const llama_json *tie = config_get(c, "tie_word_embeddings");
    if (tie && tie->type != LLAMA_JSON_BOOL) {
        snprintf(c->err, c->errlen, "%s: tie_word_embeddings: expected true or false, found %s", c->path,
                 llama_json_type_name(tie->type));
        return -1;
    }
    o->tie_word_embeddings = tie ? tie->boolean : 0;
    return 0;
}

/* Takes root (possibly NULL after a failed parse) and frees it. */
static int config_from_json(llama_json *root, const char *path, llama_config *out, char *err, size_t errlen)
{
    if (!root)
        return -1;
    config_ctx c = {root, path, err, errlen};
    llama_config o;
    memset(&o, 0, sizeof o);
    int rc = config_read(&c, &o);
    llama_json_free(root);
    if (rc == 0)
        *out = o;
    return rc;
}

int llama_config_parse(const char *text, size_t len, const char *path, llama_config *out, char *err,
                       size_t errlen)
{
    char msg[256];
    llama_json *root = llama_json_parse(text, len, msg, sizeof msg);
    if (!root)
        snprintf(err, errlen, "%s: %s", path, msg);
    return config_from_json(root, path, out, err, errlen);
}

int llama_config_load(const char *dir, llama_config *out, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    return config_from_json(llama_json_load(path, err, errlen), path, out, err, errlen);
}
