#!/usr/bin/env python3
"""PyTorch eager ResNet-50 fp32 latency on the GPU, the peer of `migraphx-driver perf --gpu`:
torchvision resnet50 (random weights), eval, torch.backends.cudnn.benchmark=True, CUDA events
around each forward, warm-up first, median of many runs. Run twice: PyTorch's defaults
(cuDNN may use TF32 for convolutions) and TF32 off (plain fp32, as migx's default).
Usage: bench_torch_resnet50.py [--batches 1,32] [--runs 200]"""
import argparse
import statistics

import torch
import torchvision


def bench(model, batch, runs, warmup=30):
    x = torch.randn(batch, 3, 224, 224, device="cuda")
    with torch.inference_mode():
        for _ in range(warmup):
            model(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(runs):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            model(x)
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e))
    return statistics.median(times), min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--runs", type=int, default=200)
    a = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, cudnn {torch.backends.cudnn.version()}")
    model = torchvision.models.resnet50().cuda().eval()
    for tf32 in (True, False):
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        label = "default(cudnn tf32 on)" if tf32 else "tf32 off"
        for b in [int(x) for x in a.batches.split(",")]:
            med, best = bench(model, b, a.runs)
            print(f"torch eager resnet50 fp32 {label} batch {b}: median {med:.3f} ms, min {best:.3f} ms, "
                  f"{b * 1000.0 / med:.1f} images/s", flush=True)


if __name__ == "__main__":
    main()
