/* portkern-llama: greedy or sampled generation from token ids with a
 * Llama-family safetensors checkpoint, every layer on portkern.
 *
 * Generation stops after max-new tokens, or after a stop token
 * (generation_config.json's eos_token_id, else config.json's), which is
 * printed; --ignore-eos goes on to max-new. --force-ids feeds the given
 * ids after the prompt instead of the chosen ones (teacher forcing: one
 * step per id, then one more, stop tokens ignored), so that logits can be
 * compared with another implementation's on a fixed sequence.
 *
 * stdout: the generated ids on one line, then prefill and decode speed.
 * --dump-logits FILE writes one text header line
 *   "portkern-llama logits f32le steps=S vocab=V\n"
 * followed by S rows of V little-endian f32: row i holds the logits that
 * chose generated token i (row 0 comes from the prefill's last position).
 * --graph records the second decode step as a graph (CUDA, HIP) and
 * replays it for every later step; the decode line then says so.
 * Exit status: 0 done, 1 error, 2 bad usage, 3 backend or device absent. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llama_forward.h"
#include "llama_model.h"
#include "llama_sample.h"
#include "portkern.h"

typedef struct llama_args {
    const char *model, *prompt, *backend, *dump, *force;
    long max_new;
    int ignore_eos, max_new_given, graph;
    llama_sampler sampler;
} llama_args;

static void llama_usage(FILE *f)
{
    fprintf(f, "usage: portkern-llama --model DIR --prompt-ids \"1 2 3\" [--max-new 32]\n"
               "         [--backend auto|cuda|hip|opencl|ref[:INDEX]] [--temperature T] [--top-p P]\n"
               "         [--seed S] [--dump-logits FILE] [--ignore-eos] [--force-ids \"4 5 6\"] [--graph]\n"
               "Greedy unless T > 0; stops at the checkpoint's eos_token_id unless --ignore-eos.\n"
               "--force-ids feeds those ids after the prompt (teacher forcing): count + 1 steps.\n"
               "FILE: a header line \"portkern-llama logits f32le steps=S vocab=V\"\n"
               "then S rows of V little-endian f32, one per generated token.\n");
}

static int llama_parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return errno || end == s || *end;
}

static int llama_parse_args(int argc, char **argv, llama_args *a)
{
    *a = (llama_args){NULL, NULL, "auto", NULL, NULL, 32, 0, 0, 0, {0.0f, 1.0f, 0}};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            llama_usage(stdout);
            exit(0);
        }
        if (!strcmp(opt, "--ignore-eos")) {
            a->ignore_eos = 1;
            continue;
        }
        if (!strcmp(opt, "--graph")) {
            a->graph = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "portkern-llama: %s needs a value\n", opt);
            return -1;
        }
        const char *val = argv[++i];
        double num = 0;
        const int bad_num = llama_parse_num(val, &num);
        if (!strcmp(opt, "--model")) a->model = val;
        else if (!strcmp(opt, "--prompt-ids")) a->prompt = val;
        else if (!strcmp(opt, "--backend")) a->backend = val;
        else if (!strcmp(opt, "--dump-logits")) a->dump = val;
        else if (!strcmp(opt, "--force-ids")) a->force = val;
        else if (!strcmp(opt, "--max-new") && !bad_num && num >= 1 && num <= 1e6 && num == (long)num) {
            a->max_new = (long)num;
            a->max_new_given = 1;
        }
        else if (!strcmp(opt, "--temperature") && !bad_num && num >= 0) a->sampler.temperature = (float)num;
        else if (!strcmp(opt, "--top-p") && !bad_num && num > 0 && num <= 1) a->sampler.top_p = (float)num;
        else if (!strcmp(opt, "--seed") && !bad_num && num >= 0) a->sampler.rng = (uint64_t)num;
        else {
            fprintf(stderr, "portkern-llama: bad option or value: %s %s\n", opt, val);
            return -1;
        }
    }
    if (!a->model || !a->prompt) {
        fprintf(stderr, "portkern-llama: --model and --prompt-ids are required\n");
        return -1;
    }
    if (a->force && a->max_new_given) {
        fprintf(stderr, "portkern-llama: --force-ids sets the step count; leave out --max-new\n");
        return -1;
    }
    return 0;
}

/* Space- or comma-separated non-negative ids; the vocabulary check is the
 * forward pass's. */
static int llama_parse_ids(const char *s, int32_t **out, int64_t *n)
{
    size_t cap = strlen(s) / 2 + 1;
    int32_t *ids = malloc(cap * sizeof *ids);
    if (!ids) return -1;
    *n = 0;
    for (;;) {
        while (*s == ' ' || *s == ',' || *s == '\t' || *s == '\n') s++;
        if (!*s) break;
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || v < 0 || v > INT32_MAX) {
            free(ids);
            return -1;
        }
        ids[(*n)++] = (int32_t)v;
        s = end;
    }
    *out = ids;
    return *n ? 0 : (free(ids), -1);
}

static double llama_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* "opencl:1" -> backend and index; exit status 3 when it is not there. */
static int llama_open(const char *spec, pk_context **ctx)
{
    char name[32];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    int index = 0;
    pk_backend b;
    if (len >= sizeof name || (colon && sscanf(colon + 1, "%d", &index) != 1)) len = 0; /* matches no name */
    memcpy(name, spec, len);
    name[len] = '\0';
    if (index < 0 || pk_backend_from_name(name, &b) != PK_SUCCESS) {
        fprintf(stderr, "portkern-llama: unknown backend %s\n", spec);
        return 2;
    }
    pk_status s = pk_open(b, index, ctx);
    if (s != PK_SUCCESS) {
        fprintf(stderr, "portkern-llama: backend %s: %s: %s\n", spec, pk_status_string(s), pk_last_error(NULL));
        return s == PK_ERR_NO_DEVICE || s == PK_ERR_BACKEND_UNAVAILABLE ? 3 : 1;
    }
    return 0;
}

static int llama_write_dump(const char *path, const float *rows, long steps, int64_t vocab)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "portkern-llama: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "portkern-llama logits f32le steps=%ld vocab=%lld\n", steps, (long long)vocab);
    size_t n = (size_t)steps * (size_t)vocab;
    int bad = fwrite(rows, sizeof *rows, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad) fprintf(stderr, "portkern-llama: %s: write failed\n", path);
    return bad ? -1 : 0;
}

/* Prefill, then one decode step per further token. The logits rows are kept
 * for the dump (steps x vocab f32 is small next to the weights); without
 * one, every step reuses one row. Either way the rows are touched before
 * the clock starts: a fresh row a step took its page faults inside the
 * timed loop (Llama-3's 128256 f32 logits: 125 pages a step). */
static int llama_is_eos(const llama_config *c, int32_t id)
{
    for (int i = 0; i < c->n_eos; i++)
        if (c->eos[i] == id) return 1;
    return 0;
}

/* force: NULL, or max_new - 1 ids fed after the prompt in place of the chosen ones */
static int llama_generate(const llama_args *a, llama_state *st, const int32_t *prompt, int64_t n_prompt,
                          const int32_t *force, const llama_config *cfg, pk_context *ctx)
{
    char err[512];
    const int64_t vocab = cfg->vocab_size;
    const int stop_at_eos = !a->ignore_eos && !force;
    const size_t kept = a->dump ? (size_t)a->max_new : 1;
    float *rows = malloc(kept * (size_t)vocab * sizeof *rows);
    int32_t *out = malloc((size_t)a->max_new * sizeof *out);
    llama_sampler sampler = a->sampler;
    int rc = 1;
    if (!rows || !out) {
        fprintf(stderr, "portkern-llama: out of host memory for %ld steps of logits\n", a->max_new);
        goto done;
    }
    memset(rows, 0, kept * (size_t)vocab * sizeof *rows);
    pk_finish(ctx);
    double t0 = llama_now();
    if (llama_forward(st, prompt, n_prompt, rows, err, sizeof err)) goto fail;
    out[0] = llama_sample(&sampler, rows, vocab);
    if (out[0] < 0) {
        snprintf(err, sizeof err, "out of host memory sampling");
        goto fail;
    }
    pk_finish(ctx);
    double t1 = llama_now();
    long steps = 1;
    while (steps < a->max_new && !(stop_at_eos && llama_is_eos(cfg, out[steps - 1]))) {
        const long i = steps++;
        float *row = rows + (a->dump ? (size_t)i : 0) * (size_t)vocab;
        if (llama_forward(st, force ? &force[i - 1] : &out[i - 1], 1, row, err, sizeof err)) goto fail;
        out[i] = llama_sample(&sampler, row, vocab);
        if (out[i] < 0) {
            snprintf(err, sizeof err, "out of host memory sampling");
            goto fail;
        }
    }
    pk_finish(ctx);
    double t2 = llama_now();
    for (long i = 0; i < steps; i++) printf("%s%d", i ? " " : "", out[i]);
    printf("\nprefill: %lld tokens in %.3f s, %.2f tokens/s\n", (long long)n_prompt, t1 - t0,
           (double)n_prompt / (t1 - t0));
    if (steps > 1)
        printf("decode%s: %ld tokens in %.3f s, %.2f tokens/s\n", a->graph ? " (graph)" : "", steps - 1, t2 - t1,
               (double)(steps - 1) / (t2 - t1));
    rc = a->dump && llama_write_dump(a->dump, rows, steps, vocab) ? 1 : 0;
    goto done;
fail:
    fprintf(stderr, "portkern-llama: %s\n", err);
done:
    free(rows);
    free(out);
    return rc;
}

int main(int argc, char **argv)
{
    llama_args a;
    int32_t *prompt = NULL, *force = NULL;
    int64_t n_prompt = 0, n_force = 0;
    if (llama_parse_args(argc, argv, &a)) {
        llama_usage(stderr);
        return 2;
    }
    if (llama_parse_ids(a.prompt, &prompt, &n_prompt)) {
        fprintf(stderr, "portkern-llama: --prompt-ids wants non-negative integers: \"%s\"\n", a.prompt);
        return 2;
    }
    if (a.force && (llama_parse_ids(a.force, &force, &n_force) || n_force >= 1000000)) {
        fprintf(stderr, "portkern-llama: --force-ids wants non-negative integers: \"%s\"\n", a.force);
        free(prompt);
        return 2;
    }
    if (force) a.max_new = (long)n_force + 1;
    pk_context *ctx = NULL;
    int rc = llama_open(a.backend, &ctx);
    if (rc) {
        free(prompt);
        free(force);
        return rc;
    }
    pk_device_info info;
    if (pk_context_info(ctx, &info) == PK_SUCCESS)
        fprintf(stderr, "portkern-llama: %s on %s\n", pk_backend_name(info.backend), info.name);

    char err[512];
    llama_model m;
    llama_state *st = NULL;
    rc = 1;
    if (llama_model_load(ctx, a.model, &m, err, sizeof err)) {
        fprintf(stderr, "portkern-llama: %s\n", err);
    } else {
        if (llama_state_create(&m, n_prompt, n_prompt + a.max_new - 1, &st, err, sizeof err))
            fprintf(stderr, "portkern-llama: %s\n", err);
        else {
            llama_state_use_graph(st, a.graph);
            rc = llama_generate(&a, st, prompt, n_prompt, force, &m.cfg, ctx);
        }
        llama_state_free(st);
        llama_model_free(&m);
    }
    pk_close(ctx);
    free(prompt);
    free(force);
    return rc;
}
