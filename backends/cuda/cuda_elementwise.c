#include "cuda_internal.h"
#define STUB(n, T) pk_status pk_cu_##n(void *dev, const T *p, pk_msg *msg) \
{ (void)dev; (void)p; return pk_msgf(msg, PK_ERR_UNSUPPORTED, "CUDA " #n ": not implemented yet"); }
STUB(rmsnorm, pk_rows_problem) STUB(layernorm, pk_rows_problem) STUB(glu, pk_rows_problem)
STUB(bias_act, pk_rows_problem) STUB(softmax, pk_rows_problem) STUB(rope, pk_rope_problem) STUB(chain, pk_chain_problem)
