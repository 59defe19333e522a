/* Hopper (sm_90a) device helpers that do not depend on one kernel:
 * mbarriers, cp.async into mbarrier-tracked stages, proxy fences, named
 * barriers, register reallocation (setmaxnreg), wgmma descriptors, and
 * the wgmma instructions themselves (operands from shared memory, or A
 * from registers), TMA loads and clusters of two blocks. gemm_wgmma.cuh
 * and attention_wgmma.cuh use them.
 *
 * Only meaningful in code built for sm_90a: everything sits under
 * PK_SM90_ENABLED, which the kernels test before using it. */
#pragma once

#include <stdint.h>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PK_SM90_ENABLED 1
#endif

namespace pk_sm90 {

#ifdef PK_SM90_ENABLED

__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* --- mbarriers (shared::cta, 8 bytes each) --- */

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* makes the initialisations visible to the other threads and to the
 * async proxy before anyone arrives; a block barrier must follow */
__device__ __forceinline__ void mbar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* whether the phase of the given parity completed (acquire, at the
 * scope of the block: mbar_arrive_in says why that holds for the pairs'
 * barriers too) */
__device__ __forceinline__ bool mbar_test(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 " selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done != 0;
}

/* until the phase of the given parity completed (acquire) */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    while (!mbar_test(bar, parity)) {
    }
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* n arrivals at once (one thread arriving for its warp) */
__device__ __forceinline__ void mbar_arrive_n(uint32_t bar, uint32_t n)
{
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(n) : "memory");
}

/* arrives and adds `bytes` to the phase's expected transaction count (the
 * bytes TMA copies will complete it by) */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* arrives once this thread's earlier cp.async copies have all landed.
 * noinc: the arrival counts against the count given at init (one per
 * copying thread), instead of adding one pending arrival and then
 * removing it */
__device__ __forceinline__ void mbar_arrive_cp_async(uint32_t bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

/* --- TMA copies and clusters --- */

/* the box at coordinates (c0, c1, c2) of map into dst; completes
 * `bar` by the box's bytes */
__device__ __forceinline__ void tma_load(uint32_t dst, const void *map, int c0, int c1, int c2, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, "
                 "%4}], [%5];\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
                 : "memory");
}

/* the same with four coordinates (the attention kernel's head-dim
 * element, key, kv head, batch) */
__device__ __forceinline__ void tma_load4(uint32_t dst, const void *map, int c0, int c1, int c2, int c3, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, "
                 "%4, %5}], [%6];\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
                 : "memory");
}

/* A box of a 3-D tensor from shared memory (src) to global by TMA, in the
 * issuing thread's bulk group; TMA writes nothing outside the tensor */
__device__ __forceinline__ void tma_store(const void *map, uint32_t src, int c0, int c1, int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(src), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/* until at most N of this thread's bulk groups are still reading shared
 * memory (.read), or still writing (without) */
template <int N> __device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N> __device__ __forceinline__ void bulk_wait() { asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory"); }
__device__ __forceinline__ void st_shared(uint32_t addr, uint32_t v)
{
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

/* Clusters of two blocks (PK_GPU_LAUNCH_PAIRS): their ranks, the pair's
 * index and count, the barrier every thread of both blocks meets */
__device__ __forceinline__ uint32_t cluster_rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

__device__ __forceinline__ uint32_t cluster_id()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(r));
    return r;
}

__device__ __forceinline__ uint32_t cluster_count()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%nclusterid.x;\n" : "=r"(r));
    return r;
}

__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

/* An arrival on the barrier at the same offset in the block of rank `to`,
 * with the default (block-scope) release. What it hands over is a stage
 * that wgmma finished reading (wgmma.wait_group, before the arrival) and
 * that the other block's TMA then writes: both async-proxy accesses,
 * which a cluster-scope release would not order anyway. A cluster-scope
 * release costs a memory barrier at each arrival: with it every pair
 * tile took about 1 us a k step (bench/RESULTS.md, 2026-12-07 22:10). The
 * waits on such a barrier are plain mbar_waits for the same reason. */
__device__ __forceinline__ void mbar_arrive_in(uint32_t bar, uint32_t to)
{
    asm volatile("{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
                 " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
                 "r"(to)
                 : "memory");
}

/* tma_load into the same offset of both blocks of the pair, completing
 * the barrier at the same offset in each */
__device__ __forceinline__ void tma_load_pair(uint32_t dst, const void *map, int c0, int c1, int c2,
                                              uint32_t bar)
{
    const unsigned short both = 3;
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(both)
                 : "memory");
}

/* --- copies and fences --- */

/* 16 bytes global -> shared; n = 0 writes zeros and reads nothing (the
 * source must still be a valid address) */
__device__ __forceinline__ void cp16(uint32_t dst, const void *src, int n)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n) : "memory");
}

/* the same, all 16 bytes read */
__device__ __forceinline__ void cp16_full(uint32_t dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

/* wgmma reads shared memory through the async proxy; what plain stores
 * or cp.async wrote (the generic proxy) must be ordered before it by this
 * fence, in a thread that already sees those writes */
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

/* --- named barriers: a warpgroup synchronises without the block --- */

__device__ __forceinline__ void bar_sync(int id, int threads)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/* arrives on named barrier id without waiting (threads counts both the
 * arriving and the waiting ones) */
__device__ __forceinline__ void bar_arrive(int id, int threads)
{
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/* bar_sync that also returns whether any of the threads passed true */
__device__ __forceinline__ bool bar_sync_or(int id, int threads, bool v)
{
    uint32_t any;
    asm volatile("{\n .reg .pred p, q;\n setp.ne.u32 q, %1, 0;\n bar.red.or.pred p, %2, %3, q;\n"
                 " selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(any)
                 : "r"((uint32_t)v), "r"(id), "r"(threads)
                 : "memory");
    return any != 0;
}

/* --- register reallocation between warpgroups --- */

template <int N> __device__ __forceinline__ void regs_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N)); }
template <int N> __device__ __forceinline__ void regs_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N)); }

/* a compile-time flag as a value (a generic lambda's argument) */
template <bool B> struct flag {
    static constexpr bool value = B;
};

/* --- wgmma --- */

/* A shared-memory matrix in the 128-byte swizzle: rows of 128 bytes,
 * 16-byte chunk c of row r stored at chunk c ^ (r % 8), the pattern
 * repeating every 8 rows (1024 bytes, so the pattern's base must be
 * 1024-byte aligned: the descriptor's base offset stays 0).
 *   lbo: K-major: unused for swizzled layouts (one unit by convention);
 *        MN-major: bytes from one 64-element (128-byte) column block of
 *        the M/N dimension to the next.
 *   sbo: bytes from one 8-row group to the next (1024 when the groups
 *        are packed). */
struct desc128 {
    /* lo: the start address and the leading offset; hi: the stride
     * offset and the swizzle mode (bit 62 of the whole) */
    uint32_t lo, hi;
    __device__ __forceinline__ desc128(uint32_t addr, uint32_t lbo, uint32_t sbo)
        : lo(((addr & 0x3FFFF) >> 4) | (((lbo & 0x3FFFF) >> 4) << 16)), hi(((sbo & 0x3FFFF) >> 4) | (1u << 30))
    {
    }
    /* The descriptor of the matrix `bytes` further on (a multiple of 16
     * that keeps it inside shared memory's 256 KiB, so that the 14-bit
     * address field never carries into the leading offset): one add where
     * building it afresh masks, shifts and ors again, about ten
     * instructions a wgmma in the attention kernel's loop. */
    __device__ __forceinline__ uint64_t at(uint32_t bytes) const
    {
        return ((uint64_t)hi << 32) | (uint64_t)(lo + (bytes >> 4));
    }
};
__device__ __forceinline__ uint64_t desc_sw128(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return desc128(addr, lbo, sbo).at(0);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving reads or writes of registers that an
 * in-flight wgmma writes (accumulators) or reads (A fragments) across the
 * point where this stands: before the fence that starts a batch and after
 * the wait that ends it. */
template <int N> __device__ __forceinline__ void fence_regs(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i])::"memory");
}
template <int N> __device__ __forceinline__ void fence_regs(uint32_t (&d)[N][4])
{
#pragma unroll
    for (int i = 0; i < N; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) asm volatile("" : "+r"(d[i][j])::"memory");
}

#define PK_SM90_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define PK_SM90_D16(i) PK_SM90_D4(i), PK_SM90_D4(i + 4), PK_SM90_D4(i + 8), PK_SM90_D4(i + 12)
#define PK_SM90_D32(i) PK_SM90_D16(i), PK_SM90_D16(i + 16)
#define PK_SM90_D64(i) PK_SM90_D32(i), PK_SM90_D32(i + 32)
#define PK_SM90_D128(i) PK_SM90_D64(i), PK_SM90_D64(i + 64)
#define PK_SM90_D8(i) PK_SM90_D4(i), PK_SM90_D4(i + 4)
#define PK_SM90_D80(i) PK_SM90_D64(i), PK_SM90_D16(i + 64)
#define PK_SM90_D96(i) PK_SM90_D64(i), PK_SM90_D32(i + 64)
#define PK_SM90_D88(i) PK_SM90_D64(i), PK_SM90_D16(i + 64), PK_SM90_D4(i + 80), PK_SM90_D4(i + 84)
#define PK_SM90_R8 "{%0, %1, %2, %3, %4, %5, %6, %7"
#define PK_SM90_R16 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
#define PK_SM90_R32 PK_SM90_R16 ", %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define PK_SM90_R64                                                                                         \
    PK_SM90_R32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "           \
                "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define PK_SM90_R80 PK_SM90_R64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"
#define PK_SM90_R96 PK_SM90_R64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define PK_SM90_R88                                                                                         \
    PK_SM90_R64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "          \
                "%80, %81, %82, %83, %84, %85, %86, %87"
#define PK_SM90_R128                                                                                        \
    PK_SM90_R64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "          \
                "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "            \
                "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
                "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"

/* d[64 x N] (+)= a[64 x 16] b[N x 16]^T, a and b K-major in shared memory
 * (descriptors da, db): N / 2 f32 accumulators a thread. accumulate = 0
 * overwrites d (the first k step of a product), so that d needs no
 * zeroing. DT: 1 f16, 2 bf16. */
template <int DT, int N> struct mma_ss;
/* d[64 x N] += a[64 x 16] b[16 x N], a from registers (four 32-bit
 * registers of two 16-bit values a thread, the m16n8k16 A fragment of the
 * thread's warp, warp w holding rows 16 w ..), b N-major in shared memory
 * (the transpose flag set). */
template <int DT, int N> struct mma_rs;

#define PK_SM90_MMA_SS(N, R, DOPS, IA, IB, IS)                                                              \
    template <int DT> struct mma_ss<DT, N> {                                                                \
        static __device__ __forceinline__ void run(float (&d)[R], uint64_t da, uint64_t db, int accumulate) \
        {                                                                                                   \
            if (DT == 2)                                                                                    \
                asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" IS ", 0;\n"                             \
                             " wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 " PK_SM90_R##R      \
                             "}, %" IA ", %" IB ", p, 1, 1, 0, 0;\n}\n"                                      \
                             : DOPS                                                                         \
                             : "l"(da), "l"(db), "r"(accumulate));                                          \
            else                                                                                            \
                asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" IS ", 0;\n"                             \
                             " wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.f16.f16 " PK_SM90_R##R        \
                             "}, %" IA ", %" IB ", p, 1, 1, 0, 0;\n}\n"                                      \
                             : DOPS                                                                         \
                             : "l"(da), "l"(db), "r"(accumulate));                                          \
        }                                                                                                   \
    };
#define PK_SM90_MMA_RS(N, R, DOPS, IA, IB)                                                                  \
    template <int DT> struct mma_rs<DT, N> {                                                                \
        static __device__ __forceinline__ void run(float (&d)[R], const uint32_t (&a)[4], uint64_t db)     \
        {                                                                                                   \
            if (DT == 2)                                                                                    \
                asm volatile(" wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 " PK_SM90_R##R     \
                             "}, {%" IA "}, %" IB ", 1, 1, 1, 1;\n"                                          \
                             : DOPS                                                                         \
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));                        \
            else                                                                                            \
                asm volatile(" wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.f16.f16 " PK_SM90_R##R       \
                             "}, {%" IA "}, %" IB ", 1, 1, 1, 1;\n"                                          \
                             : DOPS                                                                         \
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));                        \
        }                                                                                                   \
    };

PK_SM90_MMA_SS(16, 8, PK_SM90_D8(0), "8", "9", "10")
PK_SM90_MMA_SS(32, 16, PK_SM90_D16(0), "16", "17", "18")
PK_SM90_MMA_SS(64, 32, PK_SM90_D32(0), "32", "33", "34")
PK_SM90_MMA_SS(128, 64, PK_SM90_D64(0), "64", "65", "66")
PK_SM90_MMA_SS(160, 80, PK_SM90_D80(0), "80", "81", "82")
PK_SM90_MMA_SS(176, 88, PK_SM90_D88(0), "88", "89", "90")
PK_SM90_MMA_SS(192, 96, PK_SM90_D96(0), "96", "97", "98")
PK_SM90_MMA_SS(256, 128, PK_SM90_D128(0), "128", "129", "130")
PK_SM90_MMA_RS(64, 32, PK_SM90_D32(0), "32, %33, %34, %35", "36")
PK_SM90_MMA_RS(128, 64, PK_SM90_D64(0), "64, %65, %66, %67", "68")
PK_SM90_MMA_RS(256, 128, PK_SM90_D128(0), "128, %129, %130, %131", "132")

#undef PK_SM90_MMA_SS
#undef PK_SM90_MMA_RS
#undef PK_SM90_D4
#undef PK_SM90_D96
#undef PK_SM90_D80
#undef PK_SM90_D8
#undef PK_SM90_D16
#undef PK_SM90_D32
#undef PK_SM90_D64
#undef PK_SM90_D128
#undef PK_SM90_D88
#undef PK_SM90_R16
#undef PK_SM90_R96
#undef PK_SM90_R80
#undef PK_SM90_R8
#undef PK_SM90_R32
#undef PK_SM90_R64
#undef PK_SM90_R128
#undef PK_SM90_R88

#endif /* PK_SM90_ENABLED */

} // namespace pk_sm90
