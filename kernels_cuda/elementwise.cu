/* elementwise kernels: placeholder */
