/* RoPE frequencies of a checkpoint: the per-pair inverse frequencies that
 * its rope type gives, computed once at load in double and handed to
 * pk_rope as a table. */
#ifndef LLAMA_ROPE_H
#define LLAMA_ROPE_H

#include "llama_config.h"

/* inv_freq[i] for i < head_dim / 2, as transformers' rope init functions
 * define them; *qk_scale is what the scores gain from cos and sin being
 * scaled (YaRN's attention factor, squared: q and k are both rotated),
 * 1 for every other type. */
void llama_rope_inv_freq(const llama_config *c, float *inv_freq, double *qk_scale);

#endif
