/* Wrapping the caller's memory, shared by pk_buffer_wrap and the DLPack
 * import (api/pk_foreign.c). */
#ifndef PK_FOREIGN_H
#define PK_FOREIGN_H

#include "pk_core.h"

/* A buffer of ctx over `bytes` of memory at native handle `handle`, which
 * portkern never frees; on_release(release_arg), if given, runs when the
 * buffer goes (pk_free, after ctx's queued work; or pk_close). Errors are
 * ctx's, named after fn. */
pk_status pk_wrap_memory(pk_context *ctx, const char *fn, uintptr_t handle, size_t bytes,
                         void (*on_release)(void *), void *release_arg, pk_buffer **out);

#endif
