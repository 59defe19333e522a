/* The half of the reference backend that does not depend on the
 * accumulator type: the one CPU "device" and its host memory. Both
 * variants' interface tables point at these. */
#ifndef PK_REF_DEVICE_H
#define PK_REF_DEVICE_H

#include "backend.h"

pk_status pk_ref_init(pk_msg *why);
int pk_ref_device_count(void);
/* Fills info for the CPU under the given device name. */
void pk_ref_describe(int index, const char *name, pk_device_info *info);

pk_status pk_ref_open(int index, void *queue, void **dev, pk_msg *msg);
void pk_ref_close(void *dev);
pk_status pk_ref_finish(void *dev, pk_msg *msg);

pk_status pk_ref_alloc(void *dev, size_t bytes, pk_mem *mem, pk_msg *msg);
void pk_ref_free(void *dev, pk_mem mem);
pk_status pk_ref_wrap(void *dev, uintptr_t handle, size_t bytes, pk_mem *mem, pk_msg *msg);
void pk_ref_unwrap(void *dev, pk_mem mem);
pk_status pk_ref_upload(void *dev, pk_mem dst, size_t off, const void *src, size_t n,
                        pk_msg *msg);
pk_status pk_ref_download(void *dev, pk_mem src, size_t off, void *dst, size_t n,
                          pk_msg *msg);
pk_status pk_ref_copy(void *dev, pk_mem dst, size_t doff, pk_mem src, size_t soff, size_t n,
                      pk_msg *msg);
pk_status pk_ref_fill(void *dev, pk_mem dst, size_t off, size_t n, const void *pattern,
                      size_t pattern_size, pk_msg *msg);

/* ops run synchronously, so an event is the host clock when it is recorded */
pk_status pk_ref_event_record(void *dev, void **event, pk_msg *msg);
pk_status pk_ref_event_elapsed(void *dev, void *start, void *end, float *ms, pk_msg *msg);
void pk_ref_event_free(void *dev, void *event);
pk_status pk_ref_event_wait(void *dev, void *owner, void *event, pk_msg *msg);
pk_status pk_ref_event_sync(void *dev, void *event, pk_msg *msg);
pk_status pk_ref_index_rows(void *dev, const pk_index_problem *p, pk_msg *msg);

/* Fault injection (pk_fault.h): ref has no device to fault, so a device
 * fault is simulated by its next finish. */
struct pk_fault_plan;
pk_status pk_ref_fault_inject(void *dev, struct pk_fault_plan *plan, pk_msg *msg);

#endif /* PK_REF_DEVICE_H */
