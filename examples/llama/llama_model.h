/* A Llama-architecture model resident on one portkern device: every weight
 * uploaded once, in one dtype, and described as a pk_tensor ready for the
 * forward pass. */
#ifndef LLAMA_MODEL_H
#define LLAMA_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "llama_config.h"
#include "portkern.h"

typedef struct llama_layer {
    pk_tensor attn_norm, ffn_norm;     /* [H] */
    pk_tensor wq, wo;                  /* [Hq*hd, H], [H, Hq*hd] */
    pk_tensor wkv;                     /* [2 Hkv*hd, H]: k_proj's rows, then v_proj's */
    pk_tensor w_gate_up;               /* [2 I, H]: gate_proj's rows, then up_proj's */
    pk_tensor w_down;                  /* [H, I] */
    /* biases where the config has them, else .buf NULL: [Hq*hd], [2 Hkv*hd], [H], [2 I], [H] */
    pk_tensor b_q, b_kv, b_o, b_gate_up, b_down;
} llama_layer;

typedef struct llama_model {
    llama_config cfg;
    pk_context *ctx;
    pk_dtype dtype;          /* of every weight and every activation */
    pk_tensor embed;         /* [V, H] */
    pk_tensor final_norm;    /* [H] */
    pk_tensor lm_head;       /* [V, H]; the embedding itself when tied */
    llama_layer *layers;     /* cfg.num_hidden_layers */
    pk_tensor inv_freq;      /* f32 [head_dim / 2]: the checkpoint's RoPE frequencies */
    double qk_scale;         /* the scores' factor besides 1/sqrt(head_dim) (YaRN) */
    pk_buffer **bufs;        /* every buffer this model allocated */
    size_t n_bufs;
} llama_model;

/* Reads DIR's config and weights and uploads them to ctx. The model's dtype
 * is the one config.json names; every tensor must be stored in it. Without
 * one it is the embedding's, and a tensor stored in another dtype is
 * converted on the host while loading (portkern's row ops want one dtype
 * per op). Returns 0, or -1 with err naming the file, key, tensor or call
 * at fault. */
int llama_model_load(pk_context *ctx, const char *dir, llama_model *out, char *err, size_t errlen);
void llama_model_free(llama_model *m);

#endif
