#!/usr/bin/env python3
"""Writes the seed corpora under tests/fuzz/corpus/ (committed; rerun after
changing a harness's input format). Deterministic: the same files every
run. Seeds are starting points, not tests: each is a well-formed input a
harness should take, so the fuzzer begins from the accepted paths."""
import json
import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, "corpus")
fixtures = os.path.join(here, "..", "hf_fixtures")


def put(fuzzer, name, data):
    d = os.path.join(corpus, fuzzer)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def safetensors(tensors, metadata=None, pad=True):
    """tensors: (name, dtype, shape) in data order; data is a counting byte
    pattern. The header is padded with spaces to a multiple of 8, as the
    reference writer does."""
    size = {"F32": 4, "F16": 2, "BF16": 2}
    header, at = {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape in tensors:
        n = size[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + n]}
        at += n
    h = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + bytes(i & 0xFF for i in range(at))


def main():
    # config.json and generation_config.json of every fixture (first byte: which file)
    for name in sorted(os.listdir(fixtures)):
        for i, fn in enumerate(("config.json", "generation_config.json")):
            p = os.path.join(fixtures, name, fn)
            if os.path.isfile(p):
                text = open(p, "rb").read()
                put("fuzz_config", f"{name}-{fn}", bytes([i]) + text)
                if i == 0 and name in ("llama-v5-llama3", "qwen2-v5-window", "llama-v4-linear-sharded"):
                    put("fuzz_json", f"{name}-{fn}", text)
    idx = os.path.join(fixtures, "llama-v4-linear-sharded", "model.safetensors.index.json")
    put("fuzz_json", "index.json", open(idx, "rb").read())
    put("fuzz_json", "strings.json",
        '{"a":"x\\n\\t\\"\\\\\\/\\b\\f\\r","u":"\\u00e9\\ud83d\\ude00\\u0000","raw":"caf\u00e9 \U0001F600",'
        '"n":[0,-0,1.5e-3,-2E+10,9007199254740993,9223372036854775807,-9223372036854775808,1e999],'
        '"t":[true,false,null,{},[],""]}')
    put("fuzz_json", "nested.json", "[[[[{\"a\":[[[{}]]]}]]]]")

    st = "fuzz_safetensors"
    put(st, "one.safetensors", safetensors([("w", "F32", [2, 3])]))
    put(st, "mixed.safetensors", safetensors(
        [("model.embed_tokens.weight", "BF16", [8, 4]), ("model.norm.weight", "F16", [4]),
         ("lm_head.weight", "F32", [8, 4]), ("x.scalar", "F32", [])], {"format": "pt"}))
    put(st, "empty-tensors.safetensors", safetensors(
        [("a", "F32", [0, 4]), ("b", "F16", [2]), ("c", "BF16", [4, 0]), ("d", "F32", [1, 1, 1, 2])]))
    put(st, "metadata-only.safetensors", safetensors([], {"format": "pt", "note": "no tensors"}))
    put(st, "unpadded.safetensors", safetensors([("w", "F16", [3])], pad=False))
    # corpus/fuzz_safetensors/empty-tensors-sharing-an-offset.safetensors is
    # a fuzzer's find, not written here: empty tensors at the offset where a
    # non-empty one starts (an early harness took that for an overlap)

    # API byte strings: the op, then bytes that pick its problem (see fuzz_api_ref.c)
    ops = ["gemm", "attention", "rmsnorm", "layernorm", "glu", "bias_act", "softmax", "rope", "chain",
           "copy", "fill"]
    for op, name in enumerate(ops):
        for k in (1, 3, 6):
            put("fuzz_api_ref", f"{name}-{k}", bytes([op]) + bytes([k]) * 96)


if __name__ == "__main__":
    sys.exit(main())
