/* Entry points for portkern's own tools (conformance suite, bench); not part
 * of the public API and may change without notice. */
#ifndef PK_INTERNAL_H
#define PK_INTERNAL_H

#include "portkern.h"

/* Opens the reference backend in its same-precision variant: inputs in
 * their dtype, f32 accumulation, outputs rounded to their dtype. The
 * conformance suite measures each dtype's own error with it. */
PK_API pk_status pk_internal_open_ref_f32(pk_context **out);

/* Timing for the bench: an event is a point on the context's queue after
 * all work queued before it. elapsed waits for `end`. */
typedef struct pk_event pk_event;
PK_API pk_status pk_internal_event_record(pk_context *ctx, pk_event **out);
PK_API pk_status pk_internal_event_elapsed(pk_event *start, pk_event *end, float *ms);
PK_API void pk_internal_event_free(pk_event *event);

/* The backend's handle of a buffer's memory (CUdeviceptr on CUDA, cl_mem on
 * OpenCL, a host pointer on ref), so that the bench can hand the same
 * memory to the vendor's library. */
PK_API uintptr_t pk_internal_buffer_handle(const pk_buffer *buf);
/* The context's native queue (CUstream, cl_command_queue), or NULL. */
PK_API void *pk_internal_native_queue(const pk_context *ctx);

#endif
