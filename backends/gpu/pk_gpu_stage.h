/* Page-locked staging for the small host arrays an op copies to the device
 * (attention lengths, RoPE positions). From pageable memory an async copy
 * may wait for the stream (the driver has to stage it somewhere before
 * returning); from pinned memory it is queued and returns. So the bytes go
 * to a pinned block first, handed out as a ring, and a region is handed out
 * again only once the copy that read it has completed (no host waits
 * inside an op). The runtime calls (CUDA driver, HIP) come in as
 * function pointers, so CUDA and HIP share this code and a test can fake
 * them. */
#ifndef PK_GPU_STAGE_H
#define PK_GPU_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

typedef struct pk_gpu_stage_fns {
    /* page-locked host memory */
    pk_status (*alloc)(void *dev, size_t bytes, void **host, pk_msg *msg);
    void (*free_host)(void *dev, void *host);
    /* queues a copy from pinned src to the device address dst on dev's stream */
    pk_status (*copy)(void *dev, uint64_t dst, const void *src, size_t bytes, pk_msg *msg);
    pk_status (*event_create)(void *dev, void **event, pk_msg *msg);
    /* (re-)records event on dev's stream after the work queued so far */
    pk_status (*event_record)(void *dev, void *event, pk_msg *msg);
    /* 1: completed; 0: not yet; -1: an error (taken as completed: a failed
     * stream reads nothing more) */
    int (*event_query)(void *event);
    pk_status (*event_wait)(void *dev, void *event, pk_msg *msg);
    void (*event_destroy)(void *dev, void *event);
    /* waits for dev's stream; only after a copy whose event failed */
    pk_status (*sync)(void *dev, pk_msg *msg);
} pk_gpu_stage_fns;

/* Copies the ring can follow at once: a decode step of a large model
 * uploads about two arrays per layer, and the host may run a few steps
 * ahead of the device before the ring makes it wait. */
#define PK_GPU_STAGE_SLOTS 256
/* Outgrown blocks still read by queued copies. */
#define PK_GPU_STAGE_OLD 4

typedef struct pk_gpu_stage_copy {
    void *event;   /* the slot's, created at its first use, kept until close */
    size_t off;    /* bytes [off, end) of the block the copy reads */
    size_t end;
    uint64_t seq;  /* 1, 2, ... in the order the copies were queued */
} pk_gpu_stage_copy;

typedef struct pk_gpu_stage {
    unsigned char *host;   /* the pinned block; NULL until the first copy */
    size_t size;
    uint64_t seq;          /* copies queued so far */
    uint64_t done;         /* copies known to have completed (in order: one stream) */
    uint64_t block_seq;    /* copies queued before `host` replaced the last block */
    unsigned first, count; /* pending copies, oldest first, in slot[first..] (mod SLOTS) */
    pk_gpu_stage_copy slot[PK_GPU_STAGE_SLOTS];
    struct {
        void *host;
        uint64_t last_seq; /* freed once this copy has completed */
    } old[PK_GPU_STAGE_OLD];
    int n_old;
} pk_gpu_stage;

/* Queues a copy of src[0..bytes) to the device address dst on dev's stream
 * through the pinned ring; src may be freed when this returns. The host
 * waits only when the ring is full (see pk_gpu_stage.c). */
pk_status pk_gpu_stage_copy_to(pk_gpu_stage *st, const pk_gpu_stage_fns *f, void *dev, uint64_t dst,
                               const void *src, size_t bytes, pk_msg *msg);

/* Hands back the regions (and frees the outgrown blocks) whose copies have
 * completed; all of them, after the caller waited for the stream, when
 * `all` is set. */
void pk_gpu_stage_reap(pk_gpu_stage *st, const pk_gpu_stage_fns *f, void *dev, int all);

/* Frees the blocks and events; the caller has waited for the stream. */
void pk_gpu_stage_free(pk_gpu_stage *st, const pk_gpu_stage_fns *f, void *dev);

#endif
