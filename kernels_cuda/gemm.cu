/* gemm kernels: placeholder */
