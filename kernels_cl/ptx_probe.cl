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

#if PK_WGMMA
/* The probe of TMA (opencl_ptx_probe.c pk_cl_tma_probe): each of the
 * PK_TMA_TEMPLATES tensor-map templates the CUDA driver encoded
 * (in[0 .. 255], 32 words each), given on the device the tensor at
 * in + 512 (100 rows of 80 16-bit elements, rows 160 bytes apart) in a
 * slot of its own (in[256 + 32 t ..], 128-byte aligned: the host makes
 * in read-write), copies one box into local memory: k from 48 (f16's:
 * all inside) or 64 (bf16's: k 80 .. 95 outside), rows from 64 (boxes of
 * 32 and 64 rows) or 0 (128, 256): all but the 32-row boxes reach past
 * row 99, outside too.
 * The local tile was filled with 0xffff first; its elements, read back
 * through the 64-byte swizzle (pk_k32_at), go to out as the bits of
 * floats, template t's box of h rows at 32 (480 (t / 4) + 32 (h / 32 -
 * 1)), element (r, c) at + 32 r + c. A copy that does not complete within
 * 0.2 s ends the probe with t + 1 (as a float's bits) at out[30720]; 0
 * there when all did. */
inline int pk_tma_probe_wait(__local ulong *b, uint parity)
{
    ulong t0, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (;;) {
        if (pk_mbar_test(b, parity)) return 1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - t0 > 200000000ul) return 0;
    }
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void pk_tma_probe(__global uint *in, __global float *out)
{
    __local ushort tile[256 * PK_TMA_BOX_K] __attribute__((aligned(1024)));
    __local ulong sm[PK_TMA_MAP_LONGS] __attribute__((aligned(128)));
    __local ulong bar;
    __local int stuck;
    const int tid = (int)get_local_id(0);
    if (tid == 0) {
        stuck = 0;
        pk_mbar_init(&bar, 1);
        pk_mbar_init_fence();
    }
    for (int t = 0; t < PK_TMA_TEMPLATES; t++) {
        const int h = 32 << (t % PK_TMA_HEIGHTS), x = t < PK_TMA_HEIGHTS ? 48 : 64, y = h <= 64 ? 64 : 0;
        __global ulong *slot = (__global ulong *)(in + 256 + 32 * t);
        const pk_tma_tensor tt = {(ulong)(in + 512), 160, 80, 100};
        if (tid < PK_TMA_MAP_LONGS) sm[tid] = ((__global const ulong *)(in + 32 * t))[tid];
        if (tid < 32) pk_tma_maps_set(slot, 0, tt, tt, sm);
        for (int i = tid; i < h * PK_TMA_BOX_K; i += 128) tile[i] = (ushort)0xffff;
        pk_fence_proxy_async();
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid == 0) {
            pk_mbar_expect(&bar, (uint)(h * PK_TMA_BOX_K * 2));
            pk_tma_load2d(tile, slot, x, y, &bar);
        }
        if (!pk_tma_probe_wait(&bar, (uint)t & 1u)) stuck = 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (stuck) {
            if (tid == 0) out[30720] = as_float((uint)t + 1u);
            return;
        }
        __global float *o = out + 32 * (480 * (t / PK_TMA_HEIGHTS) + 32 * ((1 << (t % PK_TMA_HEIGHTS)) - 1));
        for (int i = tid; i < h * PK_TMA_BOX_K; i += 128) {
            const int r = i / PK_TMA_BOX_K, c = i % PK_TMA_BOX_K;
            o[i] = as_float((uint)tile[pk_k32_at(r, c / 8) + c % 8]);
        }
        /* the tile is read before the next copy overwrites it */
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[30720] = as_float(0u);
}
#endif
