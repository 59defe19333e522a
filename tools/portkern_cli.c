/* The portkern command line: device listing, the conformance suite, the
 * bench and the tuner. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "conform.h"
#include "portkern.h"
#include "portkern_tune.h"

static void print_device(const pk_device_info *i)
{
    double gib = (double)i->global_mem_bytes / (1024.0 * 1024.0 * 1024.0);
    printf("  %-6s %d: %s (%s)%s\n", pk_backend_name(i->backend), i->index, i->name, i->vendor,
           i->is_cpu ? " [cpu]" : "");
    printf("           driver %s; %.1f GiB; %d compute units; local memory %llu KiB; simd %d;%s%s\n",
           i->driver, gib, i->compute_units, (unsigned long long)(i->local_mem_bytes / 1024), i->simd_width,
           i->native_fp16 ? " fp16" : " no fp16", i->matrix_units ? "; matrix units" : "");
}

static int cmd_devices(void)
{
    int total = 0;
    static const pk_backend order[] = {PK_BACKEND_CUDA, PK_BACKEND_HIP, PK_BACKEND_OPENCL, PK_BACKEND_REF};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        pk_backend b = order[k];
        int n = 0;
        if (pk_device_count(b, &n) != PK_SUCCESS) {
            printf("%-6s  unavailable: %s\n", pk_backend_name(b), pk_backend_unavailable_reason(b));
            continue;
        }
        printf("%-6s  %d device(s)\n", pk_backend_name(b), n);
        for (int i = 0; i < n; i++) {
            pk_device_info info;
            if (pk_device_info_get(b, i, &info) == PK_SUCCESS) {
                print_device(&info);
                if (b == PK_BACKEND_OPENCL) pk_tune_print_status(b, i);
                total++;
            } else {
                printf("  %-6s %d: %s\n", pk_backend_name(b), i, pk_last_error(NULL));
            }
        }
    }
    pk_context *ctx;
    if (pk_open(PK_BACKEND_AUTO, 0, &ctx) == PK_SUCCESS) {
        pk_device_info info;
        pk_context_info(ctx, &info);
        printf("auto    -> %s %d: %s\n", pk_backend_name(info.backend), info.index, info.name);
        pk_close(ctx);
    } else {
        printf("auto    -> none: %s\n", pk_last_error(NULL));
    }
    return total > 0 ? 0 : 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: portkern COMMAND [options]\n"
            "  devices            list every backend and device, or why it is missing\n"
            "  conform [options]  run the conformance suite (portkern conform --help)\n"
            "  bench [options]    time LLM-shaped cases beside the vendor library (portkern bench --help)\n"
            "  tune [options]     tune a device's OpenCL kernel parameters (portkern tune --help)\n"
            "  version            print the library version\n"
            "Environment: PORTKERN_BACKEND picks the automatic backend (ref, opencl[:N], cuda, hip);\n"
            "PORTKERN_CACHE_DIR holds OpenCL program binaries and tuning (\"off\" disables the cache);\n"
            "PORTKERN_CL_TUNED=off runs the built-in parameter table, not what was tuned.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "devices")) return cmd_devices();
    if (!strcmp(cmd, "conform")) return pk_conform_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return pk_bench_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "tune")) return pk_tune_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "version")) {
        printf("portkern %s\n", pk_version_string());
        return 0;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "portkern: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
