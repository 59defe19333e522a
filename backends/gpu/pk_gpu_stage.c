#include <string.h>

#include "pk_fault.h"
#include "pk_gpu_stage.h"

/* Most ops never stage anything, and the arrays that are staged are a few
 * bytes per batch row or token: 64 KiB holds thousands of them. */
#define FIRST_BLOCK ((size_t)64 << 10)
/* Each region starts on a cache line, so the host's writes to one region
 * never share a line with a region the device is reading. */
#define ALIGN ((size_t)64)

static pk_gpu_stage_copy *oldest(pk_gpu_stage *st) { return &st->slot[st->first]; }

static void free_finished_blocks(pk_gpu_stage *st, const pk_gpu_stage_fns *f, void *dev)
{
    int kept = 0;
    for (int i = 0; i < st->n_old; i++) {
        if (st->old[i].last_seq <= st->done) f->free_host(dev, st->old[i].host);
        else st->old[kept++] = st->old[i];
    }
    st->n_old = kept;
}

static void pop_oldest(pk_gpu_stage *st)
{
    st->done = oldest(st)->seq;
    st->first = (st->first + 1) % PK_GPU_STAGE_SLOTS;
    st->count--;
}

void pk_gpu_stage_reap(pk_gpu_stage *st, const pk_gpu_stage_fns *f, void *dev, int all)
{
    /* one stream: copies complete in the order they were queued, so the
     * first one still running ends the scan */
    while (st->count && (all || f->event_query(oldest(st)->event) != 0)) pop_oldest(st);
    if (all) st->done = st->seq;
    free_finished_blocks(st, f, dev);
}

static pk_status wait_oldest(pk_gpu_stage *st, const pk_gpu_stage_fns *f, void *dev, pk_msg *msg)
{
    pk_status s = f->event_wait(dev, oldest(st)->event, msg);
    if (s != PK_SUCCESS) return s;
    pop_oldest(st);
    free_finished_blocks(st, f, dev);
    return PK_SUCCESS;
}

/* Where `need` bytes fit in the current block beside its pending copies.
 * Regions are handed out in order, so the free space runs from the end of
 * the newest region to the start of the oldest, around the block's end. */
static int place(const pk_gpu_stage *st, size_t need, size_t *off)
{
    unsigned i = 0; /* skips copies that read outgrown blocks: they come first */
    while (i < st->count && st->slot[(st->first + i) % PK_GPU_STAGE_SLOTS].seq <= st->block_seq) i++;
    if (i == st->count) {
        *off = 0;
        return need <= st->size;
    }
    size_t head = st->slot[(st->first + i) % PK_GPU_STAGE_SLOTS].off;
    size_t tail = st->slot[(st->first + st->count - 1) % PK_GPU_STAGE_SLOTS].end;
    if (head < tail) {
        if (need <= st->size - tail) *off = tail;
        else if (need <= head) *off = 0; /* the gap at the end stays unused until the ring passes it */
        else return 0;
        return 1;
    }
    if (need > head - tail) return 0;
    *off = tail;
    return 1;
}

/* A block holds at least four regions of the largest request seen, so a
 * run of large uploads overlaps instead of waiting on one another. The new
 * block is in hand before the old one is let go: a failure leaves the ring
 * as it was. */
static pk_status grow(pk_gpu_stage *st, const pk_gpu_stage_fns *f, void *dev, size_t need, pk_msg *msg)
{
    size_t want = st->size ? st->size * 2 : FIRST_BLOCK;
    while (want / 4 < need) {
        if (want > SIZE_MAX / 2)
            return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "pinned staging for %zu bytes: too large", need);
        want *= 2;
    }
    int busy = st->host && st->block_seq != st->seq && st->done < st->seq;
    if (busy && st->n_old == PK_GPU_STAGE_OLD) {
        /* each outgrown block is at most half the next, so this takes a
         * burst of growth far ahead of the device */
        uint64_t until = st->old[0].last_seq;
        while (st->done < until) {
            pk_status s = wait_oldest(st, f, dev, msg);
            if (s != PK_SUCCESS) return s;
        }
        busy = st->done < st->seq;
    }
    if (pk_fault_alloc(dev))
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "pinned staging block of %zu bytes: out of memory (injected)", want);
    void *block = NULL;
    pk_status s = f->alloc(dev, want, &block, msg);
    if (s != PK_SUCCESS) return s;
    if (busy) {
        st->old[st->n_old].host = st->host;
        st->old[st->n_old++].last_seq = st->seq;
    } else if (st->host) {
        f->free_host(dev, st->host);
    }
    st->host = block;
    st->size = want;
    st->block_seq = st->seq;
    return PK_SUCCESS;
}

pk_status pk_gpu_stage_copy_to(pk_gpu_stage *st, const pk_gpu_stage_fns *f, void *dev, uint64_t dst,
                               const void *src, size_t bytes, pk_msg *msg)
{
    if (!bytes) return PK_SUCCESS;
    if (bytes > SIZE_MAX / 8)
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "pinned staging for %zu bytes: too large", bytes);
    size_t need = (bytes + ALIGN - 1) & ~(ALIGN - 1);
    pk_gpu_stage_reap(st, f, dev, 0);
    pk_status s;
    if (!st->host || need > st->size / 4) {
        s = grow(st, f, dev, need, msg);
        if (s != PK_SUCCESS) return s;
    }
    /* The one wait: every region (or every slot) is held by a copy still
     * queued. That takes the host a whole block, or PK_GPU_STAGE_SLOTS
     * copies, ahead of the device, so the device has plenty queued and
     * waiting costs it nothing; and the wait is for the oldest copy,
     * which the work already queued before it bounds. */
    size_t off = 0;
    while (st->count == PK_GPU_STAGE_SLOTS || !place(st, need, &off)) {
        s = wait_oldest(st, f, dev, msg);
        if (s != PK_SUCCESS) return s;
    }
    pk_gpu_stage_copy *c = &st->slot[(st->first + st->count) % PK_GPU_STAGE_SLOTS];
    /* created before the copy: if that fails, nothing was queued */
    if (!c->event) {
        s = f->event_create(dev, &c->event, msg);
        if (s != PK_SUCCESS) {
            c->event = NULL;
            return s;
        }
    }
    memcpy(st->host + off, src, bytes);
    s = f->copy(dev, dst, st->host + off, bytes, msg);
    if (s != PK_SUCCESS) return s;
    s = f->event_record(dev, c->event, msg);
    if (s != PK_SUCCESS) {
        /* a queued copy nothing follows: its region is free only once the
         * stream has passed it */
        pk_msg ignored;
        f->sync(dev, &ignored);
        return s;
    }
    c->off = off;
    c->end = off + need;
    c->seq = ++st->seq;
    st->count++;
    return PK_SUCCESS;
}

void pk_gpu_stage_free(pk_gpu_stage *st, const pk_gpu_stage_fns *f, void *dev)
{
    for (int i = 0; i < PK_GPU_STAGE_SLOTS; i++)
        if (st->slot[i].event) f->event_destroy(dev, st->slot[i].event);
    for (int i = 0; i < st->n_old; i++) f->free_host(dev, st->old[i].host);
    if (st->host) f->free_host(dev, st->host);
    memset(st, 0, sizeof *st);
}
