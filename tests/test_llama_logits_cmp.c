/* Compares two portkern-llama --dump-logits files of greedy runs: the
 * oracle's (ref) and another backend's.
 *
 * usage: test_llama_logits_cmp f32|f16|bf16 REF.bin OTHER.bin
 *        test_llama_logits_cmp --hf f32|f16|bf16 F64.bin SAME.bin OURS.bin
 *
 * The second form checks a teacher-forced run against transformers' own
 * logits of the same sequence (tests/hf_fixtures): F64.bin from its model
 * in float64, SAME.bin from its model in the checkpoint's dtype. The rule is
 * the conformance suite's: per step, ours must be within twice
 * transformers' same-precision error of float64, plus the floor below.
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
    double *rows;
} dump;

/* A header line "<kind> logits f32le|f64le steps=S vocab=V", then S x V
 * little-endian values (this test runs on little-endian hosts). */
static int read_rows(const char *path, const char *kind, dump *d)
{
    FILE *f = fopen(path, "rb");
    char fmt[64], word[8] = "";
    snprintf(fmt, sizeof fmt, "%s logits %%7s steps=%%ld vocab=%%lld", kind);
    if (!f || fscanf(f, fmt, word, &d->steps, &d->vocab) != 3 || fgetc(f) != '\n' || d->steps < 1 ||
        d->vocab < 2 || (strcmp(word, "f32le") && strcmp(word, "f64le"))) {
        fprintf(stderr, "%s: not a %s logits file\n", path, kind);
        if (f) fclose(f);
        return -1;
    }
    const int f64 = !strcmp(word, "f64le");
    size_t n = (size_t)d->steps * (size_t)d->vocab, got = 0;
    d->rows = malloc(n * sizeof *d->rows);
    for (; d->rows && got < n; got++) {
        float x;
        if (f64 ? fread(&d->rows[got], 8, 1, f) != 1 : fread(&x, 4, 1, f) != 1) break;
        if (!f64) d->rows[got] = x;
    }
    fclose(f);
    if (got != n) fprintf(stderr, "%s: short file\n", path);
    return got == n ? 0 : -1;
}

static int read_dump(const char *path, dump *d)
{
    return read_rows(path, "portkern-llama", d);
}

static long long argmax(const double *r, long long n, double *second)
{
    long long best = 0;
    for (long long i = 1; i < n; i++)
        if (r[i] > r[best]) best = i;
    *second = -INFINITY;
    for (long long i = 0; i < n; i++)
        if (i != best && r[i] > *second) *second = r[i];
    return best;
}

static int parse_dtype(const char *s, pk_dtype *dt)
{
    if (strcmp(s, "f32") && strcmp(s, "f16") && strcmp(s, "bf16")) return -1;
    *dt = !strcmp(s, "f32") ? PK_F32 : !strcmp(s, "f16") ? PK_F16 : PK_BF16;
    return 0;
}

/* max |x - ref| / max |ref| over one row (*scale: max |ref|); inf when x is not finite */
static double row_err(const double *ref, const double *x, long long n, double *scale)
{
    double m = 1e-30, err = 0;
    for (long long i = 0; i < n; i++) {
        m = fmax(m, fabs(ref[i]));
        err = fmax(err, isfinite(x[i]) ? fabs(x[i] - ref[i]) : INFINITY);
    }
    if (scale) *scale = m;
    return err / m;
}

static int compare_hf(pk_dtype dt, const char *f64_path, const char *same_path, const char *ours_path)
{
    dump ref = {0}, same = {0}, got = {0};
    int fail = read_rows(f64_path, "hf", &ref) || read_rows(same_path, "hf", &same) || read_dump(ours_path, &got);
    if (!fail && (ref.steps != got.steps || ref.vocab != got.vocab || same.steps != ref.steps ||
                  same.vocab != ref.vocab)) {
        fprintf(stderr, "shapes differ: f64 %ld x %lld, same %ld x %lld, ours %ld x %lld\n", ref.steps, ref.vocab,
                same.steps, same.vocab, got.steps, got.vocab);
        fail = 1;
    }
    const double floor = 4 * cf_floor_err(dt);
    double worst = 0;
    for (long s = 0; !fail && s < ref.steps; s++) {
        const double *r = ref.rows + s * ref.vocab;
        const double err = row_err(r, got.rows + s * ref.vocab, ref.vocab, NULL),
                     hf = row_err(r, same.rows + s * ref.vocab, ref.vocab, NULL), bound = 2 * hf + floor;
        double r2, g2;
        const long long tr = argmax(r, ref.vocab, &r2), tg = argmax(got.rows + s * ref.vocab, ref.vocab, &g2);
        printf("step %ld: token %lld/%lld err %.3g (transformers' own %.3g, bound %.3g)\n", s, tr, tg, err, hf,
               bound);
        worst = fmax(worst, err / bound);
        if (!(err <= bound)) {
            printf("FAIL: step %ld logits off by %.3g of their scale\n", s, err);
            fail = 1;
        }
    }
    if (!fail) printf("worst step at %.2f of its bound\n", worst);
    free(ref.rows);
    free(same.rows);
    free(got.rows);
    return fail;
}

int main(int argc, char **argv)
{
    pk_dtype dt;
    if (argc == 6 && !strcmp(argv[1], "--hf") && !parse_dtype(argv[2], &dt))
        return compare_hf(dt, argv[3], argv[4], argv[5]);
    if (argc != 4 || parse_dtype(argv[1], &dt)) {
        fprintf(stderr, "usage: test_llama_logits_cmp f32|f16|bf16 REF.bin OTHER.bin\n"
                        "       test_llama_logits_cmp --hf f32|f16|bf16 F64.bin SAME.bin OURS.bin\n");
        return 2;
    }
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
        const double *r = ref.rows + s * ref.vocab, *g = got.rows + s * ref.vocab;
        double scale, r2, g2;
        const double err = row_err(r, g, ref.vocab, &scale);
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
