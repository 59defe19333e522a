#include <ctype.h>
#include <stdlib.h>
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

/* PORTKERN_CL_VENDOR=nvidia|amd|intel|cpu|other: every device counts as
 * that class. For tests only: a machine with PoCL alone can then run what
 * only a device of another class does (tests/test_autotune.c: first-use
 * tuning, which class "other" gets); the class's table values may be slow
 * on the real device, and any that need the real hardware fail. */
static int forced(pk_cl_vendor *out)
{
    static const char *const names[PK_CL_VENDOR_COUNT] = {"nvidia", "amd", "intel", "cpu", "other"};
    const char *env = getenv("PORTKERN_CL_VENDOR");
    for (int i = 0; env && *env && i < PK_CL_VENDOR_COUNT; i++)
        if (!strcmp(env, names[i])) {
            *out = (pk_cl_vendor)i;
            return 1;
        }
    return 0;
}

pk_cl_vendor pk_cl_vendor_of(const pk_device_info *info)
{
    pk_cl_vendor v;
    if (forced(&v)) return v;
    /* first: a CPU driver may report the CPU's vendor (Intel, AMD) */
    if (info->is_cpu) return PK_CL_VENDOR_CPU;
    if (contains_nocase(info->vendor, "nvidia")) return PK_CL_VENDOR_NVIDIA;
    if (contains_nocase(info->vendor, "advanced micro devices") || contains_nocase(info->vendor, "amd"))
        return PK_CL_VENDOR_AMD;
    if (contains_nocase(info->vendor, "intel")) return PK_CL_VENDOR_INTEL;
    return PK_CL_VENDOR_OTHER;
}
