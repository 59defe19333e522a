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

#if PK_WGMMA
/* The probe of wgmma (opencl_ptx_probe.c pk_cl_wgmma_probe): one
 * warpgroup multiplies a 64 x 32 a by a 32 x 32 b (both K-major: in[0 ..
 * 1023] a's rows of 16 words, in[1024 .. 1535] b's), in the local layout
 * and descriptors gemm_mma.cl's WGMMA loop uses, with bf16 and then (in
 * + 1536) f16 inputs: d[row * 32 + col] at out[2048 h + ..]. */
__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void pk_wgmma_probe(__global const uint *in,
                                                                                __global float *out)
{
    __local ushort as[64 * 32] __attribute__((aligned(1024)));
    __local ushort bs[32 * 32] __attribute__((aligned(1024)));
    const int tid = (int)get_local_id(0), warp = tid / 32, g = tid % 32 / 4, q = tid % 4;
    for (int h = 0; h < 2; h++) {
        __global const uint *src = in + 1536 * h;
        for (int i = tid; i < 64 * 4 + 32 * 4; i += 128) {
            const int bpart = i >= 256, r = (bpart ? i - 256 : i) / 4, c = i % 4;
            __local ushort *dst = (bpart ? bs : as) + pk_k32_at(r, c);
            *(__local uint4 *)dst = *(__global const uint4 *)(src + (bpart ? 1024 : 0) + r * 16 + c * 4);
        }
        pk_fence_proxy_async();
        barrier(CLK_LOCAL_MEM_FENCE);
        float d[4][4];
        for (int j = 0; j < 4; j++) d[j][0] = d[j][1] = d[j][2] = d[j][3] = 0.0f;
        const uint a0 = pk_shared_addr(as), b0 = pk_shared_addr(bs);
        pk_wg_fence();
        if (h == 0) {
            pk_wgmma_32_bf16(d, pk_wg_desc64(a0), pk_wg_desc64(b0));
            pk_wgmma_32_bf16(d, pk_wg_desc64(a0 + 32u), pk_wg_desc64(b0 + 32u));
        } else {
            pk_wgmma_32_f16(d, pk_wg_desc64(a0), pk_wg_desc64(b0));
            pk_wgmma_32_f16(d, pk_wg_desc64(a0 + 32u), pk_wg_desc64(b0 + 32u));
        }
        pk_wg_commit();
        pk_wg_wait_32_bf16(d);
        for (int j = 0; j < 4; j++)
            for (int e = 0; e < 4; e++)
                out[2048 * h + (16 * warp + g + (e >= 2 ? 8 : 0)) * 32 + 8 * j + 2 * q + (e & 1)] = d[j][e];
        /* the tiles are read before the f16 pass overwrites them */
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif
