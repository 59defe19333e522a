/* `portkern tune`: the tuner (pk_internal_tune) over a device's kernel
 * families, with a progress bar; and the tuning line of `portkern devices`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pk_internal.h"
#include "portkern_tune.h"

#define REPLY 8192

static void usage(FILE *f)
{
    fprintf(f,
            "usage: portkern tune [options]\n"
            "Searches the kernel parameters of a device's kernel families (OpenCL) for the\n"
            "fastest values whose results match the reference backend, and stores them in\n"
            "the tuning cache (beside the kernel binaries: $PORTKERN_CACHE_DIR, else\n"
            "$XDG_CACHE_HOME/portkern, else ~/.cache/portkern), keyed by device, driver and\n"
            "kernel source; later contexts on the device load them (PORTKERN_CL_TUNED=off:\n"
            "the built-in table only).\n"
            "  --backend NAME[:IDX]  the device (default: opencl:0)\n"
            "  --family LIST         families to tune, comma-separated (default: all)\n"
            "  --seconds S           time limit per family (default 20): the search runs in a\n"
            "                        worker process, stopped at the limit with the best values\n"
            "                        found so far (a candidate still building is dropped)\n"
            "  --no-store            search and report, store nothing\n"
            "  --list                the families and their parameters, with the values the\n"
            "                        device has now and where they come from\n");
}

typedef struct bar {
    int tty;
    int width;
} bar;

static void progress(void *user, const pk_internal_tune_progress *p)
{
    bar *b = user;
    char cells[64], line[200];
    pk_internal_tune_bar(p, b->width < (int)sizeof cells ? b->width : (int)sizeof cells - 1, cells);
    snprintf(line, sizeof line, "  %-12s [%s] %4.0f/%.0f s  %d timed, %d refused  best %.4g ms (was %.4g)",
             p->family, cells, p->elapsed_s, p->limit_s, p->tried, p->rejected, p->best_ms, p->table_ms);
    /* a terminal gets one line redrawn; a log gets a line per candidate */
    fprintf(stderr, b->tty ? "\r%s\033[K" : "%s\n", line);
}

static int parse_target(const char *s, pk_backend *b, int *index)
{
    char name[32];
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    if (len >= sizeof name) return -1;
    memcpy(name, s, len);
    name[len] = 0;
    *index = colon ? atoi(colon + 1) : 0;
    return pk_backend_from_name(name, b) == PK_SUCCESS ? 0 : -1;
}

static int list(pk_context *ctx)
{
    char *fams = malloc(REPLY), *reply = malloc(REPLY), *status = malloc(REPLY);
    int rc = 0;
    if (!fams || !reply || !status || pk_internal_params(ctx, "families", fams, REPLY) != PK_SUCCESS ||
        pk_internal_params(ctx, "status", status, REPLY) != PK_SUCCESS) {
        fprintf(stderr, "portkern tune: %s\n", pk_last_error(ctx));
        rc = 1;
    }
    for (char *save = NULL, *line = rc ? NULL : strtok_r(fams, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char fam[64], src[64], req[128];
        int used = 0;
        if (sscanf(line, "%63s %63s %n", fam, src, &used) < 2) continue;
        snprintf(req, sizeof req, "get %s", fam);
        pk_internal_params(ctx, req, reply, REPLY);
        reply[strcspn(reply, "\n")] = 0;
        char key[80];
        snprintf(key, sizeof key, "\n%s ", fam);
        const char *from = strstr(status, key);
        char where[16] = "?";
        if (from) sscanf(from + strlen(key), "%15s", where);
        printf("%-13s %-20s %-6s %s\n  %s\n", fam, src, where, line + used, reply);
    }
    free(fams);
    free(reply);
    free(status);
    return rc;
}

int pk_tune_main(int argc, char **argv)
{
    const char *target = "opencl:0", *families = NULL;
    double seconds = 20;
    int store = 1, do_list = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--backend") && more) target = argv[++i];
        else if (!strcmp(a, "--family") && more) families = argv[++i];
        else if (!strcmp(a, "--seconds") && more) {
            char *end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds > 0) || seconds > 3600) {
                fprintf(stderr, "portkern tune: --seconds wants a number in (0, 3600], got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--no-store")) store = 0;
        else if (!strcmp(a, "--list")) do_list = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "portkern tune: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    pk_backend b;
    int index;
    if (parse_target(target, &b, &index)) {
        fprintf(stderr, "portkern tune: unknown backend '%s'\n", target);
        return 2;
    }
    pk_context *ctx;
    if (pk_open(b, index, &ctx) != PK_SUCCESS) {
        fprintf(stderr, "portkern tune: %s\n", pk_last_error(NULL));
        return 1;
    }
    pk_device_info info;
    pk_context_info(ctx, &info);
    char *fams = malloc(REPLY);
    if (!fams || pk_internal_params(ctx, "families", fams, REPLY) != PK_SUCCESS) {
        fprintf(stderr, "portkern tune: %s %d (%s): %s\n", pk_backend_name(b), index, info.name, pk_last_error(ctx));
        free(fams);
        pk_close(ctx);
        return 1;
    }
    if (do_list) {
        int rc = list(ctx);
        free(fams);
        pk_close(ctx);
        return rc;
    }
    printf("tuning %s %d: %s (%s), %.0f s per family%s\n", pk_backend_name(b), index, info.name, info.driver,
           seconds, store ? "" : ", storing nothing");
    fflush(stdout);
    bar pb = {isatty(2), 30};
    pk_internal_tune_opts opts = {seconds, store, progress, &pb};
    int failed = 0, done = 0;
    for (char *save = NULL, *line = strtok_r(fams, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char fam[64];
        if (sscanf(line, "%63s", fam) != 1) continue;
        if (families) {
            /* whole names of the comma-separated list */
            const char *at = families;
            size_t fl = strlen(fam);
            int want = 0;
            while ((at = strstr(at, fam))) {
                if ((at == families || at[-1] == ',') && (at[fl] == 0 || at[fl] == ',')) want = 1;
                at += fl;
            }
            if (!want) continue;
        }
        char report[1024];
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        pk_status s = pk_internal_tune(ctx, fam, &opts, report, sizeof report);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (pb.tty) fprintf(stderr, "\n");
        printf("%s %s\n", s == PK_SUCCESS ? "tuned " : "FAILED", report[0] ? report : pk_last_error(ctx));
        /* the worker is killed at the limit; what remains is the kill,
         * and setting and storing the winner: well under a second */
        printf("time   %-13s %6.1f s of %g s%s\n", fam, took, seconds, took > seconds + 1 ? ", over its limit" : "");
        fflush(stdout);
        failed += s != PK_SUCCESS;
        done++;
    }
    free(fams);
    pk_close(ctx);
    if (!done) {
        fprintf(stderr, "portkern tune: no family named in '%s' (portkern tune --list)\n", families);
        return 2;
    }
    printf("%d families tuned, %d failed\n", done - failed, failed);
    return failed ? 1 : 0;
}

void pk_tune_print_status(pk_backend b, int index)
{
    pk_context *ctx;
    if (pk_open(b, index, &ctx) != PK_SUCCESS) {
        printf("           cannot open: %s\n", pk_last_error(NULL));
        return;
    }
    char *reply = malloc(REPLY);
    if (reply && pk_internal_params(ctx, "status", reply, REPLY) == PK_SUCCESS) {
        char cls[32] = "?", autotune[8] = "off";
        double secs = 0;
        sscanf(reply, "class %31s autotune %7s %lf", cls, autotune, &secs);
        int tuned = 0, set = 0, total = 0;
        /* lines "family table|tuned|set" after the class line */
        for (char *line = strchr(reply, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
            char fam[64], where[16];
            if (sscanf(line + 1, "%63s %15s", fam, where) != 2) continue;
            total++;
            tuned += !strcmp(where, "tuned");
            set += !strcmp(where, "set");
        }
        if (tuned == total)
            printf("           kernel parameters: tuned on this device and driver (all %d families)\n", total);
        else if (!strcmp(cls, "other") && !strcmp(autotune, "on"))
            printf("           kernel parameters: no table entry for this device, %d of %d families tuned here; "
                   "each other family is tuned on its first use (up to %.0f s; all now: portkern tune --backend "
                   "%s:%d; never: PORTKERN_CL_AUTOTUNE=off)\n", tuned, total, secs, pk_backend_name(b), index);
        else if (!strcmp(cls, "other"))
            printf("           kernel parameters: no table entry for this device, %d of %d families tuned here "
                   "(portkern tune --backend %s:%d)\n", tuned, total, pk_backend_name(b), index);
        else
            printf("           kernel parameters: the %s table entry, %d of %d families tuned on this device and "
                   "driver (portkern tune --backend %s:%d)\n", cls, tuned, total, pk_backend_name(b), index);
        if (set)
            printf("           kernel parameters: %d of %d families with values from PORTKERN_CL_PARAMS\n", set,
                   total);
    }
    if (reply && pk_internal_params(ctx, "ptx", reply, REPLY) == PK_SUCCESS) {
        /* "on|off why" then "wgmma on|off why" and "tma on|off why" */
        char *second = strchr(reply, '\n');
        if (second) *second++ = 0;
        char *why = strchr(reply, ' ');
        if (why) *why++ = 0;
        printf("           inline PTX (tensor cores): %s%s%s\n", reply, why ? ", " : "", why ? why : "");
        char *third = second ? strchr(second, '\n') : NULL;
        if (third) *third++ = 0;
        if (second && !strncmp(second, "wgmma ", 6)) {
            second += 6;
            why = strchr(second, ' ');
            if (why) *why++ = 0;
            printf("           wgmma (Hopper warpgroup products): %s%s%s\n", second, why ? ", " : "", why ? why : "");
        }
        if (third && !strncmp(third, "tma ", 4)) {
            third += 4;
            third[strcspn(third, "\n")] = 0;
            why = strchr(third, ' ');
            if (why) *why++ = 0;
            printf("           TMA (Hopper tensor copies): %s%s%s\n", third, why ? ", " : "", why ? why : "");
        }
    }
    free(reply);
    pk_close(ctx);
}
