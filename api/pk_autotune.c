/* First-use tuning (pk_core_hooks.autotune, backend.h): a backend whose
 * device has no table entry asks, from inside an op, for a kernel family
 * to be tuned before it plans it. The tuner runs here, on contexts of its
 * own (the op's context is in the middle of a call and is not re-entered),
 * and stores the winner in the tuning cache; the backend then loads it.
 *
 * One lock for the whole process, held while a family is tuned: two
 * contexts that need the same family wait for one tuning instead of
 * running two, and two tunings at once would time each other's kernels.
 * Each (backend, device, family) is tried once a process: a tuning that
 * failed or was refused is not repeated on every op, and a context that
 * comes later gets the first one's result at once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pk_core.h"
#include "pk_tune.h"

typedef struct tried {
    pk_backend kind;
    int index;
    char family[64];
    pk_status status;
    char report[PK_MSG_MAX];
    struct tried *next;
} tried;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tried *tried_list; /* under lock */

typedef struct bar {
    int tty;
    const char *family, *device;
} bar;

static void head(const bar *b)
{
    fprintf(stderr, "portkern: tuning %s for %s (first use) ...", b->family, b->device);
}

/* A terminal gets the line redrawn after each candidate; a log only the
 * start of the line here and its end when the family is done. */
static void progress(void *user, const pk_internal_tune_progress *p)
{
    bar *b = user;
    if (!b->tty) return;
    char cells[21];
    pk_internal_tune_bar(p, 20, cells);
    fputc('\r', stderr);
    head(b);
    fprintf(stderr, " [%s] %.0f/%.0f s, %d timed\033[K", cells, p->elapsed_s, p->limit_s, p->tried);
}

static pk_status autotune(pk_backend kind, int index, const char *family, double seconds, pk_msg *msg)
{
    /* the tuner's own ops (a search in this process) plan the family it
     * is tuning, and must take what they are given */
    if (pk_tune_active) return pk_msgf(msg, PK_ERR_UNSUPPORTED, "a tuning runs on this thread");
    if (!(seconds > 0)) return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "autotune: %g seconds", seconds);
    pthread_mutex_lock(&lock);
    tried *t = tried_list;
    while (t && (t->kind != kind || t->index != index || strcmp(t->family, family))) t = t->next;
    if (t) {
        pk_status s = t->status;
        if (s != PK_SUCCESS) pk_msgf(msg, s, "%s", t->report);
        pthread_mutex_unlock(&lock);
        return s;
    }
    if (!(t = calloc(1, sizeof *t))) {
        pthread_mutex_unlock(&lock);
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    t->kind = kind;
    t->index = index;
    snprintf(t->family, sizeof t->family, "%s", family);
    t->next = tried_list;
    tried_list = t;

    /* the op in progress reports its own errors: what the tuning leaves
     * in this thread's message (pk_open failing) is not one of them */
    char saved[PK_MSG_MAX];
    snprintf(saved, sizeof saved, "%s", pk_last_error(NULL));
    pk_context *ctx = NULL;
    char report[1024] = "";
    const double t0 = pk_tune_now();
    pk_status s = pk_open(kind, index, &ctx);
    if (s != PK_SUCCESS) {
        snprintf(report, sizeof report, "%s", pk_last_error(NULL));
    } else {
        pk_device_info info;
        pk_context_info(ctx, &info);
        bar b = {isatty(2), family, info.name};
        head(&b);
        if (!b.tty) fflush(stderr);
        pk_internal_tune_opts opts = {seconds, 1, progress, &b};
        s = pk_internal_tune(ctx, family, &opts, report, sizeof report);
        if (b.tty) {
            fputc('\r', stderr);
            head(&b);
        }
        if (s == PK_SUCCESS)
            fprintf(stderr, " done in %.0f s%s\n", pk_tune_now() - t0, b.tty ? "\033[K" : "");
        else
            fprintf(stderr, " not tuned (%.0f s): %.300s; the built-in values stay%s\n", pk_tune_now() - t0, report,
                    b.tty ? "\033[K" : "");
        pk_close(ctx);
    }
    pk_fail(NULL, PK_SUCCESS, "%s", saved);
    t->status = s;
    snprintf(t->report, sizeof t->report, "%s", report);
    pthread_mutex_unlock(&lock);
    if (s != PK_SUCCESS) pk_msgf(msg, s, "%s", report);
    return s;
}

const pk_core_hooks pk_core_hooks_of_core = {autotune};
