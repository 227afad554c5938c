#!/usr/bin/python3
"""End-to-end tests of migraphx-driver: runs the built binary on the models gen_models.py wrote
and checks the output format and numbers. Usage: test_driver.py DRIVER MODELS SOURCE_DIR TEST"""
import os
import re
import sys
import tempfile

import driver_testlib as lib
from driver_testlib import (INSTRUCTION, NUMBER, SHAPE, check, check_error, close, lines, outputs_of, parse_perf,
                            parse_trace, check_trace, check_perf_figures, project_version, run)

DRIVER, MODELS, SOURCE = sys.argv[1], sys.argv[2], sys.argv[3]
lib.DRIVER = DRIVER
ADD = os.path.join(MODELS, "add_relu.onnx")
CONV = os.path.join(MODELS, "conv_relu.onnx")


def has_target(name):
    """Whether the driver was built with target `name` (version's Targets: line)."""
    targets = next(l for l in lines(run("version")) if l.startswith("Targets: "))
    return name in targets[len("Targets: "):].split(", ")


def has_header(name):
    return os.path.exists(os.path.join(SOURCE, "include", "migraphx", name))


def test_read():
    out = lines(run("read", ADD))
    check(out[0] == "Reading: " + ADD, "read starts with Reading: FILE")
    check(out[1] == 'module: "main"', "read prints the main module")
    check("x = @param:x -> float_type, {1, 3, 4, 4}, {48, 16, 4, 1}" in out, "read prints parameter x")
    body = [l for l in out[2:] if l]
    for l in body:
        check(INSTRUCTION.match(l), "instruction line format: " + l)
    check(any(re.search(r"= add\(x,y\) -> float_type, \{1, 3, 4, 4\}", l) for l in body), "add(x,y) printed")
    check(any(re.search(r"= relu\(main:@\d+\)", l) for l in body), "relu printed")
    check(any("@return(" in l for l in body), "@return printed")
    same = lines(run("read", "--onnx", ADD))
    check(same == out, "read --onnx FILE is read FILE")
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "p.txt")
        p = run("read", ADD, "--output", f)
        check(lines(p) == ["Reading: " + ADD], "read --output writes nothing else to stdout")
        check(open(f).read().splitlines() == out[1:], "read --output FILE holds the program")
    conv = lines(run("read", CONV, "--input-dim", "@x", "2", "3", "8", "8"))
    check("x = @param:x -> float_type, {2, 3, 8, 8}, {192, 64, 8, 1}" in conv, "--input-dim sets x's dims")
    check(any("convolution[" in l and "-> float_type, {2, 2, 6, 6}" in l for l in conv), "conv shape follows")


def test_params():
    out = lines(run("params", ADD))
    want = ["Reading: " + ADD, "inputs:",
            "x: float_type, {1, 3, 4, 4}, {48, 16, 4, 1}", "y: float_type, {1, 3, 4, 4}, {48, 16, 4, 1}", "",
            "outputs:", "z: float_type, {1, 3, 4, 4}, {48, 16, 4, 1}", "sum: float_type, {1, 3, 4, 4}, {48, 16, 4, 1}"]
    check(out == want, "params output:\n" + "\n".join(out))
    out = lines(run("params", CONV, "--batch", "3"))
    check("x: float_type, {3, 3, 8, 8}, {192, 64, 8, 1}" in out, "--batch fills the symbolic dim")
    check("y: float_type, {3, 2, 6, 6}, {72, 36, 6, 1}" in out, "output follows --batch")
    out = lines(run("params", "--input-dim", "@x", "5", "3", "8", "8", CONV))  # model file after --input-dim
    # --input-dim on a symbolic dim gives its maximum (spec 9.1.2): the input is dynamic.
    check("x: float_type, {1..5, 3, 8, 8}" in out, "--input-dim then FILE: " + str(out))
    out = lines(run("params", CONV, "--dyn-input-dim", "@x", "2:6:4", "3", "8", "8"))
    check("x: float_type, {2..6 (4), 3, 8, 8}" in out, "--dyn-input-dim: " + str(out))
    out = lines(run("params", ADD, "--output-names", "sum"))
    check(out[-2:] == ["outputs:", "sum: float_type, {1, 3, 4, 4}, {48, 16, 4, 1}"], "--output-names picks")


def test_compile():
    p = run("compile", "--ref", "--quiet", ADD)
    out = lines(p)
    check(out[:3] == ["Compiling ...", "Reading: " + ADD, 'module: "main"'], "compile header")
    check(any("relu(" in l for l in out), "compiled program printed")
    check(p.stderr == "", "--quiet: nothing on stderr")
    p = run("compile", "--ref", ADD, "--binary", rc=1)
    check(check_error("--binary", p).startswith("migraphx-driver: error: --binary needs --output"),
          "--binary without --output")
    check(p.stdout == "", "--binary without --output: stopped before compiling")
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "add.mxr")
        if has_header("load_save.hpp"):
            run("compile", "--ref", "--enable-offload-copy", "--binary", "--output", f, ADD)
            check(os.path.getsize(f) > 0, ".mxr written")
            out = lines(run("params", "--migraphx", f))
            check("x: float_type, {1, 3, 4, 4}, {48, 16, 4, 1}" in out, "params of the .mxr")
            out = lines(run("run", f, "--fill1", "x", "y"))
            check("2, 2, 2, 2, 2, ..., 2, 2, 2, 2, 2" in out, "the .mxr runs")
            with open(f, "rb") as fh:
                check(fh.read(8) == b"MIGX-MXR", ".mxr magic")
            out = lines(run("version", "--migraphx", f))
            check(out == ["MIGraphX version: " + project_version(SOURCE), "MXR version: " + lib.mxr_version(SOURCE), "Target: ref"],
                  "version --migraphx:\n" + "\n".join(out))
            out = lines(run("read", "--migraphx", f))
            check(out[:2] == ["Reading: " + f, 'module: "main"'] and any(" = relu(" in l for l in out),
                  "read --migraphx prints the compiled program")
            out = lines(run("perf", "--migraphx", f, "-n", "2"))
            check(any(l.startswith("Total time: ") for l in out), "perf --migraphx")
            # the same content as JSON, by the output's extension
            j = os.path.join(d, "add.json")
            run("compile", "--ref", "--binary", "--output", j, ADD)
            with open(j) as fh:
                check(fh.read(40).startswith('{"magic":"MIGX-MXR","mxr_version":' + lib.mxr_version(SOURCE) + ','), "--binary --output x.json")
            # --disable-fast-math reaches compile_options (saved with the compiled program)
            je = os.path.join(d, "add_exact.json")
            run("compile", "--ref", "--disable-fast-math", "--binary", "--output", je, ADD)
            with open(je) as fh:
                text = fh.read()
            check('"fast_math":false' in text and '"fast_math":true' in open(j).read(), "--disable-fast-math")
            # --tf32 and --exhaustive-tune reach compile_options too (the gpu target acts on them)
            jt = os.path.join(d, "add_tf32.json")
            run("compile", "--ref", "--tf32", "--exhaustive-tune", "--binary", "--output", jt, ADD)
            with open(jt) as fh:
                text = fh.read()
            check('"tf32":true' in text and '"exhaustive_tune":true' in text, "--tf32 --exhaustive-tune")
            check('"tf32":false' in open(j).read() and '"exhaustive_tune":false' in open(j).read(), "defaults: off")
            # given a compiled program, the flags cannot apply: a note says so
            p = run("run", "--tf32", "--migraphx", f)
            check("--exhaustive-tune and --tf32 apply when compiling" in p.stderr, "--tf32 on a compiled .mxr: " + p.stderr)
            # an uncompiled program saved by read, then verified against ref
            u = os.path.join(d, "add_uncompiled.mxr")
            run("read", ADD, "--binary", "--output", u)
            check(lines(run("version", "--migraphx", u))[2] == "Target: none (not compiled)", "uncompiled .mxr")
            check(lines(run("verify", "--ref", "--migraphx", u))[-1] == "PASSED", "verify an uncompiled .mxr")
            # a file that is not a .mxr: a clear error, no crash
            bad = os.path.join(d, "bad.mxr")
            with open(bad, "wb") as fh:
                fh.write(b"MIGX-MXR\x00garbage")
            p = run("read", bad, rc=1)
            check("migraphx-driver: error:" in p.stderr and "load(" + bad + ")" in p.stderr, "bad .mxr: " + p.stderr)
        else:
            p = run("compile", "--ref", "--binary", "--output", f, ADD, rc=1)
            check("not supported yet" in check_error("--binary", p), "--binary without load_save: " + p.stderr)
            check(p.stdout == "" and not os.path.exists(f), "stopped before compiling, nothing written")


def test_run():
    out = lines(run("run", "--ref", ADD, "--fill1", "x", "--fill0", "y"))
    check(out[:3] == ["Compiling ...", "Reading: " + ADD, "Allocating params ..."], "run header")
    res = outputs_of(out)
    check(list(res) == ["z", "sum"], "outputs in model order")
    check(res["z"][0] == "float_type, {1, 3, 4, 4}, {48, 16, 4, 1}", "z's shape")
    check(res["z"][1] == [1, 1, 1, 1, 1, None, 1, 1, 1, 1, 1], "z = relu(1 + 0) = 1")
    res = outputs_of(lines(run("run", "--ref", ADD)))  # generated inputs: z = relu(sum)
    for a, b in zip(res["z"][1], res["sum"][1]):
        check(a is None or close(a, max(b, 0.0)), f"z {a} = relu(sum {b})")
    check(any(v is not None and v < 0 for v in res["sum"][1]), "generated inputs have negative sums")
    again = outputs_of(lines(run("run", "--ref", ADD)))
    check(again == res, "generated inputs are the same run after run")
    res = outputs_of(lines(run("run", "--ref", CONV, "--batch", "2", "--fill1", "x")))
    check(res["y"][0] == "float_type, {2, 2, 6, 6}, {72, 36, 6, 1}", "conv output shape")
    check(res["y"][1] == [27.5] * 5 + [None] + [0.0] * 5, "conv(ones) + bias, relu: 27.5 then 0")
    # A dynamic batch: --input-dim sets the shape to run, within --dyn-input-dim's range.
    for n in (1, 3):
        res = outputs_of(lines(run("run", "--ref", CONV, "--dyn-input-dim", "@x", "1:4", "3", "8", "8",
                                   "--input-dim", "@x", str(n), "3", "8", "8", "--fill1", "x")))
        check(res["y"][0].startswith("float_type, {%d, 2, 6, 6}" % n), "dynamic batch %d: %s" % (n, res["y"][0]))
        check(res["y"][1][0] == 27.5, "dynamic batch %d computes" % n)
    text = lines(run("read", ADD))
    relu = next(l.split(" = ")[0] for l in text if " = relu(" in l)
    res = outputs_of(lines(run("run", "--ref", ADD, "--fill1", "x", "y", "--output-names", relu, "sum")))
    check(list(res) == [relu, "sum"], "--output-names with an instruction name")
    check(res[relu][1][0] == 2.0 and res["sum"][1][0] == 2.0, "picked outputs computed")


def test_input_files():
    """--input NAME=FILE: an input's values from an ONNX TensorProto file; wrong files are one-line errors."""
    import numpy as np
    import onnx.numpy_helper
    with tempfile.TemporaryDirectory() as tmp:
        def write(name, array, file=None):
            path = os.path.join(tmp, file or name + ".pb")
            with open(path, "wb") as f:
                f.write(onnx.numpy_helper.from_array(array, name).SerializeToString())
            return path
        x = np.arange(48, dtype=np.float32).reshape(1, 3, 4, 4) - 20
        fx, fy = write("x", x), write("y", np.full((1, 3, 4, 4), 0.5, dtype=np.float32))
        res = outputs_of(lines(run("run", "--ref", ADD, "--input", f"x={fx}", "--input", f"y={fy}")))
        flat = (x + 0.5).ravel()
        check(res["sum"][1][:5] == [float(v) for v in flat[:5]], f"sum = x + y from the files: {res['sum'][1]}")
        check(res["z"][1][-5:] == [float(max(v, 0)) for v in flat[-5:]], "z = relu(x + y)")
        # one input from a file, the other filled
        res = outputs_of(lines(run("run", "--ref", ADD, "--input", f"x={fx}", "--fill0", "y")))
        check(res["sum"][1][0] == -20.0, "x from its file, y filled with 0")
        bad_dims = write("x", np.zeros((1, 3, 4, 5), dtype=np.float32), "dims.pb")
        bad_type = write("x", np.zeros((1, 3, 4, 4), dtype=np.int64), "type.pb")
        garbage = os.path.join(tmp, "garbage.pb")
        with open(garbage, "wb") as f:
            f.write(b"\xff\xff\xff not a tensor")
        errors = {"holds": ["--input", f"x={bad_dims}"], "holds ": ["--input", f"x={bad_type}"],
                  "TensorProto": ["--input", f"x={garbage}"], "no such file": ["--input", "x=" + os.path.join(tmp, "none.pb")],
                  "NAME=FILE": ["--input", "x"], "not an input": ["--input", f"nosuch={fx}"],
                  "twice": ["--input", f"x={fx}", "--input", f"x={fx}"]}
        for want, extra in errors.items():
            args = ["run", "--ref", ADD] + extra
            err = check_error(args, run(*args, rc=None))
            check(want.strip() in err, f"{args}: error says '{want.strip()}': {err}")


def test_perf():
    p = run("perf", "--ref", "-n", "20", "--quiet", ADD)
    ins, groups, nums = parse_perf(lines(p))
    check_perf_figures(ins, groups, nums, batch=1)
    names = {g[0] for g in groups}
    check({"add", "relu", "@param"} <= names, "summary groups by op: " + str(names))
    check(p.stderr == "", "nothing on stderr")
    ins, groups, nums = parse_perf(lines(run("perf", "--ref", "-n", "3", "--input-dim", "@x", "4", "3", "8", "8",
                                             "--batch", "4", CONV)))
    check_perf_figures(ins, groups, nums, batch=4)
    check(any("convolution" in g[0] for g in groups), "convolution in the summary")
    # perf runs the program instruction by instruction too: an op after a data-dependent result
    # (3 of nonzero's 6 declared rows) computes for what it got, as run does
    nz = os.path.join(MODELS, "nonzero_reshape.onnx")
    for t in ["--ref"] + (["--cpu"] if has_target("cpu") else []):
        res = outputs_of(lines(run("run", t, nz, "--fill1", "x")))
        check(res["y"][0].startswith("float_type, {3}") and res["y"][1] == [0.0, 4.0, 16.0], "run " + t + ": " + str(res))
        ins, groups, nums = parse_perf(lines(run("perf", t, "-n", "2", nz, "--fill1", "x")))
        check(any(g[0] == "nonzero" for g in groups), "perf " + t + " on a data-dependent reshape")
    # --enqueue-times: the host's issue time per op after the report, summed to the Enqueue time
    out = lines(run("perf", "--ref", "-n", "5", "--enqueue-times", ADD))
    i = out.index("Enqueue summary:")
    ops, j = {}, i + 1
    while out[j]:
        m = re.match(r"^(\S+): " + NUMBER + r"ms / (\d+) = " + NUMBER + r"ms, " + NUMBER + r"%$", out[j])
        check(m, "enqueue summary line: " + out[j])
        ops[m.group(1)] = float(m.group(2))
        j += 1
    check({"add", "relu"} <= set(ops), "enqueue summary groups by op: " + str(ops))
    m = re.match(r"^Enqueue time: " + NUMBER + "ms$", out[j + 1])
    check(m and abs(float(m.group(1)) - sum(ops.values())) <= 1e-3 + 1e-3 * float(m.group(1)),
          "Enqueue time is the summary's sum: " + out[j + 1])
    check(re.match(r"^Device wait after enqueue: " + NUMBER + "ms$", out[j + 2]), "wait line: " + out[j + 2])
    check(len(out) == j + 3, "the enqueue lines end the output")


def test_verify():
    p = run("verify", "--ref", ADD)
    out = lines(p)
    check(out[:3] == ["Compiling ...", "Reading: " + ADD, "Verifying ref against ref (rtol=0.001, atol=0.001)"],
          "verify header:\n" + p.stdout)
    line = r": max abs diff 0, max rel diff 0, rms rel 0, rms of max 0, 0/48 mismatched: PASSED"
    check(re.match("^z" + line + "$", out[3]) and re.match("^sum" + line + "$", out[4]), "per-output lines")
    check(out[-1] == "PASSED", "verify passes")
    p = run("verify", "--ref", "--per-instruction", "--rtol", "0.5", "--atol", "0.25", CONV, "--batch", "1")
    out = lines(p)
    check("Verifying ref against ref (rtol=0.5, atol=0.25)" in out, "tolerances printed")
    i = out.index("Instruction by instruction (every instruction's result made an output):")
    checked = out[i + 1:-2]
    check(len(checked) >= 2 and all(l.endswith(": PASSED") for l in checked), "every instruction checked")
    check(any("convolution[" in l for l in checked) and any(" = relu(" in l for l in checked), "conv, relu")
    check(out[-2:] == ["No instruction departs from ref.", "PASSED"], "verify --per-instruction passes")
    if has_header("quantization.hpp"):
        # --fp16 --int8 together: int8 convolutions, half for the rest
        p = run("verify", "--ref", "--fp16", "--int8", CONV, "--batch", "1")
        check(lines(p)[-1] == "PASSED", "verify --fp16 --int8:\n" + p.stdout + p.stderr)
        # quantize_int8's options: int8 residual streams, the accuracy check's bar
        p = run("verify", "--ref", "--int8", "--int8-residuals", "--int8-min-cosine", "0", CONV, "--batch", "1")
        check(lines(p)[-1] == "PASSED", "verify --int8 --int8-residuals --int8-min-cosine 0:\n" + p.stdout + p.stderr)
        # --fp8, alone and with --fp16: e4m3 operands for the convolutions, judged by default on the
        # whole tensor (rms of max <= 2^-4); element-wise bounds are the user's to give, and at
        # 1e-2 this model's e4m3 error fails them
        for extra in ([], ["--fp16"]):
            p = run("verify", "--ref", *extra, "--fp8", CONV, "--batch", "1")
            check(lines(p)[-1] == "PASSED" and "(rms of max <= 0.0625)" in p.stdout,
                  "verify --fp8 " + " ".join(extra) + ":\n" + p.stdout + p.stderr)
        p = run("verify", "--ref", "--fp8", "--rtol", "1e-2", "--atol", "1e-2", CONV, "--batch", "1", rc=1)
        check(lines(p)[-1] == "FAILED", "verify --fp8 with element-wise 1e-2 fails:\n" + p.stdout + p.stderr)
    p = run("verify", "--ref", "--rms-tol", "0.08", ADD)
    out = lines(p)
    check("Verifying ref against ref (rms of max <= 0.08)" in out and out[-1] == "PASSED",
          "verify --rms-tol (MIGraphX's criterion):\n" + p.stdout)


def test_version():
    out = lines(run("version"))
    check(out[:3] == ["MIGraphX version: " + project_version(SOURCE), "ONNX Opset version: 17", "MXR version: " + lib.mxr_version(SOURCE)],
          "version output:\n" + "\n".join(out))
    check(len(out) == 4 and re.match(r"^Targets: \w+(, \w+)*$", out[3]) and "ref" in out[3][9:].split(", "),
          "Targets: line lists the registered targets")
    check(lines(run("--version")) == out, "--version output")


def test_onnx_list():
    out = lines(run("onnx", "-l"))
    check(out == sorted(out) and len(out) == len(set(out)), "sorted, unique")
    check({"Add", "Relu", "Conv"} <= set(out), "the test models' operators are listed")
    run("onnx", rc=1)


def test_op_list():
    out = lines(run("op", "-l"))
    check(out == sorted(out) and not any(o.startswith("@") for o in out), "sorted, no builtins")
    check({"add", "relu", "convolution", "pooling"} <= set(out), "core ops listed")
    check(lines(run("op", "flatten")) == ["flatten[axis=1]"], "op NAME shows default attributes")


def test_errors():
    bad = [["perf", "--bogus", ADD], ["perf", "--ref", os.path.join(MODELS, "none.onnx")],
           ["read", os.path.join(MODELS, "model.bin")], ["read"], ["read", ADD, "--onnx", ADD],
           ["read", os.path.join(MODELS, "garbage.onnx")], ["read", CONV, "--input-dim", "@x", "1", "a"],
           ["read", CONV, "--input-dim", "x", "1"], ["read", CONV, "--input-dim", "@x"],
           ["read", CONV, "--input-dim", "@", "1"], ["read", CONV, "--input-dim", "@x", "0", "3", "8", "8"],
           ["read", CONV, "--input-dim", "@x", "1", "3"], ["read", CONV, "--input-dim", "@nosuch", "1"],
           ["run", "--ref", ADD, "--fill1", "nosuch"], ["run", "--ref", ADD, "--output-names", "nosuch"],
           ["perf", "--ref", "-n", "0", ADD], ["params", CONV, "--batch", "0"], ["perf", "--ref", "--cpu", ADD],
           ["verify", "--ref", "--rtol", "-1", ADD], ["verify", "--ref", "--rms-tol", "-1", ADD], ["op", "nosuch"], ["op"], ["nosuch"],
           ["read", "--migraphx", os.path.join(MODELS, "none.mxr")],
           ["run", "--ref", CONV, "--dyn-input-dim", "@x", "1:4", "3", "8", "8", "--input-dim", "@x", "5", "3", "8", "8"],
           ["read", CONV, "--dyn-input-dim", "@x", "4:1", "3", "8", "8"], ["read", CONV, "--dyn-input-dim", "@x", "1:a"],
           ["read", CONV, "--dyn-input-dim", "@x", "1:4:9", "3", "8", "8"], ["read", CONV, "--dyn-input-dim", "@x", "1:4"]]
    if not has_header("load_save.hpp"):
        bad.append(["params", "--migraphx", ADD])
    if not has_header("quantization.hpp"):
        bad += [["compile", "--ref", "--fp16", ADD], ["compile", "--ref", "--int8", ADD], ["compile", "--ref", "--fp8", ADD]]
    bad += [["compile", "--ref", "--int8", "--fp8", ADD], ["compile", "--ref", "--int8-residuals", ADD], ["compile", "--ref", "--int8", "--int8-min-cosine", "2", ADD]]
    for args in bad:
        check_error(args, run(*args, rc=None))


def test_trace():
    """MIGRAPHX_TRACE_EVAL=1/2/3 while run evaluates add_relu on ones: sum = 2, z = relu(2) = 2."""
    base = ["run", "--ref", ADD, "--fill1", "x", "y"]
    plain = lines(run(*base))
    for level in (1, 2, 3):
        out = lines(run(*base, env={"MIGRAPHX_TRACE_EVAL": str(level)}))
        blocks = parse_trace(out)
        check_trace(blocks, level)
        ops = [re.split(r"[(\[ ]", b[0].split(" = ", 1)[1])[0] for b in blocks]
        check(ops == ["@param:x", "@param:y", "add", "relu"] or ops == ["@param:y", "@param:x", "add", "relu"],
              "every instruction but @return traced, in order: " + str(ops))
        check(not any("@return" in l for l in out if l.startswith("Run instruction")), "@return not traced")
        trace_lines = [l for l in out if l.startswith(("Run instruction: ", "Time: ", "Output"))]
        check([l for l in out if l not in trace_lines] == plain, "the trace only adds lines")
        if level == 2:
            check(blocks[2][3] == ["normal"] and blocks[2][4] == "2, 2, 2, 2, 2, ..., 2, 2, 2, 2, 2", "add's output")
        if level == 3:
            check(blocks[3][4] == ", ".join(["2"] * 48), "level 3 prints the whole buffer")
    out = lines(run("run", "--ref", ADD, "--fill0", "x", "y", env={"MIGRAPHX_TRACE_EVAL": "2"}))
    check(parse_trace(out)[3][3] == ["zero"], "Output has zero")


def test_progress():
    """Compile progress on stderr (shown at once with MIGRAPHX_DRIVER_PROGRESS_DELAY_MS=0), --quiet silences."""
    p = run("compile", "--ref", CONV, env={"MIGRAPHX_DRIVER_PROGRESS_DELAY_MS": "0"})
    err = p.stderr.splitlines()
    check(len(err) >= 2 and err[0] == "Compiling ... 0s" and re.match(r"^Compiling \.\.\. done in [\d.e-]+s$", err[-1]),
          "progress lines: " + str(err))
    p = run("compile", "--ref", "--quiet", CONV, env={"MIGRAPHX_DRIVER_PROGRESS_DELAY_MS": "0"})
    check(p.stderr == "", "--quiet: nothing on stderr")
    p = run("compile", "--ref", CONV)
    check(p.stderr == "", "a compile under a second shows no progress")




if __name__ == "__main__":
    globals()["test_" + sys.argv[4]]()
    print("PASSED " + sys.argv[4])
