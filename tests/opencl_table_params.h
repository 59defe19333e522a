/* The OpenCL plans' parameters of a device's class as its table gives them
 * (what an untuned context runs), for the plan and coverage tests. */
#ifndef PK_OPENCL_TABLE_PARAMS_H
#define PK_OPENCL_TABLE_PARAMS_H

#include "opencl_params.h"

static inline const pk_cl_params *table_params(const pk_device_info *info)
{
    static pk_cl_params p[PK_CL_VENDOR_COUNT];
    pk_cl_vendor cls = pk_cl_vendor_of(info);
    pk_cl_params_default(cls, &p[cls]);
    return &p[cls];
}

#endif
