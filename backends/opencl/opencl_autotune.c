/* First-use tuning on the OpenCL backend. A device of class "other" has
 * no table entry made for it: the values it gets are a guess that runs
 * everywhere. So the first op that plans a kernel family on such a device
 * asks the core (pk_core_hooks.autotune) to tune that family, unless the
 * tuning cache already has it or a caller set it, then loads what was
 * stored and plans with it. Each op is wrapped here rather than in its
 * file: the family an op will use is what its plan (plain C) says, asked
 * before the op plans for real.
 *
 * PORTKERN_CL_AUTOTUNE=off (or PORTKERN_CL_TUNED=off, which ignores the
 * cache altogether) turns it off; PORTKERN_CL_AUTOTUNE_SECONDS is each
 * family's limit (default 20). Without a cache directory there is nothing
 * to keep a result in, and every process would pay for the tuning again:
 * then no first-use tuning either (portkern tune still works). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_attention_plan.h"
#include "opencl_gemm_plan.h"
#include "opencl_internal.h"
#include "pk_disk_cache.h"

#define DEFAULT_SECONDS 20.0

/* written once, when the core loads the module, before any context opens */
static const pk_core_hooks *core;

void pk_cl_set_core_hooks(const pk_core_hooks *hooks) { core = hooks; }

static int env_off(const char *name)
{
    const char *v = getenv(name);
    return v && (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false"));
}

static double seconds(void)
{
    const char *v = getenv("PORTKERN_CL_AUTOTUNE_SECONDS");
    char *end;
    double s = v ? strtod(v, &end) : 0;
    return v && *v && !*end && s > 0 && s <= 3600 ? s : DEFAULT_SECONDS;
}

void pk_cl_autotune_init(pk_cl_device *d)
{
    char dir[1024];
    d->autotune = core && core->autotune && pk_cl_vendor_of(&d->info) == PK_CL_VENDOR_OTHER &&
                  !env_off("PORTKERN_CL_AUTOTUNE") && !pk_cl_tuned_off() && pk_cache_dir(dir, sizeof dir);
    for (int f = 0; f < PK_CL_FAMILY_COUNT; f++) d->autotune_pending[f] = d->autotune && d->prm_from[f] == 't';
}

void pk_cl_autotune_describe(const pk_cl_device *d, char *buf, size_t n)
{
    if (d->autotune) snprintf(buf, n, "on %g", seconds());
    else snprintf(buf, n, "off");
}

/* Family f, the first time d plans it: tuned (or not: the core says why,
 * and the op goes on with the values it has), then loaded. */
static void first_use(pk_cl_device *d, pk_cl_family f)
{
    d->autotune_pending[f] = 0;
    if (d->prm_from[f] != 't') return; /* set by a caller, or loaded, since the context opened */
    pk_msg msg = {{0}};
    if (core->autotune(PK_BACKEND_OPENCL, d->info.index, pk_cl_family_get(f)->name, seconds(), &msg) == PK_SUCCESS)
        pk_cl_params_load_family(d, f);
}

static pk_cl_family gemm_family(const pk_cl_gemm_plan *plan)
{
    if (plan->skinny) return PK_CL_FAMILY_SKINNY;
    if (plan->mma) return (pk_cl_family)(PK_CL_FAMILY_GEMM_MMA + plan->mma_shape);
    switch (plan->shape) {
    case PK_CL_GEMM_SMALL: return PK_CL_FAMILY_GEMM_SMALL;
    case PK_CL_GEMM_DECODE: return PK_CL_FAMILY_GEMM_DECODE;
    default: return PK_CL_FAMILY_GEMM_LARGE;
    }
}

pk_status pk_cl_gemm_first_use(void *dev, const pk_gemm_problem *p, pk_msg *msg)
{
    pk_cl_device *d = dev;
    const char *pend = d->autotune_pending;
    /* a tuned tile can move the problem to another size class: plan
     * again, until the family the plan picks was asked for (each family once at most) */
    while (d->autotune && (pend[PK_CL_FAMILY_GEMM_LARGE] || pend[PK_CL_FAMILY_GEMM_SMALL] ||
                           pend[PK_CL_FAMILY_GEMM_DECODE] || pend[PK_CL_FAMILY_SKINNY] ||
                           pend[PK_CL_FAMILY_GEMM_MMA] || pend[PK_CL_FAMILY_GEMM_MMA_SMALL] ||
                           pend[PK_CL_FAMILY_GEMM_MMA_NARROW])) {
        pk_cl_gemm_plan plan;
        if (pk_cl_gemm_plan_problem(&d->prm, &d->info, d->max_wg, p, &plan) != 0) break;
        pk_cl_family f = gemm_family(&plan);
        if (!pend[f]) break;
        first_use(d, f);
    }
    return pk_cl_gemm(dev, p, msg);
}

pk_status pk_cl_attention_first_use(void *dev, const pk_attention_problem *p, pk_msg *msg)
{
    pk_cl_device *d = dev;
    while (d->autotune && (d->autotune_pending[PK_CL_FAMILY_DECODE] || d->autotune_pending[PK_CL_FAMILY_PREFILL])) {
        pk_cl_attn_plan plan;
        pk_cl_attn_plan_make(&d->prm, p, &d->info, &plan);
        if (plan.mma) break; /* the tensor-core prefill has no family (yet) */
        pk_cl_family f = plan.split ? PK_CL_FAMILY_DECODE : PK_CL_FAMILY_PREFILL;
        if (!d->autotune_pending[f]) break;
        first_use(d, f);
    }
    return pk_cl_attention(dev, p, msg);
}

static void simple(pk_cl_device *d, pk_cl_family f)
{
    if (d->autotune && d->autotune_pending[f]) first_use(d, f);
}

/* The row ops: the norms and softmax are one family, the elementwise maps another */
pk_status pk_cl_rows_first_use(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    simple(dev, pk_rows_op_reduces(p->op) ? PK_CL_FAMILY_ROWS : PK_CL_FAMILY_ELEMENTWISE);
    return pk_cl_rows(dev, p, msg);
}

/* The ops whose family does not depend on the problem: tune it, then run */
#define FIRST_USE(op, problem, family)                                                                     \
    pk_status pk_cl_##op##_first_use(void *dev, const problem *p, pk_msg *msg)                             \
    {                                                                                                      \
        simple(dev, family);                                                                               \
        return pk_cl_##op(dev, p, msg);                                                                    \
    }
FIRST_USE(rope, pk_rope_problem, PK_CL_FAMILY_ROPE)
FIRST_USE(chain, pk_chain_problem, PK_CL_FAMILY_CHAIN)
