/* f32 GEMM on the CUDA cores for operands that have a contiguous direction
 * and 16-byte aligned rows (A: k or m contiguous, B: k or n; the plan
 * checks); everything else takes gemm_simt.cuh. Exact f32: plain FFMA,
 * each output summed by one thread in ascending k, so runs are bitwise
 * repeatable.
 *
 * A block of 256 threads computes a BM x BM tile (BM = 128 or 64, G =
 * BM / 64) in steps of BK = 1024 / BM, so that every thread copies one
 * float4 of A and one of B per step. Those loads run one step ahead in
 * registers; shared memory holds both operands k-major ([k][m], [k][n])
 * in two alternating buffers, so each step needs one barrier. A
 * k-contiguous operand is transposed on its way into shared memory.
 *
 * The 8 warps form 2 (m) x 4 (n); a warp's 8 (m) x 4 (n) lanes each own
 * G x G blocks of 4 x 4 outputs, 32 rows and 16 columns apart. An operand
 * fragment is then one float4 read that 4 (A) or 8 (B) lanes share: 128
 * or 64 bytes per warp, one wavefront, for every 4 G FFMAs of a lane.
 *
 * Edges: a float4 that leaves its row, a row past m, n or k, read as
 * zeros (past k they must be: 0 * Inf would poison real outputs), so the
 * tile loop needs no other test.
 *
 * Split-K (sp.splits > 1, gemm_kernels.h): where the tiles are too few to
 * fill the device, a tile's k is cut in ranges of sp.steps steps, each a
 * unit of the grid; a range ends its reads at its last k (past it, zeros,
 * as past K), and the block that finishes a tile's last range adds the
 * ranges in order and writes it (pk_gemm_split_reduce). */
#pragma once

#include "gemm_common.cuh"

/* p[0..3], zero from index `left` on and everywhere when !ok (p is then
 * never dereferenced). p is 16-byte aligned, so a whole float4 is one
 * load. */
__device__ __forceinline__ float4 pk_simt_load4(const float *p, long long left, bool ok)
{
    if (!ok) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (left >= 4) return __ldg(reinterpret_cast<const float4 *>(p));
    return make_float4(left > 0 ? p[0] : 0.0f, left > 1 ? p[1] : 0.0f, left > 2 ? p[2] : 0.0f, 0.0f);
}

/* Unit u of a grid of `splits` ranges a tile (1: whole tiles), as both
 * float4 kernels walk it: its tile t and range q, the tile's first row and
 * column, and its k [k0, k0 + kc) in k_tiles steps of BK */
struct pk_simt_unit {
    long long t, m0, n0, k0, kc, k_tiles;
    int q;
};

template <int BM, int BN, int BK>
__device__ __forceinline__ pk_simt_unit pk_simt_unit_of(long long u, int splits, const pk_cu_gemm_split &sp,
                                                       long long m_tiles, long long n_tiles, long long k)
{
    pk_simt_unit w;
    w.t = u / splits;
    w.q = (int)(u % splits);
    long long tm, tn;
    pk_gemm_tile_of(w.t, m_tiles, n_tiles, tm, tn);
    w.m0 = tm * BM, w.n0 = tn * BN;
    const long long range = (long long)sp.steps * BK;
    w.k0 = splits > 1 ? (long long)w.q * sp.steps * BK : 0;
    w.kc = splits > 1 ? (k - w.k0 < range ? k - w.k0 : range) : k;
    w.k_tiles = (w.kc + BK - 1) / BK;
    return w;
}

/* A_K: a_sk == 1 (else a_sm == 1); B_K: b_sk == 1 (else b_sn == 1); or
 * that dimension has one index */
template <int BM, bool A_K, bool B_K>
__device__ __forceinline__ void pk_gemm_simt_vec(const pk_cu_gemm_split &sp, PK_GEMM_PARAMS)
{
    constexpr int G = BM / 64, BN = BM, BK = 1024 / BM, R = 4 * G;
    /* LD = 4 mod 32 words: the transposing stores of a k-contiguous
     * operand (lanes along k, then m) hit distinct banks for BM = 128 */
    constexpr int LD = BM + 4;
    /* the operand buffers, and after the k loop the accumulators of 64
     * rows at a time */
    constexpr int OPS = 2 * 2 * BK * LD, EPI = 64 * LD;
    __shared__ __align__(16) float smem[OPS > EPI ? OPS : EPI];
    float(*as)[BK][LD] = reinterpret_cast<float(*)[BK][LD]>(smem);
    float(*bs)[BK][LD] = reinterpret_cast<float(*)[BK][LD]>(smem + 2 * BK * LD);

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    /* this thread's outputs: rows row0 + 32 i + {0..3}, columns col0 + 16 j + {0..3} */
    const int row0 = (warp >> 2) * 32 * G + (lane >> 2) * 4;
    const int col0 = (warp & 3) * 16 * G + (lane & 3) * 4;
    /* this thread's float4 of each operand per step: the strided index r
     * (A: m or k, B: n or k) and the contiguous one c, within the tile */
    const int a_r = A_K ? tid / (BK / 4) : tid / (BM / 4), a_c = A_K ? tid % (BK / 4) * 4 : tid % (BM / 4) * 4;
    const int b_r = B_K ? tid / (BK / 4) : tid / (BN / 4), b_c = B_K ? tid % (BK / 4) * 4 : tid % (BN / 4) * 4;

    const float *af = static_cast<const float *>(a), *bf = static_cast<const float *>(b);
    const long long m_tiles = (m + BM - 1) / BM, n_tiles = (n + BN - 1) / BN, tiles = m_tiles * n_tiles;
    const int splits = sp.splits > 1 ? sp.splits : 1;
    const pk_gemm_out out = PK_GEMM_OUT;

    for (long long z = blockIdx.y; z < batch; z += gridDim.y) {
        for (long long u = blockIdx.x; u < tiles * splits; u += gridDim.x) {
            const pk_simt_unit w = pk_simt_unit_of<BM, BN, BK>(u, splits, sp, m_tiles, n_tiles, k);
            const long long t = w.t, m0 = w.m0, n0 = w.n0, k0 = w.k0, kc = w.kc, k_tiles = w.k_tiles;
            const int q = w.q;
            /* this thread's float4 of the first step; a k-contiguous
             * operand has kl - c elements left in its row, where kl = k -
             * k0, and a row that exists or not, the other `left` elements
             * in its row, and a row r that exists while r < kl */
            const float *pa = af + z * a_sb + (A_K ? (m0 + a_r) * a_sm + k0 + a_c : (k0 + a_r) * a_sk + m0 + a_c);
            const float *pb = bf + z * b_sb + (B_K ? (n0 + b_r) * b_sn + k0 + b_c : (k0 + b_r) * b_sk + n0 + b_c);
            const bool a_row = m0 + a_r < m, b_row = n0 + b_r < n;
            const long long a_left = m - m0 - a_c, b_left = n - n0 - b_c;
            /* no test at all while the step lies inside the matrices */
            const bool inner = m0 + BM <= m && n0 + BN <= n;
            float4 va, vb;

            auto fetch = [&](long long kl) {
                if (inner && kl >= BK) {
                    va = __ldg(reinterpret_cast<const float4 *>(pa));
                    vb = __ldg(reinterpret_cast<const float4 *>(pb));
                } else {
                    va = A_K ? pk_simt_load4(pa, kl - a_c, a_row) : pk_simt_load4(pa, a_left, a_r < kl);
                    vb = B_K ? pk_simt_load4(pb, kl - b_c, b_row) : pk_simt_load4(pb, b_left, b_r < kl);
                }
                pa += A_K ? BK : BK * a_sk;
                pb += B_K ? BK : BK * b_sk;
            };
            auto stash = [&](int buf) {
                if (A_K) {
                    as[buf][a_c + 0][a_r] = va.x, as[buf][a_c + 1][a_r] = va.y;
                    as[buf][a_c + 2][a_r] = va.z, as[buf][a_c + 3][a_r] = va.w;
                } else {
                    *reinterpret_cast<float4 *>(&as[buf][a_r][a_c]) = va;
                }
                if (B_K) {
                    bs[buf][b_c + 0][b_r] = vb.x, bs[buf][b_c + 1][b_r] = vb.y;
                    bs[buf][b_c + 2][b_r] = vb.z, bs[buf][b_c + 3][b_r] = vb.w;
                } else {
                    *reinterpret_cast<float4 *>(&bs[buf][b_r][b_c]) = vb;
                }
            };

            float acc[R * R];
#pragma unroll
            for (int i = 0; i < R * R; i++) acc[i] = 0.0f;

            if (k_tiles > 0) {
                fetch(kc);
                stash(0);
            }
            __syncthreads();
            for (long long kt = 0; kt < k_tiles; kt++) {
                const int buf = (int)(kt & 1);
                if (kt + 1 < k_tiles) fetch(kc - (kt + 1) * BK);
#pragma unroll
                for (int kk = 0; kk < BK; kk++) {
                    float av[R], bv[R];
#pragma unroll
                    for (int g = 0; g < G; g++) {
                        const float4 x = *reinterpret_cast<const float4 *>(&as[buf][kk][row0 + g * 32]);
                        av[g * 4 + 0] = x.x, av[g * 4 + 1] = x.y, av[g * 4 + 2] = x.z, av[g * 4 + 3] = x.w;
                        const float4 y = *reinterpret_cast<const float4 *>(&bs[buf][kk][col0 + g * 16]);
                        bv[g * 4 + 0] = y.x, bv[g * 4 + 1] = y.y, bv[g * 4 + 2] = y.z, bv[g * 4 + 3] = y.w;
                    }
#pragma unroll
                    for (int i = 0; i < R; i++)
#pragma unroll
                        for (int j = 0; j < R; j++) acc[i * R + j] = fmaf(av[i], bv[j], acc[i * R + j]);
                }
                /* the other buffer was last read before the previous barrier */
                if (kt + 1 < k_tiles) stash(buf ^ 1);
                __syncthreads();
            }

            /* split: only the block that adds the ranges' sums goes on */
            if (splits > 1 && !pk_gemm_split_reduce<256>(acc, sp, z * tiles + t, q, tid)) continue;

            /* the last barrier of the k loop freed the operand buffers; the
             * accumulators pass through shared memory, rows row0 + 32 gi +
             * {0..3} of every thread at a time (64 rows), so that the
             * epilogue is one rolled loop with stores along n. Staged row s
             * is tile row (s / 32) 32 G + 32 gi + s % 32. */
            const int s0 = (warp >> 2) * 32 + (lane >> 2) * 4;
#pragma unroll
            for (int gi = 0; gi < G; gi++) {
#pragma unroll
                for (int r = 0; r < 4; r++)
#pragma unroll
                    for (int gj = 0; gj < G; gj++)
                        *reinterpret_cast<float4 *>(&smem[(s0 + r) * LD + col0 + gj * 16]) =
                            make_float4(acc[(gi * 4 + r) * R + gj * 4], acc[(gi * 4 + r) * R + gj * 4 + 1],
                                        acc[(gi * 4 + r) * R + gj * 4 + 2], acc[(gi * 4 + r) * R + gj * 4 + 3]);
                __syncthreads();
#pragma unroll 1
                for (int e = tid; e < 64 * BN; e += 256) {
                    const int s = e / BN;
                    const long long gm = m0 + (s >> 5) * 32 * G + gi * 32 + (s & 31), gn = n0 + e % BN;
                    if (gm < m && gn < n) pk_gemm_finish(out, z, gm, gn, smem[s * LD + e % BN]);
                }
                __syncthreads();
            }
        }
    }
}
