/* llama_sample: greedy ties and NaN, and seeded draws that stay inside the
 * top-p nucleus and repeat for the same seed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "llama_sample.h"

#define EXPECT(cond)                                                   \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                  \
        }                                                              \
    } while (0)

/* the greedy rule, one column at a time: the first of the largest non-NaN
 * values; 0 when all are NaN */
static int32_t greedy_by_scan(const float *x, int n)
{
    int32_t best = -1;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i]) && (best < 0 || x[i] > x[best])) best = i;
    return best < 0 ? 0 : best;
}

/* the nucleus by a full sort: ids ordered most likely first (ties by id),
 * as many as first reach top_p of the mass; marks them in `in` */
static const float *by_logit;
static int cmp_desc(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    if (by_logit[x] != by_logit[y]) return by_logit[x] > by_logit[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static void nucleus_by_sort(const float *l, int n, double t, double top_p, char *in)
{
    int *ids = malloc((size_t)n * sizeof *ids);
    double sum = 0, mass = 0, mx = -INFINITY;
    for (int i = 0; i < n; i++) ids[i] = i, mx = l[i] > mx ? l[i] : mx;
    for (int i = 0; i < n; i++) sum += exp((l[i] - mx) / t);
    by_logit = l;
    qsort(ids, (size_t)n, sizeof *ids, cmp_desc);
    for (int i = 0; i < n; i++) in[i] = 0;
    for (int k = 0; k < n && (k == 0 || mass < top_p * sum); k++) {
        in[ids[k]] = 1;
        mass += exp((l[ids[k]] - mx) / t);
    }
    free(ids);
}

int main(void)
{
    /* a 1000-token row with many ties: every draw lands in the nucleus
     * that a full sort finds, and the likeliest token is drawn */
    {
        enum { N = 1000 };
        static float l[N];
        static char in[N];
        uint32_t g = 99;
        for (int i = 0; i < N; i++) {
            g = g * 1664525u + 1013904223u;
            l[i] = (float)((g >> 24) % 40) * 0.25f;
        }
        nucleus_by_sort(l, N, 0.7, 0.6, in);
        llama_sampler t = {0.7f, 0.6f, 5};
        int hits_top = 0;
        for (int i = 0; i < 500; i++) {
            const int32_t x = llama_sample(&t, l, N);
            EXPECT(x >= 0 && x < N && in[x]);
            hits_top += x == llama_sample_greedy(l, N);
        }
        EXPECT(hits_top > 0);
    }

    /* lengths around the 8-lane blocks, ties across lanes and with the
     * tail, NaN and infinities anywhere, values from a small set so that
     * ties are common */
    uint32_t rng = 12345;
    for (int trial = 0; trial < 4000; trial++) {
        float x[40];
        const int n = 1 + trial % 40;
        for (int i = 0; i < n; i++) {
            rng = rng * 1664525u + 1013904223u;
            const unsigned r = rng >> 24;
            x[i] = r < 20 ? NAN : r < 30 ? -INFINITY : r < 34 ? INFINITY : (float)(r % 7) - 3.0f;
        }
        if (trial % 97 == 0)
            for (int i = 0; i < n; i++) x[i] = trial % 2 ? NAN : -INFINITY;
        EXPECT(llama_sample_greedy(x, n) == greedy_by_scan(x, n));
    }

    const float tie[] = {1, 3, 2, 3};
    EXPECT(llama_sample_greedy(tie, 4) == 1);
    const float nan_first[] = {NAN, -5, -1, NAN};
    EXPECT(llama_sample_greedy(nan_first, 4) == 2);

    llama_sampler greedy = {0.0f, 0.5f, 7};
    EXPECT(llama_sample(&greedy, tie, 4) == 1);

    /* probabilities ~ 0.64, 0.24, 0.09, 0.03: top_p 0.8 keeps ids 0 and 1 */
    const float l[] = {3, 2, 1, 0};
    llama_sampler a = {1.0f, 0.8f, 42}, b = {1.0f, 0.8f, 42};
    int seen[4] = {0};
    for (int i = 0; i < 2000; i++) {
        int32_t x = llama_sample(&a, l, 4);
        EXPECT(x == llama_sample(&b, l, 4));
        EXPECT(x >= 0 && x < 4);
        seen[x]++;
    }
    EXPECT(seen[2] == 0 && seen[3] == 0);
    EXPECT(seen[0] > 1300 && seen[0] < 1700); /* 0.64 / 0.88 of the nucleus: ~1450 */

    llama_sampler all = {1.0f, 1.0f, 3};
    int tail = 0;
    for (int i = 0; i < 2000; i++) tail += llama_sample(&all, l, 4) == 3;
    EXPECT(tail > 20 && tail < 110); /* ~64 */
    printf("ok\n");
    return 0;
}
