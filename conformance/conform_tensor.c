/* Tensor specs (shape, strides, offset, spare tail), buffer images with
 * poison, element access, the case list and the seeded random source. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "pk_half.h"

/* ---------------------------------------------------------------- random */

void cf_rng_seed(cf_rng *r, const char *name, uint64_t seed)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the case name */
    for (const char *p = name; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 1099511628211ull;
    }
    r->s = h ^ (seed * 0x9e3779b97f4a7c15ull);
}

uint64_t cf_rng_next(cf_rng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double cf_rng_uniform(cf_rng *r) { return (double)(cf_rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

double cf_rng_normal(cf_rng *r)
{
    double u1 = cf_rng_uniform(r), u2 = cf_rng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---------------------------------------------------------------- specs */

static void row_major(cf_spec *s, int64_t pad)
{
    int64_t st = 1;
    for (int i = s->ndim - 1; i >= 0; i--) {
        s->stride[i] = st;
        st *= s->shape[i] > 0 ? s->shape[i] : 1;
        st += pad;
    }
}

cf_spec cf_contig(pk_dtype dt, int ndim, const int64_t *shape)
{
    cf_spec s;
    memset(&s, 0, sizeof s);
    s.dtype = dt;
    s.ndim = ndim;
    for (int i = 0; i < ndim; i++) s.shape[i] = shape[i];
    row_major(&s, 0);
    s.offset = 0;
    s.tail = 3;
    return s;
}

cf_spec cf_shape(pk_dtype dt, int ndim, ...)
{
    int64_t sh[PK_MAX_DIMS] = {0};
    va_list ap;
    va_start(ap, ndim);
    for (int i = 0; i < ndim && i < PK_MAX_DIMS; i++) sh[i] = va_arg(ap, int64_t);
    va_end(ap);
    return cf_contig(dt, ndim, sh);
}

void cf_spec_pad(cf_spec *s, int64_t pad) { row_major(s, pad); }

void cf_spec_order(cf_spec *s, const int *order)
{
    int64_t st = 1;
    for (int k = s->ndim - 1; k >= 0; k--) {
        int d = order[k];
        s->stride[d] = st;
        st *= s->shape[d] > 0 ? s->shape[d] : 1;
    }
}

int64_t cf_spec_numel(const cf_spec *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->ndim; i++) n *= s->shape[i];
    return n;
}

int64_t cf_spec_extent(const cf_spec *s)
{
    int64_t e = 1;
    for (int i = 0; i < s->ndim; i++) {
        if (s->shape[i] == 0) return 0;
        e += (s->shape[i] - 1) * s->stride[i];
    }
    return e;
}

int64_t cf_spec_buf_elems(const cf_spec *s)
{
    int64_t n = s->offset + cf_spec_extent(s) + s->tail;
    size_t es = pk_dtype_size(s->dtype);
    if (n < 1) n = 1;
    while (((size_t)n * es) % 4) n++; /* whole 4-byte words */
    return n;
}

size_t cf_spec_buf_bytes(const cf_spec *s) { return (size_t)cf_spec_buf_elems(s) * pk_dtype_size(s->dtype); }

int64_t cf_spec_pos(const cf_spec *s, int64_t i)
{
    int64_t pos = s->offset;
    for (int d = s->ndim - 1; d >= 0; d--) {
        int64_t n = s->shape[d];
        pos += (i % n) * s->stride[d];
        i /= n;
    }
    return pos;
}

/* ---------------------------------------------------------------- elements */

uint32_t cf_poison_bits(pk_dtype dt)
{
    /* Signalling NaNs (quiet bit clear) with an odd payload: a kernel's
     * arithmetic only ever produces quiet NaNs. */
    switch (dt) {
    case PK_F32: return 0x7fa5a5a5u;
    case PK_F16: return 0x7d5au;
    case PK_I32: return 0x7fa5a5a5u; /* an index no case draws */
    default: return 0x7f8au; /* bf16 */
    }
}

uint32_t cf_elem_bits(const void *img, pk_dtype dt, int64_t pos)
{
    if (dt == PK_F32 || dt == PK_I32) {
        uint32_t u;
        memcpy(&u, (const char *)img + pos * 4, 4);
        return u;
    }
    uint16_t h;
    memcpy(&h, (const char *)img + pos * 2, 2);
    return h;
}

double cf_elem_value(const void *img, pk_dtype dt, int64_t pos)
{
    uint32_t b = cf_elem_bits(img, dt, pos);
    if (dt == PK_F32) return (double)pk__bits_f32(b);
    if (dt == PK_I32) return (double)(int32_t)b;
    if (dt == PK_F16) return (double)pk__f16_to_f32((uint16_t)b);
    return (double)pk__bf16_to_f32((uint16_t)b);
}

void cf_elem_store(void *img, pk_dtype dt, int64_t pos, float v)
{
    if (dt == PK_I32) { /* an index: the value drawn, rounded down */
        int32_t i = (int32_t)floorf(v);
        memcpy((char *)img + pos * 4, &i, 4);
    } else if (dt == PK_F32) {
        memcpy((char *)img + pos * 4, &v, 4);
    } else {
        uint16_t h = dt == PK_F16 ? pk__f32_to_f16(v) : pk__f32_to_bf16(v);
        memcpy((char *)img + pos * 2, &h, 2);
    }
}

const char *cf_dtype_tag(pk_dtype dt)
{
    return dt == PK_F32 ? "f32" : dt == PK_F16 ? "f16" : dt == PK_BF16 ? "bf16" : dt == PK_I32 ? "i32" : "?";
}

const char *cf_act_tag(pk_activation a)
{
    switch (a) {
    case PK_ACT_RELU: return "relu";
    case PK_ACT_GELU: return "gelu";
    case PK_ACT_GELU_TANH: return "gelu_tanh";
    case PK_ACT_SILU: return "silu";
    default: return "none";
    }
}

/* ---------------------------------------------------------------- case list */

cf_case *cf_case_add(cf_case_list *l, int op, pk_dtype dt, cf_run_fn run, const char *fmt, ...)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 256;
        cf_case *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            fprintf(stderr, "conform: out of host memory\n");
            exit(2);
        }
        l->v = v;
        l->cap = cap;
    }
    cf_case *c = &l->v[l->n++];
    memset(c, 0, sizeof *c);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->name, sizeof c->name, fmt, ap);
    va_end(ap);
    c->op = op;
    c->dtype = dt;
    c->run = run;
    for (int i = 0; i < CF_MAX_ARGS; i++) c->arg[i].view_of = -1;
    return c;
}

cf_arg *cf_case_arg(cf_case *c, int i, const char *name, int role, cf_spec spec)
{
    cf_arg *a = &c->arg[i];
    a->name = name;
    a->used = 1;
    a->role = role;
    a->view_of = -1;
    a->spec = spec;
    a->gen = CF_GEN_UNIFORM;
    a->lo = -1.0f;
    a->hi = 1.0f;
    if (i + 1 > c->nargs) c->nargs = i + 1;
    return a;
}

void cf_arg_gen(cf_arg *a, int gen, float lo, float hi)
{
    a->gen = gen;
    a->lo = lo;
    a->hi = hi;
}

void cf_arg_special(cf_arg *a, int64_t start, int64_t count, float value)
{
    if (a->n_special >= CF_MAX_SPECIAL) return;
    cf_special *s = &a->special[a->n_special++];
    s->start = start;
    s->count = count;
    s->value = value;
}

/* ---------------------------------------------------------------- size classes */

int cf_case_runs_on(const cf_case *c, int is_cpu) { return c->size != CF_SIZE_GPU || !is_cpu; }

/* whether the case's knob picks a kernel not yet run on a GPU (conform.h) */
static int untried(const cf_case *c)
{
    static const char *const knobs[] = {CF_UNTRIED_KNOBS};
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0] && knobs[i]; i++)
        if (!strncmp(c->knob, knobs[i], strlen(knobs[i]))) return 1;
    return 0;
}

int cf_case_skip(const cf_target *tg, const cf_case *c, cf_result *res)
{
    pk_device_info info;
    if (pk_context_info(tg->ctx, &info) != PK_SUCCESS) return 0;
    if (c->size == CF_SIZE_GPU && !cf_case_runs_on(c, info.is_cpu)) {
        res->status = CF_SKIP;
        cf_msg_append(res, "GPU-only size class (large): too slow on a CPU device");
        return 1;
    }
    const char *run = getenv("PORTKERN_CONFORM_UNTRIED");
    if (info.backend == PK_BACKEND_CUDA && untried(c) && !(run && !strcmp(run, "1"))) {
        res->status = CF_SKIP;
        cf_msg_append(res, "its knob's kernel has not yet run on a GPU (PORTKERN_CONFORM_UNTRIED=1 runs it)");
        return 1;
    }
    return 0;
}
