#!/usr/bin/env python3
"""migx against PyTorch on the GPU, in one run on one machine (issue 7's benchmark).

For each model and batch: export it with this machine's PyTorch (random weights, batch-norm
statistics re-estimated on random images so fp16 has realistic magnitudes), then time
  - migx (bench/gpu/migx_gpu_bench: offload_copy=false, CUDA graph replay on by default),
  - PyTorch eager (channels-last for CNNs, cudnn.benchmark),
  - torch.compile(mode="reduce-overhead") where asked (it compiles for a minute per shape),
in fp32 and fp16, each the median of --runs runs after warm-up. Every time is the host's wall time
of one call that returns with the result in device memory (the call, then synchronize), the
same for each engine. fp32 here is PyTorch's default (cuDNN may use TF32 for convolutions) and
migx's default. Accuracy: migx's first output against PyTorch eager fp32 on the same inputs
(cosine similarity, max abs error), beside PyTorch eager's own error at that precision.
Precision fp16+fp8: migx with quantize_fp16 then quantize_fp8 (e4m3 operands for the products
by weights, calibrated on random batches), beside PyTorch in fp16: its own row, another
accuracy class, never an fp16 figure.

usage (on the GPU machine, from the repository root):
  run.py --migx install-gpu/bin/migx_gpu_bench --models resnet50,mobilenetv2,bert \
         [--batches resnet50=1,32,256;mobilenetv2=1,32,256;bert=1,8,64] [--precisions fp32,fp16,fp16+fp8] \
         [--compile resnet50:1:fp16,resnet50:32:fp16,...|all|none] [--runs 100] [--work DIR] [--out FILE.md]
"""
import argparse
import datetime
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

DEFAULT_BATCHES = "resnet50=1,32,256;mobilenetv2=1,32,256;bert=1,8,64;lstm=1,64;speech_gru=1,64;crnn=1,32"
# The recurrent models of the zoo (tools/export_zoo.py), where PyTorch eager runs cuDNN's RNN kernels:
# lstm [32 steps, N, 64] (2 layers, hidden 128), speech_gru [50 steps, N, 80] (2 bidirectional GRU
# layers), crnn [N, 1, 32, 128] (convs, then a 2-layer bidirectional LSTM over 32 steps).
RECURRENT = ("lstm", "speech_gru", "crnn")
CNN = ("resnet50", "mobilenetv2", "crnn")
# The comparisons issue 7 is judged on; torch.compile takes about a minute per entry.
DEFAULT_COMPILE = "resnet50:1:fp16,resnet50:32:fp16,mobilenetv2:256:fp16,bert:1:fp16"
BERT_SEQ = 128


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---- models ---------------------------------------------------------------------------------

def reestimate_bn(model, make_batch, steps=4):
    """Batch-norm running statistics from random inputs (random weights leave them at 0/1, and
    a deep net's activations then grow or vanish layer by layer)."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # a plain average over the steps
    model.train()
    with torch.no_grad():
        for _ in range(steps):
            model(make_batch())
    model.eval()


def perturb_affine(model):
    """A trained model's LayerNorm scales and shifts and its linear biases are not the 1, 0 and 0
    that a fresh transformers model starts with: with those, the engine's simplifier folds them
    away (no scale-and-shift after each layernorm, no bias epilogues) and the benchmark would time
    a lighter network than any real BERT. Draw them around their usual values instead."""
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.LayerNorm) and m.weight is not None:
                m.weight.copy_(1 + 0.1 * torch.randn(m.weight.shape, generator=g))
                m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=g))
            elif isinstance(m, torch.nn.Linear) and m.bias is not None:
                m.bias.copy_(0.02 * torch.randn(m.bias.shape, generator=g))
    return model


def make_model(name):
    torch.manual_seed(0)
    if name in ("resnet50", "mobilenetv2"):
        import torchvision
        m = torchvision.models.resnet50() if name == "resnet50" else torchvision.models.mobilenet_v2()
        m = m.cuda()
        reestimate_bn(m, lambda: torch.randn(16, 3, 224, 224, device="cuda"))
        return m.eval()
    if name == "bert":
        try:
            from transformers import BertConfig, BertModel
            cfg = BertConfig()  # BERT-base: 12 layers, 768 hidden, 12 heads, 3072 FFN
            m = perturb_affine(BertModel(cfg, add_pooling_layer=False)).cuda().eval()
            m.config.return_dict = False
            return m
        except ImportError:
            return perturb_affine(own_bert()).cuda().eval()
    if name in RECURRENT:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
        import export_zoo
        if name == "lstm":
            m = export_zoo.em.LstmModel()
        elif name == "speech_gru":
            m = export_zoo.SpeechGru()
        else:
            m = export_zoo.Crnn()
            reestimate_bn(m, lambda: torch.randn(4, 1, 32, 128))
        return m.cuda().eval()
    raise SystemExit(f"unknown model {name}")


def own_bert(layers=12, d=768, heads=12, ffn=3072, vocab=30522):
    """BERT-base's shape where transformers is missing: embeddings, post-LN encoder, GELU."""
    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = torch.nn.Embedding(vocab, d)
            self.pos = torch.nn.Embedding(512, d)
            self.ln = torch.nn.LayerNorm(d)
            layer = torch.nn.TransformerEncoderLayer(d, heads, ffn, activation="gelu", batch_first=True)
            self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

        def forward(self, ids, mask):
            pos = torch.arange(ids.shape[1], device=ids.device)
            x = self.ln(self.tok(ids) + self.pos(pos))
            return self.enc(x, src_key_padding_mask=mask == 0)
    return Encoder()


def make_inputs(name, batch):
    g = torch.Generator().manual_seed(1234 + batch)
    if name == "bert":
        ids = torch.randint(0, 30000, (batch, BERT_SEQ), generator=g)
        mask = torch.ones(batch, BERT_SEQ, dtype=torch.int64)
        return {"input_ids": ids, "attention_mask": mask}
    if name == "lstm":
        return {"input": torch.randn(32, batch, 64, generator=g)}
    if name == "speech_gru":
        return {"input": torch.randn(50, batch, 80, generator=g)}
    if name == "crnn":
        return {"input": torch.randn(batch, 1, 32, 128, generator=g)}
    return {"input": torch.randn(batch, 3, 224, 224, generator=g)}


def call_model(model, inputs):
    """model(**inputs) for transformers' BERT (its forward takes more than these two
    positionally), model(*inputs) for the rest."""
    if getattr(model, "config", None) is not None:
        return model(**inputs)
    return model(*inputs.values())


class Positional(torch.nn.Module):
    """The exporter passes inputs positionally; BERT wants them by name."""
    def __init__(self, model, names):
        super().__init__()
        self.model, self.names = model, names

    def forward(self, *args):
        return call_model(self.model, dict(zip(self.names, args)))


def export(model, name, batch, path):
    inputs = make_inputs(name, batch)
    args = tuple(v.cuda() for v in inputs.values())
    # Exporting restores the module's training flag afterwards: the wrapper must be in eval
    # mode too, or the model comes back in training mode (batch-norm on batch statistics,
    # dropout on) and every later reference is wrong.
    model = Positional(model, list(inputs)).eval()
    kw = {}
    import inspect
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kw["dynamo"] = False
    torch.onnx.export(model, args, path, input_names=list(inputs), output_names=["output"],
                      opset_version=17, do_constant_folding=True, **kw)
    return inputs


# ---- timing ---------------------------------------------------------------------------------

def time_calls(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


def torch_runner(model, name, inputs, precision, compiled):
    m = model
    xs = [v.cuda() for v in inputs.values()]
    if name in CNN:
        m = m.to(memory_format=torch.channels_last)
        xs = [x.to(memory_format=torch.channels_last) for x in xs]
    if precision.startswith("fp16"):  # fp16+fp8: PyTorch runs fp16, the nearest it has
        m = m.half()
        xs = [x.half() if x.is_floating_point() else x for x in xs]
    if compiled:
        m = torch.compile(m, mode="reduce-overhead")

    names = list(inputs)

    def call():
        with torch.inference_mode():
            return call_model(m, dict(zip(names, xs)))
    return call


def first_output(r):
    while isinstance(r, (tuple, list)):
        r = r[0]
    return r


def run_migx(exe, onnx_path, name, inputs, precision, runs, work, fields=None, env=None, stderr_path=None):
    """(median ms, first output, note) of migx_gpu_bench; `fields`, a dict, if given, receives
    all of its key=value output (e.g. timed_from_s, timed_to_s); `env`, if given, is its
    environment, and `stderr_path` a file that keeps its stderr (a trace)."""
    cmd = [exe, onnx_path, "--runs", str(runs)]
    if precision.startswith("fp16"):
        cmd.append("--fp16")
    if precision == "fp16+fp8":  # quantize_fp8's products (opt-in; another accuracy class)
        cmd.append("--fp8")
    for k, v in inputs.items():
        f = os.path.join(work, f"{k}.bin")
        v.numpy().tofile(f)
        cmd += ["--input", f"{k}={f}"]
    out_file = os.path.join(work, "migx_out.bin")
    cmd += ["--save-output", out_file]
    err = open(stderr_path, "w") if stderr_path else subprocess.PIPE
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True, timeout=180, env=env)
    except subprocess.TimeoutExpired:
        return None, None, "timed out after 180 s"
    finally:
        if stderr_path:
            err.close()
    if p.returncode != 0:
        return None, None, (p.stderr or f"failed (stderr: {stderr_path})").strip().splitlines()[-1]
    out = dict(kv.split("=", 1) for kv in p.stdout.split() if "=" in kv)
    if fields is not None:
        fields.update(out)
    return float(out["median_ms"]), np.fromfile(out_file, dtype=np.float32), f"compile {out['compile_ms']} ms"


def variant_envs(text):
    """[(name, environment)] of "name=VAR=value VAR=value;name2=..." (the tools' --variants): each
    the process's environment plus its variables and a fresh kernel and tuning cache folder of its
    own, so that each variant searches afresh (a name given twice searches twice)."""
    import tempfile
    out = []
    for v in text.split(";"):
        name, _, envs = v.partition("=")
        env = dict(os.environ)
        env.update(dict(e.split("=", 1) for e in envs.split() if e))
        env["MIGRAPHX_GPU_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"migx-{name}-")
        out.append((name, env))
    return out


def accuracy(got, ref):
    if got is None or ref is None or got.size != ref.size:
        return "n/a"
    ref = ref.reshape(-1).astype(np.float64)
    got = got.reshape(-1).astype(np.float64)
    cos = float(np.dot(got, ref) / (np.linalg.norm(got) * np.linalg.norm(ref) + 1e-30))
    return f"cos {cos:.6f}, max abs {np.max(np.abs(got - ref)):.2e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--migx", required=True)
    ap.add_argument("--models", default="resnet50,mobilenetv2,bert")
    ap.add_argument("--batches", default=DEFAULT_BATCHES)
    ap.add_argument("--precisions", default="fp32,fp16")
    ap.add_argument("--compile", default=DEFAULT_COMPILE)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--work", default="/tmp/migx-gpu-bench")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    batches = {k: [int(b) for b in v.split(",")] for k, v in (x.split("=") for x in a.batches.split(";"))}
    compile_set = set(a.compile.split(",")) if a.compile not in ("all", "none", "") else set()

    header = (f"# migx vs PyTorch, {torch.cuda.get_device_name()}, {datetime.date.today()}\n\n"
              f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}; wall time per call "
              f"(call + synchronize), median of {a.runs}; ratio = peer / migx (> 1: migx faster).\n\n"
              "| model | batch | prec | migx ms | eager ms | compile ms | eager/migx | compile/migx | migx items/s | migx vs eager fp32 |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n")
    rows = []
    print(header, end="", flush=True)
    # Written row by row, so a run cut short by a time limit still leaves its rows.
    out = open(a.out, "w") if a.out else None
    if out:
        out.write(header)
        out.flush()
    for name in a.models.split(","):
        model = make_model(name)
        for b in batches[name]:
            path = os.path.join(a.work, f"{name}_b{b}.onnx")
            inputs = export(model, name, b, path)
            with torch.inference_mode():
                ref = first_output(call_model(model, {k: v.cuda() for k, v in inputs.items()})).float().cpu().numpy()
            for prec in a.precisions.split(","):
                key = f"{name}:{b}:{prec}"
                migx_ms, migx_out, note = run_migx(a.migx, path, name, inputs, prec, a.runs, a.work)
                runner = torch_runner(model, name, inputs, prec, False)
                eager_ms = time_calls(runner, a.runs, a.warmup)
                torch_acc = accuracy(first_output(runner()).float().cpu().numpy(), ref)
                comp_ms = None
                if a.compile == "all" or key in compile_set:
                    try:
                        comp_ms = time_calls(torch_runner(model, name, inputs, prec, True), a.runs, a.warmup)
                    except Exception as e:  # noqa: BLE001 - a peer failing is a table entry
                        log(f"torch.compile {key}: {type(e).__name__}: {e}")
                model.float()
                torch._dynamo.reset()
                f = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
                r = lambda p: "-" if p is None or migx_ms is None else f"{p / migx_ms:.2f}"  # noqa: E731
                rate = "-" if migx_ms is None else f"{b * 1000.0 / migx_ms:.0f}"
                acc = (accuracy(migx_out, ref) if migx_ms is not None else note) + f" (PyTorch {prec}: {torch_acc})"
                row = f"| {name} | {b} | {prec} | {f(migx_ms)} | {f(eager_ms)} | {f(comp_ms)} | {r(eager_ms)} | {r(comp_ms)} | {rate} | {acc} |"
                rows.append(row)
                print(row, flush=True)
                if out:
                    out.write(row + "\n")
                    out.flush()
                log(f"{key}: migx {note}")
        del model
        torch.cuda.empty_cache()
    if out:
        out.close()


if __name__ == "__main__":
    main()
