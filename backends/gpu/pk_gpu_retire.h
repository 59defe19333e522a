/* Device buffers the stream may still read, freed once the stream has
 * passed the point where they were retired: a scratch buffer that grows is
 * replaced without the host waiting for the work queued before (no host
 * waits inside an op). The runtime calls (CUDA driver, HIP) come in as
 * function pointers, so CUDA and HIP share this code. */
#ifndef PK_GPU_RETIRE_H
#define PK_GPU_RETIRE_H

#include <stdint.h>

typedef struct pk_gpu_retire_fns {
    /* an event recorded on dev's stream after the work queued so far; 0 ok */
    int (*record)(void *dev, void **event);
    /* 1: the event has completed; 0: not yet; -1: an error (treated as done) */
    int (*query)(void *event);
    void (*destroy)(void *event);
    void (*free_mem)(void *dev, uintptr_t mem);
} pk_gpu_retire_fns;

typedef struct pk_gpu_retired {
    uintptr_t mem;
    void *event;
    struct pk_gpu_retired *next;
} pk_gpu_retired;

/* Frees mem once dev's stream passes this point, and returns 0. Without
 * memory for the record, or when f->record fails, returns -1 and frees
 * nothing: the caller then waits for the stream and frees mem itself. */
int pk_gpu_retire(pk_gpu_retired **list, const pk_gpu_retire_fns *f, void *dev, uintptr_t mem);
/* Frees the retired buffers whose event has completed; all of them, after
 * the caller waited for the stream, when `all` is set. */
void pk_gpu_reap(pk_gpu_retired **list, const pk_gpu_retire_fns *f, void *dev, int all);

#endif
