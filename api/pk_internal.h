/* Entry points for portkern's own tools (conformance suite, bench); not part
 * of the public API and may change without notice. */
#ifndef PK_INTERNAL_H
#define PK_INTERNAL_H

#include "portkern.h"

/* Opens the reference backend in its same-precision variant: inputs in
 * their dtype, f32 accumulation, outputs rounded to their dtype. The
 * conformance suite measures each dtype's own error with it. */
PK_API pk_status pk_internal_open_ref_f32(pk_context **out);

/* Fault injection, for tests (tests/test_faults.c). One plan per process,
 * armed on one context at a time; arm it while no other thread runs ops
 * on that context, and disarm (PK_INTERNAL_FAULT_OFF) before closing it.
 *  - PK_INTERNAL_FAULT_ALLOC: of the allocation sites ctx's ops reach from
 *    now on (host scratch, device scratch, cached kernel and program
 *    objects, program builds), the one numbered n (0: the first) fails,
 *    once, as that allocation failing for real would: the op returns
 *    PK_ERR_OUT_OF_MEMORY with a message ending "(injected)".
 *  - PK_INTERNAL_FAULT_DEVICE: ctx's device faults (n is ignored). CUDA
 *    and HIP on NVIDIA queue a kernel that stores through a null pointer
 *    on ctx's stream; ref, OpenCL and HIP on AMD have no such kernel and
 *    their next finish reports a simulated fault instead.
 *  - PK_INTERNAL_FAULT_LAUNCH: of the kernel launches from now on (0: the
 *    next), the one numbered n is refused, once, as NVIDIA's OpenCL
 *    refuses a launch that does not fit the device (CL_OUT_OF_RESOURCES
 *    while the queue is healthy): the op returns PK_ERR_UNSUPPORTED with a
 *    message ending "(injected)" and the context goes on. Counted on every
 *    context of the backend in this process, ctx's and those opened after
 *    (the tuner's own, which tests reach no other way): arm it while no
 *    other thread runs ops on any context. OpenCL only: elsewhere no
 *    launch is refused.
 *  - PK_INTERNAL_FAULT_OFF: disarms.
 * PK_ERR_UNSUPPORTED where the backend takes no injection. */
typedef enum pk_internal_fault_kind {
    PK_INTERNAL_FAULT_OFF = 0,
    PK_INTERNAL_FAULT_ALLOC,
    PK_INTERNAL_FAULT_DEVICE,
    PK_INTERNAL_FAULT_LAUNCH,
} pk_internal_fault_kind;
PK_API pk_status pk_internal_fault_inject(pk_context *ctx, pk_internal_fault_kind kind, int n);
/* Allocation sites ctx's ops reached since the plan was armed, and whether
 * the failing one (or the refused launch) was among them (both 0 when ctx
 * is not the armed one). */
PK_API pk_status pk_internal_fault_report(const pk_context *ctx, int *reached, int *fired);

/* The named kernel parameters of ctx's backend (OpenCL: one text request
 * a call, see backends/opencl/opencl_tuned.c): "list", "families",
 * "status", "get FAMILY", "set family.name=value,...", "default FAMILY",
 * "store FAMILY" (into the on-disk tuning cache), "reload". The answer
 * goes to reply (n bytes, NUL-terminated). PK_ERR_UNSUPPORTED where the
 * backend has none. For the tuner (pk_internal_tune) and its tests; call
 * it while no other thread runs ops on ctx. */
PK_API pk_status pk_internal_params(pk_context *ctx, const char *request, char *reply, size_t n);

/* The tuner (api/pk_tune.c, pk_tune_proc.c): searches kernel family
 * `family` of ctx's backend (a name pk_internal_params "families" lists)
 * for the fastest parameters whose results match the reference backend's,
 * starting from the values ctx has, for at most opts->seconds: the search
 * runs in a worker process (portkern-tune-worker, beside the library or in
 * $PORTKERN_MODULE_DIR) that is killed at the limit, so that a candidate
 * whose kernels are still building then is stopped, not waited for; the
 * best values found before are kept. Without a worker (none installed, or
 * PORTKERN_TUNE_WORKER=off) it runs on a context of its own in this
 * process, and a build under way at the limit runs to its end. Leaves the
 * winner set on ctx; with opts->store, also in the on-disk tuning cache,
 * which later contexts on the device load. report gets one line: the
 * starting and best times, candidates timed and refused, seconds taken,
 * the winner. Returns PK_ERR_UNSUPPORTED where the backend has no named
 * parameters, PK_ERR_INVALID_ARGUMENT for an unknown family, when every
 * candidate, the starting values included, was refused, or when none
 * finished within the limit (report says why; ctx is then unchanged). */
typedef struct pk_internal_tune_progress {
    const char *family;
    int tried, rejected;      /* candidates timed; refused (did not build or run, or off the reference) */
    double table_ms, best_ms; /* summed medians of the timed cases: starting values, best so far */
    double elapsed_s, limit_s;
} pk_internal_tune_progress;
typedef struct pk_internal_tune_opts {
    double seconds; /* > 0 */
    int store;
    void (*progress)(void *user, const pk_internal_tune_progress *p); /* after each candidate; may be NULL */
    void *user;
} pk_internal_tune_opts;
PK_API pk_status pk_internal_tune(pk_context *ctx, const char *family, const pk_internal_tune_opts *opts,
                                  char *report, size_t n);
/* A progress bar's cells[0..width): '#' for the share of p's limit that has
 * passed, '.' for the rest, then a terminating 0. */
PK_API void pk_internal_tune_bar(const pk_internal_tune_progress *p, int width, char *cells);
/* The worker process's side (tools/portkern_tune_worker.c is only this):
 * argv BACKEND INDEX FAMILY DEADLINE DEVICE-NAME START-SPEC PARENT-PID;
 * writes its events to stdout for pk_internal_tune. */
PK_API int pk_internal_tune_worker(int argc, char **argv);

#endif
