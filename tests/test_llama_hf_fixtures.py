#!/usr/bin/env python3
# portkern-llama against Hugging Face transformers' own logits
# (tests/hf_fixtures: tiny checkpoints saved by transformers 4.x and 5.x,
# Llama with each RoPE type, Qwen2, Mistral, windows, biases, tied and
# sharded). Each fixture's sequence is teacher-forced (--force-ids) on ref
# and every other backend present, and each step's logits must lie within
# twice transformers' same-precision error of its float64 logits plus a
# floor (test_llama_logits_cmp --hf). Then: the stop tokens of
# generation_config.json end greedy generation where transformers' would,
# and every deliberately broken config or checkpoint is refused with the
# key's name.
#
# usage: test_llama_hf_fixtures.py PORTKERN_LLAMA LOGITS_CMP FIXTURES WORKDIR
# PK_LLAMA_BACKENDS: the backends besides ref (default "opencl cuda hip").
import json, os, shutil, subprocess, sys

llama, cmp, fixtures, work = sys.argv[1:5]
backends = ["ref"] + os.environ.get("PK_LLAMA_BACKENDS", "opencl cuda hip").split()
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def ids(v):
    return " ".join(str(i) for i in v)


def run(model, ref, backend, extra, out=None):
    cmd = [llama, "--model", model, "--prompt-ids", ids(ref["prompt_ids"]), "--backend", backend] + extra
    if out:
        cmd += ["--dump-logits", out]
    return subprocess.run(cmd, capture_output=True, text=True)


names = sorted(d for d in os.listdir(fixtures) if os.path.exists(os.path.join(fixtures, d, "reference.json")))
for name in names:
    fx = os.path.join(fixtures, name)
    ref = json.load(open(os.path.join(fx, "reference.json")))
    dt = ref["dtype"]
    for b in backends:
        dump = os.path.join(work, "%s-%s.bin" % (name, b.replace(":", "-")))
        p = run(fx, ref, b, ["--force-ids", ids(ref["forced_ids"])], dump)
        if p.returncode == 3:
            print("%s %s: skipped (%s)" % (name, b, p.stderr.strip().splitlines()[-1]))
            continue
        if p.returncode != 0:
            failures.append("%s %s: exit %d: %s" % (name, b, p.returncode, p.stderr.strip()))
            print("FAIL " + failures[-1])
            continue
        c = subprocess.run([cmp, "--hf", dt, os.path.join(fx, "logits-f64.bin"), os.path.join(fx, "logits-same.bin"),
                            dump], capture_output=True, text=True)
        last = (c.stdout.strip().splitlines() or ["(no output)"])[-1]
        print("%s %s: %s" % (name, b, last))
        if c.returncode != 0:
            failures.append("%s %s: %s%s" % (name, b, c.stdout, c.stderr))

# Stop tokens: greedy decoding on ref must stop right after the first eos
# that transformers' float64 greedy run produced (the fixtures' eos ids are
# chosen to occur in it), and --ignore-eos must go on to the end.
for name in names:
    fx = os.path.join(fixtures, name)
    ref = json.load(open(os.path.join(fx, "reference.json")))
    if ref["dtype"] != "f32":
        continue  # bf16 logits may part from float64's argmax
    eos = ref["eos_token_id"]
    eos = set(eos if isinstance(eos, list) else [] if eos is None else [eos])
    g = ref["greedy_ids"]
    stop = next((i + 1 for i, t in enumerate(g) if t in eos), len(g))
    for extra, want in ((["--max-new", str(len(g))], g[:stop]), (["--max-new", str(len(g)), "--ignore-eos"], g)):
        p = run(fx, ref, "ref", extra)
        got = [int(t) for t in p.stdout.splitlines()[0].split()] if p.returncode == 0 and p.stdout else None
        if got != want:
            failures.append("%s %s: generated %s, transformers %s (%s)" % (name, " ".join(extra), got, want,
                                                                           p.stderr.strip()))
            print("FAIL " + failures[-1])
    if stop < len(g):
        print("%s: stops after %d tokens at eos %d, as transformers does" % (name, stop, g[stop - 1]))


# Broken copies of fixtures: each must fail to load, naming the key (or
# tensor) at fault.
def broken(base, edit_config=None, edit_dir=None, gen=None):
    broken.count += 1
    d = os.path.join(work, "bad-%d-%s" % (broken.count, base))
    shutil.copytree(os.path.join(fixtures, base), d)
    if edit_config:
        cfg = json.load(open(os.path.join(d, "config.json")))
        edit_config(cfg)
        # JSON has no infinity: 1e999 is written as the number a file would hold
        text = json.dumps(cfg).replace("Infinity", "1e999")
        open(os.path.join(d, "config.json"), "w").write(text)
    if gen is not None:
        json.dump(gen, open(os.path.join(d, "generation_config.json"), "w"))
    if edit_dir:
        edit_dir(d)
    return d


broken.count = 0


def setp(path, value):
    def edit(cfg):
        obj = cfg
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return edit


def both(*edits):
    def edit(cfg):
        for e in edits:
            e(cfg)
    return edit


def drop(key):
    return lambda cfg: cfg.pop(key, None)


bad = [
    ("llama-v5-default", 'rope_parameters.rope_type: "longrope"', setp(["rope_parameters", "rope_type"], "longrope")),
    ("llama-v4-llama3", 'rope_scaling.rope_type: "su"', setp(["rope_scaling", "rope_type"], "su")),
    ("llama-v5-default", "rope_parameters.partial_rotary_factor: 0.5",
     setp(["rope_parameters", "partial_rotary_factor"], 0.5)),
    ("llama-v4-llama3", "rope_scaling: given beside rope_parameters", setp(["rope_parameters"], {"rope_theta": 1e4})),
    ("llama-v5-default", 'hidden_act: "gelu"', setp(["hidden_act"], "gelu")),
    ("llama-v5-default", 'model_type: "gemma"', setp(["model_type"], "gemma")),
    ("llama-v5-default", "model_type: missing", drop("model_type")),
    ("llama-v5-default", "quantization_config", setp(["quantization_config"], {"quant_method": "awq"})),
    ("llama-v5-default", "head_dim: 32 x num_attention_heads 2", setp(["head_dim"], 32)),
    ("llama-v5-default", 'dtype: "bfloat16" disagrees with model.embed_tokens.weight',
     setp(["dtype"], "bfloat16")),
    ("llama-v4-llama3", 'torch_dtype: "float16" disagrees with model.embed_tokens.weight',
     both(drop("dtype"), setp(["torch_dtype"], "float16"))),
    ("llama-v5-default", 'torch_dtype: "bfloat16" disagrees with dtype', setp(["torch_dtype"], "bfloat16")),
    ("llama-v5-default", "tie_word_embeddings: true, but the checkpoint has its own lm_head.weight",
     setp(["tie_word_embeddings"], True)),
    ("llama-v5-llama3", "tie_word_embeddings: false (or absent), but lm_head.weight is missing",
     setp(["tie_word_embeddings"], False)),
    ("llama-v5-default", "sliding_window: 4 is below the context", setp(["sliding_window"], 4)),
    ("llama-v5-default", "model.layers.0.self_attn.q_proj.bias", setp(["attention_bias"], True)),
    ("llama-v5-default", "model.layers.0.mlp.down_proj.bias", setp(["mlp_bias"], True)),
    ("qwen2-v5-window", 'layer_types: "chunked_attention" is not supported',
     setp(["layer_types"], ["full_attention", "chunked_attention"])),
    ("llama-v5-default", "rope_parameters.rope_theta: must be finite", setp(["rope_parameters", "rope_theta"], 1e999)),
]
for base, needle, edit in bad:
    d = broken(base, edit_config=edit)
    ref = json.load(open(os.path.join(d, "reference.json")))
    p = run(d, ref, "ref", ["--max-new", "9"])
    if p.returncode != 1 or needle not in p.stderr:
        failures.append("%s: want exit 1 naming '%s', got %d: %s" % (d, needle, p.returncode, p.stderr.strip()))
        print("FAIL " + failures[-1])
    else:
        print("refused as expected: %s" % p.stderr.strip().splitlines()[-1])

d = broken("llama-v5-default", gen={"eos_token_id": [2, 128]})
p = run(d, json.load(open(os.path.join(d, "reference.json"))), "ref", ["--max-new", "2"])
if p.returncode != 1 or "generation_config.json: eos_token_id: 128" not in p.stderr:
    failures.append("eos out of vocab: got %d: %s" % (p.returncode, p.stderr.strip()))
    print("FAIL " + failures[-1])
else:
    print("refused as expected: %s" % p.stderr.strip().splitlines()[-1])

# The comparison must be able to fail: the llama3 fixture read as plain
# RoPE (what the engine did before it read rope_parameters) is caught.
d = broken("llama-v5-llama3", edit_config=setp(["rope_parameters", "rope_type"], "default"))
ref = json.load(open(os.path.join(d, "reference.json")))
p = run(d, ref, "ref", ["--force-ids", ids(ref["forced_ids"])], os.path.join(d, "ours.bin"))
c = subprocess.run([cmp, "--hf", "f32", os.path.join(d, "logits-f64.bin"), os.path.join(d, "logits-same.bin"),
                    os.path.join(d, "ours.bin")], capture_output=True, text=True)
if p.returncode != 0 or c.returncode != 1:
    failures.append("llama3 read as default RoPE: run %d, comparison %d (want a failed comparison)"
                    % (p.returncode, c.returncode))
    print("FAIL " + failures[-1])
else:
    print("llama3 read as default RoPE fails the comparison, as it must: %s"
          % next(l for l in c.stdout.splitlines() if l.startswith("FAIL")))

print("%d failures" % len(failures) if failures else "ok")
sys.exit(1 if failures else 0)
