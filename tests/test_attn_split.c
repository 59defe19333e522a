/* The split-KV rule every attention plan shares (pk_attn_split_keys): one
 * wave or at least the wanted work-groups, pieces of at least min_chunk
 * keys in whole units, at most max_splits, and the pieces cover the keys
 * with none empty. */
#include <stdio.h>

#include "pk_attn_split.h"
#include "plan_check.h"

int main(void)
{
    /* B1 Hkv8 Skv131072 on 132 units x 3 blocks: one wave is 396 / 8 = 49
     * splits; at least 396 is 50 */
    pk_attn_split s = pk_attn_split_keys(131072, 8, 396, 1, 256, 128, 64);
    CHECK(s.n == 49 && s.chunk == 2688, "one wave: %d x %lld", s.n, (long long)s.chunk);
    s = pk_attn_split_keys(131072, 8, 396, 0, 256, 128, 64);
    CHECK(s.n == 50 && s.chunk == 2624, "at least: %d x %lld", s.n, (long long)s.chunk);
    /* as many groups as wanted: no split either way */
    CHECK(pk_attn_split_keys(4096, 400, 396, 1, 256, 128, 64).n == 1, "400 groups, one wave");
    CHECK(pk_attn_split_keys(4096, 396, 396, 0, 256, 128, 64).n == 1, "396 groups, at least 396");
    /* pieces of at least min_chunk: 1000 keys make 3 of 256 at most */
    s = pk_attn_split_keys(1000, 1, 1000, 1, 256, 128, 64);
    CHECK(s.n == 3 && s.chunk == 384, "min chunk: %d x %lld", s.n, (long long)s.chunk);
    /* the cap */
    CHECK(pk_attn_split_keys(1 << 24, 1, 100000, 1, 256, 128, 64).n == 128, "max splits");
    /* every split covers its keys, in whole units, none empty */
    for (int64_t skv = 1; skv <= 5000; skv += 37)
        for (int64_t groups = 1; groups <= 300; groups += 29)
            for (int wave = 0; wave < 2; wave++)
                for (int64_t unit = 1; unit <= 64; unit *= 4) {
                    s = pk_attn_split_keys(skv, groups, 264, wave, 128, 64, unit);
                    CHECK(s.n >= 1 && s.n <= 64 && s.chunk % unit == 0 && (int64_t)s.n * s.chunk >= skv &&
                              (int64_t)(s.n - 1) * s.chunk < skv,
                          "skv %lld groups %lld wave %d unit %lld: %d x %lld", (long long)skv, (long long)groups,
                          wave, (long long)unit, s.n, (long long)s.chunk);
                }
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "OK", failures);
    return failures ? 1 : 0;
}
