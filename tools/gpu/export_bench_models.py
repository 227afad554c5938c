#!/usr/bin/env python3
"""Exports bench/gpu/run.py's models without timing anything: DIR name:batch ...
(e.g. /tmp/gb resnet50:1 resnet50:32 bert:64) -> DIR/<name>_b<batch>.onnx."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
import run  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = {}
    for item in sys.argv[2:]:
        name, batch = item.split(":")
        if name not in models:
            models[name] = run.make_model(name)
        path = os.path.join(out, f"{name}_b{batch}.onnx")
        run.export(models[name], name, int(batch), path)
        print(path, os.path.getsize(path), flush=True)


if __name__ == "__main__":
    main()
