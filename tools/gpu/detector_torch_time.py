"""Times torchvision's Faster / Mask R-CNN as tools/export_zoo.py exports them (same random
weights: same seed), eager PyTorch on the GPU, fp32: the peer for migx's gpu run of the zoo's
faster_rcnn_boxes / mask_rcnn_boxes. Median of --runs wall times (call + synchronize) after warm-up.
    python3 tools/gpu/detector_torch_time.py [--models faster_rcnn_boxes,mask_rcnn_boxes] [--runs 20]"""
import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import export_zoo  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="faster_rcnn_boxes,mask_rcnn_boxes")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    for name in a.models.split(","):
        gen = torch.Generator().manual_seed(a.seed)
        torch.manual_seed(a.seed)
        model, inputs, _ = export_zoo.ZOO[name][0](gen)
        model = model.cuda().eval()
        x = {k: v.cuda() for k, v in inputs.items()}
        times = []
        with torch.no_grad():
            for i in range(a.runs + 3):
                torch.cuda.synchronize()
                t = time.perf_counter()
                out = model(*x.values())
                torch.cuda.synchronize()
                if i >= 3:
                    times.append((time.perf_counter() - t) * 1e3)
        n = len(out[0]) if isinstance(out, (tuple, list)) else "?"
        print(f"{name}: torch eager fp32 {statistics.median(times):.2f} ms (median of {a.runs}; "
              f"{n} detections) on {torch.cuda.get_device_name()}", flush=True)


if __name__ == "__main__":
    main()
