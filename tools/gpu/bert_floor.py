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
  --floors adds what else an engine runs around the products with library kernels (product_graph),
             or that composition as two half batches, in turn or on two streams (halves, halves||)
  --migx-env times migx again under an environment variable (an A/B in the same rounds)
  products-fp16, products-fp8, products-fp8fast, products-fp8+cast (--floors): the 48 products on
             fixed data in half and in fp8 (tools/gpu/fp8_products.py), with "migx with fp8
             products" estimated as migx - (products-fp16 - products-fp8...); --fp8-accuracy B
             adds BERT-base bB's accuracy with fp8 products against eager fp32
Prints a markdown table: each figure and eager / figure (1.5 is the bar).

usage: bert_floor.py --migx install-gpu/bin/migx_gpu_bench [--work /tmp/gb] [--runs 50] [--rounds 3] [--out F.md]
                     [--floors gemms,gemms+epi+ln+attn,...] [--migx-env LABEL=VAR=VALUE ...] [--fp8-accuracy B]
"""
import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
import run  # noqa: E402

BATCH, SEQ, D, HEADS, FFN, LAYERS = 64, 128, 768, 12, 3072, 12


def product_graph(parts=(), split=1, parallel=False, stagger=False):
    """One CUDA graph of BERT-base b64's products and, by `parts`, what an engine adds around them
    with library kernels: "gelu" (GELU in FFN1's cuBLASLt epilogue), "res" (the residual read as
    the attention-output and FFN2 products' C), "ln" (PyTorch's layer
    norm: the embeddings' and two a layer), "attn" (cuDNN's fused attention, no mask, and the
    heads' transposing copy) or "mask" (scaled_dot_product_attention with an additive padding
    mask, 8 keys of 128 padded, PyTorch's own choice of kernel). Random fp16 weights.
    split > 1 runs the batch as that many equal parts, one after another on one stream, or
    (parallel) each on a stream of its own in the same graph, so that one part's memory-bound
    kernels can overlap another's products; stagger starts each part after the previous part's
    first QKV product rather than all at once (so they are out of step from the start)."""
    g = torch.Generator(device="cuda").manual_seed(3)
    rows = BATCH * SEQ
    part_batch = BATCH // split

    def w(k, n):
        return (torch.randn(k, n, device="cuda", generator=g) / k ** 0.5).half()

    layers = [(w(D, 3 * D), w(D, D), w(D, FFN), w(FFN, D)) for _ in range(LAYERS)]
    bias = {n: torch.zeros(n, device="cuda", dtype=torch.half) for n in (D, 3 * D, FFN)}
    gamma = (1 + 0.1 * torch.randn(D, device="cuda", generator=g)).half()
    beta = (0.1 * torch.randn(D, device="cuda", generator=g)).half()
    x = torch.randn(rows, D, device="cuda", generator=g).half()
    attn_out = torch.randn(rows, D, device="cuda", generator=g).half()
    mask = torch.zeros(BATCH, 1, 1, SEQ, device="cuda", dtype=torch.half)
    mask[:, :, :, SEQ - 8:] = torch.finfo(torch.half).min  # a few padded keys, as a real batch has

    def norm(t):
        return torch.nn.functional.layer_norm(t, (D,), gamma, beta, 1e-12) if "ln" in parts else t

    def attention(qkv, b):
        q, k, v = qkv.view(b, SEQ, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        if "mask" in parts:
            a = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask[:b])
        else:
            with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.CUDNN_ATTENTION):
                a = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        return a.transpose(1, 2).reshape(b * SEQ, D)

    def stack(i, after_first_qkv=None):
        r0, r1 = i * part_batch * SEQ, (i + 1) * part_batch * SEQ
        h = norm(x[r0:r1])
        for n, (wqkv, wo, w1, w2) in enumerate(layers):
            qkv = torch.addmm(bias[3 * D], h, wqkv)
            if n == 0 and after_first_qkv:
                after_first_qkv()
            a = attention(qkv, part_batch) if ("attn" in parts or "mask" in parts) else attn_out[r0:r1]
            res = "res" in parts
            o = norm(torch.addmm(h if res else bias[D], a, wo))
            if "gelu" in parts:
                f = torch._addmm_activation(bias[FFN], o, w1, use_gelu=True)
            else:
                f = torch.addmm(bias[FFN], o, w1)
            h = norm(torch.addmm(o if res else bias[D], f, w2))
        return h

    side = [torch.cuda.Stream() for _ in range(split - 1)] if parallel else []

    def body():
        if not parallel:
            return [stack(i) for i in range(split)]
        main = torch.cuda.current_stream()
        ready = [None] * split  # the event each part's stream waits for before it starts
        out = []

        def starter(i):
            def record():
                if i + 1 < split:
                    e = torch.cuda.Event()
                    e.record()
                    ready[i + 1] = e
            return record if stagger else None

        start = torch.cuda.Event()
        start.record()
        for i in range(split):
            st = main if i == 0 else side[i - 1]
            with torch.cuda.stream(st):
                st.wait_event(ready[i] if (stagger and i > 0) else start)
                out.append(stack(i, starter(i)))
        for st in side:
            main.wait_stream(st)
        return out

    return captured(body)


def captured(body):
    """body() recorded as one CUDA graph after three warm-up calls on a side stream (cuBLAS's and
    cuDNN's first-use set-up stays out of the graph); returns the graph's replay."""
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


def with_env(fn, **env):
    """fn() with these environment variables set (for migx_gpu_bench, a subprocess)."""
    def call():
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            return fn()
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--migx", required=True)
    ap.add_argument("--work", default="/tmp/gb")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default="")
    ap.add_argument("--floors", default="gemms,gemms+attn",
                    help="comma-separated: gemms, gemms+attn, gemms+gelu, gemms+res, gemms+epi, gemms+epi+ln, "
                         "gemms+epi+ln+attn, gemms+epi+ln+maskattn, halves, halves||, halves||stagger, "
                         "products-fp16, products-fp8, products-fp8fast, products-fp8+cast")
    ap.add_argument("--migx-env", action="append", default=[], metavar="LABEL=VAR=VALUE",
                    help="also time migx under this environment variable (repeatable)")
    ap.add_argument("--fp8-accuracy", type=int, default=0, metavar="B",
                    help="also BERT-base bB's accuracy with fp8 products against eager fp32")
    a = ap.parse_args()
    epi = ("gelu", "res")  # the epilogues BERT's products carry
    full = epi + ("ln", "attn")
    floors = {"gemms": (), "gemms+attn": ("attn",), "gemms+gelu": ("gelu",), "gemms+res": ("res",),
              "gemms+epi": epi, "gemms+epi+ln": epi + ("ln",),
              "gemms+epi+ln+attn": full, "gemms+epi+ln+maskattn": epi + ("ln", "mask"),
              # the whole library composition as two half batches: one after the other, on two
              # streams at once, and on two streams out of step by a QKV product
              "halves": (full, 2, False, False), "halves||": (full, 2, True, False),
              "halves||stagger": (full, 2, True, True)}
    fp8_forms = {f"products-{form}": form for form in ("fp16", "fp8", "fp8fast", "fp8+cast")}
    wanted = a.floors.split(",")
    unknown = set(wanted) - set(floors) - set(fp8_forms)
    if unknown:
        ap.error(f"--floors: unknown {', '.join(sorted(unknown))} (known: {', '.join(list(floors) + list(fp8_forms))})")
    variants = []  # (label, variable, value) of each --migx-env
    for v in a.migx_env:
        label, _, setting = v.partition("=")
        var, eq, val = setting.partition("=")
        if not label or not var or not eq:
            ap.error(f"--migx-env {v}: expected LABEL=VAR=VALUE")
        variants.append((label, var, val))
    os.makedirs(a.work, exist_ok=True)

    model = run.make_model("bert")
    onnx_path = os.path.join(a.work, f"bert_b{BATCH}.onnx")  # export_bench_models.py's name
    inputs = run.make_inputs("bert", BATCH)
    if not os.path.exists(onnx_path):
        run.export(model, "bert", BATCH, onnx_path)
    eager = run.torch_runner(model, "bert", inputs, "fp16", False)
    migx_fields = {}  # the last migx run's key=value output: its timed span
    runners = {
        "eager": lambda: run.time_calls(eager, a.runs, a.warmup),
        "migx": lambda: run.run_migx(a.migx, onnx_path, "bert", inputs, "fp16", a.runs, a.work, migx_fields)[0],
    }
    for label, var, val in variants:
        runners[f"migx {label}"] = with_env(runners["migx"], **{var: val})
    for k, parts in floors.items():
        if k in wanted:
            args = parts if parts and isinstance(parts[0], tuple) else (parts,)
            runners[k] = (lambda p: lambda: run.time_calls(product_graph(*p), a.runs, a.warmup))(args)
    if set(wanted) & set(fp8_forms) or a.fp8_accuracy:
        import fp8_products  # imports this module: loaded only where asked for
    for k, form in fp8_forms.items():
        if k in wanted:
            runners[k] = (lambda f: lambda: run.time_calls(fp8_products.products_graph(f), a.runs, a.warmup))(form)
    times = {k: [] for k in runners}
    for r in range(a.rounds):
        order = list(runners) if r % 2 == 0 else list(reversed(runners))
        for k in order:
            start = time.time()
            migx_fields.clear()
            try:
                t = runners[k]()
            except Exception as e:  # noqa: BLE001 (a missing backend: that row says so)
                run.log(f"round {r + 1} {k}: {type(e).__name__}: {e}")
                t = None
            times[k].append(t if t is not None else float("nan"))
            # the wall-clock span, for tools/gpu/power_by_run.py against nvidia-smi's samples:
            # migx_gpu_bench's timed runs where it says (its compile and teardown left out)
            end = time.time()
            if "timed_from_s" in migx_fields and "timed_to_s" in migx_fields:
                start, end = float(migx_fields["timed_from_s"]), float(migx_fields["timed_to_s"])
            run.log(f"round {r + 1} {k}: {times[k][-1]:.3f} ms [{start:.3f} {end:.3f}]")
    lines = [f"BERT-base b{BATCH} s{SEQ} fp16, {torch.cuda.get_device_name()}, torch {torch.__version__}, "
             f"median of {a.runs} calls a round, {a.rounds} rounds (order reversed every other round)", "",
             "| what | ms by round | eager / this (median round) |", "|---|---|---|"]
    med = {k: statistics.median(v) for k, v in times.items()}
    for k, v in times.items():
        lines.append(f"| {k} | {' / '.join(f'{t:.3f}' for t in v)} | {med['eager'] / med[k]:.2f} |")
    for k in fp8_forms:
        if k in med and k != "products-fp16" and "products-fp16" in med:
            est = med["migx"] - (med["products-fp16"] - med[k])
            lines.append(f"| migx with {k}, estimated: migx - (products-fp16 - {k}) | {est:.3f} | "
                         f"{med['eager'] / est:.2f} |")
    if a.fp8_accuracy:
        lines += ["", f"Accuracy against eager fp32, BERT-base b{a.fp8_accuracy} (last hidden state):", "",
                  "| what | against eager fp32 |", "|---|---|"]
        try:
            lines += [f"| {w} | {t} |" for w, t in fp8_products.accuracy_rows(a.fp8_accuracy)]
        except Exception as e:  # noqa: BLE001 (this PyTorch or card has no fp8 products)
            lines.append(f"| fp8 products | failed: {type(e).__name__}: {e} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
