/* Runs one numerical case: builds the buffer images (poison everywhere, the
 * drawn inputs rounded to their dtype at their strided places), uploads the
 * same bits to the target, the oracle and the same-precision reference,
 * runs the op (twice on the target, re-poisoned, for determinism),
 * downloads every output buffer whole and applies the rule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conform.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int owns_buffer(const cf_arg *a) { return a->used && a->view_of < 0; }
static int is_output(const cf_arg *a) { return a->used && (a->role == CF_OUT || a->role == CF_INOUT); }

/* Initial images of every buffer; NULL for views and unused args. */
static int build_images(const cf_env *env, const cf_case *c, void **img)
{
    cf_rng rng;
    cf_rng_seed(&rng, c->name, env->seed);
    for (int i = 0; i < c->nargs; i++) {
        const cf_arg *a = &c->arg[i];
        img[i] = NULL;
        if (!owns_buffer(a)) continue;
        const cf_spec *s = &a->spec;
        int64_t nb = cf_spec_buf_elems(s);
        img[i] = malloc(cf_spec_buf_bytes(s));
        if (!img[i]) return 0;
        uint32_t poison = cf_poison_bits(s->dtype);
        for (int64_t p = 0; p < nb; p++) {
            if (pk_dtype_size(s->dtype) == 4) memcpy((char *)img[i] + p * 4, &poison, 4);
            else {
                uint16_t h = (uint16_t)poison;
                memcpy((char *)img[i] + p * 2, &h, 2);
            }
        }
        if (a->role == CF_OUT) continue;
        int64_t n = cf_spec_numel(s);
        for (int64_t e = 0; e < n; e++) {
            double v = a->gen == CF_GEN_NORMAL ? cf_rng_normal(&rng) * a->hi + a->lo
                                               : a->lo + (a->hi - a->lo) * cf_rng_uniform(&rng);
            for (int k = 0; k < a->n_special; k++)
                if (e >= a->special[k].start && e < a->special[k].start + a->special[k].count)
                    v = a->special[k].value;
            cf_elem_store(img[i], s->dtype, cf_spec_pos(s, e), (float)v);
        }
    }
    return 1;
}

typedef struct dev_run {
    pk_buffer *buf[CF_MAX_ARGS];
    pk_tensor t[CF_MAX_ARGS];
} dev_run;

static void release(dev_run *d)
{
    for (int i = 0; i < CF_MAX_ARGS; i++) {
        if (d->buf[i]) pk_free(d->buf[i]);
        d->buf[i] = NULL;
    }
}

/* Allocates (once) and uploads the images. */
static pk_status stage(pk_context *ctx, const cf_case *c, void *const *img, dev_run *d, const char **what)
{
    pk_status st;
    for (int i = 0; i < c->nargs; i++) {
        const cf_arg *a = &c->arg[i];
        if (!owns_buffer(a)) continue;
        size_t bytes = cf_spec_buf_bytes(&a->spec);
        if (!d->buf[i]) {
            *what = "pk_alloc";
            if ((st = pk_alloc(ctx, bytes, &d->buf[i])) != PK_SUCCESS) return st;
        }
        *what = "pk_upload";
        if ((st = pk_upload(d->buf[i], 0, img[i], bytes)) != PK_SUCCESS) return st;
    }
    for (int i = 0; i < c->nargs; i++) {
        const cf_arg *a = &c->arg[i];
        memset(&d->t[i], 0, sizeof d->t[i]);
        if (!a->used) continue;
        int base = a->view_of >= 0 ? a->view_of : i;
        d->t[i].buf = d->buf[base];
        d->t[i].offset = (size_t)a->spec.offset * pk_dtype_size(a->spec.dtype);
        d->t[i].dtype = a->spec.dtype;
        d->t[i].ndim = a->spec.ndim;
        for (int k = 0; k < PK_MAX_DIMS; k++) {
            d->t[i].shape[k] = k < a->spec.ndim ? a->spec.shape[k] : 0;
            d->t[i].stride[k] = k < a->spec.ndim ? a->spec.stride[k] : 0;
        }
    }
    return PK_SUCCESS;
}

static pk_status fetch(const cf_case *c, dev_run *d, void **out, const char **what)
{
    *what = "pk_download";
    for (int i = 0; i < c->nargs; i++) {
        if (!is_output(&c->arg[i])) continue;
        pk_status st = pk_download(d->buf[i], 0, out[i], cf_spec_buf_bytes(&c->arg[i].spec));
        if (st != PK_SUCCESS) return st;
    }
    return PK_SUCCESS;
}

/* Stage, run, finish, download. */
static pk_status run_once(pk_context *ctx, const cf_case *c, void *const *img, dev_run *d, void **out,
                          double *ms, const char **what)
{
    pk_status st = stage(ctx, c, img, d, what);
    if (st != PK_SUCCESS) return st;
    double t0 = now_ms();
    *what = "op";
    st = c->run(c, ctx, d->t);
    if (st != PK_SUCCESS) return st;
    *what = "pk_finish";
    st = pk_finish(ctx);
    if (ms) *ms = now_ms() - t0;
    if (st != PK_SUCCESS) return st;
    return fetch(c, d, out, what);
}

static void **alloc_outputs(const cf_case *c)
{
    void **o = calloc(CF_MAX_ARGS, sizeof *o);
    if (!o) return NULL;
    for (int i = 0; i < c->nargs; i++)
        if (is_output(&c->arg[i])) o[i] = calloc(1, cf_spec_buf_bytes(&c->arg[i].spec));
    return o;
}

static void free_set(void **o)
{
    if (!o) return;
    for (int i = 0; i < CF_MAX_ARGS; i++) free(o[i]);
    free(o);
}

static void run_case(const cf_env *env, const cf_target *tg, const cf_case *c, cf_result *res)
{
    void *img[CF_MAX_ARGS] = {0};
    void **out1 = NULL, **out2 = NULL, **o64 = NULL, **o32 = NULL;
    dev_run dt, d64, d32;
    memset(&dt, 0, sizeof dt);
    memset(&d64, 0, sizeof d64);
    memset(&d32, 0, sizeof d32);
    const char *what = "";
    pk_status st;

    memset(res, 0, sizeof *res);
    if (cf_case_skip(tg, c, res)) return;
    if (!build_images(env, c, img) || !(out1 = alloc_outputs(c)) || !(out2 = alloc_outputs(c)) ||
        !(o64 = alloc_outputs(c)) || !(o32 = alloc_outputs(c))) {
        res->status = CF_FAIL;
        cf_msg_append(res, "out of host memory");
        goto done;
    }

    /* Target, first run. */
    st = run_once(tg->ctx, c, img, &dt, out1, &res->ms, &what);
    if (st != PK_SUCCESS) {
        res->status = (st == PK_ERR_UNSUPPORTED && !strcmp(what, "op")) ? CF_SKIP : CF_FAIL;
        cf_msg_append(res, "%s%s%s: %s", strcmp(what, "op") ? what : "", strcmp(what, "op") ? " " : "",
                      pk_status_string(st), pk_last_error(tg->ctx));
        goto done;
    }
    /* Inputs must come back as uploaded (an op writes only its outputs). */
    for (int i = 0; i < c->nargs; i++) {
        const cf_arg *a = &c->arg[i];
        if (!owns_buffer(a) || a->role != CF_IN) continue;
        size_t bytes = cf_spec_buf_bytes(&a->spec);
        void *back = malloc(bytes);
        if (back && pk_download(dt.buf[i], 0, back, bytes) == PK_SUCCESS && memcmp(back, img[i], bytes) != 0) {
            res->status = CF_FAIL;
            cf_msg_append(res, "input '%s' was modified", a->name);
        }
        free(back);
    }
    /* Target, second run on re-poisoned buffers: must be bitwise equal. */
    st = run_once(tg->ctx, c, img, &dt, out2, NULL, &what);
    if (st != PK_SUCCESS) {
        res->status = CF_FAIL;
        cf_msg_append(res, "second run: %s %s: %s", what, pk_status_string(st), pk_last_error(tg->ctx));
        goto done;
    }
    /* The two references. */
    st = run_once(env->ref64, c, img, &d64, o64, NULL, &what);
    if (st != PK_SUCCESS) {
        res->status = CF_FAIL;
        cf_msg_append(res, "oracle (ref) %s %s: %s", what, pk_status_string(st), pk_last_error(env->ref64));
        goto done;
    }
    st = run_once(env->ref32, c, img, &d32, o32, NULL, &what);
    if (st != PK_SUCCESS) {
        res->status = CF_FAIL;
        cf_msg_append(res, "same-precision ref %s %s: %s", what, pk_status_string(st),
                      pk_last_error(env->ref32));
        goto done;
    }

    /* res->status is CF_PASS (0) unless an input was modified */
    int primary = 1;
    for (int i = 0; i < c->nargs; i++) {
        const cf_arg *a = &c->arg[i];
        if (!is_output(a)) continue;
        cf_figures fig;
        memset(&fig, 0, sizeof fig);
        if (!cf_compare_output(a, img[i], out1[i], o64[i], o32[i], &fig, res)) res->status = CF_FAIL;
        if (primary) {
            res->fig = fig;
            primary = 0;
        } else if (env->verbose) {
            cf_msg_append(res, "'%s': err=%.2e (sp %.2e) nmse=%.2e (sp %.2e)", a->name, fig.err,
                          fig.err_sp, fig.nmse, fig.nmse_sp);
        }
        size_t bytes = cf_spec_buf_bytes(&a->spec);
        if (memcmp(out1[i], out2[i], bytes) != 0) {
            size_t k = 0;
            while (k < bytes && ((unsigned char *)out1[i])[k] == ((unsigned char *)out2[i])[k]) k++;
            cf_msg_append(res, "'%s': not deterministic (two runs differ, first at byte %zu)", a->name, k);
            res->status = CF_FAIL;
        }
    }

done:
    release(&dt);
    release(&d64);
    release(&d32);
    for (int i = 0; i < CF_MAX_ARGS; i++) free(img[i]);
    free_set(out1);
    free_set(out2);
    free_set(o64);
    free_set(o32);
}

/* The case under its knob: the backends read their knobs per call, so the
 * variable is set for this case alone and restored after it. */
void cf_run_case(const cf_env *env, const cf_target *tg, const cf_case *c, cf_result *res)
{
    const char *eq = strchr(c->knob, '=');
    if (!eq) {
        run_case(env, tg, c, res);
        return;
    }
    char var[48];
    snprintf(var, sizeof var, "%.*s", (int)(eq - c->knob), c->knob);
    const char *old = getenv(var);
    char *saved = old ? strdup(old) : NULL;
    setenv(var, eq + 1, 1);
    run_case(env, tg, c, res);
    if (saved) setenv(var, saved, 1);
    else unsetenv(var);
    free(saved);
}
