/* Graphs (pk_graph_*) on a CUDA-family backend: the context's stream
 * captured, then the instantiated graph launched on it. A graph holds the
 * addresses the recorded kernels were given: while one lives, no buffer of
 * the device that it may read is freed (an outgrown scratch is kept until
 * the last graph goes), and while recording, nothing that would need a
 * host copy or a new buffer is allowed (it would be baked into the graph
 * or freed under it): such a call fails and says what to do instead. */
#include <stdlib.h>

#include "gpu_vendor.h"

typedef struct pk_gpu_kept {
    pk_gpu_ptr mem;
    struct pk_gpu_kept *next;
} pk_gpu_kept;

pk_status PK_GPU_OP(graph_begin)(void *dev, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    if (s != PK_SUCCESS) return s;
    if (d->gpu.foreign_stream && !d->stream)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "the legacy default stream cannot be captured: open the context on a "
                                                "stream of its own or of the caller's");
    s = pk_gpu_check(pk_gpu_capture_begin(d), PK_GPU_CALL(cuStreamBeginCapture, hipStreamBeginCapture), msg);
    if (s == PK_SUCCESS) d->gpu.capturing = 1;
    return s;
}

pk_status PK_GPU_OP(graph_end)(void *dev, void **graph, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_gpu_graph exec = NULL;
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS)
        s = pk_gpu_check(pk_gpu_capture_end(d, &exec),
                         PK_GPU_CALL(cuStreamEndCapture/cuGraphInstantiate, hipStreamEndCapture/hipGraphInstantiate), msg);
    d->gpu.capturing = 0;
    if (s != PK_SUCCESS) return s;
    d->gpu.graphs++;
    *graph = (void *)exec;
    return PK_SUCCESS;
}

pk_status PK_GPU_OP(graph_launch)(void *dev, void *graph, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS)
        s = pk_gpu_check(pk_gpu_graph_launch(d, (pk_gpu_graph)graph), PK_GPU_CALL(cuGraphLaunch, hipGraphLaunch), msg);
    return s;
}

void PK_GPU_OP(graph_free)(void *dev, void *graph)
{
    pk_gpu_device *d = dev;
    pk_gpu_make_current(d);
    pk_gpu_graph_destroy((pk_gpu_graph)graph);
    if (--d->gpu.graphs == 0) PK_GPU_OP(kept_free)(d);
}

int PK_GPU_OP(keep)(pk_gpu_device *d, pk_gpu_ptr mem)
{
    if (!d->gpu.graphs) return 0;
    pk_gpu_kept *k = malloc(sizeof *k);
    if (!k) return -1;
    k->mem = mem;
    k->next = d->gpu.kept;
    d->gpu.kept = k;
    return 1;
}

void PK_GPU_OP(kept_free)(pk_gpu_device *d)
{
    if (d->gpu.kept) pk_gpu_stream_wait(d); /* a launched graph may still read them */
    while (d->gpu.kept) {
        pk_gpu_kept *k = d->gpu.kept;
        d->gpu.kept = k->next;
        pk_gpu_mem_free(k->mem);
        free(k);
    }
}
