"""Runs one of the spec's Python programs (sections 5.2, 5.3, 5.4, 6, 9.1.3, kept verbatim in
spec/) on a target and checks its result equals the C++ API's (cpp_reference) bit for bit.

The only changes made to a program's text, each checked to apply:
  - "ResNet50.onnx" -> the ResNet-50 that tools/export_models.py exported (the models_export
    fixture); for 9.1.3 a copy whose batch dim is symbolic ("batch_size"), as the spec exports it;
  - "Test.jpg" -> a generated test image (PPM; tests/python/shim/cv2.py reads it when OpenCV is
    not installed);
  - migraphx.get_target("gpu") -> migraphx.get_target(TARGET) when TARGET is not gpu;
  - 5.3 and 5.4 are fragments the spec inserts before compile in 5.2: they are inserted there;
    5.4's fragment calls ReadImage() without arguments and fills an undefined inputData, so it gets
    ReadImage("Test.jpg",inputShape) and inputData={} before it.

usage: run_spec_program.py PROGRAM TARGET MODELS_DIR CPP_REFERENCE WORK_DIR
Exit 77 (skipped): the target is not there, program 6 off the gpu, or the model was not exported.
"""

import io
import os
import subprocess
import sys
import contextlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def skip(msg):
    print("SKIPPED: " + msg)
    sys.exit(SKIP)


def replace_checked(text, old, new, what):
    if old not in text:
        raise SystemExit("run_spec_program: %s: %r not found in the program" % (what, old))
    return text.replace(old, new)


def write_test_image(path, w=320, h=240):
    """A deterministic colour image: gradients plus a few blocks, so every channel varies."""
    y, x = np.mgrid[0:h, 0:w]
    r = (x * 255 // (w - 1)).astype(np.uint8)
    g = (y * 255 // (h - 1)).astype(np.uint8)
    b = (((x // 20) + (y // 20)) % 2 * 200 + 30).astype(np.uint8)
    img = np.stack([r, g, b], axis=-1)
    img[60:120, 80:200] = [250, 40, 10]
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        f.write(img.tobytes())


def dynamic_batch_copy(src, dst):
    import onnx
    m = onnx.load(src)
    for v in list(m.graph.input[:1]) + list(m.graph.output[:1]):
        d = v.type.tensor_type.shape.dim[0]
        d.ClearField("dim_value")
        d.dim_param = "batch_size"
    onnx.save(m, dst)


def program_text(program, model, image, target):
    spec = os.path.join(HERE, "spec")
    read = lambda name: open(os.path.join(spec, name), encoding="utf-8").read()
    if program in ("5.2", "5.3", "5.4"):
        text = read("spec_5_2.py")
        if program != "5.2":
            frag = read("spec_5_3_fragment.py" if program == "5.3" else "spec_5_4_fragment.py")
            if program == "5.4":
                frag = replace_checked(frag, "ReadImage()", 'ReadImage("Test.jpg",inputShape)', "5.4 call")
                frag = "inputData = {}\n" + frag
            frag = "".join("    " + line if line.strip() else line for line in frag.splitlines(True))
            text = replace_checked(text, "    # 编译模型\n", frag + "\n    # 编译模型\n", "5.2 compile")
    else:
        text = read("spec_6.py" if program == "6" else "spec_9_1_3.py")
    text = replace_checked(text, '"ResNet50.onnx"', repr(model), "model")
    text = replace_checked(text, '"Test.jpg"', repr(image), "image")
    if target != "gpu":
        text = replace_checked(text, 'migraphx.get_target("gpu")', 'migraphx.get_target(%r)' % target, "target")
    return text


def main():
    program, target, models, cpp_reference, work = sys.argv[1:6]
    import migraphx
    if target not in migraphx.get_targets():
        skip("target %s is not registered (targets: %s)" % (target, migraphx.get_targets()))
    if program == "6" and target != "gpu":
        skip("program 6 uses device buffers (allocate_gpu/to_gpu/from_gpu): gpu only")
    if program in ("5.3", "5.4") and not hasattr(migraphx, "quantize_fp16"):
        skip("built without quantize_fp16/quantize_int8")
    model = os.path.join(models, "resnet50", "model.onnx")
    if not os.path.exists(model):
        skip("%s was not exported (needs torch; the models_export fixture)" % model)
    os.makedirs(work, exist_ok=True)
    image = os.path.join(work, "Test.ppm")
    write_test_image(image)
    try:
        import cv2  # noqa: F401
    except ImportError:
        sys.path.append(os.path.join(HERE, "shim"))
    if program == "9.1.3":
        dyn = os.path.join(work, "resnet50_dynamic_batch.onnx")
        dynamic_batch_copy(model, dyn)
        model = dyn

    text = program_text(program, model, image, target)
    ns = {"__name__": "__main__"}
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(text, "spec_%s.py" % program.replace(".", "_"), "exec"), ns)
    except migraphx.exception:
        sys.stdout.write(out.getvalue())
        raise
    printed = out.getvalue()
    sys.stdout.write(printed)
    # The program printed its inputs and outputs as the spec shows them.
    if "inputs:\ninput:float_type, {" not in printed or "outputs:\noutput:float_type, {" not in printed:
        raise SystemExit("run_spec_program: unexpected inputs/outputs listing")

    result, image_data = ns["result"], ns["image"]
    assert isinstance(result, np.ndarray) and result.dtype == np.float32, type(result)
    assert np.isfinite(result).all()
    # The same through the C++ API.
    inp, outp = os.path.join(work, "input.bin"), os.path.join(work, "cpp_output.bin")
    np.ascontiguousarray(image_data, dtype=np.float32).tofile(inp)
    cmd = [cpp_reference, model, target, inp, ",".join(map(str, image_data.shape)), outp]
    if program == "5.3":
        cmd.append("fp16")
    elif program == "5.4":
        cmd.append("int8")
    elif program == "9.1.3":
        cmd += ["--map-input-dims", "8,3,224,224"]
    print("running", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    want = np.fromfile(outp, dtype=np.float32).reshape(result.shape)
    if not np.array_equal(result, want):
        diff = np.abs(result.astype(np.float64) - want)
        raise SystemExit("run_spec_program: Python and C++ results differ: max |diff| %g at %s"
                         % (diff.max(), np.unravel_index(diff.argmax(), diff.shape)))
    if program == "9.1.3":
        # The dynamic program at this batch equals a program compiled statically for it.
        static_model = os.path.join(models, "resnet50", "model.onnx")
        static_out = os.path.join(work, "cpp_static_output.bin")
        cmd = [cpp_reference, static_model, target, inp, ",".join(map(str, image_data.shape)), static_out,
               "--map-input-dims", ",".join(map(str, image_data.shape))]
        print("running", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
        static = np.fromfile(static_out, dtype=np.float32).reshape(result.shape)
        if not np.array_equal(result, static):
            raise SystemExit("run_spec_program: the dynamic program's result differs from the static one's: "
                             "max |diff| %g" % np.abs(result.astype(np.float64) - static).max())
        print("spec 9.1.3: batch %d equals the static program's result" % result.shape[0])
    print("spec %s on %s: %s equals the C++ API's result (argmax %d)"
          % (program, target, list(result.shape), int(result.reshape(result.shape[0], -1)[0].argmax())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
