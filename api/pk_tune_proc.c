/* pk_internal_tune: the search of pk_tune.c in a worker process that is
 * killed at the family's time limit, and the worker's side of it
 * (pk_internal_tune_worker, run by the portkern-tune-worker executable).
 *
 * Why a process: a candidate's kernels can take longer to build than the
 * whole limit (as a GEMM tile's did on PoCL on two busy cores), and
 * nothing stops a build once started. A build on a thread of our own
 * could be abandoned, but not stopped: it would go on holding the CPU
 * and, on PoCL, the lock that every kernel launch of the process takes
 * while it generates code (pocl_dlhandle_lock), so the next family, or
 * the op that asked for a first-use tuning, would wait for it anyway; and
 * the process could not exit while LLVM runs on another thread. A killed
 * process stops at once and takes its build with it (the candidate is
 * lost, its kernels unbuilt); a candidate that crashes the driver ends
 * the search instead of the caller. The best values seen before the kill
 * are kept: the worker reports each new best as it finds it.
 *
 * The worker talks over a pipe, one line an event ("pk-tune " then P for
 * progress, B a new best, R a refusal, E the end, O the device could not
 * be opened there); anything else it writes (compiler warnings) is
 * dropped, the last such line kept for the report of a worker that died.
 *
 * The worker finds the caller's device by index and name, or by name
 * alone where its own listing differs (open_same). A device that the
 * caller has open may still be closed to a second process (a GPU in an
 * exclusive compute mode): then the search runs in the caller after all,
 * and the report says why, with what the worker listed. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "pk_core.h"
#include "pk_tune.h"

#define WORKER_FILE "portkern-tune-worker"
#define TAG "pk-tune "
#define SPEC_MAX 2048

extern char **environ;

/* What a search reported, in this process or from the worker. */
typedef struct outcome {
    pk_internal_tune_progress prog; /* the latest */
    char best[SPEC_MAX];            /* "": none passed yet */
    char refusal[512];              /* the last */
    int ended;                      /* the search ended by itself, with status and why */
    pk_status status;
    char why[512];
    int stopped;                    /* killed at the limit */
    char died[300];                 /* the worker ended without an end line: how */
    char no_open[300];              /* the worker could not open the device: why */
    const pk_internal_tune_opts *opts;
    double t0;
} outcome;

static void on_progress(void *user, const pk_internal_tune_progress *p)
{
    outcome *o = user;
    const char *family = o->prog.family;
    o->prog = *p;
    o->prog.family = family;
    o->prog.elapsed_s = pk_tune_now() - o->t0;
    o->prog.limit_s = o->opts->seconds;
    if (o->opts->progress) o->opts->progress(o->opts->user, &o->prog);
}

static void on_best(void *user, const char *spec)
{
    outcome *o = user;
    snprintf(o->best, sizeof o->best, "%s", spec);
}

static void on_refused(void *user, const char *why)
{
    outcome *o = user;
    snprintf(o->refusal, sizeof o->refusal, "%s", why);
}

/* ---- the worker's side */

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
    char line[SPEC_MAX + 600];
    int n = snprintf(line, sizeof line, TAG);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    /* one event a line: driver messages (build logs) bring their own newlines */
    for (char *c = line; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    size_t len = strlen(line);
    line[len++] = '\n';
    /* one write a line: the pipe keeps it whole among the driver's own
     * writes to the same pipe (stderr) */
    if (write(1, line, len) < 0) _exit(3);
}

static void w_progress(void *user, const pk_internal_tune_progress *p)
{
    (void)user;
    emit("P %d %d %.9g %.9g", p->tried, p->rejected, p->table_ms, p->best_ms);
}
static void w_best(void *user, const char *spec)
{
    (void)user;
    emit("B %s", spec);
}
static void w_refused(void *user, const char *why)
{
    (void)user;
    emit("R %s", why);
}

/* The caller's device here: the same index where its name matches (the
 * same enumeration), else the one device of that name. A child can list
 * fewer devices than its parent (on the H200 machine the worker's OpenCL
 * listed one where the caller's listed two), which moves the indices.
 * Where neither holds, `why` names what this process lists. */
static pk_status open_same(pk_backend b, int index, const char *name, pk_context **ctx, char *why, size_t n)
{
    int count = 0;
    pk_status s = pk_device_count(b, &count);
    if (s != PK_SUCCESS) {
        snprintf(why, n, "%s", pk_last_error(NULL));
        return s;
    }
    pk_device_info info;
    int pick = -1, named = 0;
    size_t at = (size_t)snprintf(why, n, "no device \"%s\" here (%d listed:", name, count);
    for (int i = 0; i < count; i++) {
        if (pk_device_info_get(b, i, &info) != PK_SUCCESS) continue;
        if (at < n) at += (size_t)snprintf(why + at, n - at, "%s %d \"%s\"", i ? "," : "", i, info.name);
        if (strcmp(info.name, name)) continue;
        named++;
        if (pick < 0 || i == index) pick = i;
    }
    if (at < n) snprintf(why + at, n - at, ")");
    if (pick < 0 || (named > 1 && pick != index)) return PK_ERR_NO_DEVICE;
    s = pk_open(b, pick, ctx);
    if (s != PK_SUCCESS) snprintf(why, n, "%s", pk_last_error(NULL));
    return s;
}

/* argv: BACKEND INDEX FAMILY DEADLINE DEVICE-NAME START-SPEC PARENT-PID */
int pk_internal_tune_worker(int argc, char **argv)
{
    if (argc != 8) {
        emit("E %d usage: %s BACKEND INDEX FAMILY DEADLINE DEVICE-NAME START-SPEC PARENT-PID",
             (int)PK_ERR_INVALID_ARGUMENT, argc ? argv[0] : WORKER_FILE);
        return 2;
    }
#ifdef __linux__
    /* the caller gone (killed, Ctrl-C): stop too, instead of tuning for
     * no one; and if it went before this was set, now */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if ((long)getppid() != atol(argv[7])) return 3;
#endif
    pk_backend b;
    pk_context *ctx = NULL;
    char why[512];
    pk_status s = pk_backend_from_name(argv[1], &b);
    if (s != PK_SUCCESS) snprintf(why, sizeof why, "%s", pk_last_error(NULL));
    if (s == PK_SUCCESS) s = open_same(b, atoi(argv[2]), argv[5], &ctx, why, sizeof why);
    if (s != PK_SUCCESS) {
        emit("O %d %s", (int)s, why);
        return 1;
    }
    pk_tune_events ev = {w_progress, w_best, w_refused, NULL};
    s = pk_tune_search(ctx, argv[3], argv[6], atof(argv[4]), &ev, why, sizeof why);
    emit("E %d %s", (int)s, why);
    pk_close(ctx);
    return 0;
}

/* ---- the caller's side */

static int find_worker(char *path, size_t n)
{
    char dirs[PK_MODULE_DIRS][1024];
    const int nd = pk_module_dirs(dirs);
    for (int i = 0; i < nd; i++) {
        snprintf(path, n, "%.1024s/" WORKER_FILE, dirs[i]);
        if (access(path, X_OK) == 0) return 1;
    }
    return 0;
}

static void handle_line(outcome *o, char *line, char *noise, size_t nn)
{
    size_t tl = strlen(TAG);
    if (strncmp(line, TAG, tl) || !line[tl] || line[tl + 1] != ' ') {
        if (line[0]) snprintf(noise, nn, "%.290s", line);
        return;
    }
    char *arg = line + tl + 2;
    pk_internal_tune_progress p = o->prog;
    int st;
    switch (line[tl]) {
    case 'P':
        if (sscanf(arg, "%d %d %lf %lf", &p.tried, &p.rejected, &p.table_ms, &p.best_ms) == 4) on_progress(o, &p);
        break;
    case 'B': on_best(o, arg); break;
    case 'R': on_refused(o, arg); break;
    case 'O':
        if (sscanf(arg, "%d", &st) == 1) {
            const char *sp = strchr(arg, ' ');
            snprintf(o->no_open, sizeof o->no_open, "%s", sp ? sp + 1 : "?");
            o->ended = 1;
            o->status = (pk_status)st;
        }
        break;
    case 'E':
        if (sscanf(arg, "%d", &st) == 1) {
            o->ended = 1;
            o->status = (pk_status)st;
            const char *sp = strchr(arg, ' ');
            snprintf(o->why, sizeof o->why, "%s", sp ? sp + 1 : "");
        }
        break;
    }
}

/* Reads what is in the pipe now; 0 at its end. */
static int drain(int fd, outcome *o, char *buf, size_t cap, size_t *len, char *noise, size_t nn)
{
    for (;;) {
        ssize_t r = read(fd, buf + *len, cap - 1 - *len);
        if (r < 0) return errno == EINTR ? 1 : errno == EAGAIN ? 1 : 0;
        if (r == 0) return 0;
        *len += (size_t)r;
        buf[*len] = 0;
        char *start = buf, *nl;
        while ((nl = strchr(start, '\n'))) {
            *nl = 0;
            handle_line(o, start, noise, nn);
            start = nl + 1;
        }
        *len -= (size_t)(start - buf);
        memmove(buf, start, *len);
        if (*len == cap - 1) *len = 0; /* a line longer than any event: noise */
    }
}

/* Runs the search in the worker at `path` until it ends or the deadline
 * passes, then kills it. PK_SUCCESS when the worker ran (o says how it
 * went), else why it could not start. */
static pk_status run_worker(const char *path, const pk_device_info *info, const char *family, const char *start,
                            double deadline, outcome *o)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(o->why, sizeof o->why, "pipe: %s", strerror(errno));
        return PK_ERR_INTERNAL;
    }
    char index[16], dl[48], parent[24];
    snprintf(index, sizeof index, "%d", info->index);
    snprintf(dl, sizeof dl, "%.6f", deadline);
    snprintf(parent, sizeof parent, "%ld", (long)getpid());
    char *argv[] = {(char *)path, (char *)pk_backend_name(info->backend), index, (char *)family, dl,
                    (char *)info->name, (char *)start, parent, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawnattr_init(&at);
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &dfl);
    /* a group of its own, so that the kill also reaches what the driver
     * runs for it (PoCL links kernels with a child linker) */
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    int err = posix_spawn(&pid, path, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fds[1]);
    if (err) {
        close(fds[0]);
        snprintf(o->why, sizeof o->why, "cannot start %.300s: %s", path, strerror(err));
        return PK_ERR_INTERNAL;
    }
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    char buf[SPEC_MAX + 1024], noise[300] = "";
    size_t len = 0;
    /* until the end line: the worker's own teardown (its driver's) is of
     * use to no one, and is cut short below */
    while (!o->ended) {
        double left = deadline - pk_tune_now();
        if (left <= 0) {
            o->stopped = 1;
            break;
        }
        struct pollfd pf = {fds[0], POLLIN, 0};
        int r = poll(&pf, 1, (int)ceil(left * 1000));
        if (r < 0 && errno != EINTR) break;
        if (r > 0 && !drain(fds[0], o, buf, sizeof buf, &len, noise, sizeof noise)) break;
    }
    int st = 0;
    pid_t w = 0;
    if (!o->ended && !o->stopped) /* the pipe closed: it is ending by itself, give it the time left */
        while ((w = waitpid(pid, &st, WNOHANG)) == 0 && pk_tune_now() < deadline) usleep(10000);
    if (w != pid) {
        kill(-pid, SIGKILL);
        while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {}
    }
    /* what it wrote before it ended (a killed group's last moments may
     * keep the pipe open: read only what is there) */
    drain(fds[0], o, buf, sizeof buf, &len, noise, sizeof noise);
    close(fds[0]);
    if (!o->ended && !o->stopped) {
        if (w == pid && WIFSIGNALED(st))
            snprintf(o->died, sizeof o->died, "the worker died of signal %d%s%s", WTERMSIG(st), noise[0] ? ": " : "",
                     noise);
        else
            snprintf(o->died, sizeof o->died, "the worker ended without a result (exit %d)%s%s",
                     w == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1, noise[0] ? ": " : "", noise);
    }
    return PK_SUCCESS;
}

static int worker_off(void)
{
    const char *env = getenv("PORTKERN_TUNE_WORKER");
    return env && !strcmp(env, "off");
}

pk_status pk_internal_tune(pk_context *ctx, const char *family, const pk_internal_tune_opts *opts, char *report,
                           size_t n)
{
    if (!ctx || !family || !opts || (!report && n)) return PK_ERR_NULL_ARGUMENT;
    if (n) report[0] = 0;
    if (!(opts->seconds > 0)) return PK_ERR_INVALID_ARGUMENT;
    outcome *o = calloc(1, sizeof *o);
    char *start = malloc(SPEC_MAX);
    if (!o || !start) {
        free(o);
        free(start);
        return PK_ERR_OUT_OF_MEMORY;
    }
    o->opts = opts;
    o->t0 = pk_tune_now();
    o->prog.family = family;
    const double deadline = o->t0 + opts->seconds;
    char req[SPEC_MAX + 16], reply[SPEC_MAX];

    /* the values ctx has, where the search starts; also tells an unknown
     * family (PK_ERR_INVALID_ARGUMENT) or a backend without parameters
     * (PK_ERR_UNSUPPORTED) with pk_last_error(ctx) saying so */
    snprintf(req, sizeof req, "get %s", family);
    pk_status s = pk_internal_params(ctx, req, start, SPEC_MAX);
    if (s != PK_SUCCESS) {
        snprintf(report, n, "%s: %s", family, pk_last_error(ctx));
        free(o);
        free(start);
        return s;
    }
    start[strcspn(start, "\n")] = 0;

    char path[1200];
    int in_process = worker_off() || !find_worker(path, sizeof path);
    if (!in_process) {
        pk_device_info info;
        pk_context_info(ctx, &info);
        s = run_worker(path, &info, family, start, deadline, o);
        if (s == PK_SUCCESS && o->no_open[0]) {
            /* here instead, as if there were no worker, saying so */
            o->ended = 0;
            o->status = PK_SUCCESS;
            s = PK_ERR_NO_DEVICE;
        }
    }
    if (in_process || s != PK_SUCCESS) {
        /* no worker to run it (PORTKERN_TUNE_WORKER=off, or none installed
         * beside the library): here, where a slow build cannot be stopped;
         * on a context of its own, as the worker would, so that ctx keeps
         * its values until the end */
        in_process = 1;
        pk_device_info info;
        pk_context_info(ctx, &info);
        pk_context *own = NULL;
        pk_tune_events ev = {on_progress, on_best, on_refused, o};
        o->status = pk_open(info.backend, info.index, &own);
        if (o->status == PK_SUCCESS)
            o->status = pk_tune_search(own, family, start, deadline, &ev, o->why, sizeof o->why);
        else
            snprintf(o->why, sizeof o->why, "%s: %s", family, pk_last_error(NULL));
        if (own) pk_close(own);
        o->ended = 1;
        s = PK_SUCCESS;
    }

    const double took = pk_tune_now() - o->t0;
    if (o->best[0] && (!o->ended || o->status == PK_SUCCESS)) {
        /* the worker's winner, or the last best before it was stopped */
        snprintf(req, sizeof req, "set %s", o->best);
        s = pk_internal_params(ctx, req, reply, sizeof reply);
        if (s == PK_SUCCESS && opts->store) {
            snprintf(req, sizeof req, "store %s", family);
            s = pk_internal_params(ctx, req, reply, sizeof reply);
        }
        if (s == PK_SUCCESS)
            snprintf(report, n, "%s: %.4g ms -> %.4g ms (%d timed, %d refused, %.1f s%s%s%s%s%s%.200s%s): %s%s%.300s",
                     family, o->prog.table_ms, o->prog.best_ms, o->prog.tried, o->prog.rejected, took,
                     o->stopped ? ", stopped at the limit" : "", o->died[0] ? ", " : "", o->died,
                     opts->store ? ", stored" : "",
                     o->no_open[0] ? "; in this process: the worker could not open the device (" : "", o->no_open,
                     o->no_open[0] ? ")" : "", o->best, o->refusal[0] ? "; last refused: " : "", o->refusal);
        else
            snprintf(report, n, "%s: %s", family, pk_last_error(ctx));
    } else {
        s = o->ended && o->status != PK_SUCCESS ? o->status : PK_ERR_INVALID_ARGUMENT;
        if (o->ended && o->status == PK_SUCCESS) {
            s = PK_ERR_INTERNAL; /* a lost line, or a worker of another version */
            snprintf(o->why, sizeof o->why, "%s: the worker ended with success but sent no values", family);
        }
        if (o->stopped)
            snprintf(report, n, "%s: no candidate finished within %.0f s (the first still building or running when "
                                "stopped); nothing set", family, opts->seconds);
        else if (o->died[0])
            snprintf(report, n, "%s: %s; nothing set", family, o->died);
        else
            snprintf(report, n, "%s%s%.300s", o->why, o->refusal[0] ? "; the last refused: " : "", o->refusal);
    }
    free(o);
    free(start);
    return s;
}
