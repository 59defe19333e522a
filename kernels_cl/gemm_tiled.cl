/* Tiled GEMM: d = act(alpha * a @ b + beta * c + bias) + residual, per batch.
 *
 * A work-group computes a TM x TN block of d, stepping over k. Each step
 * copies a TM x KS block of a and a KS x TN block of b into local memory as
 * f32, both k-major (as[k][m], bs[k][n]; zero outside the matrix, so the
 * product needs no guards), then each work-item accumulates its WM x WN
 * micro-tile in registers. Every output is summed by one work-item in
 * ascending k: deterministic.
 *
 * Micro-tile: with VM = 1, rows ty + i * NTY of the block belong to
 * work-item (tx, ty); with VM = 4 they come in runs of 4, rows ty * 4 +
 * i' * NTY * 4 + 0..3, each run one float4 local read: a quarter of the
 * local reads (GPUs), contiguous SIMD loads (CPUs). VN, tx: the same for
 * the columns.
 *
 * Steps. PREFETCH = 1 (GPUs): the next step's elements are loaded from
 * global memory into registers before this step's product and stored to
 * local memory after it, so that their latency hides behind the
 * multiply-adds. Local memory holds two steps, one barrier a step: two
 * TK-deep steps where they fit in 32 KiB (the least local memory an OpenCL
 * 1.2 device has), else the plan's TK-deep tiles as two halves (KS = TK /
 * 2) where the loads divide evenly; else one TK-deep step, two barriers.
 * A tile whose rows and columns all lie inside the matrix loads its whole
 * steps unguarded, from indices computed once a tile (a step's guarded
 * loads recompute 64-bit indices per element: as many instructions as a
 * third of a KS = 8 step's multiply-adds).
 * PREFETCH = 0 (CPUs, which run a work-group as a loop over its items and
 * keep what lives across a barrier in memory): each item copies its share
 * straight from global to local memory; KS = TK.
 *
 * Global loads: a k-contiguous operand is transposed on its way into local
 * memory. With A_VEC (B_VEC) the operand's direction of stride 1 is read in
 * runs of 4 elements (one 16-byte load of f32). Runs along k go in pairs of
 * 16 rows to 32 items: the transposing stores hit distinct banks (local
 * rows of 4 mod 32 words) and each pair of runs is one 32-byte sector.
 *
 * Epilogue: with EPI_LOCAL the accumulators pass through local memory, row
 * i of every item at a time, and the epilogue is a rolled loop (few
 * registers) in which adjacent items store adjacent columns; else each item
 * finishes its own outputs (unrolled).
 *
 * Build defines (the host's plan picks them):
 *   TM TN TK WM WN PAD   tile, micro-tile, local row padding (VM/VN = 1)
 *   DT_A DT_D            dtype codes of a, b and of c, d, bias, residual
 *   ACT                  activation code (pk_act)
 *   HAS_C HAS_BIAS HAS_RES  0: the operand is absent and never touched
 *   A_KFAST B_KFAST      1: adjacent work-items load adjacent k (else
 *                        adjacent m of a, adjacent n of b): the direction
 *                        with the smaller stride, for coalescing
 *   A_UNIT B_UNIT        1: that direction's stride is 1 (a literal, so the
 *                        compiler sees contiguous loads)
 * Optional (default):
 *   A_VEC B_VEC (0)   1: read the unit direction in runs of 4 elements. The
 *                     host sets it only with A_UNIT (B_UNIT) and the
 *                     operand's offset, batch stride (batch > 1) and other
 *                     stride (its extent > 1) multiples of 4 elements. Used
 *                     where KS % 4 == 0 (k contiguous) or TM (TN) % 4 == 0
 *                     (m, n contiguous), and TM (TN) * KS / 4 is a multiple
 *                     of the items; else element loads.
 *   VM VN (4 where WM (WN) % 4 == 0, else 1)  1 or 4, dividing WM (WN).
 *   LANES (0)         1: each 32 items (a warp) take 4 (tx) x 8 (ty) places
 *                     of the item grid instead of a run along tx, so that a
 *                     warp's fragment reads of a step are 8 runs of a and 4
 *                     of b (192 bytes) rather than 2 and 16 (576); needs
 *                     NTX % 4 == 0 and NTY % 8 == 0 (the host checks).
 *   VPAD (4)          local row padding (floats, a multiple of 4) of a tile
 *                     read in runs of 4; 0 where it would pass 32 KiB.
 *   PREFETCH (1)      0 or 1, see Steps.
 *   KUNROLL (1)       unrolling of a step's k loop: 0 the compiler's choice,
 *                     1 none, 2, 4, 8, 16 that factor, >= KS whole.
 *   EPI_LOCAL (1)     0 or 1, see Epilogue; 1 acts only where NTY * TN
 *                     floats fit in the tiles' local memory.
 * Local memory: the plan's tile (TK * (TM + TN + 2 PAD) floats, rounded up
 * to 16 bytes) or more, never past 32 KiB (VPAD, two TK-deep steps).
 * Strides are {batch, row, col} in elements; 0 broadcasts. */

#define NTX (TN / WN)
#define NTY (TM / WM)
#define NT (NTX * NTY)

#ifndef A_VEC
#define A_VEC 0
#endif
#ifndef LANES
#define LANES 0
#endif
#ifndef B_VEC
#define B_VEC 0
#endif
#ifndef VM
#if WM % 4 == 0
#define VM 4
#else
#define VM 1
#endif
#endif
#ifndef VN
#if WN % 4 == 0
#define VN 4
#else
#define VN 1
#endif
#endif
#ifndef VPAD
#define VPAD 4
#endif
#ifndef PREFETCH
#define PREFETCH 1
#endif
#ifndef KUNROLL
#define KUNROLL 1
#endif
#ifndef EPI_LOCAL
#define EPI_LOCAL 1
#endif

#if (VM != 1 && VM != 4) || (VN != 1 && VN != 4) || WM % VM != 0 || WN % VN != 0
#error "gemm_tiled.cl: VM, VN must be 1 or 4 and divide WM, WN"
#endif
#if VPAD % 4 != 0
#error "gemm_tiled.cl: VPAD must be a multiple of 4"
#endif

/* local rows: a tile read in runs of 4 keeps them 16-byte aligned */
#if TK * (TM + TN + 2 * VPAD) * 4 <= 32768
#define VPAD_ VPAD
#else
#define VPAD_ 0
#endif
#if VM == 4
#define LDA (TM + VPAD_)
#else
#define LDA (TM + PAD)
#endif
#if VN == 4
#define LDB (TN + VPAD_)
#else
#define LDB (TN + PAD)
#endif

/* Steps: KS deep, NST of them in local memory (see above) */
#define GEMM_ROUND4(x) (((x) + 3) / 4 * 4)
#if PREFETCH && GEMM_ROUND4(2 * TK * LDA) + 2 * TK * LDB <= 8192
#define KS TK
#define NST 2
#elif PREFETCH && TK % 2 == 0 && (TM * (TK / 2)) % NT == 0 && (TN * (TK / 2)) % NT == 0
#define KS (TK / 2)
#define NST 2
#else
#define KS TK
#define NST 1
#endif
/* floats of the a tiles (16-byte aligned b tiles after them), of all */
#define GEMM_AS GEMM_ROUND4(NST * KS * LDA)
#define GEMM_LOCAL (GEMM_AS + NST * KS * LDB)

/* runs of 4 from global memory: the unit direction, a whole number per item */
#define A_V (A_VEC && A_UNIT && (A_KFAST ? KS % 4 == 0 : TM % 4 == 0) && (TM * KS / 4) % NT == 0)
#define B_V (B_VEC && B_UNIT && (B_KFAST ? KS % 4 == 0 : TN % 4 == 0) && (TN * KS / 4) % NT == 0)

/* the row of the block of accumulator row i of the items at ty = y; the column of column j at tx = x */
#if VM == 4
#define GEMM_ROW(y, i) ((y) * 4 + ((i) / 4) * (NTY * 4) + (i) % 4)
#else
#define GEMM_ROW(y, i) ((y) + (i) * NTY)
#endif
#if VN == 4
#define GEMM_COL(x, j) ((x) * 4 + ((j) / 4) * (NTX * 4) + (j) % 4)
#else
#define GEMM_COL(x, j) ((x) + (j) * NTX)
#endif

typedef PK_TYPE(DT_A) a_t;
typedef PK_TYPE(DT_D) d_t;

/* p[i..i+3] as f32; i is a multiple of 4 (A_VEC, B_VEC: the host checked) */
inline float4 gemm_load4(__global const a_t *p, long i)
{
#if DT_A == 0
    return *(__global const float4 *)(p + i);
#elif DT_A == 2
    return as_float4(convert_uint4(*(__global const ushort4 *)(p + i)) << 16);
#else
    /* one 8-byte load, whatever the driver makes of vload_half4 on global */
    const ushort4 u = *(__global const ushort4 *)((__global const ushort *)p + i);
    return vload_half4(0, (const __private half *)&u);
#endif
}

/* p[i..i+3] with zeros from element `left` on (left < 4) */
inline float4 gemm_part4(__global const a_t *p, long i, long left)
{
    float4 v = (float4)(0.0f);
    if (left > 0) v.s0 = PK_LOAD(DT_A, p, i);
    if (left > 1) v.s1 = PK_LOAD(DT_A, p, i + 1);
    if (left > 2) v.s2 = PK_LOAD(DT_A, p, i + 2);
    return v;
}

/* The loads of an item in an R x KS block: runs of 4 (v = 1) or elements */
#define GEMM_LOADS(R, v) ((v) ? (R) * KS / 4 / NT : (R) * KS / NT)

/* Which element (v = 0) or run of 4 (v = 1) load q of item tid covers in
 * an R x KS block (R rows of a, or columns of b; kf: k is the contiguous
 * direction): row *r and k *kk within the block. */
inline void gemm_slot(int tid, int q, const int R, const int kf, const int v, int *r, int *kk)
{
    const int e = tid + q * NT;
    if (v && kf) {
        if ((KS / 4) % 2 == 0) {
            *kk = 4 * ((e & 1) + 2 * (e / (2 * R)));
            *r = (e >> 1) % R;
        } else {
            *kk = 4 * (e / R);
            *r = e % R;
        }
    } else if (v) {
        *r = 4 * (e % (R / 4));
        *kk = e / (R / 4);
    } else if (kf) {
        *kk = e % KS;
        *r = e / KS;
    } else {
        *r = e % R;
        *kk = e / R;
    }
}

/* Element (gr, gk) of operand x (rows x k, strides sr and sk), zero outside. */
inline float gemm_get1(__global const a_t *x, long base, long sr, long sk, long rows, long k, long gr, long gk)
{
    return gr < rows && gk < k ? PK_LOAD(DT_A, x, base + gr * sr + gk * sk) : 0.0f;
}

/* The run of 4 from (gr, gk) along the unit direction (k when kf, else
 * the rows), zero outside. */
inline float4 gemm_get4(__global const a_t *x, long base, long sr, long sk, long rows, long k, long gr, long gk,
                        const int kf)
{
    if (kf) {
        const long i = base + gr * sr + gk;
        return gr >= rows ? (float4)(0.0f) : gk + 4 <= k ? gemm_load4(x, i) : gemm_part4(x, i, k - gk);
    }
    const long i = base + gk * sk + gr;
    return gk >= k ? (float4)(0.0f) : gr + 4 <= rows ? gemm_load4(x, i) : gemm_part4(x, i, rows - gr);
}

/* Stores a run of 4 at (r, kk) into the k-major local tile t[kk * LD + r]. */
inline void gemm_put4(__local float *t, int r, int kk, const int LD, const int kf, float4 v)
{
    if (kf) {
        t[(kk + 0) * LD + r] = v.s0;
        t[(kk + 1) * LD + r] = v.s1;
        t[(kk + 2) * LD + r] = v.s2;
        t[(kk + 3) * LD + r] = v.s3;
    } else if (LD % 4 == 0) {
        *(__local float4 *)(t + kk * LD + r) = v;
    } else {
        t[kk * LD + r + 0] = v.s0;
        t[kk * LD + r + 1] = v.s1;
        t[kk * LD + r + 2] = v.s2;
        t[kk * LD + r + 3] = v.s3;
    }
}

/* Copies the R x KS block of x at (r0, k0) into the local tile t, each
 * item its share straight from global to local memory. */
inline void gemm_copy(__global const a_t *x, long base, long sr, long sk, long rows, long k, long r0, long k0,
                      __local float *t, int tid, const int R, const int LD, const int kf, const int v)
{
    int r, kk;
    if (v) {
#pragma unroll
        for (int q = 0; q < GEMM_LOADS(R, 1); q++) {
            gemm_slot(tid, q, R, kf, 1, &r, &kk);
            gemm_put4(t, r, kk, LD, kf, gemm_get4(x, base, sr, sk, rows, k, r0 + r, k0 + kk, kf));
        }
    } else {
        for (int q = 0; q < GEMM_LOADS(R, 0); q++) {
            gemm_slot(tid, q, R, kf, 0, &r, &kk);
            t[kk * LD + r] = gemm_get1(x, base, sr, sk, rows, k, r0 + r, k0 + kk);
        }
    }
}

/* run q of 4 into the registers of a step's loads */
inline void gemm_reg4(float *reg, int q, float4 v)
{
    reg[4 * q + 0] = v.s0;
    reg[4 * q + 1] = v.s1;
    reg[4 * q + 2] = v.s2;
    reg[4 * q + 3] = v.s3;
}

/* gemm_copy in two halves: the loads into reg (R * KS / NT floats) ... */
inline void gemm_fetch(__global const a_t *x, long base, long sr, long sk, long rows, long k, long r0, long k0,
                       float *reg, int tid, const int R, const int kf, const int v)
{
    int r, kk;
    if (v) {
#pragma unroll
        for (int q = 0; q < GEMM_LOADS(R, 1); q++) {
            gemm_slot(tid, q, R, kf, 1, &r, &kk);
            gemm_reg4(reg, q, gemm_get4(x, base, sr, sk, rows, k, r0 + r, k0 + kk, kf));
        }
    } else {
#pragma unroll
        for (int q = 0; q < GEMM_LOADS(R, 0); q++) {
            gemm_slot(tid, q, R, kf, 0, &r, &kk);
            reg[q] = gemm_get1(x, base, sr, sk, rows, k, r0 + r, k0 + kk);
        }
    }
}

/* Interior steps: the block lies inside the matrix, so its loads need no
 * guards and their indices no recomputation: o[q] is load q's element in
 * step 0 (gemm_offsets, once a tile), and a step adds adv. */

inline void gemm_offsets(long base, long sr, long sk, long r0, long *o, int tid, const int R, const int kf,
                         const int v)
{
    int r, kk;
#pragma unroll
    for (int q = 0; q < GEMM_LOADS(R, v); q++) {
        gemm_slot(tid, q, R, kf, v, &r, &kk);
        o[q] = base + (r0 + r) * sr + kk * sk;
    }
}

inline void gemm_fetch_in(__global const a_t *x, const long *o, long adv, float *reg, const int R, const int v)
{
    if (v) {
#pragma unroll
        for (int q = 0; q < GEMM_LOADS(R, 1); q++) gemm_reg4(reg, q, gemm_load4(x, o[q] + adv));
    } else {
#pragma unroll
        for (int q = 0; q < GEMM_LOADS(R, 0); q++) reg[q] = PK_LOAD(DT_A, x, o[q] + adv);
    }
}

/* ... and the stores into the local tile t. */
inline void gemm_stash(const float *reg, __local float *t, int tid, const int R, const int LD, const int kf,
                       const int v)
{
    int r, kk;
    if (v) {
#pragma unroll
        for (int q = 0; q < GEMM_LOADS(R, 1); q++) {
            gemm_slot(tid, q, R, kf, 1, &r, &kk);
            gemm_put4(t, r, kk, LD, kf, (float4)(reg[4 * q + 0], reg[4 * q + 1], reg[4 * q + 2], reg[4 * q + 3]));
        }
    } else {
#pragma unroll
        for (int q = 0; q < GEMM_LOADS(R, 0); q++) {
            gemm_slot(tid, q, R, kf, 0, &r, &kk);
            t[kk * LD + r] = reg[q];
        }
    }
}

/* acc += as^T bs over one step's local tiles, kk ascending. This is the
 * one piece a matrix-unit variant (tensor-core fragments) replaces. */
inline void gemm_tile_product(__local const float *as, __local const float *bs, int tx, int ty,
                              float acc[WM][WN])
{
#if KUNROLL >= KS
#pragma unroll
#elif KUNROLL == 1
#pragma unroll 1
#elif KUNROLL == 2
#pragma unroll 2
#elif KUNROLL == 4
#pragma unroll 4
#elif KUNROLL == 8
#pragma unroll 8
#elif KUNROLL == 16
#pragma unroll 16
#endif
    for (int kk = 0; kk < KS; kk++) {
        float av[WM], bv[WN];
#if VM == 4
#pragma unroll
        for (int i = 0; i < WM / 4; i++) {
            const float4 x = *(__local const float4 *)(as + kk * LDA + GEMM_ROW(ty, 4 * i));
            av[4 * i + 0] = x.s0;
            av[4 * i + 1] = x.s1;
            av[4 * i + 2] = x.s2;
            av[4 * i + 3] = x.s3;
        }
#else
#pragma unroll
        for (int i = 0; i < WM; i++) av[i] = as[kk * LDA + GEMM_ROW(ty, i)];
#endif
#if VN == 4
#pragma unroll
        for (int j = 0; j < WN / 4; j++) {
            const float4 y = *(__local const float4 *)(bs + kk * LDB + GEMM_COL(tx, 4 * j));
            bv[4 * j + 0] = y.s0;
            bv[4 * j + 1] = y.s1;
            bv[4 * j + 2] = y.s2;
            bv[4 * j + 3] = y.s3;
        }
#else
#pragma unroll
        for (int j = 0; j < WN; j++) bv[j] = bs[kk * LDB + GEMM_COL(tx, j)];
#endif
#pragma unroll
        for (int i = 0; i < WM; i++)
#pragma unroll
            for (int j = 0; j < WN; j++) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
}

/* Groups stride over m-tiles (dim 1) and batches (dim 2), so the host may
 * launch fewer groups there than some drivers allow. */
__kernel __attribute__((reqd_work_group_size(NTX, NTY, 1))) void
gemm_tiled(PK_GEMM_CL_PARAMS(a, b))
{
    PK_GEMM_CL_UNPACK;
    /* float4s: 16-byte aligned tiles */
    __local float4 lmem[GEMM_LOCAL / 4];
    __local float *const as0 = (__local float *)lmem, *const bs0 = as0 + GEMM_AS;
    const int tid = (int)get_local_id(1) * NTX + (int)get_local_id(0);
#if LANES
    const int tx = tid / 32 % (NTX / 4) * 4 + tid % 4, ty = tid / 32 / (NTX / 4) * 8 + tid % 32 / 4;
#else
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
#endif
    const long col0 = (long)get_group_id(0) * TN;
    const long m_tiles = (m + TM - 1) / TM;
    const long steps = (k + KS - 1) / KS;
    if (A_UNIT) {
        if (A_KFAST) a_sk = 1;
        else a_sm = 1;
    }
    if (B_UNIT) {
        if (B_KFAST) b_sk = 1;
        else b_sn = 1;
    }

    for (long z = get_group_id(2); z < batch; z += get_num_groups(2)) {
        const long a_base = a_off + z * a_sb, b_base = b_off + z * b_sb;
        for (long mt = get_group_id(1); mt < m_tiles; mt += get_num_groups(1)) {
            const long row0 = mt * TM;
            float acc[WM][WN];
#pragma unroll
            for (int i = 0; i < WM; i++)
#pragma unroll
                for (int j = 0; j < WN; j++) acc[i][j] = 0.0f;

#define GEMM_COPY(k0, buf)                                                                                 \
    do {                                                                                                   \
        gemm_copy(a, a_base, a_sm, a_sk, m, k, row0, (k0), as0 + (buf) * (KS * LDA), tid, TM, LDA, A_KFAST, A_V); \
        gemm_copy(b, b_base, b_sn, b_sk, n, k, col0, (k0), bs0 + (buf) * (KS * LDB), tid, TN, LDB, B_KFAST, B_V); \
    } while (0)
#define GEMM_FETCH(k0)                                                                                     \
    do {                                                                                                   \
        if ((k0) + KS <= k_in) {                                                                           \
            gemm_fetch_in(a, oa, (k0) * a_sk, ra, TM, A_V);                                                \
            gemm_fetch_in(b, ob, (k0) * b_sk, rb, TN, B_V);                                                \
        } else {                                                                                           \
            gemm_fetch(a, a_base, a_sm, a_sk, m, k, row0, (k0), ra, tid, TM, A_KFAST, A_V);                \
            gemm_fetch(b, b_base, b_sn, b_sk, n, k, col0, (k0), rb, tid, TN, B_KFAST, B_V);                \
        }                                                                                                  \
    } while (0)
#define GEMM_STASH(buf)                                                                                    \
    do {                                                                                                   \
        gemm_stash(ra, as0 + (buf) * (KS * LDA), tid, TM, LDA, A_KFAST, A_V);                              \
        gemm_stash(rb, bs0 + (buf) * (KS * LDB), tid, TN, LDB, B_KFAST, B_V);                              \
    } while (0)

#if PREFETCH
            /* steps below k_in are interior: all of the tile's rows and
             * columns inside the matrix (else none is) */
            const long k_in = row0 + TM <= m && col0 + TN <= n ? k : 0;
            long oa[GEMM_LOADS(TM, A_V)], ob[GEMM_LOADS(TN, B_V)];
            gemm_offsets(a_base, a_sm, a_sk, row0, oa, tid, TM, A_KFAST, A_V);
            gemm_offsets(b_base, b_sn, b_sk, col0, ob, tid, TN, B_KFAST, B_V);
#endif
#if PREFETCH && NST == 2
            /* step s reads buffer s % 2 while the next step's elements go
             * into the other, last read before the previous barrier */
            float ra[TM * KS / NT], rb[TN * KS / NT];
            if (steps > 0) GEMM_COPY(0, 0);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (long s = 0; s < steps; s++) {
                const int cur = (int)(s & 1);
                const int more = s + 1 < steps;
                if (more) GEMM_FETCH((s + 1) * KS);
                gemm_tile_product(as0 + cur * (KS * LDA), bs0 + cur * (KS * LDB), tx, ty, acc);
                if (more) GEMM_STASH(cur ^ 1);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
#elif PREFETCH
            float ra[TM * KS / NT], rb[TN * KS / NT];
            if (steps > 0) GEMM_FETCH(0);
            for (long s = 0; s < steps; s++) {
                GEMM_STASH(0);
                barrier(CLK_LOCAL_MEM_FENCE);
                if (s + 1 < steps) GEMM_FETCH((s + 1) * KS);
                gemm_tile_product(as0, bs0, tx, ty, acc);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
#else
            for (long s = 0; s < steps; s++) {
                GEMM_COPY(s * KS, 0);
                barrier(CLK_LOCAL_MEM_FENCE);
                gemm_tile_product(as0, bs0, tx, ty, acc);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
#endif
#undef GEMM_COPY
#undef GEMM_FETCH
#undef GEMM_STASH

#if EPI_LOCAL && NTY * TN <= GEMM_LOCAL
            /* row i of every item's accumulators: NTY rows of TN, in the
             * tiles' memory, free since the last barrier */
            __local float *const st = as0;
#pragma unroll
            for (int i = 0; i < WM; i++) {
#if VN == 4
#pragma unroll
                for (int j = 0; j < WN / 4; j++)
                    *(__local float4 *)(st + ty * TN + GEMM_COL(tx, 4 * j)) =
                        (float4)(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
#else
#pragma unroll
                for (int j = 0; j < WN; j++) st[ty * TN + GEMM_COL(tx, j)] = acc[i][j];
#endif
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int e = tid; e < NTY * TN; e += NT) {
                    const int y = e / TN, cc = e - y * TN;
                    const long gm = row0 + GEMM_ROW(y, i), gn = col0 + cc;
                    if (gm < m && gn < n) PK_GEMM_FINISH(st[e]);
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
#else
#pragma unroll
            for (int i = 0; i < WM; i++) {
                const long gm = row0 + GEMM_ROW(ty, i);
#pragma unroll
                for (int j = 0; j < WN; j++) {
                    const long gn = col0 + GEMM_COL(tx, j);
                    if (gm < m && gn < n) PK_GEMM_FINISH(acc[i][j]);
                }
            }
#endif
        }
    }
}
