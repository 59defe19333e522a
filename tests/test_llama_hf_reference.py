#!/usr/bin/env python3
# The engine against an independent, plain-Python transcription of Hugging
# Face's LlamaForCausalLM (RMSNorm, rotate-half RoPE, GQA, causal softmax,
# SwiGLU), recomputing the whole sequence every step with no KV cache: a
# bug that every backend would share (RoPE layout, cache positions, head
# mapping) shows up here and nowhere else. A tiny f32 checkpoint (head dim
# 64, 2 query heads on 1 KV head, 2 layers) is written here, in the
# safetensors layout, so the test needs no numpy or torch.
#
# usage: test_llama_hf_reference.py PORTKERN_LLAMA WORKDIR
import json, struct, random, math, sys, os, subprocess
llama, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
H, I, L, NH, NKV, HD, V = 128, 96, 2, 2, 1, 64, 50
theta, eps = 10000.0, 1e-5
cfg = dict(hidden_size=H, intermediate_size=I, num_hidden_layers=L, num_attention_heads=NH,
           num_key_value_heads=NKV, head_dim=HD, vocab_size=V, max_position_embeddings=64,
           rms_norm_eps=eps, rope_theta=theta, tie_word_embeddings=False, model_type="llama")
json.dump(cfg, open(out + "/config.json", "w"))
rng = random.Random(1)
T = {}
def mat(name, r, c, s): T[name] = ([r, c], [[rng.gauss(0, s) for _ in range(c)] for _ in range(r)])
def vec(name, n): T[name] = ([n], [1 + rng.gauss(0, 0.1) for _ in range(n)])
mat("model.embed_tokens.weight", V, H, 1.0)
for l in range(L):
    p = f"model.layers.{l}."
    vec(p + "input_layernorm.weight", H); vec(p + "post_attention_layernorm.weight", H)
    mat(p + "self_attn.q_proj.weight", NH * HD, H, H ** -0.5)
    mat(p + "self_attn.k_proj.weight", NKV * HD, H, H ** -0.5)
    mat(p + "self_attn.v_proj.weight", NKV * HD, H, H ** -0.5)
    mat(p + "self_attn.o_proj.weight", H, NH * HD, (NH * HD) ** -0.5)
    mat(p + "mlp.gate_proj.weight", I, H, H ** -0.5)
    mat(p + "mlp.up_proj.weight", I, H, H ** -0.5)
    mat(p + "mlp.down_proj.weight", H, I, I ** -0.5)
vec("model.norm.weight", H)
mat("lm_head.weight", V, H, H ** -0.5)
# f32 roundtrip so python uses the stored values
def f32(x): return struct.unpack("<f", struct.pack("<f", x))[0]
for k, (sh, d) in T.items():
    T[k] = (sh, [[f32(x) for x in r] for r in d] if len(sh) == 2 else [f32(x) for x in d])
hdr, blob = {}, b""
for k, (sh, d) in T.items():
    flat = [x for r in d for x in r] if len(sh) == 2 else d
    b = struct.pack("<%df" % len(flat), *flat)
    hdr[k] = dict(dtype="F32", shape=sh, data_offsets=[len(blob), len(blob) + len(b)]); blob += b
h = json.dumps(hdr).encode(); h += b" " * ((8 - len(h) % 8) % 8)
open(out + "/model.safetensors", "wb").write(struct.pack("<Q", len(h)) + h + blob)

W = {k: v[1] for k, v in T.items()}
def lin(x, w): return [sum(a * b for a, b in zip(x, r)) for r in w]
def rms(x, w):
    s = 1 / math.sqrt(sum(v * v for v in x) / len(x) + eps); return [v * s * g for v, g in zip(x, w)]
def rope(v, pos):
    o = list(v); h2 = HD // 2
    for i in range(h2):
        a = pos * theta ** (-2 * i / HD); c, s = math.cos(a), math.sin(a)
        o[i] = v[i] * c - v[i + h2] * s; o[i + h2] = v[i + h2] * c + v[i] * s
    return o
def forward(toks):
    xs = [list(W["model.embed_tokens.weight"][t]) for t in toks]
    for l in range(L):
        p = f"model.layers.{l}."
        xn = [rms(x, W[p + "input_layernorm.weight"]) for x in xs]
        q = [lin(x, W[p + "self_attn.q_proj.weight"]) for x in xn]
        k = [lin(x, W[p + "self_attn.k_proj.weight"]) for x in xn]
        v = [lin(x, W[p + "self_attn.v_proj.weight"]) for x in xn]
        q = [[c for h_ in range(NH) for c in rope(qq[h_ * HD:(h_ + 1) * HD], i)] for i, qq in enumerate(q)]
        k = [[c for h_ in range(NKV) for c in rope(kk[h_ * HD:(h_ + 1) * HD], i)] for i, kk in enumerate(k)]
        att = []
        for i in range(len(xs)):
            row = []
            for h_ in range(NH):
                g = h_ // (NH // NKV); qi = q[i][h_ * HD:(h_ + 1) * HD]
                sc = [sum(a * b for a, b in zip(qi, k[j][g * HD:(g + 1) * HD])) / math.sqrt(HD) for j in range(i + 1)]
                m = max(sc); e = [math.exp(s - m) for s in sc]; z = sum(e)
                row += [sum(e[j] / z * v[j][g * HD + d] for j in range(i + 1)) for d in range(HD)]
            att.append(row)
        xs = [[a + b for a, b in zip(x, lin(o, W[p + "self_attn.o_proj.weight"]))] for x, o in zip(xs, att)]
        xn = [rms(x, W[p + "post_attention_layernorm.weight"]) for x in xs]
        mlp = []
        for x in xn:
            gt = lin(x, W[p + "mlp.gate_proj.weight"]); up = lin(x, W[p + "mlp.up_proj.weight"])
            a = [g / (1 + math.exp(-g)) * u for g, u in zip(gt, up)]
            mlp.append(lin(a, W[p + "mlp.down_proj.weight"]))
        xs = [[a + b for a, b in zip(x, m)] for x, m in zip(xs, mlp)]
    return lin(rms(xs[-1], W["model.norm.weight"]), W["lm_head.weight"])
# f32 on ref (f64 accumulation) against f64 Python: only the f32 rounding of
# stored activations differs, ~1e-7 of the logit scale; 1e-5 leaves room
# for libm differences and catches any real mistake (>= 1e-2).
toks = [1, 2, 3, 4]
steps = 5
dump = os.path.join(out, "ref.bin")
res = subprocess.run([llama, "--model", out, "--prompt-ids", " ".join(map(str, toks)), "--max-new", str(steps),
                      "--backend", "ref", "--dump-logits", dump], capture_output=True, text=True)
if res.returncode != 0:
    sys.exit("portkern-llama failed: " + res.stderr)
data = open(dump, "rb").read()
nl = data.index(b"\n")
got = struct.unpack("<%df" % (steps * V), data[nl + 1:])
gen = []
for step in range(steps):
    want = forward(toks)
    row = got[step * V:(step + 1) * V]
    err = max(abs(a - b) for a, b in zip(row, want)) / max(abs(b) for b in want)
    t = max(range(V), key=lambda i: (want[i], -i))
    print("step %d: token %d err %.3g" % (step, t, err))
    if err > 1e-5:
        sys.exit("FAIL: step %d logits off by %.3g of their scale" % (step, err))
    gen.append(t)
    toks.append(t)
line = res.stdout.splitlines()[0]
if line != " ".join(map(str, gen)):
    sys.exit("FAIL: engine generated %s, HF reference %s" % (line, gen))
print("ok: " + line)
