/* The HIP kernels compiled at context open (hip_rtc.c). */
#ifndef PK_HIP_RTC_H
#define PK_HIP_RTC_H

#include <stddef.h>

#include "backend.h"

/* The embedded kernel files to compile, one module each ("gemm.hip", ...). */
int pk_hip_rtc_unit_count(void);
const char *pk_hip_rtc_unit(int i);

/* The code of unit compiled for arch ("gfx942", "sm_90"): *code
 * (malloc'd) and *len, from the disk cache where it holds it (*from_cache
 * 1) unless fresh, else compiled and cached; PK_ERR_BUILD_FAILED with the
 * compiler's log, or the reason there is no compiler. No device needed. */
pk_status pk_hip_rtc_code(const char *unit, const char *arch, int fresh, char **code, size_t *len, int *from_cache,
                          pk_msg *msg);

/* "hipRTC" or "NVRTC" */
const char *pk_hip_rtc_name(void);

#endif
