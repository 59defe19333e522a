/* portkern-llama-make: writes a Llama checkpoint (config.json and
 * model.safetensors, transformers' names and layout) filled with seeded
 * random weights, so the engine can be tested at real shapes without
 * downloading a model.
 *
 * Values: each tensor has its own stream, so a tensor's values depend only on
 * the seed and its name (not on dtype, tying or file order): state =
 * seed + fnv1a64(name), next = splitmix64(state), u = top 53 bits / 2^53 in
 * [0, 1). Matrices get (2u - 1) * 0.02 * sqrt(3), uniform with the standard
 * deviation 0.02 of transformers' Llama init; norm weights get
 * 1 + (2u - 1) * 0.1, near the ones they start at but not all equal, so a
 * mixed-up norm shows in the logits. The data is produced and written in
 * chunks: llama3-8b (16 GB in bf16) never sits in memory. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "llama_config.h"
#include "portkern.h"

/* style 4 writes config.json as transformers 4.x did (rope_theta and
 * rope_scaling at the top, torch_dtype), style 5 as 5.x does
 * (rope_parameters, dtype). */
typedef struct make_preset {
    const char *name;
    int style;
    llama_config c;
} make_preset;

static const make_preset presets[] = {
    /* head_dim 64: the smallest head dim pk_attention takes */
    {"tiny", 4, {.hidden_size = 128, .intermediate_size = 352, .num_hidden_layers = 2, .num_attention_heads = 2,
              .num_key_value_heads = 1, .head_dim = 64, .vocab_size = 256, .max_position_embeddings = 512,
              .rms_norm_eps = 1e-6, .rope = {.theta = 10000.0}}},
    {"small", 4, {.hidden_size = 512, .intermediate_size = 1408, .num_hidden_layers = 4, .num_attention_heads = 8,
               .num_key_value_heads = 2, .head_dim = 64, .vocab_size = 4096, .max_position_embeddings = 2048,
               .rms_norm_eps = 1e-6, .rope = {.theta = 10000.0}}},
    {"llama3-8b", 4, {.hidden_size = 4096, .intermediate_size = 14336, .num_hidden_layers = 32,
                   .num_attention_heads = 32, .num_key_value_heads = 8, .head_dim = 128, .vocab_size = 128256,
                   .max_position_embeddings = 8192, .rms_norm_eps = 1e-5, .rope = {.theta = 500000.0}}},
    /* Llama 3.1's shapes are 3's; its RoPE is scaled for 128K positions */
    {"llama3.1-8b", 5, {.hidden_size = 4096, .intermediate_size = 14336, .num_hidden_layers = 32,
                        .num_attention_heads = 32, .num_key_value_heads = 8, .head_dim = 128, .vocab_size = 128256,
                        .max_position_embeddings = 131072, .rms_norm_eps = 1e-5,
                        .rope = {.type = LLAMA_ROPE_LLAMA3, .theta = 500000.0, .factor = 8.0, .low_freq_factor = 1.0,
                                 .high_freq_factor = 4.0, .original_max_position_embeddings = 8192}}},
};

typedef struct make_tensor {
    char name[96];
    int ndim;
    int64_t shape[2];
    int is_norm;
} make_tensor;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t fnv1a64(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static void make_add(make_tensor *list, size_t *n, const char *name, int64_t rows, int64_t cols)
{
    make_tensor *t = &list[(*n)++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ndim = cols ? 2 : 1;
    t->shape[0] = rows;
    t->shape[1] = cols;
    t->is_norm = cols == 0;
}

/* The tensors in transformers' order; returns how many (at most 3 + 9 per layer). */
static size_t make_list(const llama_config *c, make_tensor *list)
{
    size_t n = 0;
    int64_t h = c->hidden_size, q = c->num_attention_heads * c->head_dim, kv = c->num_key_value_heads * c->head_dim,
            in = c->intermediate_size;
    char name[96];
    make_add(list, &n, "model.embed_tokens.weight", c->vocab_size, h);
    for (int64_t l = 0; l < c->num_hidden_layers; l++) {
        static const struct {
            const char *suffix;
            int rows, cols; /* 0 hidden, 1 q, 2 kv, 3 intermediate, -1 none */
        } parts[] = {{"input_layernorm", 0, -1},      {"self_attn.q_proj", 1, 0}, {"self_attn.k_proj", 2, 0},
                     {"self_attn.v_proj", 2, 0},      {"self_attn.o_proj", 0, 1}, {"post_attention_layernorm", 0, -1},
                     {"mlp.gate_proj", 3, 0},         {"mlp.up_proj", 3, 0},      {"mlp.down_proj", 0, 3}};
        const int64_t dim[] = {h, q, kv, in};
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            snprintf(name, sizeof name, "model.layers.%lld.%s.weight", (long long)l, parts[p].suffix);
            make_add(list, &n, name, dim[parts[p].rows], parts[p].cols < 0 ? 0 : dim[parts[p].cols]);
        }
    }
    make_add(list, &n, "model.norm.weight", h, 0);
    if (!c->tie_word_embeddings)
        make_add(list, &n, "lm_head.weight", c->vocab_size, h);
    return n;
}

/* The shortest decimal that reads back as v, so config.json says 1e-05 and
 * not 1.0000000000000001e-05; whole numbers as HF writes them (500000.0). */
static void shortest(char *buf, size_t len, double v)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, len, "%.1f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* The RoPE settings in either style: 4.x puts rope_theta at the top and
 * rope_scaling beside it, 5.x both inside rope_parameters. */
static void rope_text(char *buf, size_t n, const llama_config *c, int style)
{
    char theta[32], factor[32], lo[32], hi[32];
    const llama_rope_config *r = &c->rope;
    shortest(theta, sizeof theta, r->theta);
    shortest(factor, sizeof factor, r->factor);
    shortest(lo, sizeof lo, r->low_freq_factor);
    shortest(hi, sizeof hi, r->high_freq_factor);
    char scaling[256] = "null";
    if (r->type == LLAMA_ROPE_LLAMA3)
        snprintf(scaling, sizeof scaling,
                 "{\"rope_type\": \"llama3\", \"factor\": %s, \"low_freq_factor\": %s, \"high_freq_factor\": %s, "
                 "\"original_max_position_embeddings\": %lld%s",
                 factor, lo, hi, (long long)r->original_max_position_embeddings, style == 4 ? "}" : "");
    if (style == 4)
        snprintf(buf, n, "  \"rope_theta\": %s,\n  \"rope_scaling\": %s,\n", theta, scaling);
    else if (r->type == LLAMA_ROPE_LLAMA3)
        snprintf(buf, n, "  \"rope_parameters\": %s, \"rope_theta\": %s},\n", scaling, theta);
    else
        snprintf(buf, n, "  \"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": %s},\n", theta);
}

static int write_config(const char *dir, const llama_config *c, int style, const char *dtype_name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "portkern-llama-make: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char eps[32], rope[512];
    shortest(eps, sizeof eps, c->rms_norm_eps);
    rope_text(rope, sizeof rope, c, style);
    fprintf(f,
            "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"model_type\": \"llama\",\n"
            "  \"hidden_act\": \"silu\",\n  \"hidden_size\": %lld,\n  \"intermediate_size\": %lld,\n"
            "  \"num_hidden_layers\": %lld,\n  \"num_attention_heads\": %lld,\n  \"num_key_value_heads\": %lld,\n"
            "  \"head_dim\": %lld,\n  \"vocab_size\": %lld,\n  \"max_position_embeddings\": %lld,\n"
            "  \"rms_norm_eps\": %s,\n%s"
            "  \"attention_bias\": false,\n  \"mlp_bias\": false,\n  \"tie_word_embeddings\": %s,\n"
            "  \"%s\": \"%s\"\n}\n",
            (long long)c->hidden_size, (long long)c->intermediate_size, (long long)c->num_hidden_layers,
            (long long)c->num_attention_heads, (long long)c->num_key_value_heads, (long long)c->head_dim,
            (long long)c->vocab_size, (long long)c->max_position_embeddings, eps, rope,
            c->tie_word_embeddings ? "true" : "false", style == 4 ? "torch_dtype" : "dtype", dtype_name);
    if (fclose(f) != 0) {
        fprintf(stderr, "portkern-llama-make: %s: write failed\n", path);
        return -1;
    }
    return 0;
}

/* Builds the safetensors header, padded with spaces to a multiple of 8 as the
 * reference writer does, so the data area starts aligned. */
static char *make_header(const make_tensor *list, size_t n, pk_dtype dtype, const char *st_dtype, size_t *len)
{
    size_t cap = 256 + n * 256, used = 0;
    char *h = malloc(cap);
    if (!h)
        return NULL;
    uint64_t off = 0;
    used += (size_t)snprintf(h + used, cap - used, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (size_t i = 0; i < n; i++) {
        uint64_t bytes = (uint64_t)list[i].shape[0] * (list[i].ndim == 2 ? (uint64_t)list[i].shape[1] : 1) *
                         pk_dtype_size(dtype);
        char shape[64];
        if (list[i].ndim == 2)
            snprintf(shape, sizeof shape, "%lld,%lld", (long long)list[i].shape[0], (long long)list[i].shape[1]);
        else
            snprintf(shape, sizeof shape, "%lld", (long long)list[i].shape[0]);
        used += (size_t)snprintf(h + used, cap - used, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%s],\"data_offsets\":[%llu,%llu]}",
                                 list[i].name, st_dtype, shape, (unsigned long long)off,
                                 (unsigned long long)(off + bytes));
        off += bytes;
    }
    used += (size_t)snprintf(h + used, cap - used, "}");
    while (used % 8)
        h[used++] = ' ';
    *len = used;
    return h;
}

static int write_tensor(FILE *f, const make_tensor *t, uint64_t seed, pk_dtype dtype)
{
    enum { CHUNK = 1 << 16 };
    static unsigned char buf[CHUNK * 4];
    uint64_t state = seed + fnv1a64(t->name);
    uint64_t count = (uint64_t)t->shape[0] * (t->ndim == 2 ? (uint64_t)t->shape[1] : 1);
    const double scale = t->is_norm ? 0.1 : 0.02 * sqrt(3.0), center = t->is_norm ? 1.0 : 0.0;
    size_t esize = pk_dtype_size(dtype);
    while (count) {
        size_t m = count < CHUNK ? (size_t)count : CHUNK;
        for (size_t i = 0; i < m; i++) {
            double u = (double)(splitmix64(&state) >> 11) * 0x1p-53;
            float v = (float)(center + (2.0 * u - 1.0) * scale);
            /* safetensors is little-endian; write byte by byte to not depend on the host */
            uint32_t bits;
            if (dtype == PK_F32)
                memcpy(&bits, &v, 4);
            else
                bits = dtype == PK_BF16 ? pk_f32_to_bf16(v) : pk_f32_to_f16(v);
            for (size_t b = 0; b < esize; b++)
                buf[i * esize + b] = (unsigned char)(bits >> (8 * b));
        }
        if (fwrite(buf, esize, m, f) != m)
            return -1;
        count -= m;
    }
    return 0;
}

static int write_weights(const char *dir, const llama_config *c, uint64_t seed, pk_dtype dtype,
                         const char *st_dtype)
{
    size_t max = 3 + 9 * (size_t)c->num_hidden_layers;
    make_tensor *list = malloc(max * sizeof *list);
    size_t hlen = 0;
    char *header = NULL;
    if (!list)
        goto oom;
    size_t n = make_list(c, list);
    header = make_header(list, n, dtype, st_dtype, &hlen);
    if (!header)
        goto oom;
    /* written under a temporary name so a killed run leaves no plausible-looking file */
    char tmp[4096], path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    snprintf(tmp, sizeof tmp, "%s/model.safetensors.partial", dir);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "portkern-llama-make: %s: %s\n", tmp, strerror(errno));
        goto fail;
    }
    unsigned char len8[8];
    for (int b = 0; b < 8; b++)
        len8[b] = (unsigned char)((uint64_t)hlen >> (8 * b));
    int bad = fwrite(len8, 1, 8, f) != 8 || fwrite(header, 1, hlen, f) != hlen;
    for (size_t i = 0; i < n && !bad; i++)
        bad = write_tensor(f, &list[i], seed, dtype);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "portkern-llama-make: %s: write failed (disk full?)\n", tmp);
        remove(tmp);
        goto fail;
    }
    if (rename(tmp, path) != 0) {
        fprintf(stderr, "portkern-llama-make: %s: %s\n", path, strerror(errno));
        goto fail;
    }
    free(header);
    free(list);
    return 0;
oom:
    fprintf(stderr, "portkern-llama-make: out of memory\n");
fail:
    free(header);
    free(list);
    return -1;
}

static int usage(void)
{
    fprintf(stderr, "usage: portkern-llama-make --out DIR [--preset tiny|small|llama3-8b|llama3.1-8b] [--seed N]\n"
                    "                           [--dtype bf16|f16|f32] [--tie] [--config-only]\n"
                    "--config-only writes config.json alone (the weights of a preset of the same shapes\n"
                    "and seed are the same bytes, so they can be shared).\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *preset = "tiny", *dtype_arg = "bf16";
    uint64_t seed = 0;
    int tie = 0, config_only = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--tie") == 0 || strcmp(a, "--config-only") == 0) {
            *(strcmp(a, "--tie") == 0 ? &tie : &config_only) = 1;
            continue;
        }
        if (i + 1 >= argc)
            return usage();
        if (strcmp(a, "--out") == 0) {
            out = argv[++i];
        } else if (strcmp(a, "--preset") == 0) {
            preset = argv[++i];
        } else if (strcmp(a, "--dtype") == 0) {
            dtype_arg = argv[++i];
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            errno = 0;
            seed = strtoull(argv[++i], &end, 0);
            if (errno || *end || !*argv[i]) {
                fprintf(stderr, "portkern-llama-make: --seed: not a number: %s\n", argv[i]);
                return 2;
            }
        } else {
            return usage();
        }
    }
    if (!out)
        return usage();
    const make_preset *p = NULL;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(preset, presets[i].name) == 0)
            p = &presets[i];
    static const struct {
        const char *arg, *st, *torch;
        pk_dtype dtype;
    } dtypes[] = {{"bf16", "BF16", "bfloat16", PK_BF16}, {"f16", "F16", "float16", PK_F16},
                  {"f32", "F32", "float32", PK_F32}};
    size_t d = 0;
    while (d < 3 && strcmp(dtype_arg, dtypes[d].arg) != 0)
        d++;
    if (!p || d == 3)
        return usage();
    llama_config c = p->c;
    c.tie_word_embeddings = tie;
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "portkern-llama-make: %s: %s\n", out, strerror(errno));
        return 1;
    }
    if (write_config(out, &c, p->style, dtypes[d].torch) ||
        (!config_only && write_weights(out, &c, seed, dtypes[d].dtype, dtypes[d].st)))
        return 1;
    return 0;
}
