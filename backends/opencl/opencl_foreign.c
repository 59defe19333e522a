/* The caller's OpenCL objects: a context opened on the caller's queue, the
 * caller's cl_mem as a buffer, and waits on events. Each object is
 * retained while portkern holds it and released after: a reference, never
 * the object's ownership. */
#include "opencl_internal.h"

pk_status pk_cl_adopt_queue(pk_cl_device *d, cl_command_queue queue, pk_msg *msg)
{
    cl_device_id dev = NULL;
    cl_context context = NULL;
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    if (err != CL_SUCCESS)
        return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "'queue' is not a cl_command_queue (clGetCommandQueueInfo: %d)",
                       (int)err);
    if (dev != d->device)
        return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "'queue' is a queue of another OpenCL device than %s",
                       d->info.name);
    clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL);
    clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    /* every op, copy and scratch reuse relies on the order of one queue */
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "'queue' runs out of order: portkern needs an in-order queue");
    if (!context) return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "'queue' has no cl_context");
    clRetainContext(context);
    clRetainCommandQueue(queue);
    d->context = context;
    d->queue = queue;
    d->profiling = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
    return PK_SUCCESS;
}

pk_status pk_cl_wrap(void *dev, uintptr_t handle, size_t bytes, pk_mem *mem, pk_msg *msg)
{
    pk_cl_device *d = dev;
    cl_mem m = (cl_mem)handle;
    cl_context context = NULL;
    cl_mem_object_type type = 0;
    size_t size = 0;
    if (!m) return pk_msgf(msg, PK_ERR_NULL_ARGUMENT, "'handle' is NULL");
    cl_int err = clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (err != CL_SUCCESS)
        return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "'handle' is not a cl_mem (clGetMemObjectInfo: %d)", (int)err);
    if (type != CL_MEM_OBJECT_BUFFER)
        return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "'handle' is a cl_mem image or pipe, not a buffer");
    clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof context, &context, NULL);
    if (context != d->context)
        return pk_msgf(msg, PK_ERR_WRONG_CONTEXT,
                       "'handle' is a cl_mem of another cl_context than the context's (open the context on a "
                       "queue of the memory's cl_context: pk_open_on_queue)");
    clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (bytes > size)
        return pk_msgf(msg, PK_ERR_OUT_OF_BOUNDS, "'bytes' %zu is more than the cl_mem's %zu", bytes, size);
    clRetainMemObject(m);
    *mem = m;
    return PK_SUCCESS;
}

void pk_cl_unwrap(void *dev, pk_mem mem)
{
    clReleaseMemObject((cl_mem)mem);
    pk_cl_args_forget(dev);
}

pk_status pk_cl_event_wait(void *dev, void *owner, void *event, pk_msg *msg)
{
    pk_cl_device *d = dev, *o = owner;
    cl_event ev = event;
    if (o->context != d->context)
        return pk_msgf(msg, PK_ERR_WRONG_CONTEXT,
                       "the event is of another cl_context: OpenCL waits only on events of its own "
                       "(open both contexts on queues of one cl_context)");
    return pk_cl_check(clEnqueueBarrierWithWaitList(d->queue, 1, &ev, NULL), "clEnqueueBarrierWithWaitList", msg);
}

pk_status pk_cl_event_sync(void *dev, void *event, pk_msg *msg)
{
    (void)dev;
    cl_event ev = event;
    cl_int st = CL_COMPLETE;
    pk_status s = pk_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents", msg);
    if (s == PK_SUCCESS)
        s = pk_cl_check(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL),
                        "clGetEventInfo", msg);
    if (s == PK_SUCCESS && st < 0)
        return pk_msgf(msg, PK_ERR_DEVICE_FAILURE, "queued work before the event failed (status %d)", (int)st);
    return s;
}
