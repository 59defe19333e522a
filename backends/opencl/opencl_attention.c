/* OpenCL attention: one fused pass (attention_prefill.cl), or for decode
 * shapes a split-KV pass whose per-chunk partials a merge kernel combines
 * (attention_decode.cl; with one chunk the pass stores the output itself).
 * On NVIDIA with inline PTX, 16-bit attention runs on the tensor cores
 * (attention_mma.cl: pk_attn_mma with the prefill's arguments,
 * pk_attn_mma_decode with the decode pass's, whose partials the same
 * merge combines). The plan
 * (opencl_attention_plan.c) chooses the path, the tiles and the splits.
 *
 * Scratch layout: per-batch lengths (int, 2 * batch, only when they are
 * not uniform), then the split partials (f32): (m, l) per row and split,
 * then the D accumulators per row and split. */
#include <math.h>

#include "opencl_attention_plan.h"
#include "opencl_internal.h"
#include "../../kernels_cl/cl_args.h"

typedef struct pk_cl_attn_args {
    cl_mem q, k, v, lens;
    cl_long8 off;
    cl_long4 qs, ks, vs, os, ls;
    cl_int sq, skv, hq, hkv;
    cl_float qscale;
    cl_long wl, wr;
} pk_cl_attn_args;

static cl_long4 strides(const pk_view *v)
{
    cl_long4 s;
    for (int i = 0; i < 4; i++) s.s[i] = v->stride[i];
    return s;
}

static pk_status get_kernel(pk_cl_device *d, const char *source, const char *name, const pk_attention_problem *p,
                            const pk_cl_attn_plan *plan, pk_cl_kern **out, pk_msg *msg)
{
    char opts[192];
    int n = pk_cl_options(opts, sizeof opts, "-DDT=%d -DD=%d", (int)p->q.dtype, (int)p->d);
    if (plan && plan->mma) {
        const pk_cl_attn_mma_tile *t = &plan->mt;
        pk_cl_options(opts + n, sizeof opts - (size_t)n,
                      " -DPK_PTX=1 -DNW=%d -DNWN=%d -DBN=%d -DST=%d -DPENDING=%d -DDECODE=%d", t->nw, t->nwn, t->bn,
                      t->st, t->st - 2, plan->split);
    } else if (plan && !plan->split) {
        const pk_cl_attn_tile *t = &plan->tile;
        pk_cl_options(opts + n, sizeof opts - (size_t)n, " -DBM=%d -DBN=%d -DTPR=%d", t->bm, t->bn, t->tpr);
    } else if (plan) {
        const pk_cl_attn_decode *t = &plan->dec;
        n += pk_cl_options(opts + n, sizeof opts - (size_t)n, " -DROWS=%d -DTPK=%d -DNV=%d -DSLOTS=%d -DUNROLL=%d -DVEC=%d",
                           t->rows, t->tpk, t->nv, t->slots, t->unroll, t->vec);
        /* NVIDIA: a register bound, so that the work-groups the plan counts
         * on share a multiprocessor; the driver takes the option and does
         * not keep it, so opencl_ptx_rebuild.c writes it into the program's
         * PTX. A driver that refuses the option gets the kernel without it.
         * Written with '=' as the extension's text has it: driver 580
         * refused the form with a space as an unknown argument
         * (bench/RESULTS.md, 2026-12-02). */
        if (plan->max_regs > 0 && n > 0 && (size_t)n < sizeof opts) {
            pk_cl_options(opts + n, sizeof opts - (size_t)n, " -cl-nv-maxrregcount=%d", plan->max_regs);
            pk_status s = pk_cl_kernel(d, source, opts, name, out, msg);
            if (s != PK_ERR_BUILD_FAILED) return s;
            opts[n] = 0;
        }
    }
    return pk_cl_kernel(d, source, opts, name, out, msg);
}

static pk_status run_prefill(pk_cl_device *d, const pk_attention_problem *p, const pk_cl_attn_plan *plan,
                             const pk_cl_attn_args *a, pk_msg *msg)
{
    pk_cl_kern *kern;
    pk_status s = plan->mma ? get_kernel(d, "attention_mma.cl", "pk_attn_mma", p, plan, &kern, msg)
                            : get_kernel(d, "attention_prefill.cl", "pk_attn_prefill", p, plan, &kern, msg);
    if (s != PK_SUCCESS) return s;
    cl_mem o = p->o.mem, lse = p->lse.mem;
    pk_cl_arg args[] = {
        PK_CL_ARG(a->q), PK_CL_ARG(a->k), PK_CL_ARG(a->v), PK_CL_ARG(o), PK_CL_ARG(lse),
        PK_CL_ARG(a->off), PK_CL_ARG(a->qs), PK_CL_ARG(a->ks), PK_CL_ARG(a->vs), PK_CL_ARG(a->os),
        PK_CL_ARG(a->ls), PK_CL_ARG(a->sq), PK_CL_ARG(a->skv), PK_CL_ARG(a->hq), PK_CL_ARG(a->hkv),
        PK_CL_ARG(a->lens), PK_CL_ARG(a->qscale), PK_CL_ARG(a->wl), PK_CL_ARG(a->wr),
    };
    /* both kernels: a work-group of wg items owns bm rows of one head */
    const int bm = plan->mma ? 16 * plan->mt.nw : plan->tile.bm;
    size_t wg = plan->mma ? (size_t)(32 * plan->mt.nw) : (size_t)(plan->tile.bm * plan->tile.tpr);
    size_t row_tiles = (size_t)((p->sq + bm - 1) / bm);
    size_t global[3] = {row_tiles * wg, (size_t)p->hq, (size_t)p->batch};
    size_t local[3] = {wg, 1, 1};
    return pk_cl_run(d, kern, args, (int)(sizeof args / sizeof args[0]), 3, global, local, msg);
}

static pk_status run_decode(pk_cl_device *d, const pk_attention_problem *p, const pk_cl_attn_plan *plan,
                            const pk_cl_attn_args *a, cl_mem part, cl_long ml_off, pk_msg *msg)
{
    pk_cl_kern *decode, *merge;
    pk_status s = plan->mma ? get_kernel(d, "attention_mma.cl", "pk_attn_mma_decode", p, plan, &decode, msg)
                            : get_kernel(d, "attention_decode.cl", "pk_attn_decode", p, plan, &decode, msg);
    if (s == PK_SUCCESS) {
        char opts[96];
        pk_cl_options(opts, sizeof opts, "-DDT=%d -DD=%d -DMG=%d", (int)p->q.dtype, (int)p->d, plan->merge_groups);
        s = pk_cl_kernel(d, "attention_decode.cl", opts, "pk_attn_merge", &merge, msg);
    }
    if (s != PK_SUCCESS) return s;

    cl_long n_rows = p->batch * p->hq * p->sq;
    /* scalars packed as cl_args.h says; both kernels take these */
    cl_long da[PK_DA_LONGS] = {
        [PK_DA_ML_OFF] = ml_off, [PK_DA_ACC_OFF] = ml_off + 2 * n_rows * plan->n_splits,
        [PK_DA_SQ] = a->sq,      [PK_DA_SKV] = a->skv, [PK_DA_HQ] = a->hq, [PK_DA_HKV] = a->hkv,
        [PK_DA_WL] = a->wl,      [PK_DA_WR] = a->wr,   [PK_DA_CHUNK] = plan->chunk, [PK_DA_SPLITS] = plan->n_splits,
    };
    for (int i = 0; i < 5; i++) da[PK_DA_OFF + i] = a->off.s[i];
    const cl_long4 *st[5] = {&a->qs, &a->ks, &a->vs, &a->os, &a->ls};
    const int st_at[5] = {PK_DA_QS, PK_DA_KS, PK_DA_VS, PK_DA_OS, PK_DA_LS};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) da[st_at[i] + j] = st[i]->s[j];
    const pk_cl_arg packed[3] = {{16 * sizeof(cl_long), da}, {16 * sizeof(cl_long), da + 16},
                                 {16 * sizeof(cl_long), da + 32}};
    cl_mem o = p->o.mem, lse = p->lse.mem;
    pk_cl_arg decode_args[] = {
        PK_CL_ARG(a->q), PK_CL_ARG(a->k), PK_CL_ARG(a->v), PK_CL_ARG(part), PK_CL_ARG(o), PK_CL_ARG(lse),
        PK_CL_ARG(a->lens), packed[0], packed[1], packed[2], PK_CL_ARG(a->qscale),
    };
    size_t wg = plan->mma ? (size_t)(32 * plan->mt.nw * plan->mt.nwn) : (size_t)(plan->dec.slots * plan->dec.tpk);
    size_t global[3] = {(size_t)plan->n_splits * wg, (size_t)(p->batch * p->hkv), (size_t)plan->row_tiles};
    size_t local[3] = {wg, 1, 1};
    s = pk_cl_run(d, decode, decode_args, (int)(sizeof decode_args / sizeof decode_args[0]), 3, global, local, msg);
    /* one split: the decode kernel stored the output itself */
    if (s != PK_SUCCESS || plan->n_splits == 1) return s;

    pk_cl_arg merge_args[] = {PK_CL_ARG(part), PK_CL_ARG(o), PK_CL_ARG(lse), packed[0], packed[1], packed[2]};
    size_t merge_local = (size_t)plan->merge_groups * (size_t)p->d, merge_global = (size_t)n_rows * merge_local;
    return pk_cl_run(d, merge, merge_args, (int)(sizeof merge_args / sizeof merge_args[0]), 1, &merge_global,
                     &merge_local, msg);
}

pk_status pk_cl_attention(void *dev, const pk_attention_problem *p, pk_msg *msg)
{
    pk_cl_device *d = dev;
    if (p->batch == 0 || p->sq == 0 || p->hq == 0) return PK_SUCCESS;

    pk_cl_attn_plan plan;
    pk_cl_attn_plan_make(&d->prm, p, &d->info, &plan);

    /* lengths first; partials start on a 256-byte boundary after them */
    size_t lens_bytes = p->uniform_lengths ? 0 : (size_t)p->batch * 2 * sizeof(cl_int);
    size_t part_start = (lens_bytes + 255) / 256 * 256;
    size_t part_floats = plan.split && plan.n_splits > 1 ? (size_t)(p->batch * p->hq * p->sq) * (size_t)plan.n_splits * (size_t)(p->d + 2) : 0;
    size_t bytes = part_start + part_floats * sizeof(float);
    cl_mem scratch = NULL;
    if (bytes) {
        pk_status s = pk_cl_scratch(d, bytes, &scratch, msg);
        if (s != PK_SUCCESS) return s;
    }

    pk_cl_attn_args a = {
        .q = p->q.mem, .k = p->k.mem, .v = p->v.mem,
        .qs = strides(&p->q), .ks = strides(&p->k), .vs = strides(&p->v), .os = strides(&p->o),
        .ls = strides(&p->lse),
        .sq = (cl_int)p->sq, .skv = (cl_int)p->skv, .hq = (cl_int)p->hq, .hkv = (cl_int)p->hkv,
        .qscale = (cl_float)(p->scale * M_LOG2E),
        .wl = p->window_left < 0 ? -1 : p->window_left,
        .wr = p->window_right < 0 ? -1 : p->window_right,
    };
    const pk_view *views[5] = {&p->q, &p->k, &p->v, &p->o, &p->lse};
    for (int i = 0; i < 5; i++) a.off.s[i] = views[i]->offset;

    if (lens_bytes) {
        /* staged: the host arrays are gone after this call, and nothing
         * waits; lengths on the device are copied on the queue */
        size_t half = lens_bytes / 2;
        const int32_t *host[2] = {p->len_q, p->len_kv};
        const pk_view *dev_lens[2] = {&p->len_q_dev, &p->len_kv_dev};
        pk_status s = PK_SUCCESS;
        for (int i = 0; i < 2 && s == PK_SUCCESS; i++)
            s = dev_lens[i]->mem
                    ? pk_cl_copy_i32(d, dev_lens[i], scratch, i * half, (size_t)p->batch,
                                     "clEnqueueCopyBuffer (attention lengths)", msg)
                    : pk_cl_upload_async(d, scratch, i * half, host[i], half, "clEnqueueWriteBuffer (attention lengths)",
                                         msg);
        if (s != PK_SUCCESS) return s;
        a.lens = scratch;
    }
    if (!plan.split) return run_prefill(d, p, &plan, &a, msg);
    return run_decode(d, p, &plan, &a, scratch, (cl_long)(part_start / sizeof(float)), msg);
}
