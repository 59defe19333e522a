#include <ctype.h>
#include <string.h>

#include "opencl_vendor.h"

static int contains_nocase(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && tolower((unsigned char)s[i]) == tolower((unsigned char)word[i])) i++;
        if (i == n) return 1;
    }
    return 0;
}

pk_cl_vendor pk_cl_vendor_of(const pk_device_info *info)
{
    /* first: a CPU driver may report the CPU's vendor (Intel, AMD) */
    if (info->is_cpu) return PK_CL_VENDOR_CPU;
    if (contains_nocase(info->vendor, "nvidia")) return PK_CL_VENDOR_NVIDIA;
    if (contains_nocase(info->vendor, "advanced micro devices") || contains_nocase(info->vendor, "amd"))
        return PK_CL_VENDOR_AMD;
    if (contains_nocase(info->vendor, "intel")) return PK_CL_VENDOR_INTEL;
    return PK_CL_VENDOR_OTHER;
}
