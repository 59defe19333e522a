/* The model hyperparameters of a Hugging Face Llama checkpoint (config.json). */
#ifndef LLAMA_CONFIG_H
#define LLAMA_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef struct llama_config {
    int64_t hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
        vocab_size, max_position_embeddings;
    double rms_norm_eps, rope_theta;
    int tie_word_embeddings;
} llama_config;

/* reads DIR/config.json; head_dim defaults to hidden_size / num_attention_heads, num_key_value_heads to
 * num_attention_heads, tie_word_embeddings to 0, rope_theta to 10000, rms_norm_eps to 1e-6,
 * max_position_embeddings to 2048; missing required keys or nonsense values (0, negative, heads not dividing)
 * give an error naming the key. Returns 0 on success, else writes err. */
int llama_config_load(const char *dir, llama_config *out, char *err, size_t errlen);

/* The same checks on text already in memory (path only names it in errors). */
int llama_config_parse(const char *text, size_t len, const char *path, llama_config *out, char *err,
                       size_t errlen);

#endif
