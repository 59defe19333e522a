/* The OpenCL chain takes its immediates as kernel arguments: chains that
 * differ only in a constant share one program, so they add nothing to the
 * on-disk binary cache (which once grew by one program per constant), and
 * each still computes with its own constant. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portkern.h"

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* out = x * imm + 1 over 64 elements; 0 when every element is right. */
static int chain_with(pk_context *ctx, pk_buffer *x, pk_buffer *out, float imm)
{
    int64_t shape[1] = {64};
    pk_tensor tx = pk_tensor_make(x, 0, PK_F32, 1, shape), to = pk_tensor_make(out, 0, PK_F32, 1, shape);
    pk_chain_step steps[2] = {{PK_CHAIN_MUL_IMM, 0, 0, imm}, {PK_CHAIN_ADD_IMM, 1, 0, 1.0f}};
    pk_chain_desc d = {1, &tx, 2, steps};
    float got[64];
    if (pk_chain(ctx, &d, &to) || pk_download(out, 0, got, sizeof got)) {
        fprintf(stderr, "chain: %s\n", pk_last_error(ctx));
        return 1;
    }
    for (int i = 0; i < 64; i++)
        if (got[i] != (float)i * imm + 1.0f) {
            fprintf(stderr, "imm %g: element %d is %g, expected %g\n", imm, i, got[i], (float)i * imm + 1.0f);
            return 1;
        }
    return 0;
}

int main(void)
{
    char dir[] = "/tmp/pk_chain_cache_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("PORTKERN_CACHE_DIR", dir, 1);
    pk_context *ctx;
    int n_dev = 0;
    if (pk_device_count(PK_BACKEND_OPENCL, &n_dev) != PK_SUCCESS || n_dev == 0 ||
        pk_open(PK_BACKEND_OPENCL, 0, &ctx) != PK_SUCCESS) {
        printf("no OpenCL device: skipped\n");
        return 77;
    }
    pk_buffer *x, *out;
    float host[64];
    for (int i = 0; i < 64; i++) host[i] = (float)i;
    if (pk_alloc(ctx, sizeof host, &x) || pk_alloc(ctx, sizeof host, &out) || pk_upload(x, 0, host, sizeof host))
        return 1;
    int fail = chain_with(ctx, x, out, 2.0f);
    int after_one = count_files(dir);
    fail |= chain_with(ctx, x, out, 3.0f) | chain_with(ctx, x, out, -0.5f);
    int after_three = count_files(dir);
    pk_close(ctx);
    if (after_one < 1) {
        fprintf(stderr, "the first chain left nothing in the cache (%d): cannot tell\n", after_one);
        fail = 1;
    } else if (after_three != after_one) {
        fprintf(stderr, "two more constants added %d cache files\n", after_three - after_one);
        fail = 1;
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    printf("chain constants share one program: %s\n", fail ? "FAIL" : "ok");
    return fail;
}
