/* The recording backend and the variant sets of the coverage tests
 * (cover.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cover.h"
#include "pk_core.h"

/* ---------------------------------------------------------------- recording backend */

/* Device addresses as a GPU allocator gives them (cuMemAlloc: 256-byte
 * aligned and more), never dereferenced. */
#define FAKE_BASE ((uint64_t)1 << 32)
#define FAKE_ALIGN 4096u

static uint64_t next_addr = FAKE_BASE;
static cover_calls *recording;
static const cf_case *recording_case;

static pk_status rec_init(pk_msg *why)
{
    (void)why;
    return PK_SUCCESS;
}
static int rec_count(void) { return 1; }
static pk_status rec_info(int index, pk_device_info *info, pk_msg *msg)
{
    (void)index, (void)msg;
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "recording backend (coverage test)");
    snprintf(info->vendor, sizeof info->vendor, "portkern");
    info->global_mem_bytes = (uint64_t)1 << 40;
    info->compute_units = 1;
    info->simd_width = 32;
    return PK_SUCCESS;
}
static pk_status rec_open(int index, void *queue, void **dev, pk_msg *msg)
{
    (void)index, (void)queue, (void)msg;
    *dev = &next_addr;
    return PK_SUCCESS;
}
static void rec_close(void *dev) { (void)dev; }
static pk_status rec_finish(void *dev, pk_msg *msg)
{
    (void)dev, (void)msg;
    return PK_SUCCESS;
}
static pk_status rec_alloc(void *dev, size_t bytes, pk_mem *mem, pk_msg *msg)
{
    (void)dev, (void)msg;
    *mem = (pk_mem)(uintptr_t)next_addr;
    next_addr += (bytes + FAKE_ALIGN - 1) / FAKE_ALIGN * FAKE_ALIGN + FAKE_ALIGN;
    return PK_SUCCESS;
}
static void rec_free(void *dev, pk_mem mem) { (void)dev, (void)mem; }
static pk_status rec_upload(void *dev, pk_mem dst, size_t off, const void *src, size_t n, pk_msg *msg)
{
    (void)dev, (void)dst, (void)off, (void)src, (void)n, (void)msg;
    return PK_SUCCESS;
}
static pk_status rec_download(void *dev, pk_mem src, size_t off, void *dst, size_t n, pk_msg *msg)
{
    (void)dev, (void)src, (void)off, (void)dst, (void)n, (void)msg;
    return PK_SUCCESS;
}
static pk_status rec_copy(void *dev, pk_mem dst, size_t doff, pk_mem src, size_t soff, size_t n, pk_msg *msg)
{
    (void)dev, (void)dst, (void)doff, (void)src, (void)soff, (void)n, (void)msg;
    return PK_SUCCESS;
}
static pk_status rec_fill(void *dev, pk_mem dst, size_t off, size_t n, const void *pattern, size_t psize,
                          pk_msg *msg)
{
    (void)dev, (void)dst, (void)off, (void)n, (void)pattern, (void)psize, (void)msg;
    return PK_SUCCESS;
}

static cover_call *rec_call(int op)
{
    cover_calls *r = recording;
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 1024;
        cover_call *v = realloc(r->v, (size_t)cap * sizeof *v);
        if (!v) return NULL;
        r->v = v;
        r->cap = cap;
    }
    cover_call *c = &r->v[r->n++];
    memset(c, 0, sizeof *c);
    c->c = recording_case;
    c->op = op;
    return c;
}

#define REC_OP(fn, type, field, OP)                                                  \
    static pk_status fn(void *dev, const type *p, pk_msg *msg)                       \
    {                                                                                \
        (void)dev;                                                                   \
        cover_call *c = rec_call(OP);                                                \
        if (!c) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");     \
        c->p.field = *p;                                                             \
        return PK_SUCCESS;                                                           \
    }

REC_OP(rec_gemm, pk_gemm_problem, gemm, CF_OP_GEMM)
/* the row ops come through one slot: their conformance op from p->op */
static pk_status rec_rows(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    (void)dev;
    static const int ops[PK_ROWS_OP_COUNT] = {
        [PK_ROWS_RMSNORM] = CF_OP_RMSNORM, [PK_ROWS_LAYERNORM] = CF_OP_LAYERNORM, [PK_ROWS_GLU] = CF_OP_GLU,
        [PK_ROWS_BIAS_ACT] = CF_OP_BIAS_ACT, [PK_ROWS_SOFTMAX] = CF_OP_SOFTMAX,
    };
    cover_call *c = rec_call(ops[p->op]);
    if (!c) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");
    c->p.rows = *p;
    return PK_SUCCESS;
}
REC_OP(rec_chain, pk_chain_problem, chain, CF_OP_CHAIN)
REC_OP(rec_index_rows, pk_index_problem, index, CF_OP_INDEX_ROWS)

/* the host arrays are gone after the call: no plan reads them */
static pk_status rec_attention(void *dev, const pk_attention_problem *p, pk_msg *msg)
{
    (void)dev;
    cover_call *c = rec_call(CF_OP_ATTENTION);
    if (!c) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");
    c->p.attn = *p;
    c->p.attn.len_q = c->p.attn.len_kv = NULL;
    return PK_SUCCESS;
}

static pk_status rec_rope(void *dev, const pk_rope_problem *p, pk_msg *msg)
{
    (void)dev;
    cover_call *c = rec_call(CF_OP_ROPE);
    if (!c) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");
    c->p.rope = *p;
    c->p.rope.positions = NULL;
    return PK_SUCCESS;
}

static const pk_backend_iface recorder = {
    .abi = PK_BACKEND_ABI,
    .kind = PK_BACKEND_REF,
    .init = rec_init,
    .device_count = rec_count,
    .device_info = rec_info,
    .open = rec_open,
    .close = rec_close,
    .finish = rec_finish,
    .alloc = rec_alloc,
    .free = rec_free,
    .upload = rec_upload,
    .download = rec_download,
    .copy = rec_copy,
    .fill = rec_fill,
    .gemm = rec_gemm,
    .attention = rec_attention,
    .rows = rec_rows,
    .rope = rec_rope,
    .chain = rec_chain,
    .index_rows = rec_index_rows,
};

/* The tensors of a case as conform_run.c stages them: a buffer per arg
 * that owns one, views into another arg's buffer. */
static pk_status run_case(pk_context *ctx, const cf_case *c)
{
    pk_buffer *buf[CF_MAX_ARGS] = {0};
    pk_tensor t[CF_MAX_ARGS];
    pk_status st = PK_SUCCESS;
    memset(t, 0, sizeof t);
    for (int i = 0; i < c->nargs && st == PK_SUCCESS; i++) {
        const cf_arg *a = &c->arg[i];
        if (a->used && a->view_of < 0) st = pk_alloc(ctx, cf_spec_buf_bytes(&a->spec), &buf[i]);
    }
    for (int i = 0; i < c->nargs && st == PK_SUCCESS; i++) {
        const cf_arg *a = &c->arg[i];
        if (!a->used) continue;
        t[i].buf = buf[a->view_of >= 0 ? a->view_of : i];
        t[i].offset = (size_t)a->spec.offset * pk_dtype_size(a->spec.dtype);
        t[i].dtype = a->spec.dtype;
        t[i].ndim = a->spec.ndim;
        for (int k = 0; k < PK_MAX_DIMS; k++) {
            t[i].shape[k] = k < a->spec.ndim ? a->spec.shape[k] : 0;
            t[i].stride[k] = k < a->spec.ndim ? a->spec.stride[k] : 0;
        }
    }
    if (st == PK_SUCCESS) st = c->run(c, ctx, t);
    for (int i = 0; i < CF_MAX_ARGS; i++)
        if (buf[i]) pk_free(buf[i]);
    return st;
}

int cover_collect(cover_calls *out)
{
    memset(out, 0, sizeof *out);
    cf_cases_gemm(&out->cases);
    cf_cases_attention(&out->cases);
    cf_cases_rows(&out->cases);
    cf_cases_chain(&out->cases);
    cf_cases_index(&out->cases);

    pk_context *ctx;
    if (pk_context_open(&recorder, 0, NULL, 0, &ctx) != PK_SUCCESS) {
        printf("FAIL: cannot open the recording backend: %s\n", pk_last_error(NULL));
        return -1;
    }
    recording = out;
    int failed = 0;
    for (int i = 0; i < out->cases.n; i++) {
        recording_case = &out->cases.v[i];
        pk_status st = run_case(ctx, recording_case);
        if (st != PK_SUCCESS) {
            printf("FAIL: case %s: %s: %s\n", recording_case->name, pk_status_string(st), pk_last_error(ctx));
            failed = 1;
        }
    }
    recording = NULL;
    pk_close(ctx);
    return failed ? -1 : 0;
}

void cover_calls_free(cover_calls *calls)
{
    free(calls->v);
    free(calls->cases.v);
    memset(calls, 0, sizeof *calls);
}

const char *cover_rows_op(int op, int *per_row)
{
    *per_row = op == CF_OP_RMSNORM || op == CF_OP_LAYERNORM || op == CF_OP_SOFTMAX;
    switch (op) {
    case CF_OP_RMSNORM: return "rmsnorm";
    case CF_OP_LAYERNORM: return "layernorm";
    case CF_OP_SOFTMAX: return "softmax";
    case CF_OP_GLU: return "glu";
    case CF_OP_BIAS_ACT: return "bias_act";
    default: return NULL;
    }
}

/* ---------------------------------------------------------------- sets */

static struct cover_item *find(const cover_set *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].name, name)) return &s->v[i];
    return NULL;
}

void cover_set_add(cover_set *s, const char *name, const char *example)
{
    struct cover_item *it = find(s, name);
    if (it) {
        it->count++;
        return;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        struct cover_item *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v) {
            fprintf(stderr, "out of host memory\n");
            exit(2);
        }
        s->v = v;
        s->cap = cap;
    }
    it = &s->v[s->n++];
    snprintf(it->name, sizeof it->name, "%s", name);
    it->example = example;
    it->count = 1;
}

void cover_set_add_split(cover_set *s, const char *kernel, int split, const char *example)
{
    char name[96];
    snprintf(name, sizeof name, "%s%s", kernel, split ? "+split" : "");
    cover_set_add(s, name, example);
}

void cover_set_add_fn(void *ctx, const char *name) { cover_set_add(ctx, name, NULL); }

void cover_set_add_split_fn(void *ctx, const char *kernel, int split) { cover_set_add_split(ctx, kernel, split, NULL); }

void cover_set_free(cover_set *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

int cover_check(const char *family, const char *device, const cover_set *can, const cover_set *reached, int verbose)
{
    int gaps = 0, hit = 0;
    for (int i = 0; i < can->n; i++)
        if (find(reached, can->v[i].name)) hit++;
    printf("%-18s %-26s %3d of %3d variants reached\n", family, device, hit, can->n);
    for (int i = 0; i < can->n; i++) {
        const struct cover_item *r = find(reached, can->v[i].name);
        if (!r) {
            printf("  MISSING %s: no case reaches it\n", can->v[i].name);
            gaps++;
        } else if (verbose) {
            printf("  %-44s %4d case(s), e.g. %s\n", r->name, r->count, r->example);
        }
    }
    for (int i = 0; i < reached->n; i++)
        if (!find(can, reached->v[i].name)) {
            printf("  UNLISTED %s (reached by %s): the plan's list of variants lacks it\n", reached->v[i].name,
                   reached->v[i].example);
            gaps++;
        }
    return gaps;
}

int cover_verbose(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-v")) return 1;
    return 0;
}

const char *cover_knob(const cf_case *c, const char *var)
{
    const size_t n = strlen(var);
    return !strncmp(c->knob, var, n) && c->knob[n] == '=' ? c->knob + n + 1 : NULL;
}
