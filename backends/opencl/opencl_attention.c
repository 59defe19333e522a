#include "opencl_internal.h"
pk_status pk_cl_attention(void *dev, const pk_attention_problem *p, pk_msg *msg)
{ (void)dev; (void)p; return pk_msgf(msg, PK_ERR_UNSUPPORTED, "OpenCL attention: not implemented yet"); }
