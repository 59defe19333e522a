/* The forward pass of a loaded llama_model over one sequence (batch 1):
 * activations, KV cache and logits live on the device; the host only
 * hands in token ids and takes the last position's logits back. */
#ifndef LLAMA_FORWARD_H
#define LLAMA_FORWARD_H

#include <stddef.h>
#include <stdint.h>

#include "llama_model.h"

typedef struct llama_state llama_state;

/* Scratch for up to max_tokens tokens a call, and a KV cache of max_seq
 * positions per layer ([max_seq][Hkv][hd], the model's dtype). */
int llama_state_create(const llama_model *m, int64_t max_tokens, int64_t max_seq, llama_state **out, char *err,
                       size_t errlen);
void llama_state_free(llama_state *s);

/* Runs tokens[0..n) at the next n positions (a prefill when n > 1, a decode
 * step when n == 1) and writes the vocab_size f32 logits of the last one.
 * Returns 0, or -1 with err naming the op that failed. */
int llama_forward(llama_state *s, const int32_t *tokens, int64_t n, float *logits, char *err, size_t errlen);

/* Decode steps (n == 1) recorded as a graph at the second step and
 * replayed from then on (CUDA, HIP); llama_forward then fails where the
 * backend records no graphs. */
int llama_state_use_graph(llama_state *s, int on);

/* Positions consumed so far. */
int64_t llama_state_pos(const llama_state *s);

#endif
