/* A small strict JSON reader (RFC 8259) for HF config.json and safetensors
 * headers: the whole text becomes a tree of llama_json values. */
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
    int boolean;        /* BOOL */
    double number;      /* NUMBER */
    /* NUMBER written without fraction or exponent and within int64: its exact
     * value (tensor offsets can pass 2^53, where double loses digits) */
    int is_int;
    int64_t integer;
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

/* The member `key` of an object; NULL if v is not an object or lacks it. */
const llama_json *llama_json_get(const llama_json *v, const char *key);
/* Name of a type for messages: "null", "boolean", "number", ... */
const char *llama_json_type_name(llama_json_type t);

#endif
