/* Scalar functions shared by the ops of one variant, in pk_ref_acc.
 * NaN propagates through every one of them: the conformance suite feeds
 * NaN and Inf and expects them to come out the way plain arithmetic does. */
#ifndef PK_REF_MATH_H
#define PK_REF_MATH_H

#include "ref_variant.h"

/* max/min that return NaN if either side is NaN (fmax/fmin drop it). */
static inline pk_ref_acc pk_ref_max(pk_ref_acc a, pk_ref_acc b)
{
    return isnan(a) ? a : isnan(b) ? b : (a > b ? a : b);
}

static inline pk_ref_acc pk_ref_min(pk_ref_acc a, pk_ref_acc b)
{
    return isnan(a) ? a : isnan(b) ? b : (a < b ? a : b);
}

static inline pk_ref_acc pk_ref_relu(pk_ref_acc x)
{
    return x < 0 ? PK_REF_K(0) : x; /* written so that NaN passes through */
}

static inline pk_ref_acc pk_ref_sigmoid(pk_ref_acc x)
{
    return PK_REF_K(1) / (PK_REF_K(1) + exp(-x));
}

static inline pk_ref_acc pk_ref_silu(pk_ref_acc x) { return x * pk_ref_sigmoid(x); }

/* x * 0.5 * (1 + erf(x / sqrt 2)) */
static inline pk_ref_acc pk_ref_gelu(pk_ref_acc x)
{
    return x * PK_REF_K(0.5) * (PK_REF_K(1) + erf(x * PK_REF_K(0.70710678118654752440)));
}

/* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
static inline pk_ref_acc pk_ref_gelu_tanh(pk_ref_acc x)
{
    pk_ref_acc u = PK_REF_K(0.79788456080286535588) * (x + PK_REF_K(0.044715) * x * x * x);
    return PK_REF_K(0.5) * x * (PK_REF_K(1) + tanh(u));
}

static inline pk_ref_acc pk_ref_act(pk_activation act, pk_ref_acc x)
{
    switch (act) {
    case PK_ACT_RELU: return pk_ref_relu(x);
    case PK_ACT_GELU: return pk_ref_gelu(x);
    case PK_ACT_GELU_TANH: return pk_ref_gelu_tanh(x);
    case PK_ACT_SILU: return pk_ref_silu(x);
    default: return x;
    }
}

#endif /* PK_REF_MATH_H */
