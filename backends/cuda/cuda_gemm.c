#include "cuda_internal.h"
pk_status pk_cu_gemm(void *dev, const pk_gemm_problem *p, pk_msg *msg)
{ (void)dev; (void)p; return pk_msgf(msg, PK_ERR_UNSUPPORTED, "CUDA gemm: not implemented yet"); }
