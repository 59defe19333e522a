/* The HIP attention kernels' tiles, valid C and C++, read by the kernels
 * (attention_mfma.h's mfma_cfg, attention_wmma.h's wmma_cfg,
 * attention_tiled.h's tiled_cfg) and by the
 * plan (backends/hip/hip_attention_plan.c: rows a block, threads).
 *   MFMA   4 waves of 64, each 32 rows: 128 rows a block, 32-key tiles
 *   WMMA   waves of 32, each 16 rows, 32-key tiles: 128 rows a block, 64
 *          at D = 256 (its LDS then stays under NVIDIA's 48 KiB of static
 *          shared memory, for HIP on NVIDIA)
 *   tiled  BM rows a block, TPR threads a row, BN keys a tile, of the head
 *          dim D; ROWS16: decode and other shapes with at most 16 rows a
 *          kv head (D <= 128), 16 threads a row */
#ifndef PK_HIP_ATTENTION_TILES_H
#define PK_HIP_ATTENTION_TILES_H

#define PK_HIP_ATTN_MFMA_WAVES 4
#define PK_HIP_ATTN_MFMA_BM (32 * PK_HIP_ATTN_MFMA_WAVES)
#define PK_HIP_ATTN_MFMA_THREADS (64 * PK_HIP_ATTN_MFMA_WAVES)

#define PK_HIP_ATTN_WMMA_BM(D) ((D) == 256 ? 64 : 128)
#define PK_HIP_ATTN_WMMA_THREADS(D) (2 * PK_HIP_ATTN_WMMA_BM(D))

#define PK_HIP_ATTN_TILED_BM(D, ROWS16) ((ROWS16) ? 16 : (D) == 64 ? 64 : (D) == 256 ? 16 : 32)
#define PK_HIP_ATTN_TILED_TPR(D, ROWS16) ((ROWS16) ? 16 : (D) == 256 ? 8 : 4)
#define PK_HIP_ATTN_TILED_BN(D, ROWS16) ((ROWS16) ? 32 : (D) == 128 ? 16 : (D) == 256 ? 8 : 32)

#endif
