/* Rows by device indices (pk_gather_rows, pk_scatter_rows): bit-exact
 * moves of ES-byte elements (build option ES, 2 or 4).
 *
 * A work-group owns one entry i of the index list at a time (the groups
 * walk the list in a grid-stride loop) and its work-items walk the row's
 * columns. Gather: out row i from src row index[i], zeros when the index
 * is outside [0, rows). Scatter: src row i to out row index[i], skipped
 * outside [0, rows), and only when no later entry has the same index, so
 * that of repeated indices the last wins on every run: the group first
 * scans the entries after i. Indices were never checked on the host. */

#if ES == 2
typedef ushort pk_e;
#else
typedef uint pk_e;
#endif

__kernel void pk_index_rows(int scatter, long n, long rows, long cols, __global const pk_e *src, long s_off,
                            long s_r, long s_c, __global pk_e *out, long o_off, long o_r, long o_c,
                            __global const int *index, long i_off)
{
    __local int later;
    const long lid = get_local_id(0), wg = get_local_size(0);
    for (long i = get_group_id(0); i < n; i += get_num_groups(0)) {
        const long j = index[i_off + i];
        const int in_range = j >= 0 && j < rows;
        if (scatter) {
            if (lid == 0) later = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (long k = i + 1 + lid; k < n; k += wg)
                if (index[i_off + k] == j) atomic_or(&later, 1);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (in_range && !later)
                for (long c = lid; c < cols; c += wg) out[o_off + j * o_r + c * o_c] = src[s_off + i * s_r + c * s_c];
            barrier(CLK_LOCAL_MEM_FENCE); /* every item has read `later` before the next entry resets it */
        } else {
            for (long c = lid; c < cols; c += wg)
                out[o_off + i * o_r + c * o_c] = in_range ? src[s_off + j * s_r + c * s_c] : (pk_e)0;
        }
    }
}
