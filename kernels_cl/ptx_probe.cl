/* The probe of inline PTX at context open (backends/opencl/opencl_ptx_probe.c
 * checks what it writes): one warp runs each building block of nv_ptx.cl
 * once on known data.
 *   out[0 .. 127]    mma bf16: lane l's four accumulators at 4 l, A and B
 *                    fragments from in[0 .. 191] (per lane a0..a3, b0, b1)
 *   out[128 .. 255]  the same with f16 inputs from in[192 .. 383]
 *   out[256 .. 383]  cp.async of in[384 .. 511] (16 bytes a lane, lane l's
 *                    row l of 4 words) into local memory, then ldmatrix.x4
 *                    of those 32 rows: lane l's four registers at 256 + 4 l
 *                    (their bits, as floats) */
__kernel __attribute__((reqd_work_group_size(32, 1, 1))) void pk_ptx_probe(__global const uint *in,
                                                                             __global float *out)
{
    const int l = (int)get_local_id(0);
    __global const uint *f = in + 6 * l;
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    pk_mma_bf16(c, f[0], f[1], f[2], f[3], f[4], f[5]);
    for (int i = 0; i < 4; i++) out[4 * l + i] = c[i];

    f = in + 192 + 6 * l;
    float h[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    pk_mma_f16(h, f[0], f[1], f[2], f[3], f[4], f[5]);
    for (int i = 0; i < 4; i++) out[128 + 4 * l + i] = h[i];

    __local uint4 rows[32];
    pk_cp_async16(&rows[l], in + 384 + 4 * l);
    pk_cp_async_commit();
    pk_cp_async_wait(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint r[4];
    pk_ldmatrix_x4(r, &rows[l]);
    for (int i = 0; i < 4; i++) out[256 + 4 * l + i] = as_float(r[i]);
}
