/* Fused attention on NVIDIA's tensor cores from OpenCL (FlashAttention-2
 * style): 16-bit q, k, v with D contiguous, D a multiple of 16, rows on 16
 * bytes (the plan checks). Built only with PK_PTX = 1 (nv_ptx.cl), on
 * devices whose inline PTX passed the probe; the arguments, grid and
 * results are those of pk_attn_prefill (attention_prefill.cl), which every
 * other device and layout takes.
 *
 * A work-group of NW warps owns BM = 16 NW query rows of one head, a warp
 * one m16 tile of them with its own online softmax. NVIDIA's OpenCL gives a
 * work-group 48 KiB of local memory, so Q lives in registers (the A
 * fragments of every k16 of D, read once through local memory) and local
 * memory holds ST stages of BN keys of K and of V: tile it + ST - 1 is
 * copied (cp.async, keys past the length zero-filled) while tile it is
 * multiplied, one barrier a tile. Per tile, S = Q K^T and O += P V run on
 * mma.sync m16n8k16 with f32 sums; P stays in registers, rounded to the
 * input dtype, as the A operand of the second product (the accumulator
 * layout of S is the A fragment layout). Local rows are D + 8 elements (an
 * odd number of 16-byte units), so the 8 rows an ldmatrix reads fall in
 * distinct banks for every D.
 *
 * Masks: per row a key window [lo, hi] (pk_attn_window). Tiles outside
 * every row's window are not loaded; a tile inside every row's window
 * skips the mask; elsewhere masked scores are -inf, so P is 0 there. But 0
 * * NaN is NaN: when an edge tile's V holds a NaN or Inf, its P V runs on
 * the CUDA cores over the visible keys only (rare: non-finite V only).
 *
 * Decode (DECODE = 1, pk_attn_mma_decode): the arguments, grid and
 * results of pk_attn_decode (attention_decode.cl): per-chunk partials that
 * its pk_attn_merge combines, or with one chunk the output itself. A
 * work-group owns 16 GQA-packed rows (the heads that share a kv head,
 * times sq; row pr is query pr % sq of head kvh * group + pr / sq) and one
 * chunk of keys; decode is bound by reading K and V, and the stages keep
 * ST - 1 tiles of them in flight without registers. Its NWN warps split
 * each tile's keys (KW = BN / NWN each), each warp with its own online
 * softmax; the warps' states merge through local memory at the end.
 *
 * Build defines: DT (1 f16, 2 bf16), D, NW (warps of rows; 1 for decode),
 * NWN (warps of keys; 1 for prefill), BN, ST, PENDING (ST - 2 as a literal:
 * cp.async.wait_group takes no expression), DECODE. */

#ifndef NWN
#define NWN 1
#endif
#define BM (16 * NW)
#define WG (32 * NW * NWN)
#define KW (BN / NWN) /* keys of a tile each warp takes */
#define RS (D + 8)    /* elements of a local row */
#define DCH (D / 8)   /* 16-byte chunks of a row */
#define TILE (BN * RS)
#define NKT (KW / 8)  /* n8 tiles of a warp's keys a tile */
#define NDT (D / 8)   /* n8 tiles of output columns */
#define OS (D + 4)    /* floats of a row of the warps' merge (decode) */
#if DECODE && NWN * BM * OS * 4 > 2 * ST * TILE * 2
#error "the warps' merge must fit in the stages"
#endif

typedef ushort e_t;
typedef PK_TYPE(DT) pk_t;

#if DT == 2
#define MMA pk_mma_bf16
#define PACK pk_pack_bf16x2
#define EXP_BITS 0x7f80u /* an all-ones exponent: Inf or NaN */
inline float elem_f32(__local const e_t *p) { return as_float((uint)*p << 16); }
#else
#define MMA pk_mma_f16
#define PACK pk_pack_f16x2
#define EXP_BITS 0x7c00u
inline float elem_f32(__local const e_t *p) { return vload_half(0, (__local const half *)p); }
#endif

/* BN rows of keys n0.. of one kv head into a stage; keys at or past lkv
 * are zeros */
inline void load_kv(__local e_t *dst, __global const e_t *src, long base, long row_stride, int n0, int lkv,
                    int tid)
{
    for (int x = tid; x < BN * DCH; x += WG) {
        const int r = x / DCH, ch = x % DCH;
        const int in = n0 + r < lkv;
        pk_cp_async16_zfill(dst + r * RS + ch * 8, in ? src + base + (long)(n0 + r) * row_stride + ch * 8 : src,
                            in ? 16u : 0u);
    }
}

/* whether the chunks of a V stage this work-item copied hold an Inf or NaN */
inline int nonfinite(__local const e_t *tile, int tid)
{
    int bad = 0;
    for (int x = tid; x < BN * DCH; x += WG) {
        const uint4 w = *(__local const uint4 *)(tile + (x / DCH) * RS + (x % DCH) * 8);
        const uint u[4] = {w.s0, w.s1, w.s2, w.s3};
        for (int j = 0; j < 4; j++)
            bad |= (u[j] & EXP_BITS) == EXP_BITS || (u[j] & (EXP_BITS << 16)) == (EXP_BITS << 16);
    }
    return bad;
}

#if DECODE
/* Grid: (split, b * hkv + kvh, row tile), as pk_attn_decode. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
pk_attn_mma_decode(__global const pk_t *q_, __global const pk_t *k_, __global const pk_t *v_, __global float *part,
                   __global pk_t *o, __global float *lse, __global const int *lens, long16 pk_d0, long16 pk_d1,
                   long16 pk_d2, float qscale)
#else
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
pk_attn_mma(__global const pk_t *q_, __global const pk_t *k_, __global const pk_t *v_, __global pk_t *o,
            __global float *lse, long8 off, long4 qs, long4 ks, long4 vs, long4 os, long4 ls, int sq, int skv,
            int hq, int hkv, __global const int *lens, float qscale, long wl, long wr)
#endif
{
    /* K stages, then V stages; Q passes through the start first (and
     * in decode, after the key loop, the warps' merge) */
    __local e_t kv[2 * ST * TILE] __attribute__((aligned(16)));
    __local int s_lo[BM], s_hi[BM];
    __global const e_t *q = (__global const e_t *)q_, *k = (__global const e_t *)k_, *v = (__global const e_t *)v_;
    __local e_t *sk = kv, *sv = kv + ST * TILE;

    const int tid = (int)get_local_id(0), lane = tid % 32, warp = tid / 32;
    const int wm = warp % NW, wn = warp / NW; /* the warp's rows and keys */
    const int g = lane / 4, t4 = lane % 4;
#if DECODE
    PK_DECODE_UNPACK;
    const long8 off = vload8(0, pk_d + PK_DA_OFF);
    const long4 qs = vload4(0, pk_d + PK_DA_QS), ks = vload4(0, pk_d + PK_DA_KS), vs = vload4(0, pk_d + PK_DA_VS);
    const long wl = pk_d[PK_DA_WL], wr = pk_d[PK_DA_WR];
    const int skv = (int)pk_d[PK_DA_SKV], hkv = (int)pk_d[PK_DA_HKV], chunk = (int)pk_d[PK_DA_CHUNK];
    __local float s_m[NWN * BM], s_l[NWN * BM];
    const int split = (int)get_group_id(0), n_splits = (int)get_num_groups(0);
    const int b = (int)get_group_id(1) / hkv, kvh = (int)get_group_id(1) % hkv;
    const int group = hq / hkv, rows = group * sq, m0 = (int)get_group_id(2) * BM;
    const int lq = lens ? clamp(lens[b], 0, sq) : sq;
    const int lkv = lens ? clamp(lens[get_num_groups(1) / hkv + b], 0, skv) : skv;
    const int c0 = split * chunk, c1 = min(c0 + chunk, lkv);
    for (int r = tid; r < BM; r += WG) {
        const int pr = m0 + r, i = pr % sq;
        pk_attn_window(pr < rows && i < lq, (long)i + lkv - lq, wl, wr, c0, c1, &s_lo[r], &s_hi[r]);
    }
    for (int x = tid; x < BM * DCH; x += WG) {
        const int r = x / DCH, ch = x % DCH, pr = m0 + r, i = pr % sq, in = pr < rows && i < lq;
        const long qb = off.s0 + b * qs.s0 + (long)i * qs.s1 + (long)(kvh * group + pr / sq) * qs.s2;
        pk_cp_async16_zfill(kv + r * RS + ch * 8, in ? q + qb + ch * 8 : q, in ? 16u : 0u);
    }
#else
    const int h = (int)get_group_id(1), b = (int)get_group_id(2);
    /* causal: the last row tiles see the most keys, so start them first */
    const int m0 = ((int)get_num_groups(0) - 1 - (int)get_group_id(0)) * BM;
    const int lq = lens ? clamp(lens[b], 0, sq) : sq;
    const int lkv = lens ? clamp(lens[get_num_groups(2) + b], 0, skv) : skv;
    const int kvh = h / (hq / hkv);
    const long q_base = off.s0 + b * qs.s0 + h * qs.s2;
    for (int r = tid; r < BM; r += WG)
        pk_attn_window(m0 + r < lq, (long)(m0 + r) + lkv - lq, wl, wr, 0, lkv, &s_lo[r], &s_hi[r]);
    for (int x = tid; x < BM * DCH; x += WG) {
        const int r = x / DCH, ch = x % DCH, in = m0 + r < lq;
        pk_cp_async16_zfill(kv + r * RS + ch * 8, in ? q + q_base + (long)(m0 + r) * qs.s1 + ch * 8 : q,
                            in ? 16u : 0u);
    }
#endif
    const long k_base = off.s1 + b * ks.s0 + kvh * ks.s2, v_base = off.s2 + b * vs.s0 + kvh * vs.s2;
    pk_cp_async_commit();
    pk_cp_async_wait(0);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* lane's matrix (lane / 8) and row in it (lane % 8) for ldmatrix */
    const int mi = lane / 8, mr = lane % 8;
    uint qf[D / 16][4];
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++)
        pk_ldmatrix_x4(qf[kk], kv + (wm * 16 + (mi & 1) * 8 + mr) * RS + kk * 16 + (mi >> 1) * 8);

    /* The work-group's keys (the union of its rows' windows) and the keys
     * every row with a window sees (their intersection): tiles inside the
     * latter need no mask. */
    int lo_min = INT_MAX, hi_max = -1, lo_max = INT_MIN, hi_min = INT_MAX;
    for (int r = 0; r < BM; r++) {
        const int a = s_lo[r], z = s_hi[r];
        if (a > z) continue;
        lo_min = min(lo_min, a);
        hi_max = max(hi_max, z);
        lo_max = max(lo_max, a);
        hi_min = min(hi_min, z);
    }
    const int n_begin = hi_max < 0 ? 0 : lo_min / BN * BN;
    const int n_tiles = hi_max < 0 ? 0 : (hi_max - n_begin) / BN + 1;
    /* every warp holds its Q before the copies below overwrite it */
    barrier(CLK_LOCAL_MEM_FENCE);

    /* cp.async groups: tiles 0 .. ST - 2, then one a tile (the tile ST - 1
     * ahead, empty past the end), so that waiting for PENDING groups
     * always means "this tile landed" */
    for (int st = 0; st < ST - 1; st++) {
        if (st < n_tiles) {
            load_kv(sk + st * TILE, k, k_base, ks.s1, n_begin + st * BN, lkv, tid);
            load_kv(sv + st * TILE, v, v_base, vs.s1, n_begin + st * BN, lkv, tid);
        }
        pk_cp_async_commit();
    }

    float acc[NDT][4];
    float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < NDT; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;
    const int row_a = wm * 16 + g; /* this lane's rows: row_a, row_a + 8 */

    for (int it = 0; it < n_tiles; it++) {
        const int n0 = n_begin + it * BN, buf = it % ST;
        __local const e_t *kt = sk + buf * TILE, *vt = sv + buf * TILE;
        const int edge = !(n0 >= lo_max && n0 + BN - 1 <= hi_min);
        pk_cp_async_wait(PENDING);
        /* publishes this tile and frees the stage tile it - 1 used, which
         * the copies below overwrite */
        int slow = 0;
        if (edge) slow = pk_barrier_any(nonfinite(vt, tid));
        else barrier(CLK_LOCAL_MEM_FENCE);
        {
            const int ahead = it + ST - 1, nb = ahead % ST;
            if (ahead < n_tiles) {
                load_kv(sk + nb * TILE, k, k_base, ks.s1, n_begin + ahead * BN, lkv, tid);
                load_kv(sv + nb * TILE, v, v_base, vs.s1, n_begin + ahead * BN, lkv, tid);
            }
            pk_cp_async_commit();
        }

        float sc[NKT][4];
#pragma unroll
        for (int j = 0; j < NKT; j++) sc[j][0] = sc[j][1] = sc[j][2] = sc[j][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++)
#pragma unroll
            for (int np = 0; np < KW / 16; np++) {
                uint bk[4];
                pk_ldmatrix_x4(bk, kt + (wn * KW + np * 16 + (mi >> 1) * 8 + mr) * RS + kk * 16 + (mi & 1) * 8);
                MMA(sc[2 * np], qf[kk][0], qf[kk][1], qf[kk][2], qf[kk][3], bk[0], bk[1]);
                MMA(sc[2 * np + 1], qf[kk][0], qf[kk][1], qf[kk][2], qf[kk][3], bk[2], bk[3]);
            }

#pragma unroll
        for (int j = 0; j < NKT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) sc[j][e] *= qscale;
        if (edge) {
            /* each row's window relative to this lane's first key: one
             * compare with a constant a score */
            const int k0 = n0 + wn * KW + 2 * t4;
#pragma unroll
            for (int hf = 0; hf < 2; hf++) {
                const int lo = s_lo[row_a + 8 * hf] - k0, hi = s_hi[row_a + 8 * hf] - k0;
#pragma unroll
                for (int j = 0; j < NKT; j++)
#pragma unroll
                    for (int c = 0; c < 2; c++) {
                        const int kx = j * 8 + c;
                        if ((kx < lo) | (kx > hi)) sc[j][2 * hf + c] = -INFINITY;
                    }
            }
        }

        float alpha[2];
#pragma unroll
        for (int hf = 0; hf < 2; hf++) {
            /* fmax drops a NaN score, but its weight ex2(NaN) still makes
             * the row sum, and so the row, NaN */
            float mx = -INFINITY;
#pragma unroll
            for (int j = 0; j < NKT; j++) mx = fmax(mx, fmax(sc[j][2 * hf], sc[j][2 * hf + 1]));
            /* the 4 lanes of a quad hold one row */
            mx = fmax(mx, pk_shfl_xor(mx, 1));
            mx = fmax(mx, pk_shfl_xor(mx, 2));
            const float mo = m_run[hf], mn = fmax(mo, mx);
            /* no visible key yet: subtract 0, not -inf (-inf - -inf is NaN) */
            const float base = mn == -INFINITY ? 0.0f : mn;
            alpha[hf] = mo == mn ? 1.0f : pk_ex2(mo - base);
            m_run[hf] = mn;
            float sum = 0.0f;
#pragma unroll
            for (int j = 0; j < NKT; j++)
#pragma unroll
                for (int e = 2 * hf; e < 2 * hf + 2; e++) {
                    sc[j][e] = pk_ex2(sc[j][e] - base);
                    sum += sc[j][e];
                }
            l_run[hf] = l_run[hf] * alpha[hf] + sum; /* this lane's part of the row sum */
        }
        /* once the row maxima settle most tiles move none of the warp's
         * rows; multiplying by 1 would change no bit */
        if (pk_warp_any(alpha[0] != 1.0f || alpha[1] != 1.0f))
#pragma unroll
            for (int j = 0; j < NDT; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) acc[j][e] *= alpha[e >> 1];

        if (!slow) {
#pragma unroll
            for (int kk = 0; kk < KW / 16; kk++) {
                const uint a0 = PACK(sc[2 * kk][0], sc[2 * kk][1]), a1 = PACK(sc[2 * kk][2], sc[2 * kk][3]);
                const uint a2 = PACK(sc[2 * kk + 1][0], sc[2 * kk + 1][1]);
                const uint a3 = PACK(sc[2 * kk + 1][2], sc[2 * kk + 1][3]);
#pragma unroll
                for (int dp = 0; dp < D / 16; dp++) {
                    uint bv[4];
                    pk_ldmatrix_x4_trans(bv, vt + (wn * KW + kk * 16 + (mi & 1) * 8 + mr) * RS + dp * 16 +
                                                 (mi >> 1) * 8);
                    MMA(acc[2 * dp], a0, a1, a2, a3, bv[0], bv[1]);
                    MMA(acc[2 * dp + 1], a0, a1, a2, a3, bv[2], bv[3]);
                }
            }
        } else {
            /* Non-finite V in a masked tile: each lane takes its rows'
             * weights of every key from the quad and adds only the keys its
             * rows see. */
            const int lo0 = s_lo[row_a], hi0 = s_hi[row_a], lo1 = s_lo[row_a + 8], hi1 = s_hi[row_a + 8];
            /* indices into sc and acc constant: both stay in registers */
#pragma unroll
            for (int j = 0; j < NKT; j++)
#pragma unroll
                for (int e = 0; e < 2; e++)
#pragma unroll 1
                    for (int qd = 0; qd < 4; qd++) {
                        const int kr = wn * KW + j * 8 + 2 * qd + e, key = n0 + kr, src = (lane & ~3) | qd;
                        const float p0 = pk_shfl_idx(sc[j][e], src), p1 = pk_shfl_idx(sc[j][2 + e], src);
                        const int s0 = key >= lo0 && key <= hi0, s1 = key >= lo1 && key <= hi1;
                        __local const e_t *vr = vt + kr * RS + 2 * t4;
#pragma unroll
                        for (int dn = 0; dn < NDT; dn++)
#pragma unroll
                            for (int c = 0; c < 2; c++) {
                                const float x = elem_f32(vr + dn * 8 + c);
                                if (s0) acc[dn][c] += p0 * x;
                                if (s1) acc[dn][2 + c] += p1 * x;
                            }
                    }
        }
    }
    pk_cp_async_wait(0);

#if DECODE
    /* The warps' states of each row merged through local memory (the
     * stages, free once every warp is past the loop), then written so
     * that the stores of a row are contiguous: the output with one
     * chunk, else the chunk's partials for pk_attn_merge. */
    __local float *stage = (__local float *)kv;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int hf = 0; hf < 2; hf++) {
        float l = l_run[hf];
        l += pk_shfl_xor(l, 1);
        l += pk_shfl_xor(l, 2);
        if (t4 == 0) {
            s_m[wn * BM + row_a + 8 * hf] = m_run[hf];
            s_l[wn * BM + row_a + 8 * hf] = l;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int hf = 0; hf < 2; hf++) {
        const int r = row_a + 8 * hf;
        float big = -INFINITY;
        for (int w = 0; w < NWN; w++) big = pk_attn_merge_max(big, s_m[w * BM + r]);
        /* a warp that saw no key of this row adds nothing, NaN V or not */
        const int none = m_run[hf] == -INFINITY;
        const float f = none ? 0.0f : pk_ex2(m_run[hf] - big);
        __local float *dst = stage + (wn * BM + r) * OS + 2 * t4;
#pragma unroll
        for (int j = 0; j < NDT; j++)
            vstore2((float2)(none ? 0.0f : f * acc[j][2 * hf], none ? 0.0f : f * acc[j][2 * hf + 1]), 0, dst + j * 8);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const long4 o_st = vload4(0, pk_d + PK_DA_OS), l_st = vload4(0, pk_d + PK_DA_LS);
    for (int x = tid; x < BM * D; x += WG) {
        const int r = x / D, c = x % D, pr = m0 + r;
        if (pr >= rows) break; /* rows only grow with x */
        float big = -INFINITY, l = 0.0f, acc_c = 0.0f;
        for (int w = 0; w < NWN; w++) big = pk_attn_merge_max(big, s_m[w * BM + r]);
        for (int w = 0; w < NWN; w++) {
            const float m = s_m[w * BM + r];
            if (m != -INFINITY) l += pk_ex2(m - big) * s_l[w * BM + r];
            acc_c += stage[(w * BM + r) * OS + c];
        }
        const int live = s_lo[r] <= s_hi[r] && l != 0.0f;
        const int h = kvh * group + pr / sq, i = pr % sq;
        if (n_splits == 1) {
            PK_STORE(DT, o, off.s3 + b * o_st.s0 + (long)i * o_st.s1 + h * o_st.s2 + c * o_st.s3,
                     live ? acc_c / l : 0.0f);
            if (lse && c == 0)
                lse[off.s4 + b * l_st.s0 + h * l_st.s1 + (long)i * l_st.s2] =
                    live ? (big + log2(l)) * M_LN2_F : -INFINITY;
        } else {
            /* an empty chunk contributes exactly 0, even beside a NaN V */
            const long slot = ((long)(b * hq + h) * sq + i) * n_splits + split;
            part[acc_off + slot * D + c] = live ? acc_c : 0.0f;
            if (c == 0) {
                part[ml_off + 2 * slot] = live ? big : -INFINITY;
                part[ml_off + 2 * slot + 1] = live ? l : 0.0f;
            }
        }
    }
#else
#pragma unroll
    for (int hf = 0; hf < 2; hf++) {
        float l = l_run[hf];
        l += pk_shfl_xor(l, 1);
        l += pk_shfl_xor(l, 2);
        const int r = row_a + 8 * hf, i = m0 + r;
        if (i >= sq) continue;
        /* a row that sees no key gets exact zeros, NaN V or not */
        const int live = s_lo[r] <= s_hi[r] && l != 0.0f;
        const float inv = live ? 1.0f / l : 0.0f;
        const long ob = off.s3 + b * os.s0 + (long)i * os.s1 + h * os.s2;
#pragma unroll
        for (int j = 0; j < NDT; j++)
#pragma unroll
            for (int c = 0; c < 2; c++)
                PK_STORE(DT, o, ob + (long)(j * 8 + 2 * t4 + c) * os.s3, live ? acc[j][2 * hf + c] * inv : 0.0f);
        if (lse && t4 == 0)
            lse[off.s4 + b * ls.s0 + h * ls.s1 + (long)i * ls.s2] = live ? (m_run[hf] + log2(l)) * M_LN2_F : -INFINITY;
    }
#endif
}
