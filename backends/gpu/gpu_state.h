/* What backends/gpu keeps in a device of either backend, beside what the
 * backend keeps itself. The backend's internal header names its driver's
 * types pk_gpu_ptr, pk_gpu_module and pk_gpu_result before it includes
 * this. */
#ifndef PK_GPU_STATE_H
#define PK_GPU_STATE_H

#include "pk_gpu_ew.h"
#include "pk_gpu_retire.h"
#include "pk_gpu_stage.h"

/* The kernel files' embedded code, as tools/embed.py writes it */
typedef struct pk_embedded_blob {
    const char *name;
    const unsigned char *data;
    size_t size;
} pk_embedded_blob;

typedef struct pk_gpu_state {
    struct pk_gpu_kernel *kernels; /* by index, those looked up so far (gpu_launch.c) */
    pk_gpu_ptr scratch;            /* grown on demand; the in-order stream makes reuse safe */
    size_t scratch_size;
    pk_gpu_ptr rope_tab; /* RoPE's tables, kept between calls (pk_gpu_rope_tables) */
    size_t rope_tab_size;
    pk_gpu_rope_tables rope;
    pk_gpu_module fault_module; /* pk_fault_store, loaded by a test's device fault only */
    pk_gpu_retired *retired;    /* outgrown buffers the stream may still read (gpu_memory.c) */
    pk_gpu_stage stage;         /* pinned ring the host arrays of ops are copied from (gpu_stage.c) */
    int foreign_stream;         /* the stream is the caller's (pk_open_on_queue): never destroyed */
    int capturing;              /* the stream is being recorded into a graph (gpu_graph.c) */
    int graphs;                 /* live graphs: they hold the addresses of the buffers below */
    struct pk_gpu_kept *kept;   /* outgrown buffers kept while a graph may still read them */
} pk_gpu_state;

/* Checks a driver result; on failure writes "what: ERROR_NAME: text".
 * Allocation failures give PK_ERR_OUT_OF_MEMORY, a missing or bad kernel
 * PK_ERR_INTERNAL, anything else (a sticky fault among them)
 * PK_ERR_DEVICE_FAILURE (gpu_device.c). */
pk_status pk_gpu_check(pk_gpu_result r, const char *what, pk_msg *msg);

#endif
