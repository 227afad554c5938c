#!/usr/bin/env python3
"""Where a model's half-precision error grows, layer by layer (GPU machine).

Exports the model as bench/gpu/run.py does, then cuts it at the output of every residual block
(each `Add` followed by `Relu`, and the final output): a cut is the same ONNX graph with that
tensor as its only output (onnx.utils.extract_model). Each cut runs in onnxruntime in float32
(the reference) and in migx --fp16 under each variant; a variant keeps one tuning cache folder
for all its cuts, so a problem gets the same convolution engine in every cut, and a variant named
twice searches twice (what session 45 could not explain: ResNet-50 b32's error moving from one
search to the next with every engine within 1.53x of a single rounding). Prints, per cut and
variant, the relative RMS error and max abs difference against the reference.

  python3 tools/gpu/layer_error.py --migx $inst/bin/migx_gpu_bench --model resnet50:32 \\
      --variants "s1=;s2=;legacy=MIGRAPHX_DISABLE_CUDNN_GRAPH=1" --out $OUT
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
import onnx.utils

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))


def block_outputs(model):
    """The tensors where residual blocks end (Relu of an Add), in graph order, then the output."""
    made_by = {o: n for n in model.graph.node for o in n.output}
    cuts = [n.output[0] for n in model.graph.node
            if n.op_type == "Relu" and made_by.get(n.input[0]) is not None and made_by[n.input[0]].op_type == "Add"]
    return cuts + [o.name for o in model.graph.output if o.name not in cuts]


def cut_model(path, inputs, tensor, folder):
    out = os.path.join(folder, f"cut_{len(os.listdir(folder))}.onnx")
    onnx.utils.extract_model(path, out, inputs, [tensor])
    return out


def reference(path, feeds):
    import onnxruntime as ort
    providers = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in ort.get_available_providers()]
    s = ort.InferenceSession(path, providers=providers)
    return s.run(None, {k: v.numpy() for k, v in feeds.items()})[0].astype(np.float64).reshape(-1)


def errors(got, ref):
    if got is None or got.size != ref.size:
        return "failed"
    d = got.astype(np.float64) - ref
    return f"{np.sqrt(np.mean(d * d) / max(np.mean(ref * ref), 1e-30)):.2e} / {np.max(np.abs(d)):.2e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--migx", required=True)
    ap.add_argument("--work", default="/tmp/gb")
    ap.add_argument("--model", default="resnet50:32")
    ap.add_argument("--variants", default="s1=;s2=")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    import run  # bench/gpu/run.py: model building and export (needs torch)

    os.makedirs(a.work, exist_ok=True)
    name, b = a.model.split(":")
    path = os.path.join(a.work, f"{name}_b{int(b)}.onnx")
    feeds = run.export(run.make_model(name), name, int(b), path)
    variants = run.variant_envs(a.variants)
    folder = tempfile.mkdtemp(prefix="cuts-")
    header = "| cut | tensor | " + " | ".join(f"{v} rel rms / max abs" for v, _ in variants) + " |"
    lines = [header, "|" + "---|" * (2 + len(variants))]
    print(header, flush=True)
    for i, tensor in enumerate(block_outputs(onnx.load(path, load_external_data=False))):
        cut = cut_model(path, list(feeds), tensor, folder)
        ref = reference(cut, feeds)
        row = [str(i), tensor]
        for vname, env in variants:
            _, got, _ = run.run_migx(a.migx, cut, name, feeds, "fp16", a.runs, a.work, env=env,
                                     stderr_path=os.path.join(folder, f"{vname}_{i}.log"))
            row.append(errors(got, ref))
        lines.append("| " + " | ".join(row) + " |")
        print(lines[-1], flush=True)
        os.remove(cut)
    with open(os.path.join(a.out, f"layer_error_{name}_b{b}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
