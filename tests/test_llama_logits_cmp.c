/* Compares two portkern-llama --dump-logits files of greedy runs: the
 * oracle's (ref) and another backend's.
 *
 * usage: test_llama_logits_cmp f32|f16|bf16 REF.bin OTHER.bin
 *
 * Per step, err = max |other - ref| / max |ref| (the conformance suite's
 * max-error measure, over one row of logits). The bound is four times the
 * conformance floor of the model's dtype (conformance/conform_compare.c:
 * 2e-6, 1e-3, 8e-3 for f32, f16, bf16): each op of the pass lands within
 * about one floor of ref, and the residual stream carries each layer's
 * rounding on, so the end-to-end error is a few floors, not one. A real bug
 * (a wrong position, mask, head mapping or row) moves logits by 0.1..1 of
 * their scale.
 *
 * Greedy tokens (each row's argmax) must agree, except where ref's top two
 * logits are closer than twice the bound: a legitimate near tie, after
 * which the two runs continue different sequences and are not compared. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "portkern.h"

typedef struct dump {
    long steps;
    long long vocab;
    float *rows;
} dump;

static int read_dump(const char *path, dump *d)
{
    FILE *f = fopen(path, "rb");
    if (!f || fscanf(f, "portkern-llama logits f32le steps=%ld vocab=%lld", &d->steps, &d->vocab) != 2 ||
        fgetc(f) != '\n' || d->steps < 1 || d->vocab < 2) {
        fprintf(stderr, "%s: not a portkern-llama logits dump\n", path);
        if (f) fclose(f);
        return -1;
    }
    size_t n = (size_t)d->steps * (size_t)d->vocab;
    d->rows = malloc(n * sizeof *d->rows);
    int bad = !d->rows || fread(d->rows, sizeof *d->rows, n, f) != n;
    fclose(f);
    if (bad) fprintf(stderr, "%s: short file\n", path);
    return bad ? -1 : 0;
}

static long long argmax(const float *r, long long n, float *second)
{
    long long best = 0;
    for (long long i = 1; i < n; i++)
        if (r[i] > r[best]) best = i;
    *second = -INFINITY;
    for (long long i = 0; i < n; i++)
        if (i != best && r[i] > *second) *second = r[i];
    return best;
}

int main(int argc, char **argv)
{
    pk_dtype dt;
    if (argc != 4 || (strcmp(argv[1], "f32") && strcmp(argv[1], "f16") && strcmp(argv[1], "bf16"))) {
        fprintf(stderr, "usage: test_llama_logits_cmp f32|f16|bf16 REF.bin OTHER.bin\n");
        return 2;
    }
    dt = !strcmp(argv[1], "f32") ? PK_F32 : !strcmp(argv[1], "f16") ? PK_F16 : PK_BF16;
    dump ref = {0}, got = {0};
    if (read_dump(argv[2], &ref) || read_dump(argv[3], &got)) return 1;
    if (ref.steps != got.steps || ref.vocab != got.vocab) {
        fprintf(stderr, "dumps differ in shape: %ld x %lld vs %ld x %lld\n", ref.steps, ref.vocab, got.steps,
                got.vocab);
        return 1;
    }
    const double bound = 4 * cf_floor_err(dt);
    int fail = 0;
    for (long s = 0; s < ref.steps && !fail; s++) {
        const float *r = ref.rows + s * ref.vocab, *g = got.rows + s * ref.vocab;
        double scale = 1e-30, err = 0;
        for (long long i = 0; i < ref.vocab; i++) {
            scale = fmax(scale, fabs(r[i]));
            err = fmax(err, isfinite(g[i]) ? fabs((double)g[i] - r[i]) : INFINITY);
        }
        err /= scale;
        float r2, g2;
        long long tr = argmax(r, ref.vocab, &r2), tg = argmax(g, ref.vocab, &g2);
        const double margin = (r[tr] - r2) / scale;
        printf("step %ld: token %lld/%lld err %.3g (bound %.3g) margin %.3g\n", s, tr, tg, err, bound, margin);
        if (err > bound) {
            printf("FAIL: step %ld logits off by %.3g of their scale\n", s, err);
            fail = 1;
        } else if (tr != tg) {
            if (margin > 2 * bound) {
                printf("FAIL: step %ld picks token %lld, ref %lld (margin %.3g)\n", s, tg, tr, margin);
                fail = 1;
            } else {
                printf("near tie at step %ld: the sequences part, later steps not compared\n", s);
                break;
            }
        }
    }
    free(ref.rows);
    free(got.rows);
    return fail;
}
