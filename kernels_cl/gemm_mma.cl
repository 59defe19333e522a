/* GEMM on NVIDIA's tensor cores from OpenCL: d = act(alpha * a @ b + beta *
 * c + bias) + residual for 16-bit a and b, f32 sums. Built only with PK_PTX
 * = 1 (nv_ptx.cl), on devices whose inline PTX passed the probe.
 *
 * a is k-contiguous ([M, K] rows); b is k-contiguous ([N, K], the linear
 * layout; B_KC = 1) or n-contiguous ([K, N]; B_KC = 0). Rows start on 16
 * bytes (the host checks offsets and strides), so every copy is a 16-byte
 * cp.async; a copy that leaves the matrix reads only its part inside and
 * the rest are zeros (the zero-fill form), so the tile loop has no other
 * edge test.
 *
 * A work-group of WARPS_M x WARPS_N warps computes a BM x BN block of d in
 * steps of 32 k. STAGES steps are in flight in local memory: while a step
 * is multiplied, the copies of the next STAGES - 1 run (cp.async groups,
 * one barrier a step). Each warp owns a (BM / WARPS_M) x (BN / WARPS_N)
 * block: MT x NT tiles of m16n8, each k16 of a step one mma.m16n8k16 per
 * tile with fragments from ldmatrix (x4: an A tile, or two B tiles; .trans
 * for the n-contiguous b). Every output is summed by one lane in ascending
 * k by the tensor cores, deterministic; the epilogue (common.cl
 * PK_GEMM_FINISH) runs on the accumulators where they are.
 *
 * Local rows are 64 bytes (a k-contiguous tile: 32 k) or 2 BN bytes (b
 * n-contiguous: BN n), in 16-byte chunks placed at chunk ^ f(row), so that
 * the 8 rows one ldmatrix matrix reads sit in distinct banks.
 *
 * Split-K (SPLITS > 1, for too few tiles to fill the device): split sp of
 * batch z sums its own whole steps of 32 k (k from sp * per_split * 32;
 * the steps past the end zero-filled as at any edge) into part, f32, and
 * counts itself done on its tile's counter; the split that finds the
 * others done adds the SPLITS partial sums of each output in split order
 * (its own from registers: the same bits whichever split comes last), runs
 * the epilogue and sets the counter back to zero for the next launch. One
 * launch, where a second kernel to merge cost NVIDIA's OpenCL an enqueue.
 * The counters are zeros between launches (the host makes them so once).
 *
 * Build defines: BM BN WARPS_M WARPS_N STAGES B_KC SPLITS GROUP_M, B_REG
 * (1: b's fragments loaded straight into registers, below), WGMMA
 * (Hopper's warpgroup products, below; with PK_WGMMA), PENDING
 * (STAGES - 2, as a literal: cp.async.wait_group takes no expression), DT_A (1 f16, 2 bf16)
 * DT_D ACT HAS_C HAS_BIAS HAS_RES as gemm_tiled.cl; its arguments too
 * (cl_args.h PK_GEMM_CL_PARAMS). */

#define BK 32
#ifndef B_REG
#define B_REG 0
#endif
#ifndef SPLITS
#define SPLITS 1
#endif
#if SPLITS > 1
/* partial sums of split sp of batch z: part[((sp * batch + z) * m + row) * pn + col] (pn: cl_args.h PK_GEMM_PART_PN);
 * a counter per tile of d: counters[(z * m_tiles + mt) * n_tiles + nt] */
#define PK_MMA_PART , __global uint *counters
#else
#define PK_MMA_PART
#endif
#define NWARPS (WARPS_M * WARPS_N)
#define WG (32 * NWARPS)
#define WTM (BM / WARPS_M) /* a warp's rows */
#define WTN (BN / WARPS_N) /* and columns */
#define MT (WTM / 16)
#define NT (WTN / 8)
#define A_STAGE (BM * BK) /* elements of a step's a tile */
#define B_STAGE (BN * BK)
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef WGMMA
#define WGMMA 0
#endif
/* local tiles: 16-byte pieces for cp.async and ldmatrix; wgmma's swizzle
 * repeats every 512 bytes, from an aligned base */
#if WGMMA && !B_KC
#error "WGMMA takes b k-contiguous (B_KC 1) alone"
#endif
#if WGMMA
#define PK_MMA_ALIGN 1024
#else
#define PK_MMA_ALIGN 16
#endif

typedef ushort e_t; /* the 16-bit elements, as bits */
typedef PK_TYPE(DT_A) a_t;
typedef PK_TYPE(DT_D) d_t;

#define MMA pk_mma_of(DT_A)

/* element offset of (row, 16-byte chunk) in a tile of rows of BN / 8 chunks
 * (b n-contiguous: k rows), chunk c of row r at c ^ (r & 7) */
inline int nc_at(int row, int chunk) { return row * BN + ((chunk ^ (row & 7)) << 3); }

/* A work-item's 16-byte copies of a step: chunk q = tid + i WG of the
 * tile, i < CP(chunks). A row's chunks divide WG (the tile's validity
 * rule), so a work-item's chunks share a column and lie WG / row_chunks
 * rows apart; in a k-contiguous tile that is a multiple of 8 rows, which
 * keeps the swizzle of the first chunk. */
#define CP(chunks) (((chunks) + WG - 1) / WG)
#define A_CH (BM * BK / 8)
#define B_CH (BN * BK / 8)
#define B_ROW_CH (B_KC ? BK / 8 : BN / 8) /* chunks of a b tile row */
#define A_ROWS_APART (WG / (BK / 8))
#define B_ROWS_APART (WG / B_ROW_CH)

/* 16 bytes at p, `valid` (clamped to 0..8) elements of which exist; the
 * rest zeros. With none, the copy reads from `inside`, an address in the
 * matrix, since p may lie outside it. */
inline void copy16(__local e_t *dst, __global const e_t *p, __global const e_t *inside, long valid)
{
    const uint bytes = (uint)(2 * clamp(valid, 0L, 8L));
    pk_cp_async16_zfill(dst, bytes ? p : inside, bytes);
}

/* Where a work-item's copies go and come from: its first chunk's row
 * (a_row, b_row) and chunk (a_ch, b_ch) in a step's tiles, and for the
 * k-contiguous ones its element offset in a stage (a_dst, b_dst). */
typedef struct {
    int a_dst, b_dst, a_row, a_ch, b_row, b_ch;
} copy_plan;

inline copy_plan copy_plan_of(int tid)
{
    copy_plan c;
    c.a_row = tid / (BK / 8), c.a_ch = tid % (BK / 8);
    c.b_row = tid / B_ROW_CH, c.b_ch = tid % B_ROW_CH;
    c.a_dst = pk_k32_at(c.a_row, c.a_ch);
    c.b_dst = pk_k32_at(c.b_row, c.b_ch);
    return c;
}

/* the local element offset of a work-item's copy i of b in a stage */
inline int b_dst(const copy_plan *c, int i)
{
    return B_KC ? c->b_dst + i * B_ROWS_APART * BK : nc_at(c->b_row + i * B_ROWS_APART, c->b_ch);
}

/* A step's copies into stage buffers as_, bs_: pa and pb point at the
 * work-item's first chunk of the step in a and b, whose tile rows are
 * a_s and b_s elements apart. Every chunk inside the matrix: no bounds. */
inline void load_whole(__local e_t *as_, __local e_t *bs_, __global const e_t *pa, long a_s, __global const e_t *pb,
                       long b_s, const copy_plan *c, int tid)
{
#pragma unroll
    for (int i = 0; i < CP(A_CH); i++)
        if (A_CH % WG == 0 || tid + i * WG < A_CH)
            pk_cp_async16_off(as_ + c->a_dst + i * A_ROWS_APART * BK, pa, (long)i * A_ROWS_APART * a_s * 2);
#pragma unroll
    for (int i = 0; i < CP(B_CH); i++)
        if (B_CH % WG == 0 || tid + i * WG < B_CH)
            pk_cp_async16_off(bs_ + b_dst(c, i), pb, (long)i * B_ROWS_APART * b_s * 2);
}

/* The same at an edge: m_left, n_left and k_left (from the step's first k)
 * bound the chunks, and what lies outside is zeros; a and b are the
 * matrices' first elements. */
inline void load_edge(__local e_t *as_, __local e_t *bs_, __global const e_t *pa, long a_s, __global const e_t *pb,
                      long b_s, const copy_plan *c, int tid, long m_left, long n_left, long k_left,
                      __global const e_t *a, __global const e_t *b)
{
#pragma unroll
    for (int i = 0; i < CP(A_CH); i++) {
        const int row = c->a_row + i * A_ROWS_APART;
        if (A_CH % WG == 0 || tid + i * WG < A_CH)
            copy16(as_ + c->a_dst + i * A_ROWS_APART * BK, pa + i * A_ROWS_APART * a_s, a,
                   row < m_left ? k_left - c->a_ch * 8 : 0);
    }
#pragma unroll
    for (int i = 0; i < CP(B_CH); i++) {
        const int row = c->b_row + i * B_ROWS_APART;
        if (B_CH % WG == 0 || tid + i * WG < B_CH)
            copy16(bs_ + b_dst(c, i), pb + i * B_ROWS_APART * b_s, b,
#if B_KC
                   row < n_left ? k_left - c->b_ch * 8 : 0);
#else
                   row < k_left ? n_left - c->b_ch * 8 : 0);
#endif
    }
}

/* A step's copies, whole (load_whole) or at an edge (load_edge, k_left
 * from the step's first k) */
inline void load_step(const int whole, __local e_t *as_, __local e_t *bs_, __global const e_t *pa, long a_s,
                      __global const e_t *pb, long b_s, const copy_plan *c, int tid, long m_left, long n_left,
                      long k_left, __global const e_t *a, __global const e_t *b)
{
    if (whole)
        load_whole(as_, bs_, pa, a_s, pb, b_s, c, tid);
    else
        load_edge(as_, bs_, pa, a_s, pb, b_s, c, tid, m_left, n_left, k_left, a, b);
}

/* A lane's ldmatrix rows in a stage, for the slice at k 0 and k 16: the
 * element offsets of its first a tile and (k-contiguous b) its first b
 * tile pair, whose later tiles and pairs are 16 rows apart with the same
 * swizzle; for n-contiguous b, the row (k) and the chunk of its first
 * pair. */
typedef struct {
    int a[2], b[2], b_ch;
} frag_plan;

inline frag_plan frag_plan_of(int wm, int wn, int lane)
{
    const int mi = lane / 8, mr = lane % 8;
    frag_plan f;
    f.b_ch = wn * WTN / 8 + (mi >> 1);
    for (int s = 0; s < 2; s++) {
        f.a[s] = pk_k32_at(wm * WTM + (mi & 1) * 8 + mr, 2 * s + (mi >> 1));
#if B_KC
        f.b[s] = pk_k32_at(wn * WTN + (mi >> 1) * 8 + mr, 2 * s + (mi & 1));
#else
        f.b[s] = 16 * s + (mi & 1) * 8 + mr; /* the row (k); its pairs' chunks from b_ch */
#endif
    }
    return f;
}

/* A warp's fragments of slice s (k 16 s) of a stage: MT a tiles, NT b tiles */
inline void load_frags(uint fa[MT][4], uint fb[NT][2], __local const e_t *at, __local const e_t *bt,
                       const frag_plan *f, int s)
{
#pragma unroll
    for (int i = 0; i < MT; i++) pk_ldmatrix_x4(fa[i], at + f->a[s] + i * 16 * BK);
#pragma unroll
    for (int j = 0; j < NT; j += 2) {
        uint r[4];
#if B_KC
        pk_ldmatrix_x4(r, bt + f->b[s] + j * 8 * BK);
#else
        pk_ldmatrix_x4_trans(r, bt + nc_at(f->b[s], f->b_ch + j));
#endif
        fb[j][0] = r[0], fb[j][1] = r[1], fb[j + 1][0] = r[2], fb[j + 1][1] = r[3];
    }
}

inline void mma_slice(float acc[MT][NT][4], uint fa[MT][4], uint fb[NT][2])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++) MMA(acc[i][j], fa[i][0], fa[i][1], fa[i][2], fa[i][3], fb[j][0], fb[j][1]);
}

/* The first STAGES - 1 steps of a tile's k loop in flight, a group for
 * each, empty past the end, so that the count of groups is uniform; *pa
 * and *pb, the tile's first elements (b advances b_step a step), move to
 * the work-item's first chunk of the step after them. */
inline __attribute__((always_inline)) void k_loop_prologue(const int whole, __local e_t *as, __local e_t *bs,
                                                            __global const e_t *a, __global const e_t **pa, long a_s,
                                                            __global const e_t *b, __global const e_t **pb, long b_s,
                                                            long b_step, const copy_plan *c, int steps, long m_left,
                                                            long n_left, long k_len, int tid)
{
    *pa += c->a_row * a_s + c->a_ch * 8;
    *pb += c->b_row * b_s + c->b_ch * 8;
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps)
            load_step(whole, as + s * A_STAGE, bs + s * B_STAGE, *pa + s * BK, a_s, *pb + s * b_step, b_s, c, tid,
                      m_left, n_left, k_len - s * BK, a, b);
        pk_cp_async_commit();
    }
    *pa += (STAGES - 1) * BK;
    *pb += (STAGES - 1) * b_step;
}

/* The k loop of a tile, steps of BK from pa, pb (the tile's first
 * elements in a and b; b advances b_step a step); whole: every step's copies
 * inside the matrix (an interior tile with k a multiple of BK), given as
 * a literal so that each loop is compiled with only what it needs.
 * Fragments come in two sets: a slice's are read while the slice before
 * is multiplied, and a step's wait and barrier come before its last
 * slice's mma so that the next step's first slice is read under it. */
inline __attribute__((always_inline)) void tile_k_loop(float acc[MT][NT][4], const int whole, __local e_t *as,
                                                        __local e_t *bs, __global const e_t *a, __global const e_t *pa,
                                                        long a_s, __global const e_t *b, __global const e_t *pb,
                                                        long b_s, long b_step, int steps, long m_left, long n_left,
                                                        long k_len, int tid, int wm, int wn, int lane)
{
    const copy_plan c = copy_plan_of(tid);
    const frag_plan f = frag_plan_of(wm, wn, lane);
    k_loop_prologue(whole, as, bs, a, &pa, a_s, b, &pb, b_s, b_step, &c, steps, m_left, n_left, k_len, tid);
    uint fa[2][MT][4], fb[2][NT][2];
    pk_cp_async_wait(PENDING);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (steps > 0) load_frags(fa[0], fb[0], as, bs, &f, 0);
    int rd = 0, wr = STAGES - 1;
    for (int t = 0; t < steps; t++) {
        /* stage wr was last read by step t - 1, before every warp passed
         * the last barrier */
        const int nx = t + STAGES - 1;
        if (nx < steps)
            load_step(whole, as + wr * A_STAGE, bs + wr * B_STAGE, pa, a_s, pb, b_s, &c, tid, m_left, n_left,
                      k_len - (long)nx * BK, a, b);
        pk_cp_async_commit();
        pa += BK;
        pb += b_step;
        load_frags(fa[1], fb[1], as + rd * A_STAGE, bs + rd * B_STAGE, &f, 1);
        mma_slice(acc, fa[0], fb[0]);
        /* step t + 1 has landed (at most STAGES - 2 later groups pending)
         * and is visible to the group */
        pk_cp_async_wait(PENDING);
        barrier(CLK_LOCAL_MEM_FENCE);
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
        if (t + 1 < steps) load_frags(fa[0], fb[0], as + rd * A_STAGE, bs + rd * B_STAGE, &f, 0);
        mma_slice(acc, fa[1], fb[1]);
    }
    /* no copy may still write a buffer the next tile reuses */
    pk_cp_async_wait(0);
    barrier(CLK_LOCAL_MEM_FENCE);
}

#if WGMMA
/* WGMMA 1 (Hopper, PK_WGMMA: nv_ptx.cl): the products on the warpgroups'
 * wgmma instead of each warp's mma.sync, operands straight from the stage
 * buffers (whose layout, pk_k32_at, is wgmma's 64-byte swizzle), so that no
 * fragment passes through registers. WARPS_M = 4 x the warpgroups, each
 * warpgroup 64 rows of the tile by all BN columns, WARPS_N = 1: a warp's
 * accumulators are then acc[0][j][e], as mma.sync's (out_row, out_col).
 * b k-contiguous (B_KC 1). A step: its copies landed and fenced for the
 * async proxy, one barrier (after which every warpgroup has finished the
 * step before, whose buffer the next copies take), the copies of step t +
 * STAGES - 1, then two k16 products and a wait for them. Several
 * work-groups share a multiprocessor (48 KiB of local memory each), so one
 * multiplies while another waits. */
inline __attribute__((always_inline)) void wg_k_loop(float acc[MT][NT][4], const int whole, __local e_t *as,
                                                      __local e_t *bs, __global const e_t *a, __global const e_t *pa,
                                                      long a_s, __global const e_t *b, __global const e_t *pb,
                                                      long b_s, int steps, long m_left, long n_left, long k_len,
                                                      int tid, int wm)
{
    const copy_plan c = copy_plan_of(tid);
    k_loop_prologue(whole, as, bs, a, &pa, a_s, b, &pb, b_s, BK, &c, steps, m_left, n_left, k_len, tid);
    /* this warpgroup's 64 rows of a stage's a tile */
    const uint a0 = pk_shared_addr(as) + (uint)(wm / 4) * 64u * BK * 2u, b0 = pk_shared_addr(bs);
    int rd = 0, wr = STAGES - 1;
    for (int t = 0; t < steps; t++) {
        /* step t landed (at most STAGES - 2 later groups pending) */
        pk_cp_async_wait(PENDING);
        pk_fence_proxy_async();
        /* after it, every warpgroup is done with step t - 1, whose stage
         * (wr) the next copies take */
        barrier(CLK_LOCAL_MEM_FENCE);
        const int nx = t + STAGES - 1;
        if (nx < steps)
            load_step(whole, as + wr * A_STAGE, bs + wr * B_STAGE, pa, a_s, pb, b_s, &c, tid, m_left, n_left,
                      k_len - (long)nx * BK, a, b);
        pk_cp_async_commit();
        pa += BK;
        pb += BK;
        const uint ao = a0 + (uint)(rd * A_STAGE * 2), bo = b0 + (uint)(rd * B_STAGE * 2);
        pk_wg_fence();
        pk_wgmma_of(BN, DT_A)(acc[0], pk_wg_desc64(ao), pk_wg_desc64(bo));
        pk_wgmma_of(BN, DT_A)(acc[0], pk_wg_desc64(ao + 32u), pk_wg_desc64(bo + 32u));
        pk_wg_commit();
        pk_wg_wait_of(BN, DT_A)(acc[0]);
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
    }
    pk_cp_async_wait(0);
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

#if B_REG
/* B_REG 1: the weights straight into registers (b k-contiguous, WARPS_M =
 * 1), for a tile of few rows, where b is nearly all the traffic and local
 * memory, shared with a, would hold too little of it in flight. Only a
 * goes through local memory, in rounds of STAGES steps (RK k), two rounds'
 * buffers: while a round is multiplied, the next round's a is copied and
 * its weights loaded into a second set of registers, so a work-group keeps
 * a round of weights in flight, two barriers a round.
 *
 * A step's k is permuted as nv_ptx.cl's pk_mma_k32_of says. */
#define RK (BK * STAGES)
#define RCH (RK / 8) /* 16-byte chunks of a round's a row */

/* A round's copies of a: chunk tid + i WG, row-major over the round's
 * BM x RCH chunks, so that adjacent work-items copy adjacent 16 bytes of a
 * row; local: the round's STAGES step tiles, laid out as tile_k_loop's. */
inline void breg_copy_a(__local e_t *ar, __global const e_t *pa, long a_s, int tid, long m_left, long k_left,
                        const int whole, __global const e_t *a)
{
#pragma unroll
    for (int i = 0; i < CP(BM * RCH); i++) {
        const int qi = tid + i * WG, row = qi / RCH, ch = qi % RCH;
        if ((BM * RCH) % WG != 0 && qi >= BM * RCH) break;
        __local e_t *dst = ar + (ch / 4) * A_STAGE + pk_k32_at(row, ch % 4);
        if (whole)
            pk_cp_async16_off(dst, pa, ((long)row * a_s + ch * 8) * 2);
        else
            copy16(dst, pa + row * a_s + ch * 8, a, row < m_left ? k_left - ch * 8 : 0);
    }
}

/* 16 bytes of a weight row at p, of which `valid` (0..8) exist: the rest
 * zeros, so that what lies past k multiplies zeros of a as zeros */
inline uint4 breg_weights(__global const e_t *p, long valid)
{
    return valid >= 8 ? pk_ld_stream16(p) : pk_ld16_part(p, valid);
}

/* a round's weights: w[u][j] from row pointer pw[j] (k at the lane's 8q of
 * the round's first step); k_left from the round's first k */
inline void breg_load_w(uint4 w[STAGES][NT], __global const e_t *const pw[NT], long k_left, int q, const int whole)
{
#pragma unroll
    for (int u = 0; u < STAGES; u++)
#pragma unroll
        for (int j = 0; j < NT; j++)
            w[u][j] = whole ? pk_ld_stream16(pw[j] + u * BK) : breg_weights(pw[j] + u * BK, k_left - u * BK - 8 * q);
}

inline __attribute__((always_inline)) void breg_k_loop(float acc[MT][NT][4], __local e_t *as, __global const e_t *a,
                                                        __global const e_t *pa, long a_s, __global const e_t *pb,
                                                        long b_s, long m_left, long n_left, long k_len, int tid,
                                                        int wn, int lane)
{
    const int g = lane / 4, q = lane % 4;
    const int rounds = (int)((k_len + RK - 1) / RK);
    const int whole_m = m_left >= BM, whole_k = k_len % RK == 0;
    __global const e_t *pw[NT];
#pragma unroll
    for (int j = 0; j < NT; j++) pw[j] = pb + min((long)(wn * WTN + j * 8 + g), n_left - 1) * b_s + 8 * q;
    uint4 w[STAGES][NT];
    if (rounds > 0) {
        const int whole = whole_m && (whole_k || rounds > 1);
        breg_copy_a(as, pa, a_s, tid, m_left, k_len, whole, a);
        pk_cp_async_commit();
        breg_load_w(w, pw, k_len, q, whole_k || rounds > 1);
    }
    for (int r = 0; r < rounds; r++) {
        __local e_t *ar = as + (r & 1) * STAGES * A_STAGE;
        uint4 wnx[STAGES][NT];
#pragma unroll
        for (int j = 0; j < NT; j++) pw[j] += RK;
        if (r + 1 < rounds) {
            const long k_left = k_len - (long)(r + 1) * RK;
            const int whole = whole_k || r + 2 < rounds;
            breg_copy_a(as + ((r + 1) & 1) * STAGES * A_STAGE, pa + (r + 1) * RK, a_s, tid, m_left, k_left,
                        whole_m && whole, a);
            breg_load_w(wnx, pw, k_left, q, whole);
        }
        pk_cp_async_commit();
        /* round r's a has landed (round r + 1's group may be in flight) */
        pk_cp_async_wait(1);
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int u = 0; u < STAGES; u++)
#pragma unroll
            for (int i = 0; i < MT; i++) {
                const uint4 x0 = *(__local const uint4 *)(ar + u * A_STAGE + pk_k32_at(i * 16 + g, q));
                const uint4 x1 = *(__local const uint4 *)(ar + u * A_STAGE + pk_k32_at(i * 16 + g + 8, q));
#pragma unroll
                for (int j = 0; j < NT; j++) pk_mma_k32_of(DT_A)(acc[i][j], x0, x1, w[u][j]);
            }
        /* every warp is done with this round's buffer before round r + 2's
         * copies overwrite it */
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int u = 0; u < STAGES; u++)
#pragma unroll
            for (int j = 0; j < NT; j++) w[u][j] = wnx[u][j];
    }
    pk_cp_async_wait(0);
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

/* The block of tile index (mt, nt) a work-group takes: groups of GROUP_M
 * tile rows, column by column within a group, so that the work-groups in
 * flight at once share rows of a and columns of b in the L2 cache. */
inline void tile_of(long lin, long m_tiles, long n_tiles, long *mt, long *nt)
{
    const long per = (long)GROUP_M * n_tiles, g = lin / per, first = g * GROUP_M;
    const long rows = min((long)GROUP_M, m_tiles - first), in = lin - g * per;
    *mt = first + in % rows;
    *nt = in / rows;
}

/* Where a lane's output e of tile (i, j) lies in its work-group's block:
 * lane (g, q) holds rows g and g + 8, columns 2q and 2q + 1 of each m16n8
 * tile. */
inline int out_row(int wm, int i, int g, int e) { return wm * WTM + i * 16 + g + (e >= 2 ? 8 : 0); }
inline int out_col(int wn, int j, int q, int e) { return wn * WTN + j * 8 + 2 * q + (e & 1); }

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
gemm_mma(PK_GEMM_CL_PARAMS(a_, b_) PK_MMA_PART)
{
    PK_GEMM_CL_UNPACK;
    /* cp.async and ldmatrix move 16-byte pieces */
#if B_REG
    __local e_t as[2 * STAGES * A_STAGE] __attribute__((aligned(16)));
#else
    __local e_t as[STAGES * A_STAGE] __attribute__((aligned(PK_MMA_ALIGN)));
    __local e_t bs[STAGES * B_STAGE] __attribute__((aligned(PK_MMA_ALIGN)));
#endif
    __global const e_t *a = (__global const e_t *)a_, *b = (__global const e_t *)b_;
    const int tid = (int)get_local_id(0), lane = tid % 32, warp = tid / 32;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const long m_tiles = (m + BM - 1) / BM, n_tiles = (n + BN - 1) / BN;
    const long per_split = ((k + BK - 1) / BK + SPLITS - 1) / SPLITS;
    /* one work-group a tile of the grid's y x x: the grouped order;
     * more tile rows than the grid has: row by row */
    const int grouped = get_num_groups(1) == m_tiles;

    for (long zs = get_group_id(2); zs < batch * SPLITS; zs += get_num_groups(2)) {
        const long z = zs / SPLITS, sp = zs % SPLITS;
        /* this split's k: [k0, k_end), whole steps from k0 */
        const long k0 = sp * per_split * BK, k_end = min(k, k0 + per_split * BK);
        const int steps = k_end > k0 ? (int)((k_end - k0 + BK - 1) / BK) : 0;
        const long k_len = k_end - k0;
        for (long mt_i = get_group_id(1); mt_i < m_tiles; mt_i += get_num_groups(1)) {
            long mt = mt_i, nt = get_group_id(0);
            if (grouped) tile_of(mt_i * n_tiles + nt, m_tiles, n_tiles, &mt, &nt);
            const long m0 = mt * BM, n0 = nt * BN;
            const long m_left = m - m0, n_left = n - n0;
            float acc[MT][NT][4];
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;

            __global const e_t *pa = a + a_off + z * a_sb + m0 * a_sm + k0;
#if B_KC
            __global const e_t *pb = b + b_off + z * b_sb + n0 * b_sn + k0;
            const long b_s = b_sn, b_step = BK;
#else
            __global const e_t *pb = b + b_off + z * b_sb + n0 + k0 * b_sk;
            const long b_s = b_sk, b_step = BK * b_sk;
#endif
#if WGMMA
            if (m_left >= BM && n_left >= BN && k_len % BK == 0)
                wg_k_loop(acc, 1, as, bs, a, pa, a_sm, b, pb, b_s, steps, m_left, n_left, k_len, tid, wm);
            else
                wg_k_loop(acc, 0, as, bs, a, pa, a_sm, b, pb, b_s, steps, m_left, n_left, k_len, tid, wm);
            (void)b_step;
#elif B_REG
            breg_k_loop(acc, as, a, pa, a_sm, pb, b_s, m_left, n_left, k_len, tid, wn, lane);
            (void)b_step, (void)steps;
#else
            if (m_left >= BM && n_left >= BN && k_len % BK == 0)
                tile_k_loop(acc, 1, as, bs, a, pa, a_sm, b, pb, b_s, b_step, steps, m_left, n_left, k_len, tid, wm, wn,
                            lane);
            else
                tile_k_loop(acc, 0, as, bs, a, pa, a_sm, b, pb, b_s, b_step, steps, m_left, n_left, k_len, tid, wm, wn,
                            lane);
#endif

            const int g = lane / 4, q = lane % 4;
#if SPLITS > 1
            /* a lane's two columns move as one 8-byte access */
            const long pn = PK_GEMM_PART_PN(n);
            __global float *mine = part + (sp * batch + z) * m * pn;
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        const long gm = m0 + out_row(wm, i, g, 2 * h), gn = n0 + out_col(wn, j, q, 0);
                        if (gm < m && gn < n)
                            *(__global float2 *)(mine + gm * pn + gn) = (float2)(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                    }
            pk_fence_gpu();
            __global uint *done = counters + (z * m_tiles + mt) * n_tiles + nt;
            /* one work-item counts the group in once all its stores are fenced */
            barrier(CLK_GLOBAL_MEM_FENCE);
            if (!pk_barrier_any(tid == 0 && pk_atom_add_gpu(done, 1u) == SPLITS - 1)) continue;
            if (tid == 0) *done = 0;
            pk_fence_gpu();
            /* every split's pair read, own included and addresses clamped
             * inside part, so that no branch stands between the loads and
             * they are in flight together */
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++) {
                    float2 pair[2][SPLITS];
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        const long gm = min(m - 1, m0 + out_row(wm, i, g, 2 * h));
                        const long gn = min(pn - 2, n0 + out_col(wn, j, q, 0));
#pragma unroll
                        for (int s = 0; s < SPLITS; s++) pair[h][s] = pk_ld_l2_x2(part + ((s * batch + z) * m + gm) * pn + gn);
                    }
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        float sum = 0.0f;
#pragma unroll
                        for (int s = 0; s < SPLITS; s++)
                            sum += s == sp ? acc[i][j][e] : (e & 1 ? pair[e / 2][s].y : pair[e / 2][s].x);
                        acc[i][j][e] = sum;
                    }
                }
#endif
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const long gm = m0 + out_row(wm, i, g, e), gn = n0 + out_col(wn, j, q, e);
                        if (gm < m && gn < n) PK_GEMM_FINISH(acc[i][j][e]);
                    }
        }
    }
}
