/* The CPU device of the reference backend: memory is malloc'd host memory,
 * and every op runs to completion inside its call, so there is no queue. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* _SC_PHYS_PAGES */
#endif

#include "ref_device.h"

#include "pk_fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* open hands out this address as the device handle: ref keeps no state per
 * device, but a handle must not be NULL. */
static char pk_ref_the_device;

pk_status pk_ref_init(pk_msg *why)
{
    (void)why;
    return PK_SUCCESS;
}

int pk_ref_device_count(void) { return 1; }

static uint64_t pk_ref_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    return pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
}

void pk_ref_describe(int index, const char *name, pk_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->backend = PK_BACKEND_REF;
    info->index = index;
    snprintf(info->name, sizeof info->name, "%s", name);
    snprintf(info->vendor, sizeof info->vendor, "portkern");
    snprintf(info->driver, sizeof info->driver, "portkern %d.%d.%d", PK_VERSION_MAJOR,
             PK_VERSION_MINOR, PK_VERSION_PATCH);
    info->global_mem_bytes = pk_ref_physical_memory();
    info->compute_units = 1;
    info->simd_width = 1;
    info->is_cpu = 1;
}

/* ref runs every op before the call returns: there is no queue to take
 * (the router lets only NULL through) and nothing for an event to wait on */
pk_status pk_ref_open(int index, void *queue, void **dev, pk_msg *msg)
{
    (void)index;
    (void)queue;
    (void)msg;
    *dev = &pk_ref_the_device;
    return PK_SUCCESS;
}

void pk_ref_close(void *dev) { (void)dev; }

pk_status pk_ref_finish(void *dev, pk_msg *msg)
{
    if (pk_fault_device(dev))
        return pk_msgf(msg, PK_ERR_DEVICE_FAILURE, "ref: simulated device fault (injected)");
    return PK_SUCCESS;
}

pk_status pk_ref_alloc(void *dev, size_t bytes, pk_mem *mem, pk_msg *msg)
{
    (void)dev;
    *mem = malloc(bytes);
    if (!*mem)
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "ref: malloc of %zu bytes failed", bytes);
    return PK_SUCCESS;
}

void pk_ref_free(void *dev, pk_mem mem)
{
    (void)dev;
    free(mem);
}

/* Host memory is all ref has: any address is taken as it is */
pk_status pk_ref_wrap(void *dev, uintptr_t handle, size_t bytes, pk_mem *mem, pk_msg *msg)
{
    (void)dev;
    (void)bytes;
    if (!handle) return pk_msgf(msg, PK_ERR_NULL_ARGUMENT, "'handle' is NULL");
    *mem = (pk_mem)handle;
    return PK_SUCCESS;
}

void pk_ref_unwrap(void *dev, pk_mem mem)
{
    (void)dev;
    (void)mem;
}

pk_status pk_ref_upload(void *dev, pk_mem dst, size_t off, const void *src, size_t n,
                        pk_msg *msg)
{
    (void)dev;
    (void)msg;
    memcpy((char *)dst + off, src, n);
    return PK_SUCCESS;
}

pk_status pk_ref_download(void *dev, pk_mem src, size_t off, void *dst, size_t n,
                          pk_msg *msg)
{
    (void)dev;
    (void)msg;
    memcpy(dst, (const char *)src + off, n);
    return PK_SUCCESS;
}

pk_status pk_ref_copy(void *dev, pk_mem dst, size_t doff, pk_mem src, size_t soff, size_t n,
                      pk_msg *msg)
{
    (void)dev;
    (void)msg;
    /* memmove: the API allows source and destination to be the same range */
    memmove((char *)dst + doff, (const char *)src + soff, n);
    return PK_SUCCESS;
}

pk_status pk_ref_fill(void *dev, pk_mem dst, size_t off, size_t n, const void *pattern,
                      size_t pattern_size, pk_msg *msg)
{
    (void)dev;
    (void)msg;
    char *p = (char *)dst + off;
    if (pattern_size == 1) {
        memset(p, *(const unsigned char *)pattern, n);
        return PK_SUCCESS;
    }
    for (size_t i = 0; i + pattern_size <= n; i += pattern_size)
        memcpy(p + i, pattern, pattern_size);
    return PK_SUCCESS;
}

pk_status pk_ref_event_record(void *dev, void **event, pk_msg *msg)
{
    (void)dev;
    struct timespec *t = malloc(sizeof *t);
    if (!t) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");
    clock_gettime(CLOCK_MONOTONIC, t);
    *event = t;
    return PK_SUCCESS;
}

pk_status pk_ref_event_elapsed(void *dev, void *start, void *end, float *ms, pk_msg *msg)
{
    (void)dev;
    (void)msg;
    const struct timespec *a = start, *b = end;
    *ms = (float)((double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) * 1e-6);
    return PK_SUCCESS;
}

void pk_ref_event_free(void *dev, void *event)
{
    (void)dev;
    free(event);
}

pk_status pk_ref_event_wait(void *dev, void *owner, void *event, pk_msg *msg)
{
    (void)dev, (void)owner, (void)event, (void)msg;
    return PK_SUCCESS;
}

pk_status pk_ref_event_sync(void *dev, void *event, pk_msg *msg)
{
    (void)dev, (void)event, (void)msg;
    return PK_SUCCESS;
}

pk_status pk_ref_fault_inject(void *dev, struct pk_fault_plan *plan, pk_msg *msg)
{
    (void)dev;
    (void)msg;
    pk_fault_attach(plan);
    return PK_SUCCESS;
}
