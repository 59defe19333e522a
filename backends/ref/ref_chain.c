/* The fused chain: per output element, load the inputs into registers r[],
 * run the steps in order, store the last value. Broadcasting is already in
 * the input strides (0 where an input repeats). */
#include "ref_math.h"

static pk_ref_acc pk_ref_chain_step(const pk_chain_step *st, const pk_ref_acc *r)
{
    pk_ref_acc a = r[st->a];
    switch (st->op) {
    case PK_CHAIN_ADD: return a + r[st->b];
    case PK_CHAIN_SUB: return a - r[st->b];
    case PK_CHAIN_MUL: return a * r[st->b];
    case PK_CHAIN_DIV: return a / r[st->b];
    case PK_CHAIN_MAX: return pk_ref_max(a, r[st->b]);
    case PK_CHAIN_MIN: return pk_ref_min(a, r[st->b]);
    case PK_CHAIN_ADD_IMM: return a + (pk_ref_acc)st->imm;
    case PK_CHAIN_MUL_IMM: return a * (pk_ref_acc)st->imm;
    case PK_CHAIN_POW_IMM: return pow(a, (pk_ref_acc)st->imm);
    case PK_CHAIN_NEG: return -a;
    case PK_CHAIN_ABS: return fabs(a);
    case PK_CHAIN_EXP: return exp(a);
    case PK_CHAIN_LOG: return log(a);
    case PK_CHAIN_SQRT: return sqrt(a);
    case PK_CHAIN_RSQRT: return PK_REF_K(1) / sqrt(a);
    case PK_CHAIN_TANH: return tanh(a);
    case PK_CHAIN_SIGMOID: return pk_ref_sigmoid(a);
    case PK_CHAIN_RELU: return pk_ref_relu(a);
    case PK_CHAIN_GELU: return pk_ref_gelu(a);
    case PK_CHAIN_GELU_TANH: return pk_ref_gelu_tanh(a);
    case PK_CHAIN_SILU: return pk_ref_silu(a);
    default: return a; /* the router admits no other op */
    }
}

static int64_t pk_ref_chain_at(const pk_view *v, const int64_t *n)
{
    return n[0] * v->stride[0] + n[1] * v->stride[1] + n[2] * v->stride[2] + n[3] * v->stride[3];
}

static void pk_ref_chain_element(const pk_chain_problem *p, const int64_t *n)
{
    pk_ref_acc r[PK_CHAIN_MAX_INPUTS + PK_CHAIN_MAX_STEPS];
    for (int i = 0; i < p->n_inputs; i++)
        r[i] = pk_ref_load(&p->in[i], pk_ref_chain_at(&p->in[i], n));
    for (int s = 0; s < p->n_steps; s++)
        r[p->n_inputs + s] = pk_ref_chain_step(&p->steps[s], r);
    pk_ref_store(&p->out, pk_ref_chain_at(&p->out, n), r[p->n_inputs + p->n_steps - 1]);
}

pk_status PK_REF_FN(chain)(void *dev, const pk_chain_problem *p, pk_msg *msg)
{
    (void)dev;
    (void)msg;
    int64_t n[PK_MAX_DIMS];
    for (n[0] = 0; n[0] < p->shape[0]; n[0]++)
        for (n[1] = 0; n[1] < p->shape[1]; n[1]++)
            for (n[2] = 0; n[2] < p->shape[2]; n[2]++)
                for (n[3] = 0; n[3] < p->shape[3]; n[3]++)
                    pk_ref_chain_element(p, n);
    return PK_SUCCESS;
}
