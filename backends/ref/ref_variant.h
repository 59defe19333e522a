/* What one variant of the reference backend is made of. The op sources are
 * compiled twice (CLBlast-style), once per accumulator type:
 *     -DPK_REF_ACC=double -DPK_REF_SUFFIX=f64   (the oracle)
 *     -DPK_REF_ACC=float  -DPK_REF_SUFFIX=f32   (same precision as a GPU kernel)
 * All arithmetic happens in pk_ref_acc. <tgmath.h> makes exp, sqrt, pow...
 * follow the argument type, so the f32 variant calls expf, sqrtf, powf;
 * constants are therefore written through PK_REF_K, never as bare double
 * literals, which would silently promote the f32 variant to double. */
#ifndef PK_REF_VARIANT_H
#define PK_REF_VARIANT_H

#if !defined(PK_REF_ACC) || !defined(PK_REF_SUFFIX)
#error "compile with -DPK_REF_ACC=<double|float> -DPK_REF_SUFFIX=<f64|f32>"
#endif

#include <tgmath.h>

#include "backend.h"
#include "pk_half.h"

typedef PK_REF_ACC pk_ref_acc;

#define PK_REF_K(x) ((pk_ref_acc)(x))

/* pk_ref_<name>_<suffix>: one symbol per variant, so that both link into
 * one library. */
#define PK_REF_CAT_(a, b) a##_##b
#define PK_REF_CAT(a, b) PK_REF_CAT_(a, b)
#define PK_REF_FN(name) PK_REF_CAT(pk_ref_##name, PK_REF_SUFFIX)

/* Element i (counted from the view's offset) of a view. Inputs are read
 * exactly from their dtype; an output is rounded to its dtype once (the
 * f64 variant goes double -> float -> dtype). */
static inline pk_ref_acc pk_ref_load(const pk_view *v, int64_t i)
{
    return (pk_ref_acc)pk__load_f32(v->mem, (int)v->dtype, v->offset + i);
}

static inline void pk_ref_store(const pk_view *v, int64_t i, pk_ref_acc x)
{
    pk__store_f32(v->mem, (int)v->dtype, v->offset + i, (float)x);
}

/* A scratch array of n accumulators for an op on dev; reports failure in
 * msg. Also an injection site (pk_fault.h). */
pk_ref_acc *PK_REF_FN(scratch)(const void *dev, int64_t n, pk_msg *msg);

pk_status PK_REF_FN(gemm)(void *dev, const pk_gemm_problem *p, pk_msg *msg);
pk_status PK_REF_FN(attention)(void *dev, const pk_attention_problem *p, pk_msg *msg);
pk_status PK_REF_FN(rows)(void *dev, const pk_rows_problem *p, pk_msg *msg);
pk_status PK_REF_FN(rope)(void *dev, const pk_rope_problem *p, pk_msg *msg);
pk_status PK_REF_FN(chain)(void *dev, const pk_chain_problem *p, pk_msg *msg);

#endif /* PK_REF_VARIANT_H */
