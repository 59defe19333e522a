/* Tensor-core GEMM for f16/bf16 inputs (sm_80+): mma.sync m16n8k16 with
 * f32 accumulators, operands staged in shared memory by a STAGES-deep
 * cp.async pipeline and read into fragments with ldmatrix.
 *
 * Each operand tile is stored as rows x cols of 16-bit elements with cols
 * its contiguous direction in global memory, in 16-byte chunks:
 *   A_K: A tile [BM m][BK k]    A_M (A's m contiguous): [BK k][BM m]
 *   B_K: B tile [BN n][BK k]    B_N (B's n contiguous): [BK k][BN n]
 * so every cp.async moves 16 contiguous bytes. The chunk index is XORed
 * with bits of the row (pk_gemm_swz) so that the 8 rows one ldmatrix phase
 * reads, and the 8 chunks a quarter-warp of cp.async writes, fall in 8
 * different bank groups. The tiles whose k runs along rows (A_M, B_N) are
 * read with ldmatrix.trans, which hands out the transposed fragment.
 *
 * Edges: a chunk that is partly or wholly outside the matrix is loaded
 * element by element and zero-filled with a plain shared store (not a
 * cp.async with a short src-size, whose 16-byte source compute-sanitizer
 * counts as read), so the product needs no guards and any shape works. The host guarantees 16-byte
 * alignment of the tile origins (offsets and row strides multiples of 8).
 *
 * Determinism: each output is summed by one thread in a fixed k order. */
#pragma once

#include "gemm_common.cuh"
#include "gemm_kernels.h"

extern __shared__ __align__(128) unsigned char pk_gemm_dsmem[];

__device__ __forceinline__ void pk_gemm_cp_async16(unsigned dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void pk_gemm_cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N> __device__ __forceinline__ void pk_gemm_cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

template <bool TRANS> __device__ __forceinline__ void pk_gemm_ldsm4(unsigned addr, unsigned (&r)[4])
{
    if (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
}

template <int DT>
__device__ __forceinline__ void pk_gemm_mma16816(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
    if (DT == 2)
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* 16-byte unit of chunk c of row r in a tile with CH chunks per row. With
 * 4 chunks (64-byte rows) two rows share a 128-byte bank line, so rows
 * r..r+7 take bits 1..2 of r; with 8 or more, bits 0..2. */
template <int CH> __device__ __forceinline__ int pk_gemm_swz(int r, int c)
{
    static_assert(CH == 4 || CH % 8 == 0, "tile rows must be 4 or a multiple of 8 chunks");
    return CH == 4 ? r * 4 + (c ^ ((r >> 1) & 3)) : r * CH + (c ^ (r & 7));
}

/* Copies a ROWS x COLS tile whose element (0, 0) is at g into shared
 * memory at smem; rows_left/cols_left: how many rows/cols of the matrix
 * remain from the tile's origin (beyond them: zeros). */
template <int ROWS, int COLS, int THREADS>
__device__ __forceinline__ void pk_gemm_mma_load(unsigned smem, const char *g, long long row_stride,
                                                 long long rows_left, long long cols_left, int tid)
{
    constexpr int CH = COLS / 8;
    static_assert((ROWS * CH) % THREADS == 0, "every thread copies the same number of chunks");
#pragma unroll
    for (int i = 0; i < ROWS * CH / THREADS; i++) {
        const int e = tid + i * THREADS;
        const int r = e / CH, ch = e % CH;
        const long long valid = cols_left - ch * 8;
        const int n = r < rows_left && valid > 0 ? (valid >= 8 ? 8 : (int)valid) : 0;
        const unsigned dst = smem + pk_gemm_swz<CH>(r, ch) * 16;
        if (n == 8) {
            pk_gemm_cp_async16(dst, g + (r * row_stride + ch * 8) * 2);
        } else {
            /* Edge chunk: a cp.async would name 16 bytes of which only n
             * elements exist (compute-sanitizer counts the whole 16), so
             * load those elements and zero the rest with a plain store; the
             * barrier before the stage is read orders it like the copies. */
            const unsigned short *e16 = reinterpret_cast<const unsigned short *>(g + (r * row_stride + ch * 8) * 2);
            unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
            for (int j = 0; j < 8; j++) /* unrolled: w stays in registers */
                if (j < n) w[j >> 1] |= (unsigned)e16[j] << (16 * (j & 1));
            asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]),
                         "r"(w[3])
                         : "memory");
        }
    }
}

template <int DT, int BM, int BN, int WARPS_M, int WARPS_N, int STAGES, bool A_K, bool B_K>
__device__ __forceinline__ void pk_gemm_mma(PK_GEMM_PARAMS)
{
    constexpr int BK = PK_CU_MMA_BK;
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
    constexpr int MI = WM / 16, NI = WN / 8;
    static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tile: m16 rows, pairs of n8 columns");
    constexpr int SA = BM * BK * 2, SST = (BM + BN) * BK * 2;
    constexpr int CHA = (A_K ? BK : BM) / 8, CHB = (B_K ? BK : BN) / 8;
    /* epilogue staging: MP of a warp's MI row blocks at a time, rows of WN
     * floats padded so that a half-warp's float2 writes hit distinct banks */
    constexpr int EP_LD = WN + 8;
    constexpr int MP = WARPS_M * WARPS_N * MI * 16 * EP_LD * 4 <= STAGES * SST ? MI : MI / 2;
    static_assert(MI % MP == 0 && WARPS_M * WARPS_N * MP * 16 * EP_LD * 4 <= STAGES * SST,
                  "the staged accumulators fit in the pipeline's shared memory");

    const unsigned smem = (unsigned)__cvta_generic_to_shared(pk_gemm_dsmem);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = warp / WARPS_N * WM, wn0 = warp % WARPS_N * WN;
    const int g = lane >> 2, tig = lane & 3;
    const long long m_tiles = (m + BM - 1) / BM, n_tiles = (n + BN - 1) / BN;
    const long long k_tiles = (k + BK - 1) / BK;
    const char *ap = static_cast<const char *>(a), *bp = static_cast<const char *>(b);
    const pk_gemm_out out = PK_GEMM_OUT;

    for (long long z = blockIdx.y; z < batch; z += gridDim.y) {
        for (long long t = blockIdx.x; t < m_tiles * n_tiles; t += gridDim.x) {
            long long tm, tn;
            pk_gemm_tile_of(t, m_tiles, n_tiles, tm, tn);
            const long long m0 = tm * BM, n0 = tn * BN;
            const long long a_z = z * a_sb, b_z = z * b_sb;

            auto load_stage = [&](int stage, long long kt) {
                const long long k0 = kt * BK;
                const unsigned sa = smem + stage * SST, sb = sa + SA;
                if (A_K)
                    pk_gemm_mma_load<BM, BK, THREADS>(sa, ap + (a_z + m0 * a_sm + k0) * 2, a_sm, m - m0, k - k0, tid);
                else
                    pk_gemm_mma_load<BK, BM, THREADS>(sa, ap + (a_z + k0 * a_sk + m0) * 2, a_sk, k - k0, m - m0, tid);
                if (B_K)
                    pk_gemm_mma_load<BN, BK, THREADS>(sb, bp + (b_z + n0 * b_sn + k0) * 2, b_sn, n - n0, k - k0, tid);
                else
                    pk_gemm_mma_load<BK, BN, THREADS>(sb, bp + (b_z + k0 * b_sk + n0) * 2, b_sk, k - k0, n - n0, tid);
            };

            float acc[MI][NI][4];
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int j = 0; j < NI; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;

            /* a group is committed every step, empty or not, so that
             * wait_group<STAGES-2> always means "tile kt has landed" */
#pragma unroll
            for (int s = 0; s < STAGES - 1; s++) {
                if (s < k_tiles) load_stage(s, s);
                pk_gemm_cp_commit();
            }

            for (long long kt = 0; kt < k_tiles; kt++) {
                pk_gemm_cp_wait<STAGES - 2>();
                /* tile kt is visible to all, and every warp is done with
                 * the stage the next load overwrites (read at kt - 1) */
                __syncthreads();
                const long long next = kt + STAGES - 1;
                if (next < k_tiles) load_stage((int)(next % STAGES), next);
                pk_gemm_cp_commit();

                const unsigned sa = smem + (int)(kt % STAGES) * SST, sb = sa + SA;
#pragma unroll
                for (int kk = 0; kk < BK / 16; kk++) {
                    unsigned af[MI][4], bf[NI / 2][4];
#pragma unroll
                    for (int i = 0; i < MI; i++) {
                        const int mrow = wm0 + i * 16;
                        if (A_K) /* matrices: (m0-7,k0-7) (m8-15,k0-7) (m0-7,k8-15) (m8-15,k8-15) */
                            pk_gemm_ldsm4<false>(sa + pk_gemm_swz<CHA>(mrow + (lane & 15), kk * 2 + (lane >> 4)) * 16,
                                                 af[i]);
                        else /* same matrices, stored [k][m]: transposed */
                            pk_gemm_ldsm4<true>(sa + pk_gemm_swz<CHA>(kk * 16 + (lane & 7) + (lane >> 4) * 8,
                                                                      mrow / 8 + ((lane >> 3) & 1)) * 16,
                                                af[i]);
                    }
#pragma unroll
                    for (int j = 0; j < NI / 2; j++) {
                        const int ncol = wn0 + j * 16;
                        if (B_K) /* matrices: (n0-7,k0-7) (n0-7,k8-15) (n8-15,k0-7) (n8-15,k8-15) */
                            pk_gemm_ldsm4<false>(sb + pk_gemm_swz<CHB>(ncol + (lane & 7) + (lane >> 4) * 8,
                                                                       kk * 2 + ((lane >> 3) & 1)) * 16,
                                                 bf[j]);
                        else /* same matrices, stored [k][n]: transposed */
                            pk_gemm_ldsm4<true>(
                                sb + pk_gemm_swz<CHB>(kk * 16 + (lane & 15), ncol / 8 + (lane >> 4)) * 16, bf[j]);
                    }
#pragma unroll
                    for (int i = 0; i < MI; i++)
#pragma unroll
                        for (int j = 0; j < NI; j++)
                            pk_gemm_mma16816<DT>(acc[i][j], af[i], bf[j / 2][(j & 1) * 2], bf[j / 2][(j & 1) * 2 + 1]);
                }
            }
            pk_gemm_cp_wait<0>();
            /* every warp is done with the stages, which now stage the
             * accumulators: each warp writes MP row blocks of its tile in
             * fragment order, then finishes them row by row, its lanes along
             * n (coalesced stores, and one rolled copy of the epilogue) */
            __syncthreads();
            float *ep = reinterpret_cast<float *>(pk_gemm_dsmem) + warp * (MP * 16 * EP_LD);
#pragma unroll
            for (int i0 = 0; i0 < MI; i0 += MP) {
#pragma unroll
                for (int i = 0; i < MP; i++)
#pragma unroll
                    for (int j = 0; j < NI; j++)
#pragma unroll
                        for (int h = 0; h < 2; h++) /* accumulators 2h, 2h+1: row g + 8h, columns 2 tig, +1 */
                            *reinterpret_cast<float2 *>(&ep[(i * 16 + g + h * 8) * EP_LD + j * 8 + tig * 2]) =
                                make_float2(acc[i0 + i][j][2 * h], acc[i0 + i][j][2 * h + 1]);
                __syncwarp();
#pragma unroll 1
                for (int e = lane; e < MP * 16 * WN; e += 32) {
                    const int r = e / WN, col = e % WN;
                    const long long gm = m0 + wm0 + i0 * 16 + r, gn = n0 + wn0 + col;
                    if (gm < m && gn < n) pk_gemm_finish(out, z, gm, gn, ep[r * EP_LD + col]);
                }
                __syncwarp();
            }
            /* the next tile's first loads overwrite the staged accumulators */
            __syncthreads();
        }
    }
}
