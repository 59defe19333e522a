/* The rate at which a GPU's OpenCL runs mma.sync.m16n8k16 (bf16 and f16
 * inputs, f32 sums) through inline PTX, with no memory traffic: the
 * ceiling for the OpenCL tensor-core kernels (kernels_cl/gemm_mma.cl,
 * attention_mma.cl), which, unlike the card's datasheet rate, the
 * instruction they use can reach (OpenCL targets sm_90 without the "a":
 * no wgmma). Not a portkern kernel. Each warp runs CHAINS independent
 * accumulator chains, so that the tensor pipe, not an mma's latency,
 * bounds it; work-groups of 1 to 16 warps, as many as the device runs at
 * once (compute units x groups that fit), several times over.
 * Build and run on the GPU machine, with NVIDIA's OpenCL registered
 * (tools/gpu_check.sh does it):
 *   cc -O2 tools/mma_sync_peak.c -lOpenCL -o /tmp/mma_peak && /tmp/mma_peak [iterations] */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHAINS 8

static const char *source =
    "#if BF16\n"
    "#define TYPE \"bf16\"\n"
    "#else\n"
    "#define TYPE \"f16\"\n"
    "#endif\n"
    "#define MMA(t) \\\n"
    "    asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.\" t \".\" t \".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, \" \\\n"
    "                 \"{%8,%9}, {%0,%1,%2,%3};\" \\\n"
    "                 : \"+f\"(c[q][0]), \"+f\"(c[q][1]), \"+f\"(c[q][2]), \"+f\"(c[q][3]) \\\n"
    "                 : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1))\n"
    "__kernel void peak(__global float *out, int iters, uint bits)\n"
    "{\n"
    "    const uint a0 = bits, a1 = bits, a2 = bits, a3 = bits, b0 = bits, b1 = bits;\n"
    "    float c[CHAINS][4];\n"
    "    for (int q = 0; q < CHAINS; q++) c[q][0] = c[q][1] = c[q][2] = c[q][3] = 0.0f;\n"
    "    for (int i = 0; i < iters; i++) {\n"
    "#pragma unroll\n"
    "        for (int q = 0; q < CHAINS; q++) MMA(TYPE);\n"
    "    }\n"
    "    float s = 0.0f;\n"
    "    for (int q = 0; q < CHAINS; q++) s += c[q][0] + c[q][1] + c[q][2] + c[q][3];\n"
    "    out[get_global_id(0)] = s;\n"
    "}\n";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int check(cl_int err, const char *what)
{
    if (err == CL_SUCCESS) return 0;
    fprintf(stderr, "%s failed: %d\n", what, (int)err);
    return 1;
}

/* the first GPU whose platform names NVIDIA, else the first GPU */
static cl_device_id pick_device(void)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return NULL;
    cl_device_id any = NULL;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id dev;
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_GPU, 1, &dev, &nd) != CL_SUCCESS || !nd) continue;
        char name[256] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, "NVIDIA")) return dev;
        if (!any) any = dev;
    }
    return any;
}

int main(int argc, char **argv)
{
    const int iters = argc > 1 ? atoi(argv[1]) : 20000;
    cl_device_id dev = pick_device();
    if (!dev) {
        fprintf(stderr, "no OpenCL GPU\n");
        return 1;
    }
    char name[256] = "";
    cl_uint units = 0;
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    printf("%s, %u compute units, %d iterations of %d chains a warp\n", name, units, iters, CHAINS);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (check(err, "clCreateContext")) return 1;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (check(err, "clCreateCommandQueue")) return 1;

    static const struct {
        const char *type;
        unsigned bits; /* two 1.0s of the type: sums grow by 16 an mma, never overflow */
    } types[] = {{"bf16", 0x3f803f80u}, {"f16", 0x3c003c00u}};
    for (int t = 0; t < 2; t++) {
        char options[128];
        snprintf(options, sizeof options, "-DCHAINS=%d -DBF16=%d", CHAINS, t == 0);
        cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
        if (check(err, "clCreateProgramWithSource")) return 1;
        if (clBuildProgram(prog, 1, &dev, options, NULL, NULL) != CL_SUCCESS) {
            char log[8192] = "";
            clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            fprintf(stderr, "%s: build failed:\n%s\n", types[t].type, log);
            return 1;
        }
        cl_kernel k = clCreateKernel(prog, "peak", &err);
        if (check(err, "clCreateKernel")) return 1;
        for (int warps = 1; warps <= 16; warps *= 2) {
            /* 8 waves of as many groups as fit 64 warps a unit */
            const size_t local = 32 * (size_t)warps;
            const size_t groups = (size_t)units * (size_t)(64 / warps) * 8, global = groups * local;
            cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, global * sizeof(float), NULL, &err);
            if (check(err, "clCreateBuffer")) return 1;
            const unsigned bits = types[t].bits;
            clSetKernelArg(k, 0, sizeof out, &out);
            clSetKernelArg(k, 1, sizeof iters, &iters);
            clSetKernelArg(k, 2, sizeof bits, &bits);
            double best = 1e30;
            for (int rep = 0; rep < 4; rep++) { /* the first also warms up */
                const double t0 = now();
                if (check(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), "enqueue") ||
                    check(clFinish(q), "clFinish"))
                    return 1;
                const double dt = now() - t0;
                if (rep > 0 && dt < best) best = dt;
            }
            float first;
            clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof first, &first, 0, NULL, NULL);
            const double flop = (double)(global / 32) * iters * CHAINS * 4096.0;
            printf("%-4s %2d warps a group: %8.1f TFLOP/s (%.3f s; an output %g, want %g)\n", types[t].type, warps,
                   flop / best * 1e-12, best, first, 16.0 * 4 * CHAINS * iters);
            clReleaseMemObject(out);
        }
        clReleaseKernel(k);
        clReleaseProgram(prog);
    }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
