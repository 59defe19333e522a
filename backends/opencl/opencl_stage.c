/* Host arrays of one call (RoPE positions, attention lengths) reach the
 * device without a host wait: each is copied into a staging block, written
 * with a non-blocking clEnqueueWriteBuffer, and the block is freed once
 * its write's event has completed (checked at later uploads, at finish and
 * at close). The in-order queue orders the write after earlier kernels
 * that read the same scratch. */
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "pk_fault.h"

struct pk_cl_staged {
    cl_event done;
    pk_cl_staged *next;
    unsigned char bytes[];
};

static int finished(cl_event e)
{
    cl_int st = CL_QUEUED;
    if (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) != CL_SUCCESS) return 1;
    return st <= CL_COMPLETE; /* complete, or terminated with an error */
}

void pk_cl_staged_reap(pk_cl_device *d, int wait)
{
    pk_cl_staged **at = &d->staged;
    while (*at) {
        pk_cl_staged *s = *at;
        if (wait) clWaitForEvents(1, &s->done);
        if (wait || finished(s->done)) {
            *at = s->next;
            clReleaseEvent(s->done);
            free(s);
        } else {
            at = &s->next;
        }
    }
}

pk_status pk_cl_upload_async(pk_cl_device *d, cl_mem dst, size_t off, const void *src, size_t n, const char *what,
                             pk_msg *msg)
{
    pk_cl_staged_reap(d, 0);
    int injected = pk_fault_alloc(d);
    pk_cl_staged *s = injected ? NULL : malloc(sizeof *s + n);
    if (!s) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory staging %s%s", what, injected ? " (injected)" : "");
    memcpy(s->bytes, src, n);
    cl_int err = clEnqueueWriteBuffer(d->queue, dst, CL_FALSE, off, n, s->bytes, 0, NULL, &s->done);
    if (err != CL_SUCCESS) {
        free(s);
        return pk_cl_check(err, what, msg);
    }
    s->next = d->staged;
    d->staged = s;
    return PK_SUCCESS;
}

pk_status pk_cl_copy_i32(pk_cl_device *d, const pk_view *v, cl_mem dst, size_t off, size_t n, const char *what,
                         pk_msg *msg)
{
    return pk_cl_check(clEnqueueCopyBuffer(d->queue, (cl_mem)v->mem, dst, (size_t)v->offset * sizeof(cl_int), off,
                                           n * sizeof(cl_int), 0, NULL, NULL),
                       what, msg);
}
