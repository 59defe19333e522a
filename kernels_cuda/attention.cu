/* attention kernels: placeholder */
