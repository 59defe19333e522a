#include "opencl_internal.h"
#define STUB(n) pk_status pk_cl_##n(void *dev, const pk_rows_problem *p, pk_msg *msg) \
{ (void)dev; (void)p; return pk_msgf(msg, PK_ERR_UNSUPPORTED, "OpenCL " #n ": not implemented yet"); }
STUB(rmsnorm) STUB(layernorm) STUB(glu) STUB(bias_act) STUB(softmax)
