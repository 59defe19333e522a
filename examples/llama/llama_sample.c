/* Sampling: the one piece of model arithmetic that runs on the host, since
 * it needs a sort and a random draw over a single row. */
#include "llama_sample.h"

#include <math.h>
#include <stdlib.h>

int32_t llama_sample_greedy(const float *logits, int64_t n)
{
    int32_t best = 0;
    for (int64_t i = 1; i < n; i++)
        if (logits[i] > logits[best] || (isnan(logits[best]) && !isnan(logits[i]))) best = (int32_t)i;
    return best;
}

/* splitmix64: tiny, seedable with any value, and the same stream everywhere. */
static double llama_uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

typedef struct llama_cand {
    double p;
    int32_t id;
} llama_cand;

/* Most likely first; equal probabilities by lower id, so the order (and the
 * draw) does not depend on qsort's instability. */
static int llama_cand_cmp(const void *a, const void *b)
{
    const llama_cand *x = a, *y = b;
    if (x->p != y->p) return x->p > y->p ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

int32_t llama_sample(llama_sampler *s, const float *logits, int64_t n)
{
    if (s->temperature <= 0) return llama_sample_greedy(logits, n);
    const int32_t top = llama_sample_greedy(logits, n);
    llama_cand *c = malloc((size_t)n * sizeof *c);
    if (!c) return -1;
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
        double p = isnan(logits[i]) ? 0 : exp(((double)logits[i] - logits[top]) / s->temperature);
        c[i] = (llama_cand){p, (int32_t)i};
        sum += p;
    }
    qsort(c, (size_t)n, sizeof *c, llama_cand_cmp);
    const double keep = (s->top_p > 0 && s->top_p < 1 ? s->top_p : 1.0) * sum;
    int64_t k = 0;
    double mass = 0;
    while (k < n && (k == 0 || mass < keep)) mass += c[k++].p;
    const double r = llama_uniform(&s->rng) * mass;
    double acc = 0;
    int32_t pick = c[k - 1].id;
    for (int64_t i = 0; i < k; i++) {
        acc += c[i].p;
        if (r < acc) {
            pick = c[i].id;
            break;
        }
    }
    free(c);
    return pick;
}
