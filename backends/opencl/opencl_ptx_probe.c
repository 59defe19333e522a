/* Whether a device's OpenCL runs the inline PTX of kernels_cl/nv_ptx.cl
 * exactly: NVIDIA's compiler accepts PTX inside OpenCL C, and that is the
 * only way an OpenCL kernel reaches the tensor cores. Asked once per device
 * and process, when the device's description is first read (a context's
 * open, `portkern devices`): kernels_cl/ptx_probe.cl runs mma.sync (bf16
 * and f16), cp.async and ldmatrix once on known data on a context of its
 * own, and every value is compared with what the PTX ISA's fragment layout
 * gives (small multiples of a power of two: every sum is exact, so equal
 * means right). Only a device that passes gets matrix_units, and with it
 * the kernels built with PK_PTX = 1; a driver that refuses or miscomputes
 * keeps the portable kernels, and says why. opencl_backend.c asks it once
 * per device and keeps the answer; PORTKERN_OPENCL_PTX=0 turns the probe
 * and the PTX kernels off. On Hopper the same file probes wgmma and TMA,
 * the latter with the tensor-map templates of opencl_tma.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "opencl_tma.h"

/* bits of x, exact in bf16 / f16 (the probe's values are) */
static uint32_t bf16_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u >> 16;
}

static uint32_t f16_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    uint32_t sign = (u >> 16) & 0x8000u;
    if ((u & 0x7fffffffu) == 0) return sign;
    int e = (int)((u >> 23) & 0xff) - 127 + 15;
    return sign | (uint32_t)e << 10 | (u & 0x7fffffu) >> 13;
}

/* The words the kernel reads and the floats it must write (ptx_probe.cl). */
static void probe_data(uint32_t in[512], float want[384])
{
    float a[16][16], b[16][8];
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 16; k++) a[i][k] = (float)((i * 7 + k * 3) % 11 - 5) / 4.0f;
    for (int k = 0; k < 16; k++)
        for (int j = 0; j < 8; j++) b[k][j] = (float)((k * 5 + j) % 9 - 4) / 2.0f;
    for (int h = 0; h < 2; h++) {
        uint32_t (*bits)(float) = h ? f16_bits : bf16_bits;
#define PAIR(lo, hi) (bits(lo) | bits(hi) << 16)
        for (int l = 0; l < 32; l++) {
            const int g = l / 4, t = l % 4;
            uint32_t *f = in + 192 * h + 6 * l;
            f[0] = PAIR(a[g][2 * t], a[g][2 * t + 1]);
            f[1] = PAIR(a[g + 8][2 * t], a[g + 8][2 * t + 1]);
            f[2] = PAIR(a[g][2 * t + 8], a[g][2 * t + 9]);
            f[3] = PAIR(a[g + 8][2 * t + 8], a[g + 8][2 * t + 9]);
            f[4] = PAIR(b[2 * t][g], b[2 * t + 1][g]);
            f[5] = PAIR(b[2 * t + 8][g], b[2 * t + 9][g]);
            for (int e = 0; e < 4; e++) {
                const int row = g + (e >= 2 ? 8 : 0), col = 2 * t + (e & 1);
                float s = 0.0f;
                for (int k = 0; k < 16; k++) s += a[row][k] * b[k][col];
                want[128 * h + 4 * l + e] = s;
            }
        }
#undef PAIR
    }
    for (int w = 0; w < 128; w++) in[384 + w] = 0x9e3779b9u * (uint32_t)(w + 1);
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 4; i++) {
            uint32_t v = in[384 + (8 * i + l / 4) * 4 + l % 4];
            memcpy(&want[256 + 4 * l + i], &v, 4);
        }
}

static const char *const part_name[3] = {"mma.sync bf16", "mma.sync f16", "cp.async + ldmatrix"};

/* Builds kernel `kernel` of cl_args.h + nv_ptx.cl + ptx_probe.cl with
 * `options` (and the PTX edits they ask: opencl_ptx_rebuild.c) on a
 * context of its own, runs it once over `items` work-items in work-groups
 * of `group` on in_bytes of `in` (read-write: the TMA probe writes its
 * maps there), and reads out_bytes of its output into `out`; 1 if all
 * that went through, else 0 and why (`what` names the probe). */
static int run_probe(cl_platform_id plat, cl_device_id dev, const char *what, const char *options,
                     const char *kernel, const void *in, size_t in_bytes, void *out, size_t out_bytes, size_t items,
                     size_t group, char *why, size_t n)
{
    const char *parts[3] = {pk_cl_embedded_source("cl_args.h"), pk_cl_embedded_source("nv_ptx.cl"),
                            pk_cl_embedded_source("ptx_probe.cl")};
    if (!parts[0] || !parts[1] || !parts[2]) return snprintf(why, n, "the probe's sources are not embedded"), 0;
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    cl_context ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return snprintf(why, n, "clCreateContext: %s", pk_cl_error_name(err)), 0;
    int ok = 0;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_program prog = err == CL_SUCCESS ? clCreateProgramWithSource(ctx, 3, parts, NULL, &err) : NULL;
    cl_mem bin = NULL, bout = NULL;
    cl_kernel k = NULL;
    if (err == CL_SUCCESS) {
        err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
        const char *edit = "";
        if (err == CL_SUCCESS) err = pk_cl_ptx_rebuild(ctx, dev, &prog, options, &edit);
        if (err != CL_SUCCESS) {
            char log[512] = "";
            clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
            log[strcspn(log, "\n")] = 0;
            snprintf(why, n, "the %s PTX did not build (%s%s%s): %.300s", what, pk_cl_error_name(err),
                     *edit ? ", " : "", edit, log);
            goto done;
        }
    }
    if (err == CL_SUCCESS)
        bin = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, in_bytes, (void *)in, &err);
    if (err == CL_SUCCESS) bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, out_bytes, NULL, &err);
    if (err == CL_SUCCESS) k = clCreateKernel(prog, kernel, &err);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, 0, sizeof bin, &bin);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, 1, sizeof bout, &bout);
    if (err == CL_SUCCESS) err = clEnqueueNDRangeKernel(q, k, 1, NULL, &items, &group, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(q, bout, CL_TRUE, 0, out_bytes, out, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        snprintf(why, n, "running the %s probe: %s", what, pk_cl_error_name(err));
    else
        ok = 1;
done:
    if (k) clReleaseKernel(k);
    if (bin) clReleaseMemObject(bin);
    if (bout) clReleaseMemObject(bout);
    if (prog) clReleaseProgram(prog);
    if (q) clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return ok;
}

int pk_cl_ptx_probe(cl_platform_id plat, cl_device_id dev, char *why, size_t n)
{
    uint32_t hin[512];
    float want[384], got[384];
    probe_data(hin, want);
    if (!run_probe(plat, dev, "inline", "-DPK_PTX=1", "pk_ptx_probe", hin, sizeof hin, got, sizeof got, 32, 32, why,
                   n))
        return 0;
    for (int i = 0; i < 384; i++)
        if (memcmp(&got[i], &want[i], 4))
            return snprintf(why, n, "%s computed %g where %g was due (value %d)", part_name[i / 128], (double)got[i],
                            (double)want[i], i % 128),
                   0;
    return 1;
}

/* wgmma's probe data (ptx_probe.cl pk_wgmma_probe): a 64 x 32, b 32 x 32,
 * both K-major, as bf16 then f16 words, and the products due */
static void wgmma_data(uint32_t in[3072], float want[4096])
{
    float a[64][32], b[32][32];
    for (int i = 0; i < 64; i++)
        for (int k = 0; k < 32; k++) a[i][k] = (float)((i * 7 + k * 3) % 11 - 5) / 4.0f;
    for (int j = 0; j < 32; j++)
        for (int k = 0; k < 32; k++) b[j][k] = (float)((k * 5 + j) % 9 - 4) / 2.0f;
    for (int h = 0; h < 2; h++) {
        uint32_t (*bits)(float) = h ? f16_bits : bf16_bits;
        uint32_t *w = in + 1536 * h;
        for (int i = 0; i < 64; i++)
            for (int k = 0; k < 32; k += 2) w[i * 16 + k / 2] = bits(a[i][k]) | bits(a[i][k + 1]) << 16;
        for (int j = 0; j < 32; j++)
            for (int k = 0; k < 32; k += 2) w[1024 + j * 16 + k / 2] = bits(b[j][k]) | bits(b[j][k + 1]) << 16;
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 32; j++) {
                float s = 0.0f;
                for (int k = 0; k < 32; k++) s += a[i][k] * b[j][k];
                want[2048 * h + i * 32 + j] = s;
            }
    }
}

int pk_cl_wgmma_probe(cl_platform_id plat, cl_device_id dev, char *why, size_t n)
{
    uint32_t *hin = malloc(3072 * sizeof *hin);
    float *want = malloc(4096 * sizeof *want), *got = malloc(4096 * sizeof *got);
    int ok = 0;
    if (!hin || !want || !got)
        snprintf(why, n, "out of host memory");
    else {
        wgmma_data(hin, want);
        ok = run_probe(plat, dev, "wgmma (sm_90a)", "-DPK_PTX=1 -DPK_WGMMA=1", "pk_wgmma_probe", hin,
                       3072 * sizeof *hin, got, 4096 * sizeof *got, 128, 128, why, n);
    }
    for (int i = 0; i < 4096 && ok; i++)
        if (memcmp(&got[i], &want[i], 4)) {
            snprintf(why, n, "wgmma %s computed %g where %g was due (row %d, column %d)", i < 2048 ? "bf16" : "f16",
                     (double)got[i], (double)want[i], i % 2048 / 32, i % 32);
            ok = 0;
        }
    free(hin);
    free(want);
    free(got);
    return ok;
}

/* TMA's probe data (ptx_probe.cl pk_tma_probe): the templates at in[0 ..
 * 255], zeros where the slots go (in[256 .. 511]), then the tensor of 100
 * rows by 80 16-bit elements, each distinct and none 0 nor 0xffff */
#define TMA_ROWS 100
#define TMA_K 80
#define TMA_WORDS (512 + TMA_ROWS * TMA_K / 2)
#define TMA_OUT 30720
static uint32_t tma_value(int row, int k) { return 0x4000u | (uint32_t)(row * TMA_K + k); }

int pk_cl_tma_probe(cl_platform_id plat, cl_device_id dev, const unsigned char tpl[PK_TMA_TEMPLATES][128], char *why,
                    size_t n)
{
    uint32_t *hin = calloc(TMA_WORDS, sizeof *hin), *got = malloc((TMA_OUT + 1) * sizeof *got);
    int ok = 0;
    if (!hin || !got) {
        snprintf(why, n, "out of host memory");
        goto done;
    }
    memcpy(hin, tpl, PK_TMA_TEMPLATES * 128);
    for (int r = 0; r < TMA_ROWS; r++)
        for (int k = 0; k < TMA_K; k += 2) hin[512 + (r * TMA_K + k) / 2] = tma_value(r, k) | tma_value(r, k + 1) << 16;
    if (!run_probe(plat, dev, "TMA (sm_90a)", "-DPK_PTX=1 -DPK_WGMMA=1", "pk_tma_probe", hin, TMA_WORDS * sizeof *hin,
                   got, (TMA_OUT + 1) * sizeof *got, 128, 128, why, n))
        goto done;
    if (got[TMA_OUT]) {
        const int t = (int)got[TMA_OUT] - 1;
        snprintf(why, n, "the TMA copy through the %s template of %d rows did not complete in 0.2 s",
                 t / PK_TMA_HEIGHTS ? "bf16" : "f16", 32 << (t % PK_TMA_HEIGHTS));
        goto done;
    }
    ok = 1;
    for (int t = 0, at = 0; t < PK_TMA_TEMPLATES && ok; t++) {
        const int h = 32 << (t % PK_TMA_HEIGHTS), x = t < PK_TMA_HEIGHTS ? 48 : 64, y = h <= 64 ? 64 : 0;
        for (int r = 0; r < h && ok; r++)
            for (int c = 0; c < PK_TMA_BOX_K && ok; c++, at++) {
                const int row = y + r, k = x + c;
                const uint32_t want = row < TMA_ROWS && k < TMA_K ? tma_value(row, k) : 0;
                if (got[at] != want) {
                    snprintf(why, n,
                             "the TMA copy through the %s template of %d rows gave 0x%04x where 0x%04x was due "
                             "(row %d, k %d%s)",
                             t / PK_TMA_HEIGHTS ? "bf16" : "f16", h, (unsigned)got[at], (unsigned)want, row, k,
                             got[at] == 0xffffu ? ": not written" : "");
                    ok = 0;
                }
            }
    }
done:
    free(hin);
    free(got);
    return ok;
}
