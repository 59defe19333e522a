/* Sampling: the one piece of model arithmetic that runs on the host, since
 * it needs a sort and a random draw over a single row. */
#include "llama_sample.h"

#include <math.h>
#include <stdlib.h>

/* The largest non-NaN logit, lowest index first; 0 when all are NaN. Eight
 * lanes keep their own maximum and its first index: one running maximum is
 * a chain of dependent compares (128256 columns: 116 us against 50 on the
 * 2-core build machine; on the H200 machine the host's part of a decode
 * step, sampling most of it, was 0.26 ms of 5.3). */
int32_t llama_sample_greedy(const float *logits, int64_t n)
{
    float top[8];
    int64_t at[8];
    for (int j = 0; j < 8; j++) top[j] = -INFINITY, at[j] = -1;
    for (int64_t i = 0; i < n; i += 8)
        for (int j = 0; j < 8 && i + j < n; j++) {
            const float v = logits[i + j];
            if (v > top[j]) { /* NaN compares false: skipped */
                top[j] = v;
                at[j] = i + j;
            }
        }
    int best = -1;
    for (int j = 0; j < 8; j++)
        if (at[j] >= 0 && (best < 0 || top[j] > top[best] || (top[j] == top[best] && at[j] < at[best]))) best = j;
    if (best >= 0) return (int32_t)at[best];
    for (int64_t i = 0; i < n; i++) /* nothing above -inf: the first that is not NaN */
        if (logits[i] == logits[i]) return (int32_t)i;
    return 0;
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
