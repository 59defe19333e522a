/* First-use tuning on an OpenCL device without a table entry, on PoCL made
 * class "other" (PORTKERN_CL_VENDOR=other, test only): the first op of a
 * family tunes it within its limit and stores it; that context and a new
 * one then use it, the new one without tuning; two threads that need one
 * family at once tune it once; a family whose tuning fails is not tried
 * again in the process; PORTKERN_CL_AUTOTUNE=off and PORTKERN_CL_TUNED=off
 * turn it off. Every result equals the reference backend's. The one line
 * per family on stderr (not a terminal here) is how a tuning is counted.
 * Usage: test_autotune [device index]; skips (exit 77) without OpenCL. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pk_internal.h"
#include "opencl_open.h"
#include "plan_check.h"

enum { R = 37, C = 1000 };
static const double LIMIT = 10; /* seconds a family: chain builds in a few on two busy cores */
static char errpath[300];

typedef enum { OP_CHAIN, OP_RMSNORM, OP_GLU, OP_ROPE } opk;
static const char *const op_name[] = {"chain", "rmsnorm", "glu", "rope"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs op on ctx over fixed inputs; the output (R x C floats) into out. */
static pk_status run(pk_context *ctx, opk op, float *out)
{
    enum { NB = 4 };
    pk_buffer *b[NB] = {0};
    pk_tensor t[NB];
    const int64_t rc[2] = {R, C}, c1[1] = {C}, rope[4] = {1, R, 8, 128};
    const int64_t n = op == OP_ROPE ? R * 8 * 128 : R * C;
    float *host = malloc((size_t)n * sizeof(float));
    pk_status s = host ? PK_SUCCESS : PK_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < NB && s == PK_SUCCESS; i++) {
        const int64_t *shape = op == OP_ROPE ? rope : i == 2 && op == OP_RMSNORM ? c1 : rc;
        int nd = op == OP_ROPE ? 4 : i == 2 && op == OP_RMSNORM ? 1 : 2;
        int64_t cnt = 1;
        for (int d = 0; d < nd; d++) cnt *= shape[d];
        s = pk_alloc(ctx, (size_t)cnt * sizeof(float), &b[i]);
        if (s != PK_SUCCESS) break;
        t[i] = pk_tensor_make(b[i], 0, PK_F32, nd, shape);
        for (int64_t e = 0; e < cnt; e++) host[e] = (float)sin(0.37 * (double)e + i) * (i == 2 ? 1.5f : 1.0f);
        s = pk_upload(b[i], 0, host, (size_t)cnt * sizeof(float));
    }
    if (s == PK_SUCCESS) {
        switch (op) {
        case OP_CHAIN: {
            const pk_chain_step steps[] = {
                {PK_CHAIN_MUL_IMM, 0, 0, 0.5f}, {PK_CHAIN_ADD, 2, 1, 0.0f}, {PK_CHAIN_SILU, 3, 0, 0.0f}};
            pk_chain_desc d = {2, t, 3, steps};
            s = pk_chain(ctx, &d, &t[3]);
            break;
        }
        case OP_RMSNORM: {
            pk_norm_desc d = PK_NORM_DESC_INIT;
            s = pk_rmsnorm(ctx, &d, &t[0], &t[2], &t[3]);
            break;
        }
        case OP_GLU: s = pk_glu(ctx, PK_ACT_SILU, &t[0], &t[1], &t[3]); break;
        case OP_ROPE: {
            pk_rope_desc d = PK_ROPE_DESC_INIT;
            s = pk_rope(ctx, &d, &t[3], &t[1]);
            break;
        }
        }
    }
    if (s == PK_SUCCESS) s = pk_download(b[3], 0, out, (size_t)n * sizeof(float));
    for (int i = 0; i < NB; i++)
        if (b[i]) pk_free(b[i]);
    free(host);
    return s;
}

/* op on ctx equals op on the reference backend */
static int matches_ref(pk_context *ctx, opk op)
{
    static float got[R * C > R * 8 * 128 ? R * C : R * 8 * 128], want[sizeof got / sizeof got[0]];
    pk_context *ref;
    if (pk_open(PK_BACKEND_REF, 0, &ref) != PK_SUCCESS) return 0;
    pk_status s = run(ctx, op, got);
    pk_status r = run(ref, op, want);
    pk_close(ref);
    if (s != PK_SUCCESS || r != PK_SUCCESS) {
        printf("  %s: %s / %s\n", op_name[op], pk_status_string(s), pk_status_string(r));
        return 0;
    }
    const int n = op == OP_ROPE ? R * 8 * 128 : R * C;
    for (int i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= 1e-4f * (1 + fabsf(want[i])))) {
            printf("  %s: output %d is %g, the reference %g\n", op_name[op], i, got[i], want[i]);
            return 0;
        }
    return 1;
}

/* "table", "tuned" or "set" for family f on ctx; the class line in cls */
static const char *status_of(pk_context *ctx, const char *f, char *cls, size_t n)
{
    static char where[16];
    char reply[4096], key[64];
    snprintf(where, sizeof where, "?");
    if (cls && n) cls[0] = 0;
    if (pk_internal_params(ctx, "status", reply, sizeof reply) == PK_SUCCESS) {
        if (cls) snprintf(cls, n, "%.*s", (int)strcspn(reply, "\n"), reply);
        snprintf(key, sizeof key, "\n%s ", f);
        const char *at = strstr(reply, key);
        if (at) sscanf(at + strlen(key), "%15s", where);
    }
    return where;
}

/* lines on stderr so far that start "portkern: tuning FAMILY for " and
 * contain `word` */
/* Tuning reports of a family whose outcome holds word. A report is its
 * line up to the next report: the OpenCL driver may write on stderr while
 * a tuning builds (PoCL's "15 warnings generated."), which splits the
 * report's line in two. */
static int tunings(const char *family, const char *word)
{
    fflush(stderr);
    FILE *f = fopen(errpath, "r");
    if (!f) return 0;
    static char text[1 << 20];
    const size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    char key[96];
    snprintf(key, sizeof key, "portkern: tuning %s for ", family);
    int n = 0;
    for (char *at = strstr(text, key); at; at = strstr(at + 1, key)) {
        char *next = strstr(at + 1, "portkern: "), keep = '\0';
        if (next) keep = *next, *next = '\0';
        n += strstr(at, word) != NULL;
        if (next) *next = keep;
    }
    return n;
}

static void *rms_thread(void *arg)
{
    pthread_barrier_t *bar = arg;
    pk_context *ctx = open_cl();
    pthread_barrier_wait(bar);
    intptr_t ok = matches_ref(ctx, OP_RMSNORM);
    pk_close(ctx);
    return (void *)ok;
}

int main(int argc, char **argv)
{
    open_cl_index(argc, argv);
    char dir[256], dir2[256];
    snprintf(dir, sizeof dir, "/tmp/pk-test-autotune-XXXXXX");
    snprintf(dir2, sizeof dir2, "/tmp/pk-test-autotune-XXXXXX");
    if (!mkdtemp(dir) || !mkdtemp(dir2)) return 1;
    /* stderr into a file: the tuning lines are counted there */
    snprintf(errpath, sizeof errpath, "%.256s/stderr.txt", dir2);
    if (!freopen(errpath, "w", stderr)) return 1;
    setenv("PORTKERN_CACHE_DIR", dir, 1);
    setenv("PORTKERN_CL_VENDOR", "other", 1);
    char secs[32];
    snprintf(secs, sizeof secs, "%g", LIMIT);
    setenv("PORTKERN_CL_AUTOTUNE_SECONDS", secs, 1);
    unsetenv("PORTKERN_CL_TUNED");
    unsetenv("PORTKERN_CL_AUTOTUNE");
    setvbuf(stdout, NULL, _IONBF, 0);

    /* the first use tunes within the limit, and stores */
    pk_context *a = open_cl();
    char cls[128];
    CHECK(!strcmp(status_of(a, "chain", cls, sizeof cls), "table"), "chain before its first use: %s",
          status_of(a, "chain", NULL, 0));
    CHECK(!strncmp(cls, "class other autotune on ", 24), "status says '%s'", cls);
    double t0 = now();
    CHECK(matches_ref(a, OP_CHAIN), "chain on the first use differs from the reference");
    double took = now() - t0;
    printf("first chain: %.1f s (limit %g s)\n", took, LIMIT);
    CHECK(tunings("chain", " done in ") == 1, "%d tunings of chain, want 1", tunings("chain", ""));
    /* the limit, then the kill and the store, the op itself and the
     * reference's run: a few seconds on two busy cores */
    CHECK(took <= LIMIT + 5, "the first chain took %.1f s, over %g s", took, LIMIT);
    CHECK(!strcmp(status_of(a, "chain", NULL, 0), "tuned"), "chain after its first use: %s",
          status_of(a, "chain", NULL, 0));
    CHECK(matches_ref(a, OP_CHAIN), "chain on the tuned values differs from the reference");
    CHECK(tunings("chain", "") == 1, "chain tuned again on its context");
    pk_close(a);

    /* a new context loads it, and does not tune */
    pk_context *b = open_cl();
    CHECK(!strcmp(status_of(b, "chain", NULL, 0), "tuned"), "a new context's chain: %s",
          status_of(b, "chain", NULL, 0));
    CHECK(matches_ref(b, OP_CHAIN), "chain on a new context differs from the reference");
    CHECK(tunings("chain", "") == 1, "chain tuned again on a new context");
    pk_close(b);

    /* two threads, one family at once: one tuning */
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t th[2];
    void *ok[2] = {0, 0};
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, rms_thread, &bar);
    for (int i = 0; i < 2; i++) pthread_join(th[i], &ok[i]);
    pthread_barrier_destroy(&bar);
    CHECK(ok[0] && ok[1], "rmsnorm on two threads differs from the reference");
    CHECK(tunings("rows", "") == 1, "%d tunings of rows for two threads, want 1", tunings("rows", ""));

    /* a tuning that fails (no time to finish a candidate) is not tried
     * again, and the op runs on the values it has */
    setenv("PORTKERN_CL_AUTOTUNE_SECONDS", "0.05", 1);
    a = open_cl();
    CHECK(matches_ref(a, OP_GLU), "glu after a failed tuning differs from the reference");
    CHECK(tunings("elementwise", " not tuned ") == 1, "a failed tuning of elementwise: %d lines",
          tunings("elementwise", ""));
    CHECK(!strcmp(status_of(a, "elementwise", NULL, 0), "table"), "elementwise after a failed tuning: %s",
          status_of(a, "elementwise", NULL, 0));
    pk_close(a);
    b = open_cl();
    CHECK(matches_ref(b, OP_GLU), "glu on a new context differs from the reference");
    CHECK(tunings("elementwise", "") == 1, "a failed tuning was tried again");
    pk_close(b);
    setenv("PORTKERN_CL_AUTOTUNE_SECONDS", secs, 1);

    /* off: PORTKERN_CL_AUTOTUNE=off, PORTKERN_CL_TUNED=off */
    setenv("PORTKERN_CACHE_DIR", dir2, 1);
    const char *offs[2][2] = {{"PORTKERN_CL_AUTOTUNE", "off"}, {"PORTKERN_CL_TUNED", "off"}};
    for (int i = 0; i < 2; i++) {
        setenv(offs[i][0], offs[i][1], 1);
        a = open_cl();
        status_of(a, "rope", cls, sizeof cls);
        CHECK(!strcmp(cls, "class other autotune off"), "%s=%s: status says '%s'", offs[i][0], offs[i][1], cls);
        CHECK(matches_ref(a, OP_ROPE), "rope with %s=off differs from the reference", offs[i][0]);
        CHECK(tunings("rope", "") == 0, "rope tuned with %s=off", offs[i][0]);
        pk_close(a);
        unsetenv(offs[i][0]);
    }

    fflush(stderr);
    FILE *f = fopen(errpath, "r");
    char line[2048];
    printf("stderr:\n");
    while (f && fgets(line, sizeof line, f)) printf("  %s", line);
    if (f) fclose(f);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", dir, dir2);
    if (system(cmd)) return 1;
    if (!failures) printf("autotune: ok\n");
    return failures != 0;
}
