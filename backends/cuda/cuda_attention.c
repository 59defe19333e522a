#include "cuda_internal.h"
pk_status pk_cu_attention(void *dev, const pk_attention_problem *p, pk_msg *msg)
{ (void)dev; (void)p; return pk_msgf(msg, PK_ERR_UNSUPPORTED, "CUDA attention: not implemented yet"); }
