/* The tuner's parts inside the core: the search (pk_tune.c), the worker
 * process that runs it under a hard deadline (pk_tune_proc.c), and the
 * first-use tuning that backends ask for (pk_autotune.c). */
#ifndef PK_TUNE_H
#define PK_TUNE_H

#include "pk_internal.h"

/* CLOCK_MONOTONIC in seconds: one clock for the whole machine, so that a
 * deadline can be handed to a worker process as a number. */
double pk_tune_now(void);

/* What the search reports as it goes (each may be NULL). */
typedef struct pk_tune_events {
    void (*progress)(void *user, const pk_internal_tune_progress *p); /* after each candidate */
    void (*best)(void *user, const char *spec);                       /* a new best, the family's values */
    void (*refused)(void *user, const char *why);                     /* a candidate refused: its values, why */
    void *user;
} pk_tune_events;

/* The search of pk_internal_tune, in this process, on ctx: from `start`
 * (family.name=value,...; NULL: ctx's values), a candidate starts only
 * while one as slow as the slowest so far ends before `deadline`
 * (pk_tune_now's clock). Leaves the winner set on ctx and returns
 * PK_SUCCESS, or returns an error with the reason in why (every candidate
 * refused: ctx keeps the last one's values, so use a context of its own;
 * PK_ERR_DEVICE_FAILURE where a candidate's failure lost ctx, which why
 * names); stores nothing. A candidate that runs past the deadline is not stopped:
 * pk_tune_proc.c stops it. */
pk_status pk_tune_search(pk_context *ctx, const char *family, const char *start, double deadline,
                         const pk_tune_events *ev, char *why, size_t n);

/* Set while this thread runs a search: its ops must not ask for a
 * first-use tuning of their own (pk_autotune.c). */
extern _Thread_local int pk_tune_active;

#endif
