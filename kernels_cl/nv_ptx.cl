/* NVIDIA's tensor cores and asynchronous copies from OpenCL C, through
 * inline PTX: the only place the OpenCL kernels name PTX. Built only with
 * PK_PTX = 1, which the host passes to a device whose inline PTX passed the
 * probe at context open (kernels_cl/ptx_probe.cl,
 * backends/opencl/opencl_ptx_probe.c); every other compiler sees nothing
 * of it.
 *
 * Fragments are those of the PTX ISA for mma.m16n8k16 with 16-bit inputs:
 * lane (g = lane / 4, t = lane % 4) holds A at rows g and g + 8, k pairs 2t
 * and 2t + 8 (a0: (g, 2t), a1: (g + 8, 2t), a2: (g, 2t + 8), a3: (g + 8,
 * 2t + 8), each two elements along k in one 32-bit register), B at k pairs
 * 2t and 2t + 8 of column g (b0, b1), and the f32 accumulators at rows g
 * and g + 8, columns 2t and 2t + 1 (c0, c1 on row g; c2, c3 on row g + 8). */
#if PK_PTX

/* c += A B on the tensor cores, f32 accumulators: pk_mma_bf16 and
 * pk_mma_f16, by the inputs' type */
#define PK_MMA_16816(name, type)                                                                           \
    inline __attribute__((always_inline)) void name(float c[4], uint a0, uint a1, uint a2, uint a3, uint b0, \
                                                    uint b1)                                               \
    {                                                                                                      \
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." type "." type ".f32 {%0,%1,%2,%3}, "          \
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                                              \
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                                      \
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));                              \
    }
PK_MMA_16816(pk_mma_bf16, "bf16")
PK_MMA_16816(pk_mma_f16, "f16")
#define pk_mma_1 pk_mma_f16
#define pk_mma_2 pk_mma_bf16
/* the mma for inputs of dtype dt (1 f16, 2 bf16) */
#define pk_mma_of(dt) PK_CAT(pk_mma_, dt)

/* The two mma of a 32-k step in the permuted k of the weight-streaming
 * kernels (gemm_skinny.cl's gemm_skinny_mma, gemm_mma.cl's B_REG loop,
 * gemm_mma_kwarp.cl): lane (g, q) holds 16 bytes, k 8q .. 8q + 7, of a's
 * rows g (x0) and g + 8 (x1) and of weight row g (w), and its four 32-bit
 * words go to the fragments' k pairs {2q, 2q + 8} of two mma; a and b are
 * permuted alike, so each product meets its partner. pk_mma_k32_of(dt):
 * the one for dtype dt (1 f16, 2 bf16). */
#define PK_MMA_K32(name, mma)                                                                             \
    inline __attribute__((always_inline)) void name(float c[4], uint4 x0, uint4 x1, uint4 w)              \
    {                                                                                                     \
        mma(c, x0.s0, x1.s0, x0.s1, x1.s1, w.s0, w.s1);                                                   \
        mma(c, x0.s2, x1.s2, x0.s3, x1.s3, w.s2, w.s3);                                                   \
    }
PK_MMA_K32(pk_mma_k32_2, pk_mma_bf16)
PK_MMA_K32(pk_mma_k32_1, pk_mma_f16)
#define pk_mma_k32_of(dt) PK_CAT(pk_mma_k32_, dt)

/* 16 bytes of 16-bit elements at p of which the first `valid` are read
 * and the rest are zeros: a row's end in those kernels */
inline uint4 pk_ld16_part(__global const ushort *p, long valid)
{
    ushort e[8];
    for (int j = 0; j < 8; j++) e[j] = j < valid ? p[j] : (ushort)0;
    return (uint4)(e[0] | (uint)e[1] << 16, e[2] | (uint)e[3] << 16, e[4] | (uint)e[5] << 16, e[6] | (uint)e[7] << 16);
}

/* 16 bytes read once: no L1 allocation, 128-byte L2 prefetch */
inline uint4 pk_ld_stream16(__global const void *p)
{
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.s0), "=r"(v.s1), "=r"(v.s2), "=r"(v.s3)
                 : "l"(p));
    return v;
}

/* A local pointer as the 32-bit shared-window address that cp.async and
 * ldmatrix take (NVIDIA's OpenCL keeps __local pointers in that window). */
inline uint pk_shared_addr(__local const void *p) { return (uint)(size_t)p; }

/* The element offset of (row, 16-byte chunk) in a local tile of 64-byte
 * rows (32 k of 16-bit elements): chunk c of row r at chunk c ^ ((r >> 1)
 * & 3), which spreads ldmatrix's 8 rows over the banks and is wgmma's
 * 64-byte swizzle (pk_wg_desc64) */
inline int pk_k32_at(int row, int chunk) { return row * 32 + ((chunk ^ ((row >> 1) & 3)) << 3); }

/* 16 bytes global -> local without passing through registers; completes
 * at pk_cp_async_wait (then a barrier makes it visible to the group).
 *
 * The copies are the .ca form (through L1) although nothing reads them
 * twice: under NVIDIA's OpenCL the .cg form (L2 only) moves data well
 * below the rate the CUDA driver gives the same machine code, and .ca does
 * not pay that (bench/RESULTS.md, 2026-12-03 15:00). */
inline void pk_cp_async16(__local void *dst, __global const void *src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(pk_shared_addr(dst)), "l"(src) : "memory");
}

/* The same from base + off bytes, the sum formed inside the asm: a loop
 * that copies from one moving pointer at several fixed offsets then holds
 * that pointer alone, where the compiler would otherwise keep a pointer
 * per offset across the loop. */
inline void pk_cp_async16_off(__local void *dst, __global const void *base, long off)
{
    asm volatile("{ .reg .u64 p; add.s64 p, %1, %2; cp.async.ca.shared.global [%0], [p], 16; }" ::"r"(
                     pk_shared_addr(dst)),
                 "l"(base), "l"(off)
                 : "memory");
}

/* The same, of which only the first `bytes` (0..16) are read and the rest
 * of the 16 are zeros: the edges of a tile (src must be a valid address
 * even when nothing is read). */
inline void pk_cp_async16_zfill(__local void *dst, __global const void *src, uint bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(pk_shared_addr(dst)), "l"(src), "r"(bytes)
                 : "memory");
}

inline void pk_cp_async_commit(void) { asm volatile("cp.async.commit_group;" ::: "memory"); }

/* waits until at most N (a literal, or a macro that is one) of this item's
 * committed groups are in flight */
#define PK_PTX_STR_(x) #x
#define PK_PTX_STR(x) PK_PTX_STR_(x)
#define pk_cp_async_wait(N) asm volatile("cp.async.wait_group " PK_PTX_STR(N) ";" ::: "memory")

/* Four 8 x 8 matrices of 16-bit elements from local memory: lanes 8i ..
 * 8i + 7 give the rows of matrix i; register i of lane l receives row
 * l / 4, elements 2 (l % 4) and 2 (l % 4) + 1, of matrix i (the A or B
 * fragment layout above). */
inline void pk_ldmatrix_x4(uint r[4], __local const void *row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(pk_shared_addr(row)));
}

/* The same with each 8 x 8 matrix transposed: register i of lane l
 * receives column l / 4, rows 2 (l % 4) and 2 (l % 4) + 1, of matrix i (a B
 * fragment from a tile stored k-major, n contiguous). */
inline void pk_ldmatrix_x4_trans(uint r[4], __local const void *row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(pk_shared_addr(row)));
}

/* 2^x on the special function unit (flush-to-zero: the softmax weights
 * of attention, where subnormals do not matter) */
inline float pk_ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* lo and hi rounded to nearest even, packed into one register (lo in the
 * low half): the A fragment of an mma from f32 values */
inline uint pk_pack_bf16x2(float lo, float hi)
{
    uint r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
inline uint pk_pack_f16x2(float lo, float hi)
{
    uint r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/* x of lane (this lane ^ mask), and of lane src: every lane of the warp
 * takes part */
inline float pk_shfl_xor(float x, int mask)
{
    float y;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(y) : "f"(x), "r"(mask));
    return y;
}
inline float pk_shfl_idx(float x, int src)
{
    float y;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(y) : "f"(x), "r"(src));
    return y;
}

/* whether any lane of the warp passes a nonzero x */
inline int pk_warp_any(int x)
{
    uint r;
    asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0; vote.sync.any.pred q, p, 0xffffffff; selp.u32 %0, 1, 0, q; }"
                 : "=r"(r)
                 : "r"(x));
    return (int)r;
}

/* barrier(CLK_LOCAL_MEM_FENCE) of the whole work-group that also tells
 * whether any work-item passed a nonzero x (bar.red: a bar.sync with a
 * reduction; every work-item must reach it) */
inline int pk_barrier_any(int x)
{
    uint r;
    asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0; bar.red.or.pred q, 0, p; selp.u32 %0, 1, 0, q; }"
                 : "=r"(r)
                 : "r"(x)
                 : "memory");
    return (int)r;
}

/* Hand-over between the work-groups of one launch (split-K's last piece
 * sums the others'): a fence at GPU scope, an atomic add that acquires
 * what the fences before it released, and loads from L2, past an L1 that
 * other multiprocessors' stores do not reach. */
inline void pk_fence_gpu(void) { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

inline uint pk_atom_add_gpu(__global uint *p, uint v)
{
    uint old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

inline float2 pk_ld_l2_x2(__global const float *p)
{
    float2 v;
    asm volatile("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p) : "memory");
    return v;
}

inline float4 pk_ld_l2_x4(__global const float *p)
{
    float4 v;
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
}


/* Hopper's warpgroup products (wgmma), for kernels built with PK_WGMMA =
 * 1 on a device whose probe passed them (opencl_ptx_rebuild.c). NVIDIA's OpenCL
 * compiles for sm_90, where the PTX assembler refuses wgmma (it needs
 * sm_90a), so the lines that name it are written as PTX comments that
 * begin with PK_WG_MARK: the compiler passes inline PTX through with its
 * operands filled in, and the host uncomments those lines in the program's
 * PTX, retargets it to sm_90a and builds that text again
 * (pk_cl_wgmma_ptx). Everything around them, the registers they read and
 * write included, is the compiler's own, so the uncommented text is the
 * program it compiled. */
#if PK_WGMMA
#define PK_WG(line) "//PKWG " line "\n"

/* The descriptor of a K-major tile of 64-byte rows (32 k of 16-bit
 * elements) in local memory, in the 64-byte swizzle: 16-byte chunk c of
 * row r at chunk c ^ ((r >> 1) & 3), 8-row groups 512 bytes apart, the
 * tile 512-byte aligned (pk_k32_at is this layout). addr: the
 * shared-window address of the tile's row 0 plus 32 bytes for its second
 * 16 k. */
inline ulong pk_wg_desc64(uint addr)
{
    const uint lo = ((addr & 0x3FFFFu) >> 4) | (1u << 16);
    const uint hi = (512u >> 4) | (2u << 30);
    return ((ulong)hi << 32) | (ulong)lo;
}

/* generic-proxy writes to local memory (cp.async's, stores) made visible
 * to the wgmma that read them: each writer, after its writes complete and
 * before the barrier */
inline void pk_fence_proxy_async(void) { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
inline void pk_wg_fence(void) { asm volatile(PK_WG("wgmma.fence.sync.aligned;") ::: "memory"); }
inline void pk_wg_commit(void) { asm volatile(PK_WG("wgmma.commit_group.sync.aligned;") ::: "memory"); }

/* d[64 x N] += a[64 x 16] b[N x 16]^T from descriptors da, db (both
 * K-major): d as a warp's m16n8 accumulators, d[j][e] of its N / 8 tiles
 * (rows 16 w + g, + 8 of warp w of the warpgroup, columns 8 j + 2 q, + 1:
 * mma.sync's layout). pk_wgmma_N_T for T bf16 or f16. pk_wg_wait_N(d):
 * waits for every product in flight and holds d's registers behind it. */
#define PK_WG_J(j) "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
#define PK_WG_J4(j) PK_WG_J(j), PK_WG_J(j + 1), PK_WG_J(j + 2), PK_WG_J(j + 3)
#define PK_WG_J8(j) PK_WG_J4(j), PK_WG_J4(j + 4)
#define PK_WG_J16(j) PK_WG_J8(j), PK_WG_J8(j + 8)
#define PK_WG_J32(j) PK_WG_J16(j), PK_WG_J16(j + 16)
#define PK_WG_R16 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
#define PK_WG_R32 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define PK_WG_R64 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define PK_WG_R128 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define PK_WG_DEFINE(N, T, R, OPS, IA, IB, IS)                                                                        \
    inline void pk_wgmma_##N##_##T(float d[N / 8][4], ulong da, ulong db)                                          \
    {                                                                                                              \
        asm volatile(PK_WG("{") PK_WG(".reg .pred p;") PK_WG("setp.ne.b32 p, %" IS ", 0;")                          \
                         PK_WG("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." #T "." #T " " R "}, %" IA ", %" IB \
                               ", p, 1, 1, 0, 0;") PK_WG("}")                                                      \
                     : OPS                                                                                         \
                     : "l"(da), "l"(db), "r"(1)                                                                    \
                     : "memory");                                                                                  \
    }                                                                                                              \
    inline void pk_wg_wait_##N##_##T(float d[N / 8][4])                                                            \
    {                                                                                                              \
        asm volatile(PK_WG("wgmma.wait_group.sync.aligned 0;") : OPS::"memory");                                   \
    }
PK_WG_DEFINE(32, bf16, PK_WG_R16, PK_WG_J4(0), "16", "17", "18")
PK_WG_DEFINE(32, f16, PK_WG_R16, PK_WG_J4(0), "16", "17", "18")
PK_WG_DEFINE(64, bf16, PK_WG_R32, PK_WG_J8(0), "32", "33", "34")
PK_WG_DEFINE(64, f16, PK_WG_R32, PK_WG_J8(0), "32", "33", "34")
PK_WG_DEFINE(128, bf16, PK_WG_R64, PK_WG_J16(0), "64", "65", "66")
PK_WG_DEFINE(128, f16, PK_WG_R64, PK_WG_J16(0), "64", "65", "66")
PK_WG_DEFINE(256, bf16, PK_WG_R128, PK_WG_J32(0), "128", "129", "130")
PK_WG_DEFINE(256, f16, PK_WG_R128, PK_WG_J32(0), "128", "129", "130")
/* the product and the wait for n = N columns and inputs of dtype dt (1
 * f16, 2 bf16) */
#define pk_wgmma_t1 f16
#define pk_wgmma_t2 bf16
#define pk_wgmma_of(n, dt) PK_CAT(PK_CAT(PK_CAT(pk_wgmma_, n), _), PK_CAT(pk_wgmma_t, dt))
#define pk_wg_wait_of(n, dt) PK_CAT(PK_CAT(PK_CAT(pk_wg_wait_, n), _), PK_CAT(pk_wgmma_t, dt))
/* Hopper's tensor memory accelerator (TMA) from OpenCL (gemm_tma.cl).
 * A copy of a box of a 2-D tensor from global into local memory is one
 * instruction of one work-item, and its completion is counted in bytes
 * on an mbarrier in local memory that the readers wait on; no work-item
 * spends registers or instructions on the data. The tensor map that
 * describes the tensor is an opaque 128-byte object that the CUDA driver
 * encodes; NVIDIA's OpenCL offers no such call, so the host has the
 * driver encode templates once (cl_args.h PK_TMA_TEMPLATE) and each
 * work-group puts its operand's address, extents and row stride into a
 * copy with tensormap.replace (sm_90a, hence behind PK_WG), in a slot of
 * global memory of its own, which the copies then name. */

/* mbarrier b with `count` arrivals a phase; visible to the async proxy
 * (the copies) once pk_mbar_init_fence and a barrier follow */
inline void pk_mbar_init(__local ulong *b, uint count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(pk_shared_addr(b)), "r"(count) : "memory");
}
inline void pk_mbar_init_fence(void) { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
/* the issuer's arrival, announcing `bytes` of copies to complete on b */
inline void pk_mbar_expect(__local ulong *b, uint bytes)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(
                     pk_shared_addr(b)),
                 "r"(bytes)
                 : "memory");
}
inline void pk_mbar_arrive(__local ulong *b)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(pk_shared_addr(b)) : "memory");
}
/* whether b's phase of parity `parity` has completed (one bounded try) */
inline int pk_mbar_test(__local ulong *b, uint parity)
{
    uint done;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(pk_shared_addr(b)), "r"(parity)
                 : "memory");
    return (int)done;
}
/* waits until b's phase of parity `parity` has completed */
inline void pk_mbar_wait(__local ulong *b, uint parity)
{
    while (!pk_mbar_test(b, parity));
}
/* the lanes of the warp together again (after a branch some took) */
inline void pk_warp_sync(void) { asm volatile("bar.warp.sync -1;" ::: "memory"); }
/* the box at (x inner, y outer) of the tensor of map `map` into dst,
 * counted on b; elements outside the tensor's extents arrive as zeros */
inline void pk_tma_load2d(__local void *dst, __global const ulong *map, int x, int y, __local ulong *b)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            pk_shared_addr(dst)),
        "l"(map), "r"(x), "r"(y), "r"(pk_shared_addr(b))
        : "memory");
}
/* A map's tensor: its address (16-byte aligned), `inner` x `outer`
 * elements, rows `stride` bytes apart (a multiple of 16) */
typedef struct pk_tma_tensor {
    ulong addr, stride;
    uint inner, outer;
} pk_tma_tensor;
/* One warp, every lane: the map at slot, and with `two` the one at slot +
 * PK_TMA_MAP_LONGS (128 bytes each of global memory, 128-byte aligned,
 * this work-group's alone), become the templates the caller put in sm
 * (PK_TMA_MAP_LONGS longs a map of local memory, 128-byte aligned) with
 * tensors t0 (t1). The copies that name them may follow. */
inline void pk_tma_maps_set(__global ulong *slot, int two, pk_tma_tensor t0, pk_tma_tensor t1, __local ulong *sm)
{
    const int lane = (int)(get_local_id(0) % 32), h = lane / PK_TMA_MAP_LONGS, i = lane % PK_TMA_MAP_LONGS;
    pk_warp_sync();
    if (i == 0 && (h == 0 || two)) {
        const uint s = pk_shared_addr(sm + lane);
        const pk_tma_tensor t = h ? t1 : t0;
        asm volatile(PK_WG("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;")::"r"(s),
                     "l"(t.addr)
                     : "memory");
        asm volatile(PK_WG("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;")::"r"(s),
                     "r"(t.inner)
                     : "memory");
        asm volatile(PK_WG("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;")::"r"(s),
                     "r"(t.outer)
                     : "memory");
        asm volatile(PK_WG("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;")::"r"(s),
                     "l"(t.stride)
                     : "memory");
    }
    pk_warp_sync();
    for (int m = 0; m <= (two != 0); m++)
        asm volatile(PK_WG("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
                           "[%0], [%1], 128;")::"l"(slot + m * PK_TMA_MAP_LONGS),
                     "r"(pk_shared_addr(sm + m * PK_TMA_MAP_LONGS))
                     : "memory");
    for (int m = 0; m <= (two != 0); m++)
        asm volatile(PK_WG("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;")::"l"(slot + m * PK_TMA_MAP_LONGS)
                     : "memory");
}
#endif

#endif /* PK_PTX */
