/* The process-wide table of live buffers. A pk_buffer pointer is a handle
 * (slot index and generation), never an address: a freed or never
 * allocated handle is recognised without reading freed memory, and a slot
 * reused by a later pk_alloc gets a new generation, so a stale handle stays
 * dead. Every function takes the table's lock: buffers may be allocated,
 * looked up and freed from any thread. */
#ifndef PK_HANDLES_H
#define PK_HANDLES_H

#include "pk_core.h"

typedef struct pk_buf_rec {
    pk_context *ctx;
    pk_mem mem;
    size_t size;
} pk_buf_rec;

/* A new handle for rec; NULL when the host is out of memory. */
pk_buffer *pk_handle_add(const pk_buf_rec *rec);

/* 1 and *rec when h is live, else 0 (rec untouched). */
int pk_handle_get(const pk_buffer *h, pk_buf_rec *rec);

/* Retires h: 1 and its record when it was live, else 0. */
int pk_handle_remove(const pk_buffer *h, pk_buf_rec *rec);

/* Retires every live handle of ctx, handing each record to release. */
void pk_handle_remove_all(const pk_context *ctx, void (*release)(const pk_buf_rec *rec));

#endif
