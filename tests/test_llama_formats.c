/* The Llama checkpoint formats on the CPU: a tiny checkpoint written by
 * portkern-llama-make (argv[1]) reads back with every tensor's name, shape and
 * size; malformed files, headers and configs fail with an error that names
 * the tensor or key at fault. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "llama_config.h"
#include "llama_json.h"
#include "llama_rope.h"
#include "llama_safetensors.h"

static int failures;

#define EXPECT(cond, ...)                                                                                      \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                               \
            fprintf(stderr, __VA_ARGS__);                                                                      \
            fprintf(stderr, "\n");                                                                             \
            failures++;                                                                                        \
        }                                                                                                      \
    } while (0)

static char tmpdir[256];

static void write_file(const char *name, const void *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

/* A safetensors file from a header and a data area of data_len zero bytes;
 * hlen_override != 0 replaces the stored header length. */
static void write_st(const char *name, const char *header, size_t data_len, uint64_t hlen_override)
{
    size_t hlen = strlen(header), len = 8 + hlen + data_len;
    unsigned char *buf = calloc(1, len);
    uint64_t stored = hlen_override ? hlen_override : hlen;
    for (int b = 0; b < 8; b++)
        buf[b] = (unsigned char)(stored >> (8 * b));
    memcpy(buf + 8, header, hlen);
    write_file(name, buf, len);
    free(buf);
}

/* Opens tmpdir/name as a safetensors file; expects failure with `needle` in the message. */
static void expect_st_error(const char *name, const char *needle)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    llama_weights *w = NULL;
    int rc = llama_weights_open_file(path, &w, err, sizeof err);
    EXPECT(rc != 0 && w == NULL, "%s: opened, expected an error naming %s", name, needle);
    EXPECT(strstr(err, needle) != NULL, "%s: error \"%s\" does not name %s", name, err, needle);
    llama_weights_close(w);
}

static void expect_config_error(const char *text, const char *needle)
{
    llama_config c;
    char err[512] = "";
    int rc = llama_config_parse(text, strlen(text), "config.json", &c, err, sizeof err);
    EXPECT(rc != 0 && strstr(err, needle) != NULL, "config %s: rc %d, error \"%s\" does not name %s", text, rc,
           err, needle);
}

/* Strings hold valid UTF-8 only (RFC 8259 section 8.1): raw bytes that
 * another reader could decode differently, or not at all, are refused at
 * the byte; \u escapes must pair their surrogates. Valid sequences at each
 * boundary pass through unchanged. */
static void test_json_utf8(void)
{
    static const char *const good[] = {
        "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf",
        "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "caf\xc3\xa9",
    };
    static const struct {
        const char *bytes;
        size_t at; /* offset of the byte blamed, within the quoted string's contents */
    } bad[] = {
        {"\x80", 0},                 /* lone continuation byte */
        {"a\xbf", 1},                /* lone continuation byte after ASCII */
        {"\xc0\xaf", 0},            /* overlong '/' */
        {"\xc1\xbf", 0},            /* overlong */
        {"\xe0\x80\xaf", 0},       /* overlong three bytes */
        {"\xf0\x8f\xbf\xbf", 0},  /* overlong four bytes */
        {"\xed\xa0\x80", 0},       /* U+D800 encoded */
        {"\xed\xbf\xbf", 0},       /* U+DFFF encoded */
        {"\xf4\x90\x80\x80", 0},  /* U+110000 */
        {"\xf5\x80\x80\x80", 0},  /* lead byte past F4 */
        {"\xff", 0},
        {"\xe2\x82", 0},            /* truncated by the closing quote */
        {"\xe2\x82x", 0},           /* truncated by ASCII */
        {"\xc3", 0},                 /* truncated */
        {"ok\xf0\x9f\x98", 2},     /* truncated four bytes */
    };
    char text[64], err[256];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(text, sizeof text, "\"%s\"", good[i]);
        llama_json *v = llama_json_parse(text, strlen(text), err, sizeof err);
        EXPECT(v && v->type == LLAMA_JSON_STRING && v->length == strlen(good[i]) &&
                   memcmp(v->string, good[i], v->length) == 0,
               "valid UTF-8 #%zu refused or changed: %s", i, v ? "" : err);
        llama_json_free(v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "\"%s\"", bad[i].bytes);
        char want[64];
        snprintf(want, sizeof want, "(offset %zu): expected valid UTF-8", bad[i].at + 1);
        err[0] = '\0';
        llama_json *v = llama_json_parse(text, strlen(text), err, sizeof err);
        EXPECT(v == NULL && strstr(err, want), "invalid UTF-8 #%zu: error \"%s\" lacks \"%s\"", i, err, want);
        llama_json_free(v);
    }
    /* in a member name too, where a safetensors tensor name would carry it */
    const char *key = "{\"w\xc0\xae\": 1}";
    llama_json *v = llama_json_parse(key, strlen(key), err, sizeof err);
    EXPECT(v == NULL && strstr(err, "valid UTF-8"), "invalid UTF-8 in a member name: %s", v ? "accepted" : err);
    llama_json_free(v);
    /* escapes: surrogates must pair, high then low */
    static const struct {
        const char *text, *needle;
    } esc[] = {
        {"\"\\ud800\"", "a \\u low surrogate after a high one"},
        {"\"\\ud800x\"", "a \\u low surrogate after a high one"},
        {"\"\\ud800\\u0041\"", "a low surrogate"},
        {"\"\\ud800\\ud800\"", "a low surrogate"},
        {"\"\\udc00\"", "a high surrogate before a low one"},
        {"\"\\udfff\\ud800\"", "a high surrogate before a low one"},
    };
    for (size_t i = 0; i < sizeof esc / sizeof esc[0]; i++) {
        err[0] = '\0';
        v = llama_json_parse(esc[i].text, strlen(esc[i].text), err, sizeof err);
        EXPECT(v == NULL && strstr(err, esc[i].needle), "%s: error \"%s\" lacks \"%s\"", esc[i].text, err,
               esc[i].needle);
        llama_json_free(v);
    }
    const char *pair = "\"\\udbff\\udfff\"";
    v = llama_json_parse(pair, strlen(pair), err, sizeof err);
    EXPECT(v && v->length == 4 && memcmp(v->string, "\xf4\x8f\xbf\xbf", 4) == 0, "U+10FFFF by escapes: %s",
           v ? "wrong bytes" : err);
    llama_json_free(v);
}

static void test_json(void)
{
    char err[256];
    const char *doc = " {\"a\": [1, -2.5e3, true, false, null], \"s\": \"x\\n\\u00e9\\ud83d\\ude00\\\"\","
                      " \"big\": 9007199254740993} ";
    llama_json *v = llama_json_parse(doc, strlen(doc), err, sizeof err);
    EXPECT(v != NULL, "valid JSON refused: %s", err);
    if (v) {
        const llama_json *a = llama_json_get(v, "a"), *s = llama_json_get(v, "s"), *big = llama_json_get(v, "big");
        EXPECT(a && a->type == LLAMA_JSON_ARRAY && a->count == 5, "array");
        EXPECT(a && a->items[0].is_int && a->items[0].integer == 1 && !a->items[1].is_int &&
                   a->items[1].number == -2500.0 && a->items[2].boolean && a->items[4].type == LLAMA_JSON_NULL,
               "array items");
        EXPECT(s && strcmp(s->string, "x\n\xc3\xa9\xf0\x9f\x98\x80\"") == 0, "string escapes");
        EXPECT(big && big->is_int && big->integer == 9007199254740993LL, "exact integer past 2^53");
    }
    llama_json_free(v);
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"{\"a\": 1,}", "a member after ','"},
        {"[1 2]", "',' or ']'"},
        {"{\"a\" 1}", "':'"},
        {"{\"a\": 1, \"a\": 2}", "not seen before"},
        {"\"abc", "closing the string"},
        {"\"\\x\"", "an escape"},
        {"01", "end of input after the value"},
        {"nul", "a value"},
        {"{} x", "line 1 column 4"},
        {"{\n  \"a\": tru\n}", "line 2 column 8"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        v = llama_json_parse(bad[i].text, strlen(bad[i].text), err, sizeof err);
        EXPECT(v == NULL && strstr(err, bad[i].needle), "json %s: error \"%s\" lacks \"%s\"", bad[i].text, err,
               bad[i].needle);
        llama_json_free(v);
    }
    /* names compare whole: one with an embedded NUL is not its prefix */
    const char *nul = "{\"a\\u0000b\": 1, \"a\": 2}";
    v = llama_json_parse(nul, strlen(nul), err, sizeof err);
    EXPECT(v != NULL && v->count == 2, "names differing after a NUL refused: %s", err);
    /* and a lookup of "a" finds "a", not the earlier "a\u0000b" */
    const llama_json *a = llama_json_get(v, "a");
    EXPECT(a && a->is_int && a->integer == 2 && a->key_length == 1, "get(\"a\") found the member \"a\\u0000b\"");
    llama_json_free(v);
    test_json_utf8();
    char deep[200];
    memset(deep, '[', sizeof deep);
    v = llama_json_parse(deep, sizeof deep, err, sizeof err);
    EXPECT(v == NULL && strstr(err, "nesting"), "deep nesting: %s", err);
}

#define LLAMA_TYPE "{\"model_type\": \"llama\", "

static void test_config(void)
{
    const char *ok = "{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 176,"
                     " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256, \"head_dim\": null}";
    llama_config c;
    char err[512];
    EXPECT(llama_config_parse(ok, strlen(ok), "config.json", &c, err, sizeof err) == 0, "defaults: %s", err);
    EXPECT(c.head_dim == 16 && c.num_key_value_heads == 4 && c.max_position_embeddings == 2048 &&
               c.rope.theta == 10000.0 && c.rope.type == LLAMA_ROPE_DEFAULT && c.rms_norm_eps == 1e-6 &&
               c.tie_word_embeddings == 0,
           "defaults wrong");
    expect_config_error(LLAMA_TYPE "\"intermediate_size\": 176, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
                        " \"vocab_size\": 256}",
                        "hidden_size: missing");
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 64, \"intermediate_size\": 0, \"num_hidden_layers\": 2,"
                        " \"num_attention_heads\": 4, \"vocab_size\": 256}",
                        "intermediate_size: must be positive");
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 64, \"intermediate_size\": 176, \"num_hidden_layers\": 2,"
                        " \"num_attention_heads\": 4, \"num_key_value_heads\": 3, \"vocab_size\": 256}",
                        "num_key_value_heads");
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 60, \"intermediate_size\": 176, \"num_hidden_layers\": 2,"
                        " \"num_attention_heads\": 8, \"vocab_size\": 256}",
                        "num_attention_heads");
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 64.5, \"intermediate_size\": 176, \"num_hidden_layers\": 2,"
                        " \"num_attention_heads\": 4, \"vocab_size\": 256}",
                        "hidden_size: expected an integer");
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 64, \"intermediate_size\": 176, \"num_hidden_layers\": 2,"
                        " \"num_attention_heads\": 4, \"vocab_size\": 256, \"rope_scaling\": {\"rope_type\": \"longrope\"}}",
                        "rope_scaling.rope_type: \"longrope\" is not supported");
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 64, \"intermediate_size\": 176,"
                        " \"num_hidden_layers\": 5000, \"num_attention_heads\": 4, \"vocab_size\": 256}",
                        "num_hidden_layers: 5000 is past the largest");
    expect_config_error("{\"hidden_size\": 64,}", "config.json: json: line 1");
    /* a name with a NUL is another key, not the one before the NUL */
    const char *nulkey = "{\"model_type\\u0000\": \"gemma\", \"hidden_size\\u0000x\": 3, \"model_type\": \"llama\","
                         " \"hidden_size\": 64, \"intermediate_size\": 176, \"num_hidden_layers\": 2,"
                         " \"num_attention_heads\": 4, \"vocab_size\": 256}";
    EXPECT(llama_config_parse(nulkey, strlen(nulkey), "config.json", &c, err, sizeof err) == 0 && c.hidden_size == 64,
           "keys with a NUL read as the keys before it: %s", err);
    /* an integer past int64 is out of range, not "expected an integer, found 9.2233720368547758e+18" */
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 9223372036854775808, \"intermediate_size\": 176,"
                        " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256}",
                        "hidden_size: out of range: an integer above 2^63 - 1");
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 64, \"intermediate_size\": -9223372036854775809,"
                        " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256}",
                        "intermediate_size: out of range: an integer below -2^63");
    /* the largest int64 is an integer, refused by the bound only */
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 9223372036854775807, \"intermediate_size\": 176,"
                        " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256}",
                        "hidden_size: 9223372036854775807 is past the largest this engine takes");
    expect_config_error(LLAMA_TYPE "\"hidden_size\": 64e0, \"intermediate_size\": 176,"
                        " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256}",
                        "hidden_size: expected an integer, found 64");
    EXPECT(llama_config_load(tmpdir, &c, err, sizeof err) != 0 && strstr(err, "config.json"),
           "missing config.json: %s", err);
}

/* A small model's config.json with `extra` members added at the end. */
static const char *with_keys(const char *model_type, const char *extra)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"model_type\": \"%s\", \"hidden_size\": 64, \"intermediate_size\": 176, \"num_hidden_layers\": 4,"
             " \"num_attention_heads\": 2, \"num_key_value_heads\": 1, \"head_dim\": 64, \"vocab_size\": 256,"
             " \"max_position_embeddings\": 1024%s%s}",
             model_type, *extra ? ", " : "", extra);
    return buf;
}

static int parse_keys(const char *model_type, const char *extra, llama_config *c, char *err, size_t n)
{
    const char *text = with_keys(model_type, extra);
    return llama_config_parse(text, strlen(text), "config.json", c, err, n);
}

/* Every key that changes the math: read in both spellings, or refused by name. */
static void test_config_keys(void)
{
    static const struct {
        const char *type, *extra, *needle;
    } refused[] = {
        {"gemma", "", "model_type: \"gemma\" is not supported"},
        {"llama\\u0000x", "", "model_type"},
        {"llama", "\"hidden_act\": \"gelu\"", "hidden_act: \"gelu\" is not supported"},
        {"llama", "\"hidden_act\": \"silu\\u0000x\"", "hidden_act"},
        {"llama", "\"rope_parameters\": {\"rope_type\": \"longrope\", \"rope_theta\": 1e4}",
         "rope_parameters.rope_type: \"longrope\" is not supported"},
        {"llama", "\"rope_scaling\": {\"type\": \"su\"}", "rope_scaling.type: \"su\""},
        {"llama", "\"rope_scaling\": {\"rope_type\": \"linear\"}", "rope_scaling.factor: missing"},
        {"llama", "\"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8}", "rope_scaling.low_freq_factor"},
        {"llama",
         "\"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8, \"low_freq_factor\": 4, \"high_freq_factor\": 1}",
         "rope_scaling.high_freq_factor: must be above"},
        {"llama", "\"rope_parameters\": {\"rope_type\": \"default\", \"partial_rotary_factor\": 0.5}",
         "rope_parameters.partial_rotary_factor: 0.5"},
        {"llama", "\"rope_theta\": 1e999", "rope_theta: must be finite"},
        {"llama", "\"rms_norm_eps\": -1", "rms_norm_eps: must be finite and positive"},
        {"llama", "\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2}, \"rope_parameters\": {}",
         "rope_scaling: given beside rope_parameters"},
        {"llama", "\"rope_parameters\": {\"full_attention\": {\"rope_type\": \"default\"}}",
         "rope_parameters.full_attention: RoPE per layer type"},
        {"llama",
         "\"original_max_position_embeddings\": 64, \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8,"
         " \"low_freq_factor\": 1, \"high_freq_factor\": 4, \"original_max_position_embeddings\": 32}",
         "original_max_position_embeddings: 32 disagrees"},
        {"llama", "\"attention_bias\": 1", "attention_bias: expected true or false"},
        {"llama", "\"quantization_config\": {\"quant_method\": \"gptq\"}", "quantization_config"},
        {"llama", "\"torch_dtype\": \"float64\"", "torch_dtype: \"float64\" is not supported"},
        {"llama", "\"dtype\": \"bfloat16\", \"torch_dtype\": \"float32\"", "torch_dtype: \"float32\" disagrees"},
        {"llama", "\"dtype\": \"F32\\u0000x\"", "dtype"},
        {"llama", "\"tie_word_embeddings\": \"yes\"", "tie_word_embeddings: expected true or false"},
        {"llama", "\"eos_token_id\": 256", "eos_token_id: 256 is not a token id"},
        {"llama", "\"eos_token_id\": [1, 2.5]", "eos_token_id"},
        {"qwen2", "\"use_sliding_window\": true, \"sliding_window\": 8, \"layer_types\": [\"full_attention\"]",
         "layer_types: expected a list of num_hidden_layers = 4"},
        {"qwen2",
         "\"use_sliding_window\": true, \"sliding_window\": 8, \"layer_types\": [\"full_attention\", "
         "\"chunked_attention\", \"full_attention\", \"full_attention\"]",
         "layer_types: \"chunked_attention\" is not supported"},
    };
    llama_config c;
    char err[512];
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        err[0] = '\0';
        int rc = parse_keys(refused[i].type, refused[i].extra, &c, err, sizeof err);
        EXPECT(rc != 0 && strstr(err, refused[i].needle), "%s {%s}: rc %d, error \"%s\" lacks \"%s\"",
               refused[i].type, refused[i].extra, rc, err, refused[i].needle);
    }

    /* both spellings of the same llama3 settings read alike */
    llama_config a, b;
    EXPECT(parse_keys("llama",
                      "\"rope_theta\": 500000.0, \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0, "
                      "\"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 8192}, "
                      "\"torch_dtype\": \"bfloat16\"",
                      &a, err, sizeof err) == 0,
           "4.x llama3: %s", err);
    EXPECT(parse_keys("llama",
                      "\"rope_parameters\": {\"rope_type\": \"llama3\", \"rope_theta\": 500000.0, \"factor\": 8.0, "
                      "\"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 8192}, "
                      "\"dtype\": \"bfloat16\"",
                      &b, err, sizeof err) == 0,
           "5.x llama3: %s", err);
    EXPECT(a.rope.type == LLAMA_ROPE_LLAMA3 && !memcmp(&a.rope, &b.rope, sizeof a.rope) && a.dtype == PK_BF16 &&
               b.dtype == PK_BF16 && a.rope.theta == 500000.0 && a.rope.original_max_position_embeddings == 8192,
           "llama3 settings differ between the spellings");

    /* Llama 3.1's table: short wavelengths kept, long ones divided by 8, a
     * smooth band between (values from the formula in double) */
    float f[32];
    double qk;
    llama_rope_inv_freq(&b, f, &qk);
    EXPECT(qk == 1.0 && f[0] == 1.0f, "llama3 f[0] %g", f[0]);
    for (int i = 0; i < 32; i++) {
        const double base = 1 / pow(500000.0, 2.0 * i / 64), wl = 2 * M_PI / base;
        const double want = wl < 2048 ? base : wl > 8192 ? base / 8 : 0;
        if (want != 0) EXPECT(f[i] == (float)want, "llama3 f[%d] %.9g, want %.9g", i, f[i], want);
        else EXPECT(f[i] < base && f[i] > base / 8, "llama3 f[%d] %.9g outside the band", i, f[i]);
    }
    /* linear divides every frequency; dynamic equals default within max_position_embeddings */
    EXPECT(parse_keys("llama", "\"rope_scaling\": {\"type\": \"linear\", \"factor\": 4}", &a, err, sizeof err) == 0,
           "linear: %s", err);
    llama_rope_inv_freq(&a, f, &qk);
    EXPECT(f[3] == (float)(1 / pow(10000.0, 6.0 / 64) / 4), "linear f[3] %.9g", f[3]);
    EXPECT(parse_keys("llama", "\"rope_parameters\": {\"rope_type\": \"dynamic\", \"factor\": 4}", &a, err,
                      sizeof err) == 0,
           "dynamic: %s", err);
    llama_rope_inv_freq(&a, f, &qk);
    EXPECT(f[3] == (float)(1 / pow(10000.0, 6.0 / 64)) && a.rope.theta == 10000.0, "dynamic f[3] %.9g", f[3]);
    /* YaRN: ends extrapolate / interpolate, attention factor 0.1 ln(factor) + 1, squared on the scores */
    EXPECT(parse_keys("llama",
                      "\"rope_parameters\": {\"rope_type\": \"yarn\", \"factor\": 4.0, \"rope_theta\": 10000.0, "
                      "\"original_max_position_embeddings\": 256}",
                      &a, err, sizeof err) == 0,
           "yarn: %s", err);
    llama_rope_inv_freq(&a, f, &qk);
    const double af = 0.1 * log(4.0) + 1;
    EXPECT(fabs(qk - af * af) < 1e-15 && f[0] == 1.0f && f[31] == (float)(1 / pow(10000.0, 62.0 / 64) / 4),
           "yarn: qk %g f[0] %g f[31] %.9g", qk, f[0], f[31]);

    /* windows: mistral on every layer (4096 when absent, none when null);
     * qwen2 from max_window_layers, or from layer_types */
    EXPECT(parse_keys("mistral", "", &a, err, sizeof err) == 0 && a.sliding_window == 4096 && a.layer_sliding[3] &&
               a.max_position_embeddings == 1024,
           "mistral default window: %s", err);
    EXPECT(parse_keys("mistral", "\"sliding_window\": null", &a, err, sizeof err) == 0 && a.sliding_window == 0 &&
               !a.layer_sliding[0],
           "mistral null window: %s", err);
    EXPECT(parse_keys("qwen2", "\"use_sliding_window\": true, \"sliding_window\": 8, \"max_window_layers\": 2", &a,
                      err, sizeof err) == 0 &&
               a.sliding_window == 8 && !a.layer_sliding[1] && a.layer_sliding[2] && a.bias_qkv && !a.bias_o,
           "qwen2 window: %s", err);
    EXPECT(parse_keys("qwen2", "\"use_sliding_window\": false, \"sliding_window\": 8, \"max_window_layers\": 0", &a,
                      err, sizeof err) == 0 &&
               a.sliding_window == 0 && !a.layer_sliding[2],
           "qwen2 window off: %s", err);
    EXPECT(parse_keys("qwen2",
                      "\"use_sliding_window\": true, \"sliding_window\": 8, \"layer_types\": [\"sliding_attention\", "
                      "\"full_attention\", \"sliding_attention\", \"full_attention\"]",
                      &a, err, sizeof err) == 0 &&
               a.layer_sliding[0] && !a.layer_sliding[1] && a.layer_sliding[2],
           "qwen2 layer_types: %s", err);
    /* the llama family has no window: refused where it would bite */
    EXPECT(parse_keys("llama", "\"sliding_window\": 100", &a, err, sizeof err) == 0, "llama window: %s", err);
    EXPECT(llama_config_check_context(&a, 100, err, sizeof err) == 0, "llama window within the context");
    EXPECT(llama_config_check_context(&a, 101, err, sizeof err) != 0 && strstr(err, "sliding_window: 100"),
           "llama window below the context: %s", err);
    /* biases */
    EXPECT(parse_keys("llama", "\"attention_bias\": true, \"mlp_bias\": true", &a, err, sizeof err) == 0 &&
               a.bias_qkv && a.bias_o && a.bias_mlp,
           "llama biases: %s", err);
    /* stop tokens: config.json's, replaced by generation_config.json's */
    EXPECT(parse_keys("llama", "\"eos_token_id\": [7, 9]", &a, err, sizeof err) == 0 && a.n_eos == 2 && a.eos[1] == 9,
           "eos list: %s", err);
    const char *gen = "{\"eos_token_id\": 5, \"bos_token_id\": 1}";
    EXPECT(llama_generation_parse(gen, strlen(gen), "generation_config.json", &a, err, sizeof err) == 0 &&
               a.n_eos == 1 && a.eos[0] == 5,
           "generation eos: %s", err);
    gen = "{\"bos_token_id\": 1}";
    EXPECT(llama_generation_parse(gen, strlen(gen), "generation_config.json", &a, err, sizeof err) == 0 &&
               a.n_eos == 0,
           "generation_config.json without eos: %d stop tokens", a.n_eos);
    gen = "{\"eos_token_id\": \"5\"}";
    EXPECT(llama_generation_parse(gen, strlen(gen), "generation_config.json", &a, err, sizeof err) != 0 &&
               strstr(err, "generation_config.json: eos_token_id"),
           "generation eos string: %s", err);
}

/* Names and shapes portkern-llama-make must write for the tiny preset. */
static void check_tiny(const char *dir, int tied, const char *dtype, pk_dtype want)
{
    char err[512];
    llama_config c;
    EXPECT(llama_config_load(dir, &c, err, sizeof err) == 0, "tiny config: %s", err);
    EXPECT(c.hidden_size == 128 && c.intermediate_size == 352 && c.num_hidden_layers == 2 &&
               c.num_attention_heads == 2 && c.num_key_value_heads == 1 && c.head_dim == 64 &&
               c.vocab_size == 256 && c.max_position_embeddings == 512 && c.tie_word_embeddings == tied,
           "tiny config values (%s)", dtype);
    llama_weights *w;
    if (llama_weights_open(dir, &w, err, sizeof err) != 0) {
        EXPECT(0, "tiny weights: %s", err);
        return;
    }
    size_t n = 0;
    uint64_t total = 0;
    const int64_t H = 128, I = 352, Q = 128, KV = 64, V = 256;
#define WANT(name, nd, ...)                                                                                    \
    do {                                                                                                       \
        const int64_t shape_[] = {__VA_ARGS__};                                                                \
        const llama_tensor *t_ = llama_weights_expect(w, name, nd, shape_, err, sizeof err);                   \
        EXPECT(t_ != NULL, "%s", err);                                                                         \
        if (t_) {                                                                                              \
            uint64_t elems_ = 1;                                                                               \
            for (int d_ = 0; d_ < nd; d_++)                                                                    \
                elems_ *= (uint64_t)shape_[d_];                                                                \
            EXPECT(t_->dtype == want && t_->bytes == elems_ * pk_dtype_size(want) && t_->data != NULL,         \
                   "%s: dtype or bytes", name);                                                                \
            total += t_->bytes;                                                                                \
        }                                                                                                      \
        n++;                                                                                                   \
    } while (0)
    WANT("model.embed_tokens.weight", 2, V, H);
    for (int l = 0; l < 2; l++) {
        char name[128];
#define LAYER(suffix, nd, ...)                                                                                 \
    snprintf(name, sizeof name, "model.layers.%d.%s.weight", l, suffix);                                       \
    WANT(name, nd, __VA_ARGS__)
        LAYER("input_layernorm", 1, H);
        LAYER("self_attn.q_proj", 2, Q, H);
        LAYER("self_attn.k_proj", 2, KV, H);
        LAYER("self_attn.v_proj", 2, KV, H);
        LAYER("self_attn.o_proj", 2, H, Q);
        LAYER("post_attention_layernorm", 1, H);
        LAYER("mlp.gate_proj", 2, I, H);
        LAYER("mlp.up_proj", 2, I, H);
        LAYER("mlp.down_proj", 2, H, I);
#undef LAYER
    }
    WANT("model.norm.weight", 1, H);
    if (!tied)
        WANT("lm_head.weight", 2, V, H);
#undef WANT
    EXPECT(llama_weights_count(w) == n, "%s: %zu tensors, expected %zu", dtype, llama_weights_count(w), n);
    EXPECT(tied == (llama_weights_find(w, "lm_head.weight") == NULL), "lm_head presence");
    /* tensors tile the data area exactly: nothing unaccounted for */
    uint64_t span = 0;
    for (size_t i = 0; i < llama_weights_count(w); i++)
        span += llama_weights_at(w, i)->bytes;
    EXPECT(span == total, "sum of bytes");
    /* norms start near 1, matrices near 0 with std 0.02 */
    const llama_tensor *norm = llama_weights_find(w, "model.norm.weight"),
                       *emb = llama_weights_find(w, "model.embed_tokens.weight");
    if (norm && emb && want == PK_F32) {
        const float *nv = norm->data, *ev = emb->data;
        double s = 0, s2 = 0;
        for (int i = 0; i < 128; i++)
            EXPECT(nv[i] > 0.89f && nv[i] < 1.11f, "norm weight %g", nv[i]);
        for (int i = 0; i < 256 * 128; i++) {
            s += ev[i];
            s2 += (double)ev[i] * ev[i];
        }
        double mean = s / (256 * 128), sd = s2 / (256 * 128);
        EXPECT(mean > -0.002 && mean < 0.002 && sd > 0.019 * 0.019 && sd < 0.021 * 0.021, "embedding stats");
    }
    const int64_t wrong[] = {H, V};
    EXPECT(!llama_weights_expect(w, "model.embed_tokens.weight", 2, wrong, err, sizeof err) &&
               strstr(err, "model.embed_tokens.weight") && strstr(err, "[128, 256]") && strstr(err, "[256, 128]"),
           "wrong shape: %s", err);
    EXPECT(!llama_weights_expect(w, "model.layers.9.mlp.up_proj.weight", 2, wrong, err, sizeof err) &&
               strstr(err, "model.layers.9.mlp.up_proj.weight") && strstr(err, "missing"),
           "missing: %s", err);
    llama_weights_close(w);
}

static void make(const char *tool, const char *dir, const char *flags)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --out '%s' --preset tiny --seed 7 %s", tool, dir, flags);
    if (system(cmd) != 0) {
        fprintf(stderr, "failed: %s\n", cmd);
        exit(1);
    }
}

static void test_checkpoints(const char *tool)
{
    static const struct {
        const char *flag;
        pk_dtype dtype;
    } dtypes[] = {{"bf16", PK_BF16}, {"f16", PK_F16}, {"f32", PK_F32}};
    char dir[512], flags[64];
    for (size_t i = 0; i < 3; i++) {
        for (int tied = 0; tied < 2; tied++) {
            snprintf(dir, sizeof dir, "%s/%s%s", tmpdir, dtypes[i].flag, tied ? "-tied" : "");
            snprintf(flags, sizeof flags, "--dtype %s%s", dtypes[i].flag, tied ? " --tie" : "");
            make(tool, dir, flags);
            check_tiny(dir, tied, dtypes[i].flag, dtypes[i].dtype);
        }
    }
    /* the same seed gives the same file, another seed another */
    char cmd[2048];
    snprintf(dir, sizeof dir, "%s/again", tmpdir);
    make(tool, dir, "--dtype bf16");
    snprintf(cmd, sizeof cmd, "cmp -s '%s/bf16/model.safetensors' '%s/model.safetensors'", tmpdir, dir);
    EXPECT(system(cmd) == 0, "same seed, different file");
    snprintf(cmd, sizeof cmd, "'%s' --out '%s' --preset tiny --seed 8 && cmp -s '%s/bf16/model.safetensors' '%s/model.safetensors'",
             tool, dir, tmpdir, dir);
    EXPECT(system(cmd) != 0, "another seed, same file");
}

static int st_opens(const char *name, char *err, size_t errlen, size_t *count)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    llama_weights *w = NULL;
    int rc = llama_weights_open_file(path, &w, err, errlen);
    if (count) *count = w ? llama_weights_count(w) : 0;
    llama_weights_close(w);
    return rc == 0;
}

/* The data area is indexed exactly once: aliases, overlaps and holes are refused. */
static void test_tiling(void)
{
#define T(name, dt, shape, b, e) "\"" name "\":{\"dtype\":\"" dt "\",\"shape\":[" shape "],\"data_offsets\":[" #b "," #e "]}"
    static const struct {
        const char *file, *header, *needle;
        size_t data;
    } bad[] = {
        {"alias.safetensors", "{" T("a", "F32", "4", 0, 16) "," T("b", "F32", "4", 0, 16) "}",
         "tensor b: data_offsets [0, 16] overlap tensor a's [0, 16]", 16},
        {"overlap.safetensors", "{" T("a", "F32", "4", 0, 16) "," T("b", "F32", "4", 8, 24) "}",
         "tensor b: data_offsets [8, 24] overlap tensor a's [0, 16]", 24},
        /* the same, listed in the other order: sorting finds it */
        {"overlap2.safetensors", "{" T("b", "F32", "4", 8, 24) "," T("a", "F32", "4", 0, 16) "}",
         "tensor b: data_offsets [8, 24] overlap tensor a's [0, 16]", 24},
        {"inside.safetensors", "{" T("a", "F32", "8", 0, 32) "," T("b", "F16", "2", 4, 8) "}",
         "tensor b: data_offsets [4, 8] overlap tensor a's [0, 32]", 32},
        {"empty-inside.safetensors", "{" T("a", "F32", "4", 0, 16) "," T("e", "F32", "0", 4, 4) "}",
         "tensor e: data_offsets [4, 4] overlap tensor a's [0, 16]", 16},
        {"hole.safetensors", "{" T("a", "F32", "2", 0, 8) "," T("b", "F32", "2", 12, 20) "}",
         "data area bytes [8, 12) before tensor b belong to no tensor", 20},
        {"lead.safetensors", "{" T("a", "F32", "2", 4, 12) "}", "data area bytes [0, 4) before tensor a", 12},
        {"tail.safetensors", "{" T("a", "F32", "2", 0, 8) "}", "data area bytes [8, 12) after the last tensor", 12},
        {"none.safetensors", "{\"__metadata__\":{}}", "data area bytes [0, 4) after the last tensor", 4},
    };
    char err[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_st(bad[i].file, bad[i].header, bad[i].data, 0);
        expect_st_error(bad[i].file, bad[i].needle);
    }
    /* seams: in any order, empty tensors on the seams and at both ends */
    size_t n = 0;
    write_st("tiles.safetensors",
             "{" T("c", "BF16", "3", 20, 26) "," T("e0", "F16", "0", 0, 0) "," T("a", "F32", "2", 0, 8) ","
             T("e1", "F32", "2,0", 8, 8) "," T("b", "F32", "3", 8, 20) "," T("e2", "BF16", "0,5", 26, 26) "}",
             26, 0);
    EXPECT(st_opens("tiles.safetensors", err, sizeof err, &n) && n == 6, "exact tiling refused: %s", err);
#undef T
}

/* A zero dimension empties a tensor wherever it stands; the other
 * dimensions must fit int64 in either order. */
static void test_empty_shapes(void)
{
    static const char *const shapes[] = {"0,4", "4,0", "0", "3,0,2", "0,0"};
    char header[256], err[512];
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        snprintf(header, sizeof header, "{\"w\":{\"dtype\":\"F32\",\"shape\":[%s],\"data_offsets\":[0,0]}}", shapes[i]);
        write_st("zero.safetensors", header, 0, 0);
        size_t n = 0;
        EXPECT(st_opens("zero.safetensors", err, sizeof err, &n) && n == 1, "shape [%s] refused: %s", shapes[i], err);
        /* an empty tensor holds no bytes */
        snprintf(header, sizeof header, "{\"w\":{\"dtype\":\"F32\",\"shape\":[%s],\"data_offsets\":[0,16]}}", shapes[i]);
        write_st("zero.safetensors", header, 16, 0);
        expect_st_error("zero.safetensors", "hold 16 bytes, but F32 x shape needs 0");
    }
    /* the non-zero dimensions overflow: refused in either order */
    static const char *const huge[] = {"0,4294967296,4294967296", "4294967296,4294967296,0",
                                       "4294967296,0,4294967296", "0,2305843009213693952"};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        snprintf(header, sizeof header, "{\"w\":{\"dtype\":\"F32\",\"shape\":[%s],\"data_offsets\":[0,0]}}", huge[i]);
        write_st("zerohuge.safetensors", header, 0, 0);
        expect_st_error("zerohuge.safetensors", "tensor w: shape: its non-zero dimensions hold more than 2^63 - 1 bytes");
    }
    /* 2^61 F32 elements are 2^63 bytes, one past; 2^61 - 1 fit */
    write_st("zeroedge.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[0,2305843009213693951],\"data_offsets\":[0,0]}}", 0, 0);
    EXPECT(st_opens("zeroedge.safetensors", err, sizeof err, NULL), "[0, 2^61 - 1] refused: %s", err);
}

/* The in-memory entry reads the same bytes the file one does. */
static void test_bytes(void)
{
    const char *h = "{\"w\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}";
    unsigned char buf[128] = {0};
    size_t hlen = strlen(h);
    buf[0] = (unsigned char)hlen;
    memcpy(buf + 8, h, hlen);
    memcpy(buf + 8 + hlen, "\x01\x02\x03\x04", 4);
    llama_weights *w = NULL;
    char err[512] = "";
    EXPECT(llama_weights_open_bytes(buf, 8 + hlen + 4, "mem", &w, err, sizeof err) == 0, "in memory: %s", err);
    const llama_tensor *t = w ? llama_weights_find(w, "w") : NULL;
    EXPECT(t && t->data == buf + 8 + hlen && t->bytes == 4 && t->shape[0] == 2, "in memory: tensor w");
    llama_weights_close(w);
    EXPECT(llama_weights_open_bytes(buf, 8 + hlen + 3, "mem", &w, err, sizeof err) != 0 && w == NULL &&
               strstr(err, "mem: tensor w: data_offsets [0, 4] outside"),
           "in memory, cut: %s", err);
    EXPECT(llama_weights_open_bytes(buf, 7, "mem", &w, err, sizeof err) != 0 && strstr(err, "mem: truncated"),
           "in memory, 7 bytes: %s", err);
}

static void test_malformed(void)
{
    const char *one = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}";
    write_st("ok.safetensors", one, 24, 0);
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/ok.safetensors", tmpdir);
    llama_weights *w;
    EXPECT(llama_weights_open_file(path, &w, err, sizeof err) == 0, "well-formed file: %s", err);
    llama_weights_close(w);

    write_file("short.safetensors", "\x10\0\0", 3);
    expect_st_error("short.safetensors", "truncated");
    write_st("cut.safetensors", one, 23, 0);
    expect_st_error("cut.safetensors", "tensor w: data_offsets [0, 24] outside");
    write_st("hlen.safetensors", one, 24, 1u << 20);
    expect_st_error("hlen.safetensors", "header length 1048576 runs past the end");
    write_st("range.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[8,32]}}", 24, 0);
    expect_st_error("range.safetensors", "tensor w: data_offsets [8, 32] outside");
    write_st("order.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,0]}}", 24, 0);
    expect_st_error("order.safetensors", "tensor w: data_offsets [8, 0]");
    write_st("dtypenul.safetensors", "{\"w\":{\"dtype\":\"F32\\u0000x\",\"shape\":[6],\"data_offsets\":[0,24]}}", 24, 0);
    expect_st_error("dtypenul.safetensors", "tensor w: dtype \"F32\" not supported");
    write_st("empty.safetensors", "{\"__metadata__\":{\"format\":\"pt\"}}", 0, 0);
    snprintf(path, sizeof path, "%s/empty.safetensors", tmpdir);
    EXPECT(llama_weights_open_file(path, &w, err, sizeof err) == 0 && llama_weights_count(w) == 0 &&
               !llama_weights_find(w, "w"),
           "a file of no tensors: %s", err);
    llama_weights_close(w);
    write_st("dtype.safetensors", "{\"w\":{\"dtype\":\"I64\",\"shape\":[3],\"data_offsets\":[0,24]}}", 24, 0);
    expect_st_error("dtype.safetensors", "tensor w: dtype \"I64\" not supported");
    write_st("shape.safetensors", "{\"w\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[0,24]}}", 24, 0);
    expect_st_error("shape.safetensors", "tensor w: data_offsets [0, 24] hold 24 bytes, but BF16 x shape needs 12");
    write_st("huge.safetensors",
             "{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,24]}}", 24, 0);
    expect_st_error("huge.safetensors", "tensor w: shape: its non-zero dimensions hold more than 2^63 - 1 bytes of F32");
    write_st("past.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,18446744073709551616]}}", 24, 0);
    expect_st_error("past.safetensors", "tensor w: data_offsets: out of range");
    write_st("pastshape.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[6,9223372036854775808],\"data_offsets\":[0,24]}}", 24, 0);
    expect_st_error("pastshape.safetensors", "tensor w: shape[1]: out of range");
    write_st("neg.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[-2,3],\"data_offsets\":[0,24]}}", 24, 0);
    expect_st_error("neg.safetensors", "tensor w: shape[0]");
    write_st("json.safetensors", "{\"w\":{\"dtype\":\"F32\",}}", 24, 0);
    expect_st_error("json.safetensors", "json.safetensors: header: json: line 1 column 21");
    write_st("key.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", 8, 0);
    expect_st_error("key.safetensors", "tensor w: unknown key \"x\"");
    /* names are C strings to the engine: one with a NUL would pass for its prefix */
    write_st("namenul.safetensors", "{\"w\\u0000x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, 0);
    expect_st_error("namenul.safetensors", "tensor w: the name holds a NUL byte");
    write_st("keynul.safetensors", "{\"w\":{\"dtype\\u0000x\":\"F16\",\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, 0);
    expect_st_error("keynul.safetensors", "tensor w: unknown key \"dtype\"");

    test_tiling();
    test_empty_shapes();

    /* a directory with neither file, then a sharded one with a wrong index */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/empty", tmpdir);
    EXPECT(llama_weights_open(dir, &w, err, sizeof err) != 0 && strstr(err, "model.safetensors"), "empty dir: %s",
           err);
    write_st("model-00001-of-00002.safetensors", one, 24, 0);
    write_st("model-00002-of-00002.safetensors",
             "{\"__metadata__\":{\"format\":\"pt\"},\"v\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[0,8]}}",
             8, 0);
    const char *index = "{\"metadata\":{\"total_size\":32},\"weight_map\":{\"w\":\"model-00001-of-00002.safetensors\","
                        "\"v\":\"model-00002-of-00002.safetensors\"}}";
    write_file("model.safetensors.index.json", index, strlen(index));
    EXPECT(llama_weights_open(tmpdir, &w, err, sizeof err) == 0, "sharded: %s", err);
    if (w) {
        const llama_tensor *v = llama_weights_find(w, "v"), *t = llama_weights_find(w, "w");
        EXPECT(v && t && v->dtype == PK_F16 && v->bytes == 8 && t->bytes == 24 && llama_weights_count(w) == 2,
               "sharded contents");
        llama_weights_close(w);
    }
    index = "{\"weight_map\":{\"w\":\"model-00001-of-00002.safetensors\",\"v\":\"model-00001-of-00002.safetensors\"}}";
    write_file("model.safetensors.index.json", index, strlen(index));
    EXPECT(llama_weights_open(tmpdir, &w, err, sizeof err) != 0 && strstr(err, "tensor v: not found in"),
           "index names the wrong shard: %s", err);
    index = "{\"weight_map\":{\"w\\u0000x\":\"model-00001-of-00002.safetensors\"}}";
    write_file("model.safetensors.index.json", index, strlen(index));
    EXPECT(llama_weights_open(tmpdir, &w, err, sizeof err) != 0 && strstr(err, "weight_map: tensor w: the name holds a NUL"),
           "index name with a NUL: %s", err);
}

/* A header of 100 000 tensors (a sharded mixture-of-experts checkpoint has
 * tens of thousands) opens in far less than the minutes that comparing
 * every member name with every earlier one took: the bound is loose on
 * purpose (a slow CI machine), and the quadratic reader still missed it
 * by far. */
static void test_many_tensors(void)
{
    enum { N = 100000 };
    size_t cap = (size_t)N * 128 + 64, used = 0;
    char *h = malloc(cap);
    if (!h) {
        EXPECT(0, "out of memory for the header");
        return;
    }
    used += (size_t)snprintf(h + used, cap - used, "{");
    for (int i = 0; i < N; i++)
        used += (size_t)snprintf(h + used, cap - used, "%s\"model.layers.%d.experts.w\":{\"dtype\":\"F32\","
                                 "\"shape\":[1],\"data_offsets\":[%d,%d]}", i ? "," : "", i, 4 * i, 4 * i + 4);
    snprintf(h + used, cap - used, "}");
    write_st("many.safetensors", h, (size_t)N * 4, 0);
    free(h);
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/many.safetensors", tmpdir);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    llama_weights *w = NULL;
    int rc = llama_weights_open_file(path, &w, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    EXPECT(rc == 0 && llama_weights_count(w) == N, "100000 tensors: %s", err);
    EXPECT(!w || llama_weights_find(w, "model.layers.99999.experts.w"), "100000 tensors: the last one not found");
    EXPECT(s < 10.0, "100000 tensors took %.2f s to open", s);
    printf("100000-tensor header (%.1f MB) opened in %.3f s\n", (double)used / 1e6, s);
    llama_weights_close(w);

    /* the same tensors through a sharded checkpoint's index */
    char dir[600], cmd[2000], ipath[700];
    snprintf(dir, sizeof dir, "%s/many", tmpdir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && mv '%s/many.safetensors' '%s/model-00001-of-00001.safetensors'", dir,
             tmpdir, dir);
    if (system(cmd) != 0) {
        EXPECT(0, "cannot make %s", dir);
        return;
    }
    h = malloc(cap);
    if (!h) return;
    used = (size_t)snprintf(h, cap, "{\"metadata\":{},\"weight_map\":{");
    for (int i = 0; i < N; i++)
        used += (size_t)snprintf(h + used, cap - used, "%s\"model.layers.%d.experts.w\":\"model-00001-of-00001.safetensors\"",
                                 i ? "," : "", i);
    snprintf(h + used, cap - used, "}}");
    snprintf(ipath, sizeof ipath, "%s/model.safetensors.index.json", dir);
    FILE *f = fopen(ipath, "w");
    int bad = !f || fputs(h, f) < 0;
    if (f) bad |= fclose(f) != 0;
    free(h);
    EXPECT(!bad, "cannot write %s", ipath);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = llama_weights_open(dir, &w, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double si = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    EXPECT(rc == 0 && llama_weights_count(w) == N, "100000 tensors by index: %s", err);
    EXPECT(si < 10.0, "100000 tensors by index took %.2f s to open", si);
    printf("100000-tensor index opened in %.3f s\n", si);
    llama_weights_close(w);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_llama_formats PATH-TO-portkern-llama-make\n");
        return 2;
    }
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/pk-llama-formats-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_json();
    test_config();
    test_config_keys();
    test_checkpoints(argv[1]);
    test_malformed();
    test_bytes();
    test_many_tensors();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (failures == 0 && system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", tmpdir);
    printf("llama formats: %s (%d failures)%s%s\n", failures ? "FAIL" : "ok", failures,
           failures ? ", files kept in " : "", failures ? tmpdir : "");
    return failures ? 1 : 0;
}
