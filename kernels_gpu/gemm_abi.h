/* The parameter list of every GEMM kernel of CUDA and HIP, written once
 * (PK_GEMM_ABI), from which come the kernels' parameters (PK_GEMM_PARAMS),
 * their names in order (PK_GEMM_ARGS), and the same values as one struct
 * (pk_gemm_kargs) that the host fills (backends/gpu/pk_gpu_args.c) and
 * HIP's kernels read the argument segment through: one order of the same
 * types, so the struct's fields fall where the parameters do. Device code
 * sees typed pointers, the host the same 64-bit device addresses as
 * integers; nothing else differs.
 *
 * Pointers arrive already advanced by the view's offset; strides are
 * {batch, row, col} in elements, 0 broadcasts. c, bias and res are NULL
 * when absent. d_dt is the dtype code of c, d, bias and res: a run-time
 * value (a uniform branch in the store), so that each kernel is built once
 * per input dtype, not once per output dtype too. */
#ifndef PK_GEMM_ABI_H
#define PK_GEMM_ABI_H

#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define PK_GEMM_PTR(type) type *
#else
#define PK_GEMM_PTR(type) uint64_t
#endif

/* X(type, name) for each parameter in order but the last, L for the last */
#define PK_GEMM_ABI(X, L)                                                                                \
    X(long long, batch) X(long long, m) X(long long, n) X(long long, k)                                  \
    X(PK_GEMM_PTR(const void), a) X(long long, a_sb) X(long long, a_sm) X(long long, a_sk)               \
    X(PK_GEMM_PTR(const void), b) X(long long, b_sb) X(long long, b_sk) X(long long, b_sn)               \
    X(PK_GEMM_PTR(const void), c) X(long long, c_sb) X(long long, c_sm) X(long long, c_sn)               \
    X(PK_GEMM_PTR(void), d) X(long long, d_sb) X(long long, d_sm) X(long long, d_sn)                     \
    X(PK_GEMM_PTR(const void), bias) X(long long, bias_sn)                                               \
    X(PK_GEMM_PTR(const void), res) X(long long, r_sb) X(long long, r_sm) X(long long, r_sn)             \
    X(float, alpha) X(float, beta) X(int, act) L(int, d_dt)

#define PK_GEMM_FIELD_(type, name) type name;
typedef struct pk_gemm_kargs {
    PK_GEMM_ABI(PK_GEMM_FIELD_, PK_GEMM_FIELD_)
} pk_gemm_kargs;

#define PK_GEMM_COUNT_(type, name) +1
enum { PK_GEMM_NPARAMS = 0 PK_GEMM_ABI(PK_GEMM_COUNT_, PK_GEMM_COUNT_) };

#if defined(__CUDACC__) || defined(__HIPCC__)
#define PK_GEMM_PARAM_(type, name) type name,
#define PK_GEMM_PARAM_LAST_(type, name) type name
#define PK_GEMM_PARAMS PK_GEMM_ABI(PK_GEMM_PARAM_, PK_GEMM_PARAM_LAST_)
#define PK_GEMM_ARG_(type, name) name,
#define PK_GEMM_ARG_LAST_(type, name) name
#define PK_GEMM_ARGS PK_GEMM_ABI(PK_GEMM_ARG_, PK_GEMM_ARG_LAST_)
#endif

#endif
