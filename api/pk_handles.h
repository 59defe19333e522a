/* The process-wide table of live buffers, events and graphs. A
 * pk_buffer, pk_event or pk_graph pointer is a handle
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
    int wrapped;                 /* the caller's memory: released with unwrap, never freed */
    void (*on_release)(void *);  /* called with release_arg when the handle goes (a DLPack deleter) */
    void *release_arg;
    int kind;                    /* PK_REC_BUFFER, PK_REC_EVENT, PK_REC_GRAPH */
    void *object;                /* an event's or a graph's backend handle */
} pk_buf_rec;

enum { PK_REC_BUFFER = 0, PK_REC_EVENT, PK_REC_GRAPH };

/* A new handle for rec; NULL when the host is out of memory. */
pk_buffer *pk_handle_add(const pk_buf_rec *rec);

/* 1 and *rec when h is a live buffer (a handle of another kind is not),
 * else 0 (rec untouched). */
int pk_handle_get(const pk_buffer *h, pk_buf_rec *rec);
/* 1 and *rec when h is a live handle of that kind, else 0. */
int pk_handle_get_kind(const void *h, int kind, pk_buf_rec *rec);

/* *r is the record of b, a live buffer; else the failure (NULL, or not
 * live), named after fn and the argument's name, as the thread's error. */
pk_status pk_check_buffer(const char *fn, const char *name, const pk_buffer *b, pk_buf_rec *r);

/* Retires h: 1 and its record when it was a live buffer (a handle of
 * another kind: 0, untouched), else 0. */
int pk_handle_remove(const pk_buffer *h, pk_buf_rec *rec);
int pk_handle_remove_kind(const void *h, int kind, pk_buf_rec *rec);

/* Retires every live handle of ctx, of every kind, handing each record to
 * release. */
void pk_handle_remove_all(const pk_context *ctx, void (*release)(const pk_buf_rec *rec));

#endif
