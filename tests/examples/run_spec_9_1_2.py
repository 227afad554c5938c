"""Runs the spec's C++ program 9.1.2 (dynamic batch: shapes {1,3,224,224} then {2,3,224,224} on a
model compiled once with maximum {8,3,224,224}) and checks each printed output against a program
compiled statically for that batch.

In the work directory the program finds what it opens by the spec's names: ResNet50.onnx (the
exported ResNet-50 with its batch dim made symbolic, as spec 9.1.1 exports it) and Test.jpg (a
generated 224x224 PPM image, which the OpenCV shim reads). The static reference
(tests/python/cpp_reference.cpp) gets the same NCHW blob, computed here as blobFromImages does:
(BGR pixel - 127.5) * 0.0078125, exact in float32. The program prints with %f, so the check is
equality to the 6 decimals printed.

usage: run_spec_9_1_2.py PROGRAM TARGET MODELS_DIR CPP_REFERENCE WORK_DIR    (exit 77: skipped)
"""
import os
import shutil
import subprocess
import sys

import numpy as np


def main():
    program, target, models, reference, work = sys.argv[1:6]
    static_model = os.path.join(models, "resnet50", "model.onnx")
    if not os.path.exists(static_model):
        print("SKIPPED: %s was not exported (needs torch)" % static_model)
        return 77
    if target == "gpu" and not os.path.exists("/dev/nvidiactl"):
        print("SKIPPED: no CUDA device")
        return 77
    import onnx
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    m = onnx.load(static_model)
    for v in list(m.graph.input[:1]) + list(m.graph.output[:1]):
        d = v.type.tensor_type.shape.dim[0]
        d.ClearField("dim_value")
        d.dim_param = "batch_size"
    onnx.save(m, os.path.join(work, "ResNet50.onnx"))
    y, x = np.mgrid[0:224, 0:224]
    rgb = np.stack([x * 255 // 223, y * 255 // 223, ((x // 16 + y // 16) % 2) * 200 + 30], axis=-1).astype(np.uint8)
    with open(os.path.join(work, "Test.jpg"), "wb") as f:
        f.write(b"P6\n224 224\n255\n" + rgb.tobytes())

    out = subprocess.run([program], cwd=work, capture_output=True, text=True, timeout=800)
    sys.stdout.write(out.stdout[:2000] + ("...\n" if len(out.stdout) > 2000 else ""))
    sys.stderr.write(out.stderr)
    if out.returncode != 0:
        print("FAIL: the program exited with %d" % out.returncode)
        return 1
    lines = out.stdout.splitlines()
    if "inputs:" not in lines or not any(l.startswith("input:float_type, {1..8, 3, 224, 224}") for l in lines):
        print("FAIL: the inputs listing does not show the dynamic batch 1..8")
        return 1
    sizes = [int(l.split(":")[1]) for l in lines if l.startswith("output size:")]
    values = [l for l in lines if l.endswith(",") and not l.startswith("output size")]
    if sizes != [1000, 2000] or len(values) != 2:
        print("FAIL: expected outputs of 1000 and 2000 values, got sizes %s" % sizes)
        return 1

    bgr = rgb[:, :, ::-1].astype(np.float32)
    one = ((bgr - np.float32(127.5)) * np.float32(0.0078125)).transpose(2, 0, 1)[None]
    for batch, printed in zip((1, 2), values):
        got = np.array([float(v) for v in printed.rstrip(",").split(",")], dtype=np.float64)
        blob = np.ascontiguousarray(np.repeat(one, batch, axis=0), dtype=np.float32)
        inp, outp = os.path.join(work, "input%d.bin" % batch), os.path.join(work, "static%d.bin" % batch)
        blob.tofile(inp)
        dims = "%d,3,224,224" % batch
        subprocess.run([reference, static_model, target, inp, dims, outp, "--map-input-dims", dims], check=True)
        want = np.fromfile(outp, dtype=np.float32).astype(np.float64)
        # %f rounds to 6 decimals: the printed value is the static one, rounded. On gpu the reference
        # runs in another process, whose cuDNN algorithm search may pick other (equally valid)
        # algorithms: there the bar is fp32 agreement, not the same bits.
        diff = np.abs(got - np.round(want, 6))
        limit = 1.5e-6 if target != "gpu" else 1.5e-6 + 1e-4 * np.abs(want).max()
        if want.size != got.size or diff.max() > limit:
            print("FAIL: batch %d differs from the static program: max |diff| %g" % (batch, diff.max()))
            return 1
        print("batch %d: the dynamic program's %d values equal the static program's (max |diff| %g, limit %g)"
              % (batch, got.size, diff.max(), limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
