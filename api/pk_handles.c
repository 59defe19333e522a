/* Buffer handles: value = generation << 32 | (slot + 1). Slots live in
 * fixed chunks that never move, so growing the table does not invalidate
 * records; freed slots are reused last-in first-out with the next
 * generation (generations wrap after 2^32 reuses of one slot). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "pk_handles.h"

#define CHUNK 1024u
#define MAX_SLOTS 0x7fffffffu

typedef struct slot {
    pk_buf_rec rec;
    uint32_t gen;     /* of the live handle, or of the next one when free */
    uint32_t live;
    uint32_t next_free;
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot **chunks;
static uint32_t n_chunks, n_slots, free_head = UINT32_MAX;

static slot *at(uint32_t i) { return &chunks[i / CHUNK][i % CHUNK]; }

static pk_buffer *encode(uint32_t i, uint32_t gen)
{
    return (pk_buffer *)(uintptr_t)(((uint64_t)gen << 32) | ((uint64_t)i + 1));
}

/* The live slot of h holding a record of that kind, or NULL; the caller
 * holds the lock. */
static slot *find(const void *h, int kind)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t i = (uint32_t)v, gen = (uint32_t)(v >> 32);
    if (i == 0 || i > n_slots) return NULL;
    slot *s = at(i - 1);
    return s->live && s->gen == gen && s->rec.kind == kind ? s : NULL;
}

static int grow(void)
{
    if (n_slots > MAX_SLOTS - CHUNK) return 0;
    slot **c = realloc(chunks, (n_chunks + 1) * sizeof *c);
    if (!c) return 0;
    chunks = c;
    slot *fresh = calloc(CHUNK, sizeof *fresh);
    if (!fresh) return 0;
    chunks[n_chunks++] = fresh;
    for (uint32_t k = CHUNK; k-- > 0;) {
        fresh[k].gen = 1;
        fresh[k].next_free = free_head;
        free_head = n_slots + k;
    }
    n_slots += CHUNK;
    return 1;
}

pk_buffer *pk_handle_add(const pk_buf_rec *rec)
{
    pthread_mutex_lock(&lock);
    pk_buffer *h = NULL;
    if (free_head != UINT32_MAX || grow()) {
        uint32_t i = free_head;
        slot *s = at(i);
        free_head = s->next_free;
        s->rec = *rec;
        s->live = 1;
        h = encode(i, s->gen);
    }
    pthread_mutex_unlock(&lock);
    return h;
}

int pk_handle_get_kind(const void *h, int kind, pk_buf_rec *rec)
{
    pthread_mutex_lock(&lock);
    slot *s = find(h, kind);
    if (s) *rec = s->rec;
    pthread_mutex_unlock(&lock);
    return s != NULL;
}

int pk_handle_get(const pk_buffer *h, pk_buf_rec *rec) { return pk_handle_get_kind(h, PK_REC_BUFFER, rec); }

static void retire(slot *s, uint32_t i)
{
    s->live = 0;
    s->gen = s->gen == UINT32_MAX ? 1 : s->gen + 1;
    s->next_free = free_head;
    free_head = i;
}

int pk_handle_remove_kind(const void *h, int kind, pk_buf_rec *rec)
{
    pthread_mutex_lock(&lock);
    slot *s = find(h, kind);
    if (s) {
        *rec = s->rec;
        retire(s, (uint32_t)(uintptr_t)h - 1);
    }
    pthread_mutex_unlock(&lock);
    return s != NULL;
}

int pk_handle_remove(const pk_buffer *h, pk_buf_rec *rec) { return pk_handle_remove_kind(h, PK_REC_BUFFER, rec); }

void pk_handle_remove_all(const pk_context *ctx, void (*release)(const pk_buf_rec *rec))
{
    /* Released after the lock is dropped: a device's free must not stall
     * other threads' lookups, and a release may call back into portkern (a
     * DLPack deleter that frees another context's import). Without memory
     * for the list, one record at a time. */
    pthread_mutex_lock(&lock);
    uint32_t n = 0;
    for (uint32_t i = 0; i < n_slots; i++) n += at(i)->live && at(i)->rec.ctx == ctx;
    pk_buf_rec *gone = n ? malloc(n * sizeof *gone) : NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n_slots; i++) {
        slot *s = at(i);
        if (!s->live || s->rec.ctx != ctx) continue;
        if (!gone) {
            pk_buf_rec one = s->rec;
            retire(s, i);
            pthread_mutex_unlock(&lock);
            release(&one);
            pthread_mutex_lock(&lock);
            continue;
        }
        gone[k++] = s->rec;
        retire(s, i);
    }
    pthread_mutex_unlock(&lock);
    for (uint32_t i = 0; i < k; i++) release(&gone[i]);
    free(gone);
}
