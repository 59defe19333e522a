/* The fused chain, one pass: per output element, load the inputs into
 * registers r0.., run the steps, store the last value.
 *
 * The host generates the program as build options (why: see
 * opencl_chain.c):
 *   CH_N_IN         number of inputs (1..8)
 *   CH_DT<i>, CH_DT_OUT   dtype codes of input i and of the output
 *   CH_STEPS        the steps, CH_S(dst, op, a, b, imm) one after another,
 *                   with imm the component of the kernel arguments imm_lo /
 *                   imm_hi holding step dst's immediate (imm_lo.s3): the
 *                   immediates are arguments, so one program serves every
 *                   constant
 *   CH_RESULT       the register holding the output (r<last>)
 * op codes are pk_chain_op's values.
 *
 * Views are (pointer, element offset, strides {d0, d1, d2, d3}); a stride
 * of 0 broadcasts. Dimension 0 of the grid walks d3, dimension 1 walks the
 * outer index (d0, d1, d2 flattened) in a grid-stride loop. */

inline float pk_ch_max(float a, float b) { return isnan(a) ? a : isnan(b) ? b : (a > b ? a : b); }
inline float pk_ch_min(float a, float b) { return isnan(a) ? a : isnan(b) ? b : (a < b ? a : b); }

/* op is a literal in every expansion, so the switch folds away. */
inline float pk_ch_op(int op, float a, float b, float imm)
{
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return pk_ch_max(a, b);
    case 5: return pk_ch_min(a, b);
    case 6: return a + imm;
    case 7: return a * imm;
    case 8: return pow(a, imm);
    case 9: return -a;
    case 10: return fabs(a);
    case 11: return exp(a);
    case 12: return log(a);
    case 13: return sqrt(a);
    case 14: return 1.0f / sqrt(a);
    case 15: return tanh(a);
    case 16: return 1.0f / (1.0f + exp(-a));
    case 17: return pk_act(1, a);
    case 18: return pk_act(2, a);
    case 19: return pk_act(3, a);
    default: return pk_act(4, a);
    }
}

#define CH_S(dst, op, a, b, imm) const float r##dst = pk_ch_op(op, r##a, r##b, imm);

/* Inputs past CH_N_IN are never read; their dtype only types the pointer. */
#ifndef CH_DT1
#define CH_DT1 0
#endif
#ifndef CH_DT2
#define CH_DT2 0
#endif
#ifndef CH_DT3
#define CH_DT3 0
#endif
#ifndef CH_DT4
#define CH_DT4 0
#endif
#ifndef CH_DT5
#define CH_DT5 0
#endif
#ifndef CH_DT6
#define CH_DT6 0
#endif
#ifndef CH_DT7
#define CH_DT7 0
#endif

#define CH_VIEW(i) __global const PK_TYPE(CH_DT##i) *in##i, long off##i, long4 st##i
#define CH_AT(i) (off##i + o0 * st##i.s0 + o1 * st##i.s1 + o2 * st##i.s2 + c * st##i.s3)
#define CH_LOAD(i) const float r##i = PK_LOAD(CH_DT##i, in##i, CH_AT(i));

__kernel void pk_chain(long n1, long n2, long n3, long outer, __global PK_TYPE(CH_DT_OUT) *out, long off_out,
                       long4 st_out, CH_VIEW(0), CH_VIEW(1), CH_VIEW(2), CH_VIEW(3), CH_VIEW(4), CH_VIEW(5),
                       CH_VIEW(6), CH_VIEW(7), float16 imm_lo, float16 imm_hi)
{
    const long c = get_global_id(0);
    if (c >= n3) return;
    for (long o = get_global_id(1); o < outer; o += get_global_size(1)) {
        const long o2 = o % n2, o01 = o / n2;
        const long o1 = o01 % n1, o0 = o01 / n1;
        CH_LOAD(0)
#if CH_N_IN > 1
        CH_LOAD(1)
#endif
#if CH_N_IN > 2
        CH_LOAD(2)
#endif
#if CH_N_IN > 3
        CH_LOAD(3)
#endif
#if CH_N_IN > 4
        CH_LOAD(4)
#endif
#if CH_N_IN > 5
        CH_LOAD(5)
#endif
#if CH_N_IN > 6
        CH_LOAD(6)
#endif
#if CH_N_IN > 7
        CH_LOAD(7)
#endif
        CH_STEPS
        PK_STORE(CH_DT_OUT, out, off_out + o0 * st_out.s0 + o1 * st_out.s1 + o2 * st_out.s2 + c * st_out.s3,
                 CH_RESULT);
    }
}
