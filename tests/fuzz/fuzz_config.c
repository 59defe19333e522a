/* libFuzzer harness: config.json and generation_config.json through their
 * in-memory entries (llama_config_parse, llama_generation_parse), the code
 * llama_config_load runs on the files. Contract: a status and, on failure,
 * a message naming the file; on success the values the engine trusts
 * without re-checking are within the bounds llama_config.h promises. A
 * violation abort()s. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llama_config.h"

static void check(const llama_config *c)
{
    if (c->hidden_size < 1 || c->intermediate_size < 1 || c->num_hidden_layers < 1 ||
        c->num_hidden_layers > LLAMA_MAX_LAYERS || c->num_attention_heads < 1 || c->num_key_value_heads < 1 ||
        c->num_attention_heads % c->num_key_value_heads != 0 || c->head_dim < 1 || c->head_dim % 2 != 0 ||
        c->vocab_size < 1 || c->max_position_embeddings < 1)
        abort();
    if (!(c->rms_norm_eps > 0) || !(c->rope.theta > 0) || c->rope.theta > 1e308 || c->sliding_window < 0)
        abort();
    if (c->n_eos < 0 || c->n_eos > LLAMA_MAX_EOS) abort();
    for (int i = 0; i < c->n_eos; i++)
        if (c->eos[i] < 0 || c->eos[i] >= c->vocab_size) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first byte picks the file; the rest is its text. generation_config.json
     * is applied over a fixed good config, as llama_config_load does. */
    if (size < 1) return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    llama_config c;
    char err[512];
    err[0] = '\0';
    if (data[0] & 1) {
        static const char base[] = "{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128,"
                                   " \"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"vocab_size\": 128,"
                                   " \"eos_token_id\": 2}";
        if (llama_config_parse(base, sizeof base - 1, "config.json", &c, err, sizeof err) != 0) abort();
        if (llama_generation_parse(text, len, "generation_config.json", &c, err, sizeof err) == 0) check(&c);
        else if (strncmp(err, "generation_config.json: ", 24) != 0) abort();
        return 0;
    }
    if (llama_config_parse(text, len, "config.json", &c, err, sizeof err) == 0) {
        check(&c);
        /* the engine asks this of every context it opens */
        llama_config_check_context(&c, c.max_position_embeddings, err, sizeof err);
    } else if (strncmp(err, "config.json: ", 13) != 0) {
        abort();
    }
    return 0;
}
