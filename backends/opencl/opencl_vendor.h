/* The device classes the OpenCL plans keep parameter tables for, told
 * from the device's description. Plain C without OpenCL headers, so that
 * the plans stay unit-testable on any machine. */
#ifndef PK_OPENCL_VENDOR_H
#define PK_OPENCL_VENDOR_H

#include "portkern.h"

typedef enum pk_cl_vendor {
    PK_CL_VENDOR_NVIDIA,
    PK_CL_VENDOR_AMD,
    PK_CL_VENDOR_INTEL,
    PK_CL_VENDOR_CPU,
    PK_CL_VENDOR_OTHER,
    PK_CL_VENDOR_COUNT
} pk_cl_vendor;

pk_cl_vendor pk_cl_vendor_of(const pk_device_info *info);

#endif
