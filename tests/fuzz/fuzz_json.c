/* libFuzzer harness: the JSON reader (examples/llama/llama_json.c) on
 * arbitrary bytes. Contract: llama_json_parse returns a tree or NULL with a
 * message, never reads outside text[0..len) (the input is an exact-size
 * heap copy, so ASan sees one byte over), and what it returns is sound:
 * strings are NUL-terminated at their length and valid UTF-8, containers
 * hold what they count, only object members have names, an exact integer
 * is the number it says. A refusal says where. A violation abort()s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama_json.h"

/* The reader promises valid UTF-8 out; checked here with a decoder of our
 * own rather than the reader's, so one bug cannot hide in both. */
static int utf8_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i], need, cp;
        if (c < 0x80) { i++; continue; }
        if ((c & 0xe0) == 0xc0) { need = 1; cp = c & 0x1f; }
        else if ((c & 0xf0) == 0xe0) { need = 2; cp = c & 0x0f; }
        else if ((c & 0xf8) == 0xf0) { need = 3; cp = c & 0x07; }
        else return 0;
        if (i + need >= n) return 0;
        for (unsigned k = 1; k <= need; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return 0;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        static const unsigned min[] = {0, 0x80, 0x800, 0x10000};
        if (cp < min[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
        i += need + 1;
    }
    return 1;
}

static void check(const llama_json *v, int depth)
{
    if (depth > 65) abort(); /* the reader caps nesting at 64 */
    switch (v->type) {
    case LLAMA_JSON_NULL:
    case LLAMA_JSON_BOOL:
        break;
    case LLAMA_JSON_NUMBER:
        if (v->is_int && (!v->integral || (double)v->integer != v->number)) abort();
        break;
    case LLAMA_JSON_STRING:
        if (!v->string || v->string[v->length] != '\0' || !utf8_ok((const unsigned char *)v->string, v->length))
            abort();
        break;
    case LLAMA_JSON_ARRAY:
    case LLAMA_JSON_OBJECT:
        if (v->count && !v->items) abort();
        for (size_t i = 0; i < v->count; i++) {
            const llama_json *it = &v->items[i];
            if ((v->type == LLAMA_JSON_OBJECT) != (it->key != NULL)) abort();
            if (it->key && (it->key[it->key_length] != '\0' ||
                            !utf8_ok((const unsigned char *)it->key, it->key_length)))
                abort();
            check(it, depth + 1);
        }
        break;
    default:
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    err[0] = '\0';
    llama_json *v = llama_json_parse((const char *)data, size, err, sizeof err);
    if (v) check(v, 0);
    else if (strncmp(err, "json: line ", 11) != 0) abort(); /* a refusal always says where */
    llama_json_free(v);
    return 0;
}
