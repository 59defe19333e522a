/* Picking the next token from f32 logits, on the host. */
#ifndef LLAMA_SAMPLE_H
#define LLAMA_SAMPLE_H

#include <stdint.h>

typedef struct llama_sampler {
    float temperature; /* <= 0: greedy */
    float top_p;       /* (0, 1]: nucleus size; 1 keeps every token */
    uint64_t rng;      /* splitmix64 state: the seed, then advanced by every draw */
} llama_sampler;

/* The index of the largest logit; the lowest index wins ties and NaN never
 * wins (all NaN gives 0). */
int32_t llama_sample_greedy(const float *logits, int64_t n);

/* Greedy when temperature <= 0, else a draw from softmax(logits / T)
 * restricted to the smallest set of most likely tokens whose mass reaches
 * top_p. Returns -1 only when out of host memory. */
int32_t llama_sample(llama_sampler *s, const float *logits, int64_t n);

#endif
