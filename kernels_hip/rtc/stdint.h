/* <stdint.h> for the run-time compilers (backends/hip/hip_rtc.c passes it
 * in place of the system's): NVRTC has none, and hipRTC's built-in HIP
 * defines the 32- and 64-bit types but not the narrower ones, while the
 * system's header would define int64_t a second time as another type. */
#pragma once
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
#if defined(__CUDACC_RTC__)
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#endif
