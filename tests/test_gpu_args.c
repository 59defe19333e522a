/* The argument marshalling the CUDA and HIP backends share
 * (backends/gpu/pk_gpu_args.c): parameter order of the GEMM kernels,
 * the attention block's layout and the split-KV scratch layout; and the
 * RoPE table block they keep on the device (pk_gpu_ew.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pk_gpu_args.h"
#include "pk_gpu_ew.h"

#include "unit_check.h"

static void gemm_args(void)
{
    static char a_buf[64], b_buf[64], d_buf[64];
    pk_gemm_problem p = {
        .batch = 2, .m = 3, .n = 5, .k = 7,
        .a = {.mem = a_buf, .offset = 4, .dtype = PK_F16, .stride = {21, 7, 1}},
        .b = {.mem = b_buf, .offset = 1, .dtype = PK_F16, .stride = {0, 1, 7}},
        .d = {.mem = d_buf, .offset = 2, .dtype = PK_F32, .stride = {15, 5, 1}},
        .alpha = 1.5f, .beta = 0.0f, .act = PK_ACT_SILU,
    };
    pk_gpu_gemm_args g;
    pk_gpu_gemm_args_fill(&p, &g);
    /* PK_GEMM_PARAMS order: batch m n k, a a_sb a_sm a_sk, b b_sb b_sk b_sn,
     * c (3 strides), d (3), bias bias_sn, res (3), alpha beta act d_dt */
    CHECK(*(long long *)g.args[0] == 2 && *(long long *)g.args[3] == 7);
    CHECK(*(uint64_t *)g.args[4] == (uint64_t)(uintptr_t)a_buf + 8); /* 4 f16 elements */
    CHECK(*(long long *)g.args[5] == 21 && *(long long *)g.args[7] == 1);
    CHECK(*(uint64_t *)g.args[8] == (uint64_t)(uintptr_t)b_buf + 2);
    CHECK(*(long long *)g.args[11] == 7);
    CHECK(*(uint64_t *)g.args[12] == 0); /* c absent */
    CHECK(*(uint64_t *)g.args[16] == (uint64_t)(uintptr_t)d_buf + 8); /* 2 f32 elements */
    CHECK(*(long long *)g.args[18] == 5);
    CHECK(*(uint64_t *)g.args[20] == 0 && *(uint64_t *)g.args[22] == 0); /* bias, res absent */
    CHECK(*(float *)g.args[26] == 1.5f);
    CHECK(*(int *)g.args[28] == PK_ACT_SILU && *(int *)g.args[29] == PK_F32);
}

static void attention(void)
{
    /* the kernels' struct: 7 pointers, 5 + 20 + 2 int64, 7 int32, 1 float */
    CHECK(offsetof(pk_attn_params, off) == 56);
    CHECK(offsetof(pk_attn_params, wl) == 56 + 25 * 8);
    CHECK(offsetof(pk_attn_params, batch) == 272);
    CHECK(offsetof(pk_attn_params, qscale) == 300);

    int32_t lq[3] = {1, 1, 1}, lkv[3] = {9, 9, 9};
    pk_attention_problem p = {.batch = 3, .sq = 1, .skv = 9, .hq = 8, .hkv = 2, .d = 64,
                              .len_q = lq, .len_kv = lkv, .uniform_lengths = 0};
    pk_gpu_attn_scratch s = pk_gpu_attn_scratch_layout(&p, 4);
    CHECK(s.lens_bytes == 3 * 2 * 4 && s.part_start == 256);
    CHECK(s.part_bytes == (size_t)3 * 8 * 1 * 4 * (64 + 2) * 4);
    p.uniform_lengths = 1;
    s = pk_gpu_attn_scratch_layout(&p, 1);
    CHECK(s.lens_bytes == 0 && s.part_start == 0 && s.part_bytes == 0);

    pk_attn_params a;
    p.scale = 0.125f;
    p.window_left = -5;
    p.window_right = 0;
    pk_gpu_attn_params_fill(&p, 128, 4, 0, 4096, &a);
    CHECK(a.wl == -1 && a.wr == 0 && a.chunk == 128 && a.n_splits == 4 && a.part == 4096);
    CHECK(a.qscale > 0.18f && a.qscale < 0.181f); /* 0.125 log2(e) */
}

/* A fake device for pk_gpu_rope_tables_place: a kept buffer in host
 * memory that counts its copies and can be told to fail one. */
typedef struct fake_dev {
    unsigned char mem[256];
    size_t size, last_bytes;
    int uploads, fail_next;
} fake_dev;

static pk_status fake_reserve(void *dev, size_t bytes, uint64_t *addr, int *fresh, pk_msg *msg)
{
    (void)msg;
    fake_dev *d = dev;
    *fresh = bytes > d->size;
    if (*fresh) d->size = bytes;
    *addr = (uint64_t)(uintptr_t)d->mem;
    return PK_SUCCESS;
}

static pk_status fake_upload(void *dev, uint64_t addr, const void *src, size_t bytes, pk_msg *msg)
{
    (void)msg;
    fake_dev *d = dev;
    if (d->fail_next) {
        d->fail_next = 0;
        memset(d->mem, 0xff, 4); /* a failed copy may leave part written */
        return PK_ERR_DEVICE_FAILURE;
    }
    memcpy((void *)(uintptr_t)addr, src, bytes);
    d->uploads++;
    d->last_bytes = bytes;
    return PK_SUCCESS;
}

/* The tables are copied when they change (positions, theta, rotary dim,
 * a grown buffer) and after a failed copy, and only then; a caller's
 * frequency table never is. */
static void rope_tables(void)
{
    static const pk_gpu_table_ops ops = {fake_reserve, fake_upload};
    fake_dev d = {0};
    pk_gpu_rope_tables t = {0};
    pk_msg msg = {{0}};
    pk_ew_rope_args a;
    int32_t pos[3] = {7, 8, 9};
    pk_rope_problem p = {.batch = 1, .seq = 3, .hq = 4, .hk = 2, .d = 64, .rotary_dim = 64, .theta = 10000.0f,
                         .positions = pos};
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 1);
    CHECK(a.tab_pos == (uint64_t)(uintptr_t)d.mem && a.tab_freq == a.tab_pos + 16);
    int32_t got[3];
    float f0;
    memcpy(got, d.mem, sizeof got);
    memcpy(&f0, d.mem + 16, sizeof f0);
    CHECK(got[0] == 7 && got[2] == 9 && f0 == 1.0f); /* theta^0 */
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 1);
    pos[1] = 10;
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 2);
    memcpy(got, d.mem, sizeof got);
    CHECK(got[1] == 10);
    p.theta = 500000.0f;
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 3);
    p.rotary_dim = 32;
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 4);
    d.fail_next = 1;
    pos[0] = 1;
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_ERR_DEVICE_FAILURE && d.uploads == 4);
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 5);
    memcpy(got, d.mem, sizeof got);
    CHECK(got[0] == 1);
    int32_t pos9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}; /* a longer block: the buffer grows */
    p.seq = 9;
    p.positions = pos9;
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 6);
    CHECK(a.tab_freq == a.tab_pos + 48);
    p.seq = 3; /* shorter again: a block of its own, copied */
    p.positions = pos;
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 7);
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 7);

    /* the caller's frequency table is read where it lies: only positions go up */
    float table[40] = {0};
    pk_gpu_launch l;
    p.inv_freq = (pk_view){.mem = table, .offset = 3, .dtype = PK_F32, .stride = {0, 0, 0, 2}};
    CHECK(pk_gpu_rope_plan(&p, &a, &l) && a.freq_stride == 2);
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 8);
    CHECK(d.last_bytes == 16 && a.tab_pos == (uint64_t)(uintptr_t)d.mem);
    CHECK(a.tab_freq == (uint64_t)(uintptr_t)(table + 3));
    table[3] = 2.0f; /* device data: nothing to copy */
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 8);
    p.inv_freq = (pk_view){0}; /* from theta again: the frequencies go up too */
    CHECK(pk_gpu_rope_plan(&p, &a, &l) && a.freq_stride == 1);
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 9);
    CHECK(d.last_bytes == 16 + 16 * sizeof(float) && a.tab_freq == a.tab_pos + 16);

    /* positions on the device are read where they lie: only the
     * frequencies go up, and with the caller's table too, nothing */
    int32_t dev_pos[8] = {0};
    p.positions = NULL;
    p.positions_dev = (pk_view){.mem = dev_pos, .offset = 2, .dtype = PK_I32, .stride = {0, 0, 0, 1}};
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 10);
    CHECK(d.last_bytes == 16 * sizeof(float) && a.tab_freq == (uint64_t)(uintptr_t)d.mem);
    CHECK(a.tab_pos == (uint64_t)(uintptr_t)(dev_pos + 2));
    dev_pos[2] = 5; /* device data: nothing to copy */
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 10);
    p.inv_freq = (pk_view){.mem = table, .offset = 1, .dtype = PK_F32, .stride = {0, 0, 0, 1}};
    CHECK(pk_gpu_rope_tables_place(&t, &p, &d, &ops, &a, &msg) == PK_SUCCESS && d.uploads == 10);
    CHECK(a.tab_pos == (uint64_t)(uintptr_t)(dev_pos + 2) && a.tab_freq == (uint64_t)(uintptr_t)(table + 1));
    pk_gpu_rope_tables_free(&t);
}

/* A pipelined row kernel's grid is cut to one wave, never grown. */
static void rows_one_wave(void)
{
    pk_gpu_launch l = {.grid = {1000, 1, 1}};
    pk_gpu_rows_one_wave(&l, 2, 132);
    CHECK(l.grid[0] == 264);
    pk_gpu_rows_one_wave(&l, 4, 132);
    CHECK(l.grid[0] == 264);
    pk_gpu_rows_one_wave(&l, 0, 132); /* occupancy unknown */
    CHECK(l.grid[0] == 264);
    pk_gpu_rows_one_wave(&l, 1, 0);
    CHECK(l.grid[0] == 264);
}

int main(void)
{
    gemm_args();
    attention();
    rope_tables();
    rows_one_wave();
    if (failures) return 1;
    printf("gpu args: ok\n");
    return 0;
}
