#include "pk_attn_split.h"

pk_attn_split pk_attn_split_keys(int64_t skv, int64_t groups, int64_t want, int wave, int64_t min_chunk,
                                 int64_t max_splits, int64_t unit)
{
    if (groups < 1) groups = 1;
    if (unit < 1) unit = 1;
    int64_t n = wave ? want / groups : (want + groups - 1) / groups;
    const int64_t most = min_chunk > 0 ? skv / min_chunk : n;
    if (n > most) n = most;
    if (n > max_splits) n = max_splits;
    if (n < 1) n = 1;
    int64_t chunk = (skv + n - 1) / n;
    chunk = (chunk + unit - 1) / unit * unit;
    if (chunk < unit) chunk = unit;
    pk_attn_split s = {(int)((skv + chunk - 1) / chunk), chunk};
    if (s.n < 1) s.n = 1;
    return s;
}

pk_attn_split pk_attn_split_gpu(int64_t skv, int64_t rows, int64_t blocks, int64_t resident)
{
    const int64_t unit = PK_ATTN_GPU_KEY_UNIT, whole = (skv + unit - 1) / unit * unit;
    if (rows > PK_ATTN_GPU_SPLIT_MAX_ROWS || skv < PK_ATTN_GPU_SPLIT_MIN_SKV)
        return (pk_attn_split){1, whole > 0 ? whole : unit};
    return pk_attn_split_keys(skv, blocks, resident, 1, 256, 128, unit);
}
