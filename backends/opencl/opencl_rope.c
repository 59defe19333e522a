#include "opencl_internal.h"
pk_status pk_cl_rope(void *dev, const pk_rope_problem *p, pk_msg *msg)
{ (void)dev; (void)p; return pk_msgf(msg, PK_ERR_UNSUPPORTED, "OpenCL rope: not implemented yet"); }
