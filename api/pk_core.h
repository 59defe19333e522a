/* The router's internal structures and helpers. */
#ifndef PK_CORE_H
#define PK_CORE_H

#include <stdarg.h>

#include "backend.h"
#include "portkern.h"

struct pk_context {
    const pk_backend_iface *be;
    void *dev;
    pk_device_info info;
    pk_status lost;       /* PK_SUCCESS, or the failure that made the context unusable */
    int recording;        /* between pk_graph_begin and pk_graph_end */
    char last_error[PK_MSG_MAX];
};

/* Records the message printf(fmt, ...) as the last error of ctx (or of
 * this thread when ctx is NULL) and returns status. */
pk_status pk_fail(pk_context *ctx, pk_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* PK_ERR_INVALID_ARGUMENT (with a message) when ctx is recording a graph:
 * for the calls that may not be recorded. */
pk_status pk_not_recording(pk_context *ctx, const char *fn);
/* Clears the message a successful call leaves behind. */
void pk_clear_error(pk_context *ctx);
/* Turns a backend's status + message into the context's error. A device
 * failure marks the context lost. */
pk_status pk_backend_result(pk_context *ctx, const char *fn, pk_status s, const pk_msg *msg);

/* Backend table for a kind, loading the module once; NULL with the reason. */
const pk_backend_iface *pk_registry_get(pk_backend kind, const char **why);
/* Where backend modules (and the tuner's worker) are looked for, in
 * order: $PORTKERN_MODULE_DIR, beside the core library, its portkern/
 * subdirectory. Returns how many of dirs it filled. */
#define PK_MODULE_DIRS 3
int pk_module_dirs(char dirs[PK_MODULE_DIRS][1024]);
const pk_backend_iface *pk_registry_ref_f32(void);

/* What backends may call up into (api/pk_autotune.c); the registry hands
 * it to each module it loads. */
extern const pk_core_hooks pk_core_hooks_of_core;

/* Disarms a test's fault plan armed on ctx (pk_close). */
void pk_fault_forget(const pk_context *ctx);

/* Opens device `index` of an explicit backend kind: on a queue of its own,
 * or (foreign) on the caller's `queue`, which may be NULL (the backend's
 * default stream: handed to the backend as PK_DEFAULT_QUEUE). */
pk_status pk_context_open(const pk_backend_iface *be, int index, void *queue, int foreign, pk_context **out);

/* Frees or unwraps a retired handle's memory, or frees its event, then
 * runs its on_release. */
struct pk_buf_rec;
void pk_release_record(const struct pk_buf_rec *r);

#endif
