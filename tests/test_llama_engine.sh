#!/bin/sh
# portkern-llama end to end: a seeded random checkpoint (preset small: the
# smallest whose head dim, 64, every attention kernel takes), greedy
# decoding on ref, then on every other backend present, compared step by
# step with test_llama_logits_cmp; then the errors for a missing tensor.
#
# Each backend also runs with --graph (decode steps replayed from a graph):
# compared with ref the same way on CUDA and HIP, refused elsewhere.
#
# usage: test_llama_engine.sh MAKE LLAMA CMP WORKDIR
# PK_LLAMA_BACKENDS replaces the list compared with ref (default
# "opencl cuda hip"), e.g. "cuda:0 hip:0 opencl:1" to name NVIDIA's OpenCL
# where PoCL is OpenCL device 0.
set -eu
make=$1 llama=$2 cmp=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
prompt="1 2 3 4 5 6 7"

for dt in f32 bf16; do
    ck=$work/ck-$dt
    "$make" --out "$ck" --preset small --seed 1 --dtype $dt >/dev/null
    "$llama" --model "$ck" --prompt-ids "$prompt" --max-new 12 --backend ref \
        --dump-logits "$work/ref-$dt.bin" >"$work/ref-$dt.txt"
    echo "$dt ref:    $(head -n 1 "$work/ref-$dt.txt")"
    for b in ${PK_LLAMA_BACKENDS:-opencl cuda hip}; do
        rc=0
        "$llama" --model "$ck" --prompt-ids "$prompt" --max-new 12 --backend $b \
            --dump-logits "$work/${b%%:*}-$dt.bin" >"$work/${b%%:*}-$dt.txt" 2>"$work/${b%%:*}-$dt.err" || rc=$?
        if [ $rc = 3 ]; then
            echo "$dt $b: skipped ($(tail -n 1 "$work/${b%%:*}-$dt.err"))"
            continue
        fi
        [ $rc = 0 ] || { cat "$work/${b%%:*}-$dt.err"; exit 1; }
        echo "$dt $b: $(head -n 1 "$work/${b%%:*}-$dt.txt")"
        "$cmp" $dt "$work/ref-$dt.bin" "$work/${b%%:*}-$dt.bin"
        # decode steps recorded as a graph and replayed: the same check
        # where the backend records graphs, a clear failure where not
        rc=0
        "$llama" --model "$ck" --prompt-ids "$prompt" --max-new 12 --backend $b --graph \
            --dump-logits "$work/${b%%:*}-$dt-graph.bin" >"$work/${b%%:*}-$dt-graph.txt" \
            2>"$work/${b%%:*}-$dt-graph.err" || rc=$?
        case ${b%%:*} in
        cuda|hip)
            [ $rc = 0 ] || { cat "$work/${b%%:*}-$dt-graph.err"; exit 1; }
            echo "$dt $b graph: $(head -n 1 "$work/${b%%:*}-$dt-graph.txt")"
            "$cmp" $dt "$work/ref-$dt.bin" "$work/${b%%:*}-$dt-graph.bin" ;;
        *)
            if [ $rc != 1 ] || ! grep -q PK_ERR_UNSUPPORTED "$work/${b%%:*}-$dt-graph.err"; then
                echo "FAIL: $b --graph: want exit 1 with PK_ERR_UNSUPPORTED, got $rc: $(cat "$work/${b%%:*}-$dt-graph.err")"
                exit 1
            fi
            echo "$dt $b graph: refused as expected ($(tail -n 1 "$work/${b%%:*}-$dt-graph.err" | cut -c1-100))" ;;
        esac
    done
done

# A checkpoint that lacks a tensor the config asks for must fail with its
# name: one layer more than stored, and untied embeddings without lm_head.
expect_error() { # DIR TEXT
    rc=0
    "$llama" --model "$1" --prompt-ids 1 --max-new 1 --backend ref >/dev/null 2>"$work/err.txt" || rc=$?
    if [ $rc != 1 ] || ! grep -q "$2" "$work/err.txt"; then
        echo "FAIL: $1: want exit 1 naming $2, got $rc: $(cat "$work/err.txt")"
        exit 1
    fi
    echo "error as expected: $(cat "$work/err.txt")"
}
cp -r "$work/ck-f32" "$work/ck-layers"
sed -i 's/"num_hidden_layers": 4/"num_hidden_layers": 5/' "$work/ck-layers/config.json"
expect_error "$work/ck-layers" "model.layers.4.input_layernorm.weight"
"$make" --out "$work/ck-tied" --preset small --seed 1 --dtype f32 --tie >/dev/null
sed -i 's/"tie_word_embeddings": true/"tie_word_embeddings": false/' "$work/ck-tied/config.json"
expect_error "$work/ck-tied" "lm_head.weight"
echo "ok"
