#!/usr/bin/env python3
"""How far migx's half CNN results are from eager fp32 under environment variants (GPU machine).

For each model:batch, exports the model as bench/gpu/run.py does, computes PyTorch's eager fp32
output once (the reference) and PyTorch fp16's own error, then runs migx_gpu_bench --fp16 under
each variant with a fresh tuning cache of its own (so each variant's convolution search runs)
and MIGRAPHX_TRACE_CUDNN=1, the trace kept as OUT/<n>_<variant>_<model>_b<batch>.trace. Prints cos,
max abs and the median time of each.

  python3 tools/gpu/conv_accuracy_ab.py --migx $inst/bin/migx_gpu_bench --work /tmp/gb \\
      --models resnet50:32 --variants "check=;no_check=MIGRAPHX_GPU_ACCURACY_LIMIT=0" --out $OUT
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
import run  # noqa: E402  (bench/gpu/run.py: model building, export, PyTorch runners)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--migx", required=True)
    ap.add_argument("--work", default="/tmp/gb")
    ap.add_argument("--models", default="resnet50:32")
    ap.add_argument("--variants", default="check=;no_check=MIGRAPHX_GPU_ACCURACY_LIMIT=0")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    variants = run.variant_envs(a.variants)
    lines = ["| model | batch | variant | migx ms | compile | vs eager fp32 |", "|---|---|---|---|---|---|"]
    for spec in a.models.split(","):
        name, b = spec.split(":")
        b = int(b)
        model = run.make_model(name)
        path = os.path.join(a.work, f"{name}_b{b}.onnx")
        inputs = run.export(model, name, b, path)
        with torch.inference_mode():
            ref = run.first_output(run.call_model(model, {k: v.cuda() for k, v in inputs.items()})).float().cpu().numpy()
        # PyTorch's own spread: cuDNN's heuristic algorithms, then the ones it times.
        for bench in (False, True):
            torch.backends.cudnn.benchmark = bench
            fp16 = run.torch_runner(model, name, inputs, "fp16", False)
            acc = run.accuracy(run.first_output(fp16()).float().cpu().numpy(), ref)
            lines.append(f"| {name} | {b} | PyTorch fp16, cudnn.benchmark={bench} | - | - | {acc} |")
            model.float()
        for i, (vname, env) in enumerate(variants):
            env["MIGRAPHX_TRACE_CUDNN"] = "1"
            trace = os.path.join(a.out, f"{i}_{vname}_{name}_b{b}.trace")
            ms, out, note = run.run_migx(a.migx, path, name, inputs, "fp16", a.runs, a.work, env=env, stderr_path=trace)
            acc = run.accuracy(out, ref) if out is not None else note
            lines.append(f"| {name} | {b} | {vname} | {'-' if ms is None else f'{ms:.3f}'} | {note} | {acc} |")
            print(lines[-1], flush=True)
        del model
        torch.cuda.empty_cache()
    with open(os.path.join(a.out, "conv_accuracy.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
