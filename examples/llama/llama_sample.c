/* Sampling: the one piece of model arithmetic that runs on the host, since
 * it needs a sort and a random draw over a single row. */
#include "llama_sample.h"

#include <math.h>
#include <stdlib.h>

/* The largest non-NaN logit, lowest index first; 0 when all are NaN. Eight
 * lanes keep their own maximum and its first index: one running maximum is
 * a chain of dependent compares, markedly slower over a Llama-3
 * vocabulary, and sampling is most of the host's part of a decode step
 * (bench/RESULTS.md, 2026-11-29 19:50, and "Figures moved out of code
 * comments"). */
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

/* Most likely first; equal probabilities by lower id: a total order, so the
 * nucleus and the draw are the same whatever the selection method. */
static int llama_cand_before(const llama_cand *x, const llama_cand *y)
{
    return x->p > y->p || (x->p == y->p && x->id < y->id);
}

static void llama_sift_down(llama_cand *h, int64_t n, int64_t i)
{
    for (;;) {
        const int64_t l = 2 * i + 1;
        int64_t b = i;
        if (l < n && llama_cand_before(&h[l], &h[b])) b = l;
        if (l + 1 < n && llama_cand_before(&h[l + 1], &h[b])) b = l + 1;
        if (b == i) return;
        const llama_cand t = h[i];
        h[i] = h[b];
        h[b] = t;
        i = b;
    }
}

/* A draw of u * mass over c[0..k) in that order; the last when rounding
 * leaves u * mass at or past the end. */
static int32_t llama_draw(const llama_cand *c, int64_t k, int64_t step, double r)
{
    double acc = 0;
    for (int64_t i = 0; i < k; i++) {
        acc += c[i * step].p;
        if (r < acc) return c[i * step].id;
    }
    return c[(k - 1) * step].id;
}

/* The nucleus comes off a max-heap most likely first, only as far as it
 * reaches top_p: sorting all 128256 candidates of a Llama-3 vocabulary
 * was slow (bench/RESULTS.md, "Figures moved out of code comments").
 * Without a top_p cut the draw runs over every token in id order. */
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
    int32_t pick;
    if (!(s->top_p > 0 && s->top_p < 1)) {
        pick = llama_draw(c, n, 1, llama_uniform(&s->rng) * sum);
    } else {
        const double keep = s->top_p * sum;
        for (int64_t i = n / 2; i-- > 0;) llama_sift_down(c, n, i);
        /* each pop moves the heap's best to the end: the nucleus is
         * c[n-1], c[n-2], ..., most likely first */
        int64_t k = 0;
        double mass = 0;
        while (k < n && (k == 0 || mass < keep)) {
            const llama_cand best = c[0];
            c[0] = c[n - 1 - k];
            c[n - 1 - k] = best;
            k++;
            llama_sift_down(c, n - k, 0);
            mass += best.p;
        }
        pick = llama_draw(c + n - 1, k, -1, llama_uniform(&s->rng) * mass);
    }
    free(c);
    return pick;
}
