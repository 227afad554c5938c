"""BERT-base b64's products in fp8, for tools/gpu/bert_floor.py: what would fp8 products buy
issue 7's last bar (BERT-base b64 fp16 >= 1.5x PyTorch eager), and what would they cost in
accuracy? (Whether to allow them is steering's question; this gives it numbers.)

products_graph(form): the 48 products (BERT-base b64's four shapes x 12 layers) in one CUDA graph:
  fp16      torch.addmm with bias: half in, half out (cuBLAS)
  fp8       torch._scaled_mm: e4m3 operands already cast (as an engine would have the producing
            kernel write them), one scale a tensor, bias, half out
  fp8fast   the same with Hopper's fast accumulation (use_fast_accum)
  fp8+cast  fp8, each product's activation cast to e4m3 by kernels of its own first
  All read the same fixed random activations, so the forms see the same data (a power-limited
  card's speed depends on the values).
accuracy_rows(batch): run.py's BERT-base in fp16 with every Linear's product in fp8 (the
  activation's scale from its own maximum each call, the weight's from its maximum; bias and
  output in half) against eager fp32: cos and max abs, beside eager fp16's own.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

from bert_floor import BATCH, D, FFN, LAYERS, SEQ, captured  # noqa: E402

E4M3 = getattr(torch, "float8_e4m3fn", None)  # None before PyTorch 2.1: to_e4m3 says so
E4M3_MAX = 448.0
FORMS = ("fp16", "fp8", "fp8fast", "fp8+cast")
SHAPES = [(D, 3 * D), (D, D), (D, FFN), (FFN, D)]  # (k, n) of QKV, attention output, FFN1, FFN2


def to_e4m3(t):
    """(t cast to e4m3 with one scale, the scale as a float tensor): t / scale fits e4m3's range."""
    if E4M3 is None:
        raise RuntimeError(f"PyTorch {torch.__version__} has no float8_e4m3fn (2.1 or later has)")
    scale = (t.abs().amax().float() / E4M3_MAX).clamp(min=1e-12)
    return (t.float() / scale).to(E4M3), scale


def scaled_mm(a8, sa, b8t, sb, bias, fast=False):
    """a8 [m, k] row-major e4m3 times b8t [k, n] column-major e4m3, scaled, plus bias, in half;
    fast: Hopper's fast accumulation (partial sums kept at lower precision, as TensorRT allows)."""
    return torch._scaled_mm(a8, b8t, scale_a=sa, scale_b=sb, bias=bias, out_dtype=torch.half,
                            use_fast_accum=fast)


def products_graph(form):
    """One CUDA graph of the 48 products in `form` (one of FORMS); returns its replay."""
    g = torch.Generator(device="cuda").manual_seed(5)
    rows = BATCH * SEQ
    acts = {k: (torch.randn(rows, k, device="cuda", generator=g)).half() for k in (D, FFN)}
    layers = []
    for _ in range(LAYERS):
        ws = []
        for k, n in SHAPES:
            w = (torch.randn(n, k, device="cuda", generator=g) / k ** 0.5).half()  # [n, k], as nn.Linear
            w8, sw = to_e4m3(w)
            ws.append((w, w8.t(), sw, torch.zeros(n, device="cuda", dtype=torch.half)))
        layers.append(ws)
    acts8 = {k: to_e4m3(v) for k, v in acts.items()}
    outs = {n: torch.empty(rows, n, device="cuda", dtype=torch.half) for _, n in SHAPES}  # fp16's

    def body():
        for ws in layers:
            for (k, n), (w, w8t, sw, bias) in zip(SHAPES, ws):
                if form == "fp16":
                    torch.addmm(bias, acts[k], w.t(), out=outs[n])
                else:
                    a8, sa = acts8[k] if form != "fp8+cast" else (
                        (acts[k] / acts8[k][1]).to(E4M3), acts8[k][1])  # the cast, at a known scale
                    scaled_mm(a8, sa, w8t, sw, bias, fast=form == "fp8fast")

    return captured(body)


class Fp8Linear(torch.nn.Module):
    """nn.Linear's product in fp8: the weight cast once, the input each call, both with one scale."""
    def __init__(self, lin, fast):
        super().__init__()
        self.fast = fast
        w8, self.sw = to_e4m3(lin.weight.detach())
        self.w8t = w8.t()
        self.bias = lin.bias.detach().half() if lin.bias is not None else None
        self.n = lin.out_features

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        a8, sa = to_e4m3(x2)
        return scaled_mm(a8, sa, self.w8t, self.sw, self.bias, self.fast).reshape(*x.shape[:-1], self.n)


def swap_linears(m, fast):
    for name, child in m.named_children():
        if isinstance(child, torch.nn.Linear):
            setattr(m, name, Fp8Linear(child, fast))
        else:
            swap_linears(child, fast)
    return m


def accuracy_rows(batch):
    """[(what, accuracy text)] of eager fp16 and fp8-products BERT-base against eager fp32."""
    inputs = run.make_inputs("bert", batch)
    model = run.make_model("bert")
    with torch.inference_mode():
        ref = run.first_output(run.torch_runner(model, "bert", inputs, "fp32", False)()).float().cpu().numpy()
        half = run.first_output(run.torch_runner(model, "bert", inputs, "fp16", False)()).float().cpu().numpy()
    rows = [("eager fp16", run.accuracy(half, ref))]
    for fast in (False, True):
        model8 = swap_linears(run.make_model("bert").half(), fast)  # make_model seeds: the same weights
        with torch.inference_mode():
            got = run.first_output(run.torch_runner(model8, "bert", inputs, "fp16", False)()).float().cpu().numpy()
        rows.append((f"fp16 with fp8 products{', fast accumulation' if fast else ''}", run.accuracy(got, ref)))
    return rows
