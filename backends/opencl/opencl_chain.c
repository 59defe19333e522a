#include "opencl_internal.h"
pk_status pk_cl_chain(void *dev, const pk_chain_problem *p, pk_msg *msg)
{ (void)dev; (void)p; return pk_msgf(msg, PK_ERR_UNSUPPORTED, "OpenCL chain: not implemented yet"); }
