#!/usr/bin/env python3
"""How close can any engine get to issue 7's BERT-base b64 fp16 bar (>= 1.5x PyTorch eager)?

In one process on the GPU machine, alternating by round, each timed as bench/gpu/run.py times an
engine (the host's wall time of call + synchronize, median of --runs after --warmup):
  eager      PyTorch eager BERT-base (run.py's model and inputs)
  migx       bench/gpu/migx_gpu_bench on run.py's export (a subprocess; its own median)
  gemms      the 48 products alone, cuBLAS (torch.addmm with bias) in one CUDA graph: 12 x
             (QKV 768->2304, attention output 768->768, FFN1 768->3072, FFN2 3072->768) on
             [64*128, 768] rows: the floor for an engine that runs these products with cuBLAS
  gemms+attn the same graph plus cuDNN's fused attention (no mask) after each QKV product
Prints a markdown table: each figure and eager / figure (1.5 is the bar).

usage: bert_floor.py --migx install-gpu/bin/migx_gpu_bench [--work /tmp/gb] [--runs 50] [--rounds 3] [--out F.md]
"""
import argparse
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
import run  # noqa: E402

BATCH, SEQ, D, HEADS, FFN, LAYERS = 64, 128, 768, 12, 3072, 12


def product_graph(with_attention):
    """One CUDA graph of BERT-base b64's products (and attention), random fp16 weights."""
    g = torch.Generator(device="cuda").manual_seed(3)
    rows = BATCH * SEQ

    def w(k, n):
        return (torch.randn(k, n, device="cuda", generator=g) / k ** 0.5).half()

    layers = [(w(D, 3 * D), w(D, D), w(D, FFN), w(FFN, D)) for _ in range(LAYERS)]
    bias = {n: torch.zeros(n, device="cuda", dtype=torch.half) for n in (D, 3 * D, FFN)}
    x = torch.randn(rows, D, device="cuda", generator=g).half()
    attn_out = torch.randn(rows, D, device="cuda", generator=g).half()

    def body():
        h = x
        for wqkv, wo, w1, w2 in layers:
            qkv = torch.addmm(bias[3 * D], h, wqkv)
            if with_attention:
                q, k, v = qkv.view(BATCH, SEQ, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
                with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.CUDNN_ATTENTION):
                    a = torch.nn.functional.scaled_dot_product_attention(q, k, v)
                a = a.transpose(1, 2).reshape(rows, D)
            else:
                a = attn_out  # contiguous, as an attention kernel leaves it
            o = torch.addmm(bias[D], a, wo)
            f = torch.addmm(bias[FFN], o, w1)
            h = torch.addmm(bias[D], f, w2)
        return h

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s), torch.inference_mode():
        for _ in range(3):
            body()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.inference_mode():
        body()
    return graph.replay


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--migx", required=True)
    ap.add_argument("--work", default="/tmp/gb")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)

    model = run.make_model("bert")
    onnx_path = os.path.join(a.work, f"bert_b{BATCH}.onnx")  # export_bench_models.py's name
    inputs = run.make_inputs("bert", BATCH)
    if not os.path.exists(onnx_path):
        run.export(model, "bert", BATCH, onnx_path)
    eager = run.torch_runner(model, "bert", inputs, "fp16", False)
    runners = {
        "eager": lambda: run.time_calls(eager, a.runs, a.warmup),
        "migx": lambda: run.run_migx(a.migx, onnx_path, "bert", inputs, "fp16", a.runs, a.work)[0],
        "gemms": lambda: run.time_calls(product_graph(False), a.runs, a.warmup),
        "gemms+attn": lambda: run.time_calls(product_graph(True), a.runs, a.warmup),
    }
    times = {k: [] for k in runners}
    for r in range(a.rounds):
        order = list(runners) if r % 2 == 0 else list(reversed(runners))
        for k in order:
            try:
                t = runners[k]()
            except Exception as e:  # noqa: BLE001 (a missing backend: that row says so)
                run.log(f"round {r + 1} {k}: {type(e).__name__}: {e}")
                t = None
            times[k].append(t if t is not None else float("nan"))
            run.log(f"round {r + 1} {k}: {times[k][-1]:.3f} ms")
    lines = [f"BERT-base b{BATCH} s{SEQ} fp16, {torch.cuda.get_device_name()}, torch {torch.__version__}, "
             f"median of {a.runs} calls a round, {a.rounds} rounds (order reversed every other round)", "",
             "| what | ms by round | eager / this (median round) |", "|---|---|---|"]
    eager_ms = statistics.median(times["eager"])
    for k, v in times.items():
        m = statistics.median(v)
        lines.append(f"| {k} | {' / '.join(f'{t:.3f}' for t in v)} | {eager_ms / m:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
