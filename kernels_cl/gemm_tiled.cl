/* gemm_tiled: placeholder */
