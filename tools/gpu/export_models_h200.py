#!/usr/bin/env python3
"""tools/export_models.py under a newer PyTorch (the H200 image's): torch >= 2.9 exports through
dynamo by default, which the script's opset and checks were not written for, so ask for the
TorchScript exporter (dynamo=False) and fall back to torch's default where that fails.
Same arguments as tools/export_models.py."""
import inspect
import os
import sys

import torch

_export = torch.onnx.export


def _export_legacy(*args, **kwargs):
    if "dynamo" in inspect.signature(_export).parameters and "dynamo" not in kwargs:
        try:
            return _export(*args, dynamo=False, **kwargs)
        except Exception as e:  # noqa: BLE001 - report and try torch's default exporter
            print(f"export_models_h200: dynamo=False failed ({type(e).__name__}: {e}); trying the default",
                  file=sys.stderr, flush=True)
    return _export(*args, **kwargs)


torch.onnx.export = _export_legacy
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import export_models  # noqa: E402

if __name__ == "__main__":
    sys.exit(export_models.main())
