#!/usr/bin/python3
"""End-to-end tests of migraphx-driver: runs the built binary on the models gen_models.py wrote
and checks the output format and numbers. Usage: test_driver.py DRIVER MODELS SOURCE_DIR TEST"""
import math
import os
import re
import subprocess
import sys
import tempfile

DRIVER, MODELS, SOURCE = sys.argv[1], sys.argv[2], sys.argv[3]
ADD = os.path.join(MODELS, "add_relu.onnx")
CONV = os.path.join(MODELS, "conv_relu.onnx")
SHAPE = r"\w+_type, \{[\d, ]*\}, \{[\d, ]*\}"
INSTRUCTION = re.compile(r"^(\S+) = (\S.*?)(?: -> (" + SHAPE + "))?$")
NUMBER = r"(-?[\d.]+(?:e[-+]?\d+)?)"


def run(*args, rc=0):
    p = subprocess.run([DRIVER, *args], capture_output=True, text=True, timeout=240)
    if rc is not None and p.returncode != rc:
        sys.exit(f"FAIL: {' '.join(args)} exited {p.returncode}, expected {rc}\n"
                 f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def close(a, b, rel=1e-4, abs_=1e-6):
    return abs(a - b) <= abs_ + rel * max(abs(a), abs(b))


def has_header(name):
    return os.path.exists(os.path.join(SOURCE, "include", "migraphx", name))


def lines(p):
    return p.stdout.splitlines()


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
    check("x: float_type, {5, 3, 8, 8}, {192, 64, 8, 1}" in out, "--input-dim then FILE")
    out = lines(run("params", ADD, "--output-names", "sum"))
    check(out[-2:] == ["outputs:", "sum: float_type, {1, 3, 4, 4}, {48, 16, 4, 1}"], "--output-names picks")


def test_compile():
    p = run("compile", "--ref", "--quiet", ADD)
    out = lines(p)
    check(out[:3] == ["Compiling ...", "Reading: " + ADD, 'module: "main"'], "compile header")
    check(any("relu(" in l for l in out), "compiled program printed")
    check(p.stderr == "", "--quiet: nothing on stderr")
    p = run("compile", "--ref", ADD, "--binary", rc=1)
    check(p.stderr.startswith("migraphx-driver: error: --binary needs --output"), "--binary without --output")
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "add.mxr")
        if has_header("load_save.hpp"):
            run("compile", "--ref", "--enable-offload-copy", "--binary", "--output", f, ADD)
            check(os.path.getsize(f) > 0, ".mxr written")
            out = lines(run("params", "--migraphx", f))
            check("x: float_type, {1, 3, 4, 4}, {48, 16, 4, 1}" in out, "params of the .mxr")
            out = lines(run("run", f, "--fill1", "x", "y"))
            check("2, 2, 2, 2, 2, ..., 2, 2, 2, 2, 2" in out, "the .mxr runs")
        else:
            p = run("compile", "--ref", "--binary", "--output", f, ADD, rc=1)
            check("not supported yet" in p.stderr, "--binary without load_save: " + p.stderr)


def outputs_of(out):
    """{name: (shape, [values])} from run's output."""
    r, i = {}, out.index("Running ...") + 1
    while i + 1 < len(out):
        m = re.match(r"^(\S+): (" + SHAPE + ")$", out[i])
        check(m, "run output line: " + out[i])
        r[m.group(1)] = (m.group(2), [float(v) if v != "..." else None for v in out[i + 1].split(", ")])
        i += 2
    return r


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
    text = lines(run("read", ADD))
    relu = next(l.split(" = ")[0] for l in text if " = relu(" in l)
    res = outputs_of(lines(run("run", "--ref", ADD, "--fill1", "x", "y", "--output-names", relu, "sum")))
    check(list(res) == [relu, "sum"], "--output-names with an instruction name")
    check(res[relu][1][0] == 2.0 and res["sum"][1][0] == 2.0, "picked outputs computed")


def parse_perf(out):
    i = out.index("Running performance report ...")
    check(out[:2] == ["Compiling ...", "Reading: " + out[1][9:]], "perf header")
    check(out[2] == 'module: "main"', "perf prints the compiled program")
    check(out[i - 1] == "Allocating params ...", "Allocating params ... before the report")
    ins, i = [], i + 1
    while out[i]:
        m = re.match(r"^(.*): " + NUMBER + r"ms, " + NUMBER + r"%$", out[i])
        if m:
            check(INSTRUCTION.match(m.group(1)), "timed line is an instruction: " + out[i])
            ins.append((m.group(1), float(m.group(2)), float(m.group(3))))
        else:
            check(out[i].startswith("main:@") and "@return" in out[i], "untimed line is @return: " + out[i])
        i += 1
    check(out[i + 1] == "Summary:", "Summary: follows a blank line")
    groups, i = [], i + 2
    while out[i]:
        m = re.match(r"^(\S+): " + NUMBER + r"ms / (\d+) = " + NUMBER + r"ms, " + NUMBER + r"%$", out[i])
        check(m, "summary line: " + out[i])
        groups.append((m.group(1), float(m.group(2)), int(m.group(3)), float(m.group(4)), float(m.group(5))))
        i += 1
    tail = out[i + 1:]
    pats = [r"Batch size: (\d+)", r"Rate: " + NUMBER + "/sec",
            r"Total time: {0}ms \(Min: {0}ms, Median: {0}ms, Max: {0}ms\)".format(NUMBER),
            r"Total instructions time: " + NUMBER + "ms", r"Overhead time: {0}ms, {0}ms".format(NUMBER),
            r"Overhead: (-?\d+)%, (-?\d+)%"]
    check(len(tail) == len(pats), "report tail:\n" + "\n".join(tail))
    nums = []
    for l, p in zip(tail, pats):
        m = re.match("^" + p + "$", l)
        check(m, "tail line: " + l)
        nums.append([float(g) for g in m.groups()])
    return ins, groups, nums


def test_perf():
    p = run("perf", "--ref", "-n", "20", "--quiet", ADD)
    ins, groups, nums = parse_perf(lines(p))
    (batch,), (rate,), (total, tmin, tmed, tmax), (total_ins,), (ov1, ov2), (pc1, pc2) = nums
    check(batch == 1, "batch of a {1, ...} input is 1")
    check(close(rate, 1000.0 / total * batch), f"Rate {rate} = 1000 / {total} * {batch}")
    check(tmin <= tmed <= tmax and tmed == total, "Total time is the median, between min and max")
    check(abs(sum(x[2] for x in ins) - 100) < 0.01, "instruction percentages sum to 100")
    check(close(sum(x[1] for x in ins), total_ins, 1e-3), "instruction times sum to Total instructions time")
    for _, t, pct in ins:
        check(close(pct, 100 * t / total_ins, 1e-3, 1e-3), "instruction % of Total instructions time")
    check(abs(sum(g[4] for g in groups) - 100) < 0.01, "summary percentages sum to 100")
    check(sum(g[2] for g in groups) == len(ins), "summary counts every instruction once")
    check([g[1] for g in groups] == sorted((g[1] for g in groups), reverse=True), "summary sorted by time")
    for name, t, n, each, _ in groups:
        check(close(each, t / n, 1e-4), f"{name}: each = total / count")
    names = {g[0] for g in groups}
    check({"add", "relu", "@param"} <= names, "summary groups by op: " + str(names))
    check(close(ov2, total - total_ins, 1e-3, 1e-4), "second overhead = total - instructions")
    check(abs(pc1 - round(100 * ov1 / total)) <= 1 and abs(pc2 - round(100 * ov2 / total)) <= 1, "Overhead %")
    check(p.stderr == "", "nothing on stderr")
    ins, groups, nums = parse_perf(lines(run("perf", "--ref", "-n", "3", "--input-dim", "@x", "4", "3", "8", "8",
                                             "--batch", "4", CONV)))
    check(nums[0][0] == 4, "Batch size: --batch")
    check(close(nums[1][0], 1000.0 / nums[2][0] * 4), "Rate = 1000 / total * batch")
    check(any("convolution" in g[0] for g in groups), "convolution in the summary")


def test_verify():
    p = run("verify", "--ref", ADD)
    out = lines(p)
    check(out[:3] == ["Compiling ...", "Reading: " + ADD, "Verifying ref against ref (rtol=0.001, atol=0.001)"],
          "verify header:\n" + p.stdout)
    line = r": max abs diff 0, max rel diff 0, 0/48 mismatched: PASSED"
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


def test_version():
    want = ["MIGraphX version: 0.1.0", "ONNX Opset version: 17", "MXR version: 1"]
    check(lines(run("version")) == want, "version output")
    check(lines(run("--version")) == want, "--version output")


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
           ["verify", "--ref", "--rtol", "-1", ADD], ["op", "nosuch"], ["op"], ["nosuch"],
           ["read", "--migraphx", os.path.join(MODELS, "none.mxr")], ["compile", "--ref", "--fp16", "--int8", ADD]]
    if not has_header("load_save.hpp"):
        bad.append(["params", "--migraphx", ADD])
    if not has_header("quantization.hpp"):
        bad += [["compile", "--ref", "--fp16", ADD], ["compile", "--ref", "--int8", ADD]]
    for args in bad:
        p = run(*args, rc=None)
        err = p.stderr.splitlines()
        check(p.returncode in (1, 2), f"{args}: exit {p.returncode}")
        check(len(err) == 1 and err[0].startswith("migraphx-driver: error: "), f"{args}: one-line error: {err}")
        check("terminate" not in p.stderr and "Traceback" not in p.stdout, f"{args}: no crash")


if __name__ == "__main__":
    globals()["test_" + sys.argv[4]]()
    print("PASSED " + sys.argv[4])
