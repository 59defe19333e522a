/* llama_sample: greedy ties and NaN, and seeded draws that stay inside the
 * top-p nucleus and repeat for the same seed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

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

int main(void)
{
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
