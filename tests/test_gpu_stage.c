/* The pinned staging ring (backends/gpu/pk_gpu_stage.c) on a fake
 * device: a stream that runs only when the test says so, events, pinned
 * blocks that remember who reads them. A copy is carried out when the
 * stream reaches it, from the pinned bytes as they are then, so a region
 * handed out again too early shows up as wrong data on the device. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pk_fault.h"
#include "pk_gpu_stage.h"

#include "unit_check.h"

typedef struct fake_event {
    int done;
} fake_event;

typedef struct fake_op {
    fake_event *event; /* NULL: a copy */
    uint64_t dst;
    const unsigned char *src;
    size_t n;
} fake_op;

enum { DEVICE_BYTES = 4 << 20, MAX_OPS = 4096, MAX_BLOCKS = 16 };

typedef struct fake_device {
    unsigned char mem[DEVICE_BYTES];
    fake_op ops[MAX_OPS];
    int n_ops, ran; /* queued so far; run so far */
    struct {
        unsigned char *p;
        size_t size;
    } blocks[MAX_BLOCKS];
    int n_blocks, allocs, events;
    int waits, syncs;
    int fail_alloc, fail_copy, fail_create, fail_record, fail_wait;
    int bad_source, early_reuse, early_free; /* the ring's mistakes */
    const unsigned char *last_src;
} fake_device;

static fake_device dev;

static void reset(void) { memset(&dev, 0, sizeof dev); }

static int in_block(const unsigned char *p, size_t n)
{
    for (int i = 0; i < dev.n_blocks; i++)
        if (p >= dev.blocks[i].p && p + n <= dev.blocks[i].p + dev.blocks[i].size) return 1;
    return 0;
}

/* Runs the stream up to `until` ops. */
static void run_to(int until)
{
    for (; dev.ran < until && dev.ran < dev.n_ops; dev.ran++) {
        fake_op *o = &dev.ops[dev.ran];
        if (o->event) o->event->done = 1;
        else memcpy(dev.mem + o->dst, o->src, o->n);
    }
}

static void run_copies(int copies)
{
    int until = dev.ran;
    while (copies > 0 && until < dev.n_ops)
        if (!dev.ops[until++].event) copies--;
    while (until < dev.n_ops && dev.ops[until].event) until++; /* and the event after the last copy */
    run_to(until);
}

static int pending_reads(const unsigned char *p, size_t n)
{
    for (int i = dev.ran; i < dev.n_ops; i++) {
        const fake_op *o = &dev.ops[i];
        if (!o->event && o->src < p + n && p < o->src + o->n) return 1;
    }
    return 0;
}

static pk_status f_alloc(void *d, size_t bytes, void **host, pk_msg *msg)
{
    CHECK(d == &dev);
    if (dev.fail_alloc || dev.n_blocks == MAX_BLOCKS)
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "fake cuMemHostAlloc: out of memory");
    unsigned char *p = malloc(bytes);
    if (!p) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "malloc");
    dev.blocks[dev.n_blocks].p = p;
    dev.blocks[dev.n_blocks++].size = bytes;
    dev.allocs++;
    *host = p;
    return PK_SUCCESS;
}

static void f_free_host(void *d, void *host)
{
    (void)d;
    for (int i = 0; i < dev.n_blocks; i++)
        if (dev.blocks[i].p == host) {
            if (pending_reads(host, dev.blocks[i].size)) dev.early_free++;
            free(host);
            dev.blocks[i] = dev.blocks[--dev.n_blocks];
            return;
        }
    CHECK(!"freed a block that was not allocated");
}

static pk_status f_copy(void *d, uint64_t dst, const void *src, size_t bytes, pk_msg *msg)
{
    (void)d;
    if (dev.fail_copy) return pk_msgf(msg, PK_ERR_DEVICE_FAILURE, "fake cuMemcpyHtoDAsync failed");
    if (!in_block(src, bytes)) dev.bad_source++;
    /* the ring wrote src before this call: a queued copy must not read it */
    if (pending_reads(src, bytes)) dev.early_reuse++;
    dev.ops[dev.n_ops++] = (fake_op){NULL, dst, src, bytes};
    dev.last_src = src;
    return PK_SUCCESS;
}

static pk_status f_event_create(void *d, void **event, pk_msg *msg)
{
    (void)d;
    if (dev.fail_create) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "fake cuEventCreate failed");
    *event = calloc(1, sizeof(fake_event));
    dev.events++;
    return PK_SUCCESS;
}

static pk_status f_event_record(void *d, void *event, pk_msg *msg)
{
    (void)d;
    if (dev.fail_record) return pk_msgf(msg, PK_ERR_DEVICE_FAILURE, "fake cuEventRecord failed");
    fake_event *e = event;
    e->done = 0;
    dev.ops[dev.n_ops++] = (fake_op){e, 0, NULL, 0};
    return PK_SUCCESS;
}

static int f_event_query(void *event) { return ((fake_event *)event)->done; }

static pk_status f_event_wait(void *d, void *event, pk_msg *msg)
{
    (void)d;
    dev.waits++;
    if (dev.fail_wait) return pk_msgf(msg, PK_ERR_DEVICE_FAILURE, "fake cuEventSynchronize: illegal address");
    fake_event *e = event;
    while (!e->done && dev.ran < dev.n_ops) run_to(dev.ran + 1);
    CHECK(e->done);
    return PK_SUCCESS;
}

static void f_event_destroy(void *d, void *event)
{
    (void)d;
    free(event);
    dev.events--;
}

static pk_status f_sync(void *d, pk_msg *msg)
{
    (void)d;
    (void)msg;
    dev.syncs++;
    run_to(dev.n_ops);
    return PK_SUCCESS;
}

static const pk_gpu_stage_fns fns = {f_alloc,       f_free_host,      f_copy,          f_event_create, f_event_record,
                                     f_event_query, f_event_wait,     f_event_destroy, f_sync};

static pk_gpu_stage st;
static pk_msg msg;

/* Stages `n` bytes of the pattern `tag` to device address dst. */
static pk_status put(uint64_t dst, size_t n, unsigned char tag)
{
    unsigned char *src = malloc(n);
    for (size_t i = 0; i < n; i++) src[i] = (unsigned char)(tag + i * 7);
    msg.text[0] = 0;
    pk_status s = pk_gpu_stage_copy_to(&st, &fns, &dev, dst, src, n, &msg);
    memset(src, 0xEE, n); /* the caller may reuse its array at once */
    free(src);
    return s;
}

static int landed(uint64_t dst, size_t n, unsigned char tag)
{
    for (size_t i = 0; i < n; i++)
        if (dev.mem[dst + i] != (unsigned char)(tag + i * 7)) return 0;
    return 1;
}

static void finish_and_close(void)
{
    f_sync(&dev, &msg);
    pk_gpu_stage_free(&st, &fns, &dev);
    CHECK(dev.n_blocks == 0);
    CHECK(dev.events == 0);
    CHECK(dev.bad_source == 0 && dev.early_reuse == 0 && dev.early_free == 0);
}

/* Nothing waits while regions are free; the data arrives as it was when
 * the call returned. */
static void no_wait(void)
{
    reset();
    CHECK(put(0, 100, 1) == PK_SUCCESS);
    CHECK(put(4096, 8, 2) == PK_SUCCESS);
    CHECK(put(8192, 3000, 3) == PK_SUCCESS);
    CHECK(dev.allocs == 1 && dev.blocks[0].size == 64 << 10);
    CHECK(dev.waits == 0 && dev.syncs == 0 && dev.ran == 0);
    CHECK(pk_gpu_stage_copy_to(&st, &fns, &dev, 0, NULL, 0, &msg) == PK_SUCCESS); /* nothing to copy */
    run_to(dev.n_ops);
    CHECK(landed(0, 100, 1) && landed(4096, 8, 2) && landed(8192, 3000, 3));
    finish_and_close();
}

/* A full ring waits for its oldest copy only, then takes its region. */
static void full_ring(void)
{
    reset();
    for (int i = 0; i < 64; i++) CHECK(put((uint64_t)i * 1024, 1024, (unsigned char)i) == PK_SUCCESS);
    CHECK(dev.waits == 0 && dev.ran == 0);
    unsigned char *base = dev.blocks[0].p;
    CHECK(put(64 * 1024, 1000, 200) == PK_SUCCESS);
    CHECK(dev.waits == 1);
    CHECK(dev.last_src == base);
    CHECK(dev.ran == 2); /* the oldest copy and its event, nothing more */
    run_to(dev.n_ops);
    for (int i = 0; i < 64; i++) CHECK(landed((uint64_t)i * 1024, 1024, (unsigned char)i));
    CHECK(landed(64 * 1024, 1000, 200));
    finish_and_close();
}

/* Completed regions at the start are reused once the end is taken. */
static void wrap_around(void)
{
    reset();
    for (int i = 0; i < 60; i++) CHECK(put((uint64_t)i * 1024, 1024, (unsigned char)i) == PK_SUCCESS);
    unsigned char *base = dev.blocks[0].p;
    run_copies(4);
    for (int i = 60; i < 64; i++) {
        CHECK(put((uint64_t)i * 1024, 1024, (unsigned char)i) == PK_SUCCESS);
        CHECK(dev.last_src == base + (size_t)i * 1024);
    }
    for (int i = 64; i < 68; i++) {
        CHECK(put((uint64_t)i * 1024, 1024, (unsigned char)i) == PK_SUCCESS);
        CHECK(dev.last_src == base + (size_t)(i - 64) * 1024);
    }
    CHECK(dev.waits == 0);
    /* the fifth region is still read by the fifth copy */
    int ran = dev.ran;
    CHECK(put(68 * 1024, 1024, 68) == PK_SUCCESS);
    CHECK(dev.waits == 1 && dev.ran == ran + 2);
    CHECK(dev.last_src == base + 4 * 1024);
    /* a larger request waits for as many of the oldest as it needs */
    CHECK(put(80 * 1024, 10000, 9) == PK_SUCCESS);
    CHECK(dev.waits == 11 && dev.last_src == base + 5 * 1024);
    run_to(dev.n_ops);
    for (int i = 0; i < 69; i++) CHECK(landed((uint64_t)i * 1024, 1024, (unsigned char)i));
    CHECK(landed(80 * 1024, 10000, 9));
    CHECK(dev.allocs == 1);
    finish_and_close();
}

/* Every slot taken by tiny copies: the oldest is waited for. */
static void slots_full(void)
{
    reset();
    for (int i = 0; i < PK_GPU_STAGE_SLOTS; i++) CHECK(put((uint64_t)i * 8, 4, (unsigned char)i) == PK_SUCCESS);
    CHECK(dev.waits == 0);
    CHECK(put(PK_GPU_STAGE_SLOTS * 8, 4, 77) == PK_SUCCESS);
    CHECK(dev.waits == 1 && dev.ran == 2);
    CHECK(dev.events == PK_GPU_STAGE_SLOTS); /* events are kept and re-recorded */
    run_to(dev.n_ops);
    for (int i = 0; i < PK_GPU_STAGE_SLOTS; i++) CHECK(landed((uint64_t)i * 8, 4, (unsigned char)i));
    CHECK(landed(PK_GPU_STAGE_SLOTS * 8, 4, 77));
    finish_and_close();
}

/* A large request replaces the block; the old one lives until the copies
 * that read it have completed. */
static void growth(void)
{
    reset();
    CHECK(put(0, 1024, 1) == PK_SUCCESS);
    unsigned char *first = dev.blocks[0].p;
    CHECK(put(4096, 40000, 2) == PK_SUCCESS); /* more than a quarter of 64 KiB */
    CHECK(dev.allocs == 2 && dev.n_blocks == 2 && dev.waits == 0);
    CHECK(dev.blocks[1].size >= 4 * 40000 && dev.last_src == dev.blocks[1].p);
    CHECK(put(65536, 1 << 20, 3) == PK_SUCCESS); /* larger than the whole block */
    CHECK(dev.allocs == 3 && dev.n_blocks == 3 && dev.waits == 0);
    run_copies(1);
    CHECK(put(2048, 16, 4) == PK_SUCCESS); /* the first block's copy completed: freed */
    CHECK(dev.n_blocks == 2 && !in_block(first, 1));
    run_to(dev.n_ops);
    pk_gpu_stage_reap(&st, &fns, &dev, 0);
    CHECK(dev.n_blocks == 1);
    CHECK(landed(0, 1024, 1) && landed(4096, 40000, 2) && landed(65536, 1 << 20, 3) && landed(2048, 16, 4));
    finish_and_close();

    /* growth far ahead of the device: the oldest outgrown block is waited for */
    reset();
    CHECK(put(0, 1024, 0) == PK_SUCCESS);
    for (int i = 0; i <= PK_GPU_STAGE_OLD; i++) {
        CHECK(dev.waits == 0);
        CHECK(put(0, ((size_t)16 << 10 << i) + 64, (unsigned char)i) == PK_SUCCESS);
    }
    CHECK(dev.waits == 1);
    CHECK(dev.n_blocks == PK_GPU_STAGE_OLD + 1);
    finish_and_close();

    /* a block grown with nothing pending goes at once; reap(all) after a
     * wait for the stream frees what is left */
    reset();
    CHECK(put(0, 1024, 1) == PK_SUCCESS);
    run_to(dev.n_ops);
    CHECK(put(0, 30000, 2) == PK_SUCCESS);
    CHECK(dev.n_blocks == 1);
    CHECK(put(0, 200000, 3) == PK_SUCCESS);
    CHECK(dev.n_blocks == 2);
    f_sync(&dev, &msg);
    pk_gpu_stage_reap(&st, &fns, &dev, 1);
    CHECK(dev.n_blocks == 1 && st.count == 0);
    finish_and_close();
}

static void failures_reported(void)
{
    /* no pinned memory: an error, nothing queued, and no fallback */
    reset();
    dev.fail_alloc = 1;
    CHECK(put(0, 64, 1) == PK_ERR_OUT_OF_MEMORY);
    CHECK(strstr(msg.text, "out of memory") != NULL);
    CHECK(dev.n_ops == 0 && dev.n_blocks == 0);
    dev.fail_alloc = 0;
    CHECK(put(0, 64, 1) == PK_SUCCESS);
    /* growth that fails keeps the ring as it was */
    dev.fail_alloc = 1;
    CHECK(put(1024, 100000, 2) == PK_ERR_OUT_OF_MEMORY);
    CHECK(dev.n_blocks == 1 && dev.n_ops == 2);
    dev.fail_alloc = 0;
    CHECK(put(2048, 64, 3) == PK_SUCCESS);
    run_to(dev.n_ops);
    CHECK(landed(0, 64, 1) && landed(2048, 64, 3));
    finish_and_close();

    /* the fault-injection plan fails the block's allocation */
    reset();
    pk_fault_plan plan = {.dev = &dev, .countdown = 0};
    pk_fault_attach(&plan);
    CHECK(put(0, 64, 1) == PK_ERR_OUT_OF_MEMORY);
    CHECK(plan.fired && strstr(msg.text, "(injected)") != NULL);
    CHECK(dev.allocs == 0 && dev.n_ops == 0);
    CHECK(put(0, 64, 1) == PK_SUCCESS); /* it fails once */
    pk_fault_attach(NULL);
    finish_and_close();

    /* a copy or event that fails: its error, and the region stays free */
    reset();
    dev.fail_create = 1;
    CHECK(put(0, 64, 1) == PK_ERR_OUT_OF_MEMORY && dev.n_ops == 0);
    dev.fail_create = 0;
    dev.fail_copy = 1;
    CHECK(put(0, 64, 1) == PK_ERR_DEVICE_FAILURE && dev.n_ops == 0);
    CHECK(strstr(msg.text, "cuMemcpyHtoDAsync") != NULL);
    dev.fail_copy = 0;
    dev.fail_record = 1;
    CHECK(put(0, 64, 1) == PK_ERR_DEVICE_FAILURE);
    CHECK(dev.syncs == 1 && dev.ran == dev.n_ops && landed(0, 64, 1)); /* the copy was waited for */
    dev.fail_record = 0;
    CHECK(put(64, 64, 2) == PK_SUCCESS && dev.last_src == dev.blocks[0].p);
    CHECK(st.count == 1);
    finish_and_close();

    /* the full ring's wait fails (a device fault): its error */
    reset();
    for (int i = 0; i < 64; i++) CHECK(put(0, 1024, 1) == PK_SUCCESS);
    dev.fail_wait = 1;
    CHECK(put(0, 1024, 1) == PK_ERR_DEVICE_FAILURE);
    CHECK(strstr(msg.text, "illegal address") != NULL);
    CHECK(dev.n_ops == 128);
    dev.fail_wait = 0;
    finish_and_close();
}

int main(void)
{
    no_wait();
    full_ring();
    wrap_around();
    slots_full();
    growth();
    failures_reported();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("gpu_stage: ok\n");
    return 0;
}
