#!/usr/bin/env python3
"""PyTorch's attention beside portkern's, on the shapes of a bench report.

Reads the report.json of `portkern bench --suite ... --out DIR` (run first,
in the same device call), times torch.nn.functional.scaled_dot_product_attention
through its cuDNN and flash backends on each attention case's shape and
dtype, and prints a markdown table: portkern's median (from the report),
each peer's median, and the ratios peer time / portkern time (above 1:
portkern faster). FLOP/s use the report's own count for the case, so both
sides are measured against the same work.

Timing is the bench's: the median over intervals of back-to-back calls,
each interval at least 0.25 ms (CUDA events).

Layouts: the peers take [batch, heads, seq, dim] tensors (GQA through
enable_gqa); values are random normal. PyTorch's is_causal aligns the mask
to the top left, portkern's to the bottom right: the same mask only where
sq == skv, so a causal case with sq != skv is reported n/a for the peers.

--list prints the cases it would time and needs no PyTorch (a CI check of
the report's format). Usage:
  torch_attention_peers.py [--reps N] [--list] REPORT.json [REPORT.json ...]
"""
import argparse
import json
import sys


def attention_cases(paths):
    """The attention cases of the reports, once each (a report has a row per
    platform), in report order: (name, dtype, shape dict, flops, {platform: ms})."""
    cases = {}
    for path in paths:
        with open(path) as f:
            report = json.load(f)
        for row in report["results"]:
            if row["op"] != "attention":
                continue
            c = cases.setdefault(row["case"], {"dtype": row["dtype"], "shape": row["shape"], "flops": row["flops"], "ms": {}})
            if row["status"] == "ok" and row["ms"] > 0:
                c["ms"][row["platform"]] = row["ms"]
    return cases


def peer_shape_ok(shape):
    """None when the peers compute the same attention, else why not."""
    if shape["causal"] and shape["sq"] != shape["skv"]:
        return "causal with sq != skv: PyTorch's mask is top-left aligned"
    if shape["hq"] % shape["hkv"]:
        return "hq not a multiple of hkv"
    return None


def time_ms(torch, fn, reps):
    """Median ms a call over `reps` intervals of back-to-back calls, each at
    least 0.25 ms."""

    def interval(calls):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end)

    fn()
    torch.cuda.synchronize()
    calls = 1
    while interval(calls) < 0.25 and calls < 1 << 16:
        calls *= 2
    times = sorted(interval(calls) / calls for _ in range(reps))
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--platform", default="cuda:0", help="portkern's platform in the report (default cuda:0)")
    ap.add_argument("--list", action="store_true", help="print the cases and their shapes, time nothing")
    args = ap.parse_args()
    cases = attention_cases(args.reports)
    if not cases:
        print("no attention case in the report(s)", file=sys.stderr)
        return 1
    if args.list:
        for name, c in cases.items():
            s = c["shape"]
            print(f"{name}: {c['dtype']} B{s['batch']} Hq{s['hq']} Hkv{s['hkv']} Sq{s['sq']} Skv{s['skv']} "
                  f"D{s['d']} causal={s['causal']}" + (f" (peers n/a: {peer_shape_ok(s)})" if peer_shape_ok(s) else ""))
        return 0

    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dtypes = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    backends = [("cuDNN", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name()}, CUDA {torch.version.cuda}; "
          f"median of {args.reps} intervals of back-to-back calls (>= 0.25 ms each)")
    print()
    print("| case | portkern ms | TFLOP/s | cuDNN ms | TFLOP/s | flash ms | TFLOP/s | cuDNN/portkern | flash/portkern |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, c in cases.items():
        s, ours = c["shape"], c["ms"].get(args.platform)
        why = peer_shape_ok(s)
        peers = {}
        for label, be in backends:
            if why:
                peers[label] = "n/a"
                continue
            try:
                dt = dtypes[c["dtype"]]
                q = torch.randn(s["batch"], s["hq"], s["sq"], s["d"], device="cuda", dtype=dt)
                k = torch.randn(s["batch"], s["hkv"], s["skv"], s["d"], device="cuda", dtype=dt)
                v = torch.randn_like(k)
                gqa = s["hq"] != s["hkv"]
                with sdpa_kernel(be):
                    peers[label] = time_ms(torch, lambda: F.scaled_dot_product_attention(
                        q, k, v, is_causal=bool(s["causal"]), enable_gqa=gqa), args.reps)
                del q, k, v
            except Exception as ex:  # a backend that does not take the shape says why
                peers[label] = "failed: " + str(ex).split("\n")[0][:60]

        def cell(ms):
            return f"{ms:.4g}" if isinstance(ms, float) else ms

        def rate(ms):
            return f"{c['flops'] / (ms * 1e-3) / 1e12:.1f}" if isinstance(ms, float) and ms > 0 else ""

        def ratio(ms):
            return f"{ms / ours:.2f}" if isinstance(ms, float) and ours else ""

        print(f"| {name} | {cell(ours) if ours else 'n/a'} | {rate(ours) if ours else ''} | "
              f"{cell(peers['cuDNN'])} | {rate(peers['cuDNN'])} | {cell(peers['flash'])} | {rate(peers['flash'])} | "
              f"{ratio(peers['cuDNN'])} | {ratio(peers['flash'])} |", flush=True)
        if why:
            print(f"<!-- {name}: peers n/a: {why} -->")
    return 0


if __name__ == "__main__":
    sys.exit(main())
