/* A recursive-descent JSON reader. Strict on purpose: a checkpoint whose
 * header only parses thanks to leniency (trailing commas, NaN, comments) is
 * more likely damaged than clever, so it is refused with the exact place. */
#include "llama_json.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for any real header, shallow enough that hostile nesting
 * cannot overflow the C stack. */
#define LLAMA_JSON_MAX_DEPTH 64

typedef struct json_parser {
    const char *text;
    size_t len, pos;
    char *err;
    size_t errlen;
    int failed;
} json_parser;

static void json_fail(json_parser *p, const char *expected)
{
    if (p->failed)
        return;
    p->failed = 1;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < p->pos && i < p->len; i++) {
        if (p->text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char found[16];
    if (p->pos >= p->len) {
        snprintf(found, sizeof found, "end of input");
    } else {
        unsigned char c = (unsigned char)p->text[p->pos];
        if (c >= 0x20 && c < 0x7f)
            snprintf(found, sizeof found, "'%c'", c);
        else
            snprintf(found, sizeof found, "byte 0x%02x", c);
    }
    if (p->err && p->errlen)
        snprintf(p->err, p->errlen, "json: line %zu column %zu (offset %zu): expected %s, found %s", line, col,
                 p->pos, expected, found);
}

static void json_skip_ws(json_parser *p)
{
    while (p->pos < p->len) {
        char c = p->text[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int json_peek(const json_parser *p) { return p->pos < p->len ? (unsigned char)p->text[p->pos] : -1; }

static void json_free_items(llama_json *v)
{
    if (v->type == LLAMA_JSON_ARRAY || v->type == LLAMA_JSON_OBJECT) {
        for (size_t i = 0; i < v->count; i++) {
            json_free_items(&v->items[i]);
            free((char *)v->items[i].key);
        }
        free(v->items);
    } else if (v->type == LLAMA_JSON_STRING) {
        free((char *)v->string);
    }
}

static int json_value(json_parser *p, llama_json *v, int depth);

static int json_literal(json_parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->text + p->pos, word, n) != 0) {
        json_fail(p, "a value");
        return -1;
    }
    p->pos += n;
    return 0;
}

static int json_hex4(json_parser *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int c = json_peek(p);
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else {
            json_fail(p, "4 hex digits after \\u");
            return -1;
        }
        v = v * 16 + d;
        p->pos++;
    }
    *out = v;
    return 0;
}

static size_t json_put_utf8(char *dst, unsigned cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xc0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xe0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    dst[0] = (char)(0xf0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    dst[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* The length of the UTF-8 sequence at s (n bytes left), or 0 where RFC
 * 3629 forbids it: a stray continuation byte, an overlong form (C0, C1, or
 * E0/F0 with a too-small second byte), a surrogate (ED A0-BF), past
 * U+10FFFF (F4 90 and up, F5-FF), or too few continuation bytes. */
static size_t json_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t len;
    if (c < 0x80) return 1;
    if (c < 0xc2) return 0;
    if (c < 0xe0) {
        len = 2;
    } else if (c < 0xf0) {
        len = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c < 0xf5) {
        len = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return len;
}

/* Decodes the string at p->pos (opening quote) into a fresh buffer. The
 * decoded text is never longer than the escaped one, which bounds it. */
static char *json_string(json_parser *p, size_t *length)
{
    if (json_peek(p) != '"') {
        json_fail(p, "'\"'");
        return NULL;
    }
    p->pos++;
    size_t start = p->pos;
    while (p->pos < p->len && p->text[p->pos] != '"')
        p->pos += p->text[p->pos] == '\\' ? 2 : 1;
    size_t cap = (p->pos < p->len ? p->pos : p->len) - start + 1;
    p->pos = start;
    char *out = malloc(cap);
    if (!out) {
        json_fail(p, "memory for a string");
        return NULL;
    }
    size_t n = 0;
    for (;;) {
        int c = json_peek(p);
        if (c < 0) {
            json_fail(p, "'\"' closing the string");
            goto fail;
        }
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            json_fail(p, "no control characters inside a string (escape them)");
            goto fail;
        }
        if (c != '\\') {
            size_t k = json_utf8_len((const unsigned char *)p->text + p->pos, p->len - p->pos);
            if (k == 0) {
                json_fail(p, "valid UTF-8 inside a string");
                goto fail;
            }
            memcpy(out + n, p->text + p->pos, k);
            n += k;
            p->pos += k;
            continue;
        }
        p->pos++;
        c = json_peek(p);
        char esc;
        switch (c) {
        case '"': esc = '"'; break;
        case '\\': esc = '\\'; break;
        case '/': esc = '/'; break;
        case 'b': esc = '\b'; break;
        case 'f': esc = '\f'; break;
        case 'n': esc = '\n'; break;
        case 'r': esc = '\r'; break;
        case 't': esc = '\t'; break;
        case 'u': esc = 0; break;
        default:
            json_fail(p, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
            goto fail;
        }
        if (esc) {
            out[n++] = esc;
            p->pos++;
            continue;
        }
        p->pos++;
        unsigned cp;
        if (json_hex4(p, &cp))
            goto fail;
        if (cp >= 0xdc00 && cp <= 0xdfff) {
            json_fail(p, "a high surrogate before a low one");
            goto fail;
        }
        if (cp >= 0xd800 && cp <= 0xdbff) {
            unsigned lo;
            if (json_peek(p) != '\\' || p->pos + 1 >= p->len || p->text[p->pos + 1] != 'u') {
                json_fail(p, "a \\u low surrogate after a high one");
                goto fail;
            }
            p->pos += 2;
            if (json_hex4(p, &lo))
                goto fail;
            if (lo < 0xdc00 || lo > 0xdfff) {
                json_fail(p, "a low surrogate (\\uDC00-\\uDFFF)");
                goto fail;
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        n += json_put_utf8(out + n, cp);
    }
    out[n] = '\0';
    *length = n;
    return out;
fail:
    free(out);
    return NULL;
}

static int json_number(json_parser *p, llama_json *v)
{
    size_t start = p->pos;
    int integral = 1;
    if (json_peek(p) == '-')
        p->pos++;
    int c = json_peek(p);
    if (c == '0') {
        p->pos++;
    } else if (c >= '1' && c <= '9') {
        while ((c = json_peek(p)) >= '0' && c <= '9')
            p->pos++;
    } else {
        json_fail(p, "a digit");
        return -1;
    }
    if (json_peek(p) == '.') {
        integral = 0;
        p->pos++;
        if (!((c = json_peek(p)) >= '0' && c <= '9')) {
            json_fail(p, "a digit after '.'");
            return -1;
        }
        while ((c = json_peek(p)) >= '0' && c <= '9')
            p->pos++;
    }
    if (json_peek(p) == 'e' || json_peek(p) == 'E') {
        integral = 0;
        p->pos++;
        if (json_peek(p) == '+' || json_peek(p) == '-')
            p->pos++;
        if (!((c = json_peek(p)) >= '0' && c <= '9')) {
            json_fail(p, "a digit in the exponent");
            return -1;
        }
        while ((c = json_peek(p)) >= '0' && c <= '9')
            p->pos++;
    }
    /* strtod/strtoll need a terminator the caller's text may not have */
    char buf[64];
    size_t n = p->pos - start;
    if (n >= sizeof buf) {
        p->pos = start;
        json_fail(p, "a number of at most 63 characters");
        return -1;
    }
    memcpy(buf, p->text + start, n);
    buf[n] = '\0';
    v->type = LLAMA_JSON_NUMBER;
    v->number = strtod(buf, NULL);
    if (integral) {
        v->integral = 1;
        errno = 0;
        long long i = strtoll(buf, NULL, 10);
        if (errno == 0) {
            v->is_int = 1;
            v->integer = (int64_t)i;
        }
    }
    return 0;
}

static int json_push(json_parser *p, llama_json *v, size_t *cap)
{
    if (v->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        llama_json *items = realloc(v->items, ncap * sizeof *items);
        if (!items) {
            json_fail(p, "memory for a container");
            return -1;
        }
        v->items = items;
        *cap = ncap;
    }
    memset(&v->items[v->count], 0, sizeof v->items[0]);
    v->count++;
    return 0;
}

/* The member names of one object, hashed (open addressing): each name is
 * checked against the earlier ones in constant time, where comparing it
 * with every earlier name made a header of n tensors cost n^2/2 string
 * compares (100 000 tensors: minutes). Names compare with their lengths,
 * so "a\u0000b" and "a" differ. */
typedef struct key_set {
    struct key_slot {
        const char *key; /* owned by the object's item */
        size_t len;
    } *slot;
    size_t cap, used; /* cap: 0, or a power of two at least twice used */
} key_set;

static uint64_t key_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static struct key_slot *key_find(const key_set *s, const char *key, size_t len)
{
    size_t i = (size_t)key_hash(key, len) & (s->cap - 1);
    while (s->slot[i].key && !(s->slot[i].len == len && memcmp(s->slot[i].key, key, len) == 0))
        i = (i + 1) & (s->cap - 1);
    return &s->slot[i];
}

/* 1: added; 0: the object has it already; -1: out of memory */
static int key_set_add(key_set *s, const char *key, size_t len)
{
    if (2 * (s->used + 1) > s->cap) {
        key_set g = {calloc(s->cap ? 2 * s->cap : 16, sizeof *g.slot), s->cap ? 2 * s->cap : 16, s->used};
        if (!g.slot) return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i].key) *key_find(&g, s->slot[i].key, s->slot[i].len) = s->slot[i];
        free(s->slot);
        *s = g;
    }
    struct key_slot *e = key_find(s, key, len);
    if (e->key) return 0;
    *e = (struct key_slot){key, len};
    s->used++;
    return 1;
}

static int json_members(json_parser *p, llama_json *v, int depth, key_set *keys)
{
    int object = json_peek(p) == '{';
    char close = object ? '}' : ']';
    v->type = object ? LLAMA_JSON_OBJECT : LLAMA_JSON_ARRAY;
    size_t cap = 0;
    if (depth >= LLAMA_JSON_MAX_DEPTH) {
        json_fail(p, "nesting of at most 64 levels");
        return -1;
    }
    p->pos++;
    json_skip_ws(p);
    if (json_peek(p) == close) {
        p->pos++;
        return 0;
    }
    for (;;) {
        if (json_push(p, v, &cap))
            return -1;
        llama_json *item = &v->items[v->count - 1];
        if (object) {
            json_skip_ws(p);
            size_t key_pos = p->pos, key_len;
            if (json_peek(p) != '"') {
                json_fail(p, "a member name in double quotes");
                return -1;
            }
            char *key = json_string(p, &key_len);
            if (!key)
                return -1;
            /* a second value for a key would silently win or lose */
            int added = key_set_add(keys, key, key_len);
            if (added <= 0) {
                free(key);
                p->pos = key_pos;
                json_fail(p, added ? "memory for the member names" : "a member name not seen before in this object");
                return -1;
            }
            item->key = key;
            item->key_length = key_len;
            json_skip_ws(p);
            if (json_peek(p) != ':') {
                json_fail(p, "':' after the member name");
                return -1;
            }
            p->pos++;
        }
        if (json_value(p, item, depth + 1))
            return -1;
        json_skip_ws(p);
        int c = json_peek(p);
        if (c == close) {
            p->pos++;
            return 0;
        }
        if (c != ',') {
            json_fail(p, object ? "',' or '}' after an object member" : "',' or ']' after an array item");
            return -1;
        }
        p->pos++;
        json_skip_ws(p);
        if (json_peek(p) == close) {
            json_fail(p, object ? "a member after ','" : "an item after ','");
            return -1;
        }
    }
}

static int json_container(json_parser *p, llama_json *v, int depth)
{
    key_set keys = {0};
    int rc = json_members(p, v, depth, &keys);
    free(keys.slot);
    return rc;
}

static int json_value(json_parser *p, llama_json *v, int depth)
{
    json_skip_ws(p);
    int c = json_peek(p);
    switch (c) {
    case '{':
    case '[':
        return json_container(p, v, depth);
    case '"':
        v->type = LLAMA_JSON_STRING;
        v->string = json_string(p, &v->length);
        return v->string ? 0 : -1;
    case 't':
        v->type = LLAMA_JSON_BOOL;
        v->boolean = 1;
        return json_literal(p, "true");
    case 'f':
        v->type = LLAMA_JSON_BOOL;
        return json_literal(p, "false");
    case 'n':
        v->type = LLAMA_JSON_NULL;
        return json_literal(p, "null");
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return json_number(p, v);
        json_fail(p, "a value");
        return -1;
    }
}

llama_json *llama_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    json_parser p = {text, len, 0, err, errlen, 0};
    llama_json *v = calloc(1, sizeof *v);
    if (!v) {
        json_fail(&p, "memory for the document");
        return NULL;
    }
    if (json_value(&p, v, 0) == 0) {
        json_skip_ws(&p);
        if (p.pos == p.len)
            return v;
        json_fail(&p, "end of input after the value");
    }
    llama_json_free(v);
    return NULL;
}

void llama_json_free(llama_json *v)
{
    if (!v)
        return;
    json_free_items(v);
    free(v);
}

const llama_json *llama_json_get(const llama_json *v, const char *key)
{
    if (!v || v->type != LLAMA_JSON_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < v->count; i++)
        if (v->items[i].key_length == n && memcmp(v->items[i].key, key, n) == 0)
            return &v->items[i];
    return NULL;
}

const char *llama_json_type_name(llama_json_type t)
{
    static const char *const names[] = {"null", "boolean", "number", "string", "array", "object"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

llama_json *llama_json_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            char *t = realloc(text, cap);
            if (!t) {
                snprintf(err, errlen, "%s: out of memory reading it", path);
                goto fail;
            }
            text = t;
        }
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        goto fail;
    }
    fclose(f);
    char msg[256];
    llama_json *v = llama_json_parse(text, len, msg, sizeof msg);
    free(text);
    if (!v)
        snprintf(err, errlen, "%s: %s", path, msg);
    return v;
fail:
    free(text);
    fclose(f);
    return NULL;
}
