/* One context per thread, several threads and several contexts on one
 * device at once (portkern.h, "Threads").
 *
 *   test_threads BACKEND [DEVICE [ROUNDS]]     e.g. test_threads opencl 0
 *
 * THREADS threads leave a barrier together, so that their first pk_open
 * races for the registry and the backend's loading, and their first ops
 * race to build (OpenCL) or look up (CUDA, HIP) kernels; the odd threads
 * keep two contexts on the same device and queue work on both before
 * waiting for either. Each context runs every kind of op over inputs made
 * from its own seed, and its results must equal, bit for bit, those of a
 * fresh context that runs the same seed alone afterwards (same backend,
 * same kernels: any difference is a race, not rounding). Every round opens
 * new contexts, which after the first round load the program binaries the
 * first wrote to the on-disk cache all at once; in the 2nd, 4th, ... round
 * each thread runs and closes contexts another thread opened (a context
 * may change threads when the change is synchronised). The reference comes after
 * the threads, not before, so that nothing has touched the registry when
 * they start.
 *
 * pk_last_error is checked too: each thread leaves a message of its own on
 * its thread and on each context, half of the threads then clear theirs
 * with successful calls, and every thread must find exactly its own
 * messages (or none) afterwards.
 *
 * Exit 0, 1 on a failure, 77 (skip) when the backend or device is not
 * there. */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "portkern.h"

enum { THREADS = 4, MAX_ROUNDS = 8, ERR_MAX = 600 };
enum { M = 24, N = 40, K = 64 };         /* gemm */
enum { S = 16, HQ = 4, HK = 2, D = 64 }; /* rope, attention */
enum { R = 16, C = 128 };                /* row ops, chain */

/* Every tensor of a run. All are uploaded from the seed, all are
 * downloaded at the end: in-place and output tensors alike. */
enum { T_A, T_B, T_BIAS, T_D, T_Q, T_K, T_V, T_O, T_X, T_RES, T_W, T_NORM, T_RES_OUT, T_SM, T_GATE, T_UP, T_GLU,
       T_CHAIN, T_COUNT };
/* what the ops write: each must differ from its upload in the reference */
static const int written[] = {T_D, T_Q, T_K, T_O, T_NORM, T_RES_OUT, T_SM, T_GLU, T_CHAIN};

typedef struct shape {
    int ndim;
    int64_t dim[4];
} shape;

static const shape shapes[T_COUNT] = {
    [T_A] = {2, {M, K}},         [T_B] = {2, {N, K}},         [T_BIAS] = {1, {N}},
    [T_D] = {2, {M, N}},         [T_Q] = {4, {1, S, HQ, D}},  [T_K] = {4, {1, S, HK, D}},
    [T_V] = {4, {1, S, HK, D}},  [T_O] = {4, {1, S, HQ, D}},  [T_X] = {2, {R, C}},
    [T_RES] = {2, {R, C}},       [T_W] = {1, {C}},            [T_NORM] = {2, {R, C}},
    [T_RES_OUT] = {2, {R, C}},   [T_SM] = {2, {R, C}},        [T_GATE] = {2, {R, C}},
    [T_UP] = {2, {R, C}},        [T_GLU] = {2, {R, C}},       [T_CHAIN] = {2, {R, C}},
};

static size_t numel(int t)
{
    size_t n = 1;
    for (int i = 0; i < shapes[t].ndim; i++) n *= (size_t)shapes[t].dim[i];
    return n;
}

static size_t offset_of(int t)
{
    size_t off = 0;
    for (int i = 0; i < t; i++) off += numel(i);
    return off;
}

static size_t total(void) { return offset_of(T_COUNT); }

/* Values in [-1, 1) on a 1/1024 grid from (seed, tensor, index). */
static float value(unsigned seed, int t, size_t i)
{
    uint64_t h = (uint64_t)seed * 0x9e3779b97f4a7c15ull ^ (uint64_t)t << 40 ^ i;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return (float)(int)(h % 2048) / 1024.0f - 1.0f;
}

typedef struct job {
    pk_context *ctx;
    pk_buffer *buf[T_COUNT];
    pk_tensor t[T_COUNT];
} job;

static void job_free(job *j)
{
    for (int t = 0; t < T_COUNT; t++)
        if (j->buf[t]) pk_free(j->buf[t]);
    memset(j->buf, 0, sizeof j->buf);
}

#define TRY(call)                                                                                       \
    do {                                                                                                \
        if ((call) != PK_SUCCESS) {                                                                     \
            snprintf(err, ERR_MAX, "%s: %.520s", #call, pk_last_error(j->ctx));                             \
            job_free(j);                                                                                \
            return -1;                                                                                  \
        }                                                                                               \
    } while (0)

/* Uploads seed's inputs and queues every op on ctx, without waiting. */
static int job_start(job *j, pk_context *ctx, unsigned seed, char *err)
{
    memset(j, 0, sizeof *j);
    j->ctx = ctx;
    for (int t = 0; t < T_COUNT; t++) {
        size_t n = numel(t);
        float *host = malloc(n * sizeof *host);
        if (!host) {
            snprintf(err, ERR_MAX, "out of host memory");
            job_free(j);
            return -1;
        }
        for (size_t i = 0; i < n; i++) host[i] = value(seed, t, i);
        pk_status s = pk_alloc(ctx, n * sizeof *host, &j->buf[t]);
        if (s == PK_SUCCESS) s = pk_upload(j->buf[t], 0, host, n * sizeof *host);
        free(host);
        if (s != PK_SUCCESS) {
            snprintf(err, ERR_MAX, "tensor %d: %.520s", t, pk_last_error(ctx));
            job_free(j);
            return -1;
        }
        j->t[t] = pk_tensor_make(j->buf[t], 0, PK_F32, shapes[t].ndim, shapes[t].dim);
    }
    const pk_tensor *t = j->t;
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    g.trans_b = 1;
    g.act = PK_ACT_GELU;
    g.bias = &t[T_BIAS];
    TRY(pk_gemm(ctx, &g, &t[T_A], &t[T_B], NULL, &t[T_D]));
    pk_rope_desc rd = PK_ROPE_DESC_INIT;
    TRY(pk_rope(ctx, &rd, &t[T_Q], &t[T_K]));
    pk_attention_desc ad = PK_ATTENTION_DESC_INIT;
    ad.causal = 1;
    TRY(pk_attention(ctx, &ad, &t[T_Q], &t[T_K], &t[T_V], &t[T_O]));
    pk_norm_desc nd = PK_NORM_DESC_INIT;
    nd.residual = &t[T_RES];
    nd.residual_out = &t[T_RES_OUT];
    TRY(pk_rmsnorm(ctx, &nd, &t[T_X], &t[T_W], &t[T_NORM]));
    TRY(pk_softmax(ctx, 0.5f, &t[T_X], &t[T_SM]));
    TRY(pk_glu(ctx, PK_ACT_SILU, &t[T_GATE], &t[T_UP], &t[T_GLU]));
    /* x * sigmoid(x) * w + 1, w broadcast over the rows */
    pk_tensor in[2] = {t[T_X], t[T_W]};
    pk_chain_step steps[] = {{PK_CHAIN_SIGMOID, 0, 0, 0}, {PK_CHAIN_MUL, 0, 2, 0}, {PK_CHAIN_MUL, 3, 1, 0},
                             {PK_CHAIN_ADD_IMM, 4, 0, 1.0f}};
    pk_chain_desc cd = {2, in, 4, steps};
    TRY(pk_chain(ctx, &cd, &t[T_CHAIN]));
    return 0;
}

/* Waits for the job's work and downloads every tensor into out[total()]. */
static int job_end(job *j, float *out, char *err)
{
    TRY(pk_finish(j->ctx));
    for (int t = 0; t < T_COUNT; t++) TRY(pk_download(j->buf[t], 0, out + offset_of(t), numel(t) * sizeof *out));
    job_free(j);
    return 0;
}

typedef struct worker {
    int id, nctx, rounds;
    pk_backend backend;
    int device;
    pthread_barrier_t *barriers; /* one per phase: see phase() */
    int phase;
    pk_context *opened[2];        /* this round's, until the handover */
    struct worker *peer;          /* whose contexts odd rounds run on */
    float *out[MAX_ROUNDS][2];
    pk_status open_status; /* the first pk_open's, for the skip decision */
    char fail[ERR_MAX];    /* first failure; empty if none */
} worker;

static unsigned seed_of(int thread, int c) { return 1u + (unsigned)thread * 2u + (unsigned)c; }

/* Waits for every thread. A fresh barrier each time: ThreadSanitizer
 * acquires a barrier's history after the wait returns, so a reused one
 * would also hand a late thread what the others did after it, and hide
 * their races from it. */
static void phase(worker *w) { pthread_barrier_wait(&w->barriers[w->phase++]); }

#define FAIL(...) (w->fail[0] ? (void)0 : (void)snprintf(w->fail, ERR_MAX, __VA_ARGS__))

/* Messages that name this thread (and context) on the thread and on each
 * context; after the barrier even threads clear theirs with successful
 * calls; after the next, everyone must see exactly their own. */
static void check_errors(worker *w, pk_context **ctx)
{
    char name[64], mine[ERR_MAX], mine_ctx[2][ERR_MAX] = {"", ""};
    pk_buffer *b[2] = {NULL, NULL};
    pk_backend unused;
    snprintf(name, sizeof name, "no-such-backend-%d", w->id);
    if (pk_backend_from_name(name, &unused) == PK_SUCCESS) FAIL("backend \"%.200s\" accepted", name);
    snprintf(mine, sizeof mine, "%s", pk_last_error(NULL));
    if (!strstr(mine, name))
        FAIL("thread %d: pk_last_error(NULL) is \"%.200s\" right after its failure", w->id, mine);
    for (int c = 0; c < w->nctx; c++) {
        unsigned char pattern[16] = {0};
        /* the pattern size, not 1, 2 or 4, names thread and context */
        size_t psize = 5 + (size_t)w->id * 2 + (size_t)c;
        char want[32];
        snprintf(want, sizeof want, " %zu ", psize);
        if (pk_alloc(ctx[c], 64, &b[c]) != PK_SUCCESS)
            FAIL("thread %d: pk_alloc: %.400s", w->id, pk_last_error(ctx[c]));
        else if (pk_fill(b[c], 0, 64, pattern, psize) == PK_SUCCESS)
            FAIL("pattern size %zu accepted", psize);
        snprintf(mine_ctx[c], ERR_MAX, "%s", pk_last_error(ctx[c]));
        if (!strstr(mine_ctx[c], want))
            FAIL("thread %d: context %d's error is \"%.200s\"", w->id, c, mine_ctx[c]);
    }
    phase(w);
    int clear = w->id % 2 == 0;
    if (clear) {
        int n = 0;
        if (pk_device_count(w->backend, &n) != PK_SUCCESS)
            FAIL("thread %d: pk_device_count: %.400s", w->id, pk_last_error(NULL));
        for (int c = 0; c < w->nctx; c++)
            if (pk_finish(ctx[c]) != PK_SUCCESS)
                FAIL("thread %d: pk_finish: %.400s", w->id, pk_last_error(ctx[c]));
    }
    phase(w);
    const char *now = pk_last_error(NULL);
    if (strcmp(now, clear ? "" : mine))
        FAIL("thread %d: pk_last_error(NULL) is \"%.200s\", expected \"%.200s\"", w->id, now, clear ? "" : mine);
    for (int c = 0; c < w->nctx; c++) {
        now = pk_last_error(ctx[c]);
        if (strcmp(now, clear ? "" : mine_ctx[c]))
            FAIL("thread %d: context %d's error is \"%.200s\", expected \"%.200s\"", w->id, c, now,
                 clear ? "" : mine_ctx[c]);
        if (b[c]) pk_free(b[c]);
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    char err[ERR_MAX];
    for (int r = 0; r < w->rounds; r++) {
        pk_context **ctx = w->opened;
        job jobs[2];
        int started[2] = {0, 0};
        /* every thread passes every barrier, whatever failed before */
        phase(w);
        for (int c = 0; c < w->nctx; c++) {
            pk_status s = pk_open(w->backend, w->device, &ctx[c]);
            if (r == 0 && c == 0) w->open_status = s;
            if (s != PK_SUCCESS) FAIL("thread %d round %d: pk_open: %.400s", w->id, r, pk_last_error(NULL));
        }
        if (r == 0) {
            if (ctx[0] && (w->nctx == 1 || ctx[1])) check_errors(w, ctx);
            else {
                phase(w);
                phase(w);
            }
        }
        phase(w);
        /* every second round contexts change threads, the barrier handing them over */
        if (r % 2) ctx = w->peer->opened;
        int usable = ctx[0] && (w->nctx == 1 || ctx[1]);
        for (int c = 0; usable && c < w->nctx; c++) {
            started[c] = job_start(&jobs[c], ctx[c], seed_of(w->id, c), err) == 0;
            if (!started[c]) FAIL("thread %d round %d context %d: %.400s", w->id, r, c, err);
        }
        for (int c = 0; c < w->nctx; c++)
            if (started[c] && job_end(&jobs[c], w->out[r][c], err))
                FAIL("thread %d round %d context %d: %.400s", w->id, r, c, err);
        for (int c = 0; c < w->nctx; c++)
            if (ctx[c] && pk_close(ctx[c]) != PK_SUCCESS)
                FAIL("thread %d: pk_close: %.400s", w->id, pk_last_error(NULL));
    }
    return NULL;
}

/* The cache directory the threads' builds share, fresh so that they race
 * to build and to write the same files. */
static char cache_dir[256];

static void cache_make(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(cache_dir, sizeof cache_dir, "%s/pk_threads_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(cache_dir)) setenv("PORTKERN_CACHE_DIR", cache_dir, 1);
    else cache_dir[0] = '\0';
}

static void cache_remove(void)
{
    DIR *d = cache_dir[0] ? opendir(cache_dir) : NULL;
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        char path[600];
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(cache_dir);
}

/* The single-threaded reference of seed on ctx, and a check that its ops
 * wrote every output (a run that does nothing would compare equal too). */
static int reference(pk_context *ctx, unsigned seed, float *out)
{
    char err[ERR_MAX];
    job j;
    if (job_start(&j, ctx, seed, err) || job_end(&j, out, err)) {
        fprintf(stderr, "reference seed %u: %s\n", seed, err);
        return -1;
    }
    for (size_t k = 0; k < sizeof written / sizeof written[0]; k++) {
        int t = written[k], changed = 0;
        for (size_t i = 0; i < numel(t); i++) {
            float v = out[offset_of(t) + i];
            if (v != v) {
                fprintf(stderr, "reference seed %u: NaN in tensor %d\n", seed, t);
                return -1;
            }
            changed |= v != value(seed, t, i);
        }
        if (!changed) {
            fprintf(stderr, "reference seed %u: tensor %d was not written\n", seed, t);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    pk_backend b;
    if (argc < 2 || argc > 4 || pk_backend_from_name(argv[1], &b) != PK_SUCCESS || b == PK_BACKEND_AUTO) {
        fprintf(stderr, "usage: %s ref|opencl|cuda|hip [DEVICE [ROUNDS]]\n", argv[0]);
        return 2;
    }
    int device = argc > 2 ? atoi(argv[2]) : 0, rounds = argc > 3 ? atoi(argv[3]) : 2;
    if (rounds < 1 || rounds > MAX_ROUNDS) rounds = 2;
    cache_make(); /* before any thread: setenv is not thread-safe */

    enum { PHASES = 2 * MAX_ROUNDS + 2 };
    pthread_barrier_t barriers[PHASES];
    for (int i = 0; i < PHASES; i++) pthread_barrier_init(&barriers[i], NULL, THREADS);
    worker w[THREADS];
    pthread_t tid[THREADS];
    size_t n = total();
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.id = i, .nctx = 1 + i % 2, .rounds = rounds, .backend = b, .device = device,
                        .barriers = barriers, .peer = &w[(i + 2) % THREADS]}; /* same nctx */
        for (int r = 0; r < rounds; r++)
            for (int c = 0; c < w[i].nctx; c++) w[i].out[r][c] = calloc(n, sizeof(float));
    }
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&tid[i], NULL, work, &w[i])) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    for (int i = 0; i < THREADS; i++) pthread_join(tid[i], NULL);
    for (int i = 0; i < PHASES; i++) pthread_barrier_destroy(&barriers[i]);

    int skipped = 0, failed = 0;
    for (int i = 0; i < THREADS; i++)
        skipped += w[i].open_status == PK_ERR_BACKEND_UNAVAILABLE || w[i].open_status == PK_ERR_NO_DEVICE;
    if (skipped == THREADS) {
        printf("threads on %s:%d: skipped: %s\n", argv[1], device, w[0].fail);
        cache_remove();
        return 77;
    }
    for (int i = 0; i < THREADS; i++)
        if (w[i].fail[0]) {
            fprintf(stderr, "%s\n", w[i].fail);
            failed = 1;
        }

    /* one fresh context, alone now, that builds from source rather than
     * load what the threads wrote */
    setenv("PORTKERN_CACHE_DIR", "off", 1);
    float *ref = calloc(n, sizeof *ref);
    pk_context *ctx = NULL;
    if (!failed && pk_open(b, device, &ctx) != PK_SUCCESS) {
        fprintf(stderr, "reference: pk_open: %s\n", pk_last_error(NULL));
        failed = 1;
    }
    for (int i = 0; !failed && i < THREADS; i++)
        for (int c = 0; !failed && c < w[i].nctx; c++) {
            failed = reference(ctx, seed_of(i, c), ref) != 0;
            for (int r = 0; !failed && r < rounds; r++)
                for (int t = 0; t < T_COUNT; t++)
                    if (memcmp(ref + offset_of(t), w[i].out[r][c] + offset_of(t), numel(t) * sizeof *ref)) {
                        fprintf(stderr, "thread %d round %d context %d: tensor %d differs from the reference\n",
                                i, r, c, t);
                        failed = 1;
                    }
        }
    if (ctx) pk_close(ctx);
    free(ref);
    for (int i = 0; i < THREADS; i++)
        for (int r = 0; r < rounds; r++)
            for (int c = 0; c < w[i].nctx; c++) free(w[i].out[r][c]);
    cache_remove();
    printf("threads on %s:%d (%d threads, %d rounds): %s\n", argv[1], device, THREADS, rounds,
           failed ? "FAIL" : "ok");
    return failed;
}
