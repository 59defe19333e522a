/* A small strict JSON reader (RFC 8259) for HF config.json and safetensors
 * headers: the whole text becomes a tree of llama_json values.
 *
 * Strings must be valid UTF-8 (RFC 3629: no overlong forms, no encoded
 * surrogates, nothing past U+10FFFF, no truncated sequence or stray
 * continuation byte), and a \uXXXX surrogate must be a high one followed
 * by a low one: a string either reader could decode differently is
 * refused, so decoded strings are always valid UTF-8 (\u0000 included, as
 * a NUL byte that `length` counts). */
#ifndef LLAMA_JSON_H
#define LLAMA_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum llama_json_type {
    LLAMA_JSON_NULL,
    LLAMA_JSON_BOOL,
    LLAMA_JSON_NUMBER,
    LLAMA_JSON_STRING,
    LLAMA_JSON_ARRAY,
    LLAMA_JSON_OBJECT
} llama_json_type;

typedef struct llama_json llama_json;
struct llama_json {
    llama_json_type type;
    const char *key;    /* member name when this value sits in an object, else NULL */
    size_t key_length;  /* its bytes: a name may hold \u0000, so strlen(key) can be less */
    int boolean;        /* BOOL */
    double number;      /* NUMBER */
    /* NUMBER written without fraction or exponent and within int64: its exact
     * value (tensor offsets can pass 2^53, where double loses digits) */
    int is_int;
    int64_t integer;
    /* NUMBER written without fraction or exponent, whatever its size: with
     * !is_int, an integer past int64 (so a message can say out of range
     * rather than not an integer) */
    int integral;
    const char *string; /* STRING: decoded UTF-8, NUL-terminated */
    size_t length;      /* STRING: bytes (the text may hold \u0000) */
    size_t count;       /* ARRAY, OBJECT: number of items */
    llama_json *items;  /* ARRAY, OBJECT: items in text order */
};

/* Parses text[0..len) as one JSON value (surrounding whitespace allowed).
 * Returns the tree, or NULL with err set to "json: line L column C (offset O):
 * expected X, found Y". Duplicate object keys are an error. */
llama_json *llama_json_parse(const char *text, size_t len, char *err, size_t errlen);
void llama_json_free(llama_json *v);
/* Reads and parses a whole file; errors start with the path. */
llama_json *llama_json_load(const char *path, char *err, size_t errlen);

/* The member `key` of an object; NULL if v is not an object or lacks it.
 * Names compare whole: "a\u0000b" is not the member "a". */
const llama_json *llama_json_get(const llama_json *v, const char *key);
/* Name of a type for messages: "null", "boolean", "number", ... */
const char *llama_json_type_name(llama_json_type t);

#endif
