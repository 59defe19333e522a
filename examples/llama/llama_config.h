/* The model hyperparameters of a Hugging Face checkpoint of the Llama
 * family (config.json, and generation_config.json's stop tokens). Both
 * spellings transformers has used are read: 4.x (`rope_theta` and
 * `rope_scaling` at the top, `torch_dtype`) and 5.x (`rope_parameters`,
 * `dtype`). A key that would change the result and is not implemented
 * fails the load with its name and value. */
#ifndef LLAMA_CONFIG_H
#define LLAMA_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* The model_types that run: Llama's layer, and two that differ from it
 * only in what llama_config says (biases, windows, RoPE base). */
typedef enum llama_family {
    LLAMA_FAMILY_LLAMA,   /* "llama" */
    LLAMA_FAMILY_MISTRAL, /* "mistral": sliding_window on every layer */
    LLAMA_FAMILY_QWEN2,   /* "qwen2": q/k/v biases, sliding windows per layer */
} llama_family;

typedef enum llama_rope_type {
    LLAMA_ROPE_DEFAULT,
    LLAMA_ROPE_LINEAR,  /* positions divided by factor */
    LLAMA_ROPE_DYNAMIC, /* NTK-aware; the default frequencies up to max_position_embeddings */
    LLAMA_ROPE_LLAMA3,  /* Llama 3.1/3.2: long wavelengths divided by factor, a smooth band between */
    LLAMA_ROPE_YARN,
} llama_rope_type;

typedef struct llama_rope_config {
    llama_rope_type type;
    double theta;
    double factor;                            /* linear, dynamic, llama3, yarn */
    double low_freq_factor, high_freq_factor; /* llama3 */
    int64_t original_max_position_embeddings; /* llama3, yarn */
    double beta_fast, beta_slow;              /* yarn */
    double attention_factor;                  /* yarn: cos and sin are scaled by it; else 1 */
    int truncate;                             /* yarn: correction range to whole dimensions */
} llama_rope_config;

#define LLAMA_MAX_LAYERS 1024
#define LLAMA_MAX_EOS 16

typedef struct llama_config {
    llama_family family;
    int64_t hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
        vocab_size, max_position_embeddings;
    double rms_norm_eps;
    llama_rope_config rope;
    int tie_word_embeddings;
    /* which projections carry a bias (qwen2: q, k, v; llama: attention_bias, mlp_bias) */
    int bias_qkv, bias_o, bias_mlp;
    /* a sliding layer's query at position p sees keys p - sliding_window + 1 .. p */
    int64_t sliding_window; /* 0: none */
    unsigned char layer_sliding[LLAMA_MAX_LAYERS];
    int dtype;              /* pk_dtype that `dtype` or `torch_dtype` names; -1 when neither is given */
    char dtype_key[16];     /* which of the two said it, and how */
    char dtype_name[16];
    int n_eos;              /* stop tokens: generation_config.json's eos_token_id, config.json's without that file */
    int32_t eos[LLAMA_MAX_EOS];
} llama_config;

/* reads DIR/config.json, then DIR/generation_config.json if present.
 * Defaults are transformers': head_dim hidden_size / num_attention_heads,
 * num_key_value_heads num_attention_heads, tie_word_embeddings false,
 * RoPE theta 10000, rms_norm_eps 1e-6, max_position_embeddings 2048
 * (mistral 131072, qwen2 32768), mistral's sliding_window 4096. Missing
 * required keys, nonsense values and unimplemented features give an error
 * naming the key. Returns 0 on success, else writes err. */
int llama_config_load(const char *dir, llama_config *out, char *err, size_t errlen);

/* config.json's checks on text already in memory (path only names it in errors). */
int llama_config_parse(const char *text, size_t len, const char *path, llama_config *out, char *err,
                       size_t errlen);

/* generation_config.json's eos_token_id (an int or a list; absent or
 * null: none) replaces the config's stop tokens, as in transformers, where
 * the file, when there is one, is the generation settings. */
int llama_generation_parse(const char *text, size_t len, const char *path, llama_config *cfg, char *err,
                           size_t errlen);

/* The key whose value forbids running `context` positions, or 0: the llama
 * family refuses a sliding_window below the context (transformers' Llama
 * does not apply one, so a checkpoint that carries it is not what it
 * says). */
int llama_config_check_context(const llama_config *c, int64_t context, char *err, size_t errlen);

const char *llama_family_name(llama_family f);

#endif
