#!/usr/bin/python3
"""End-to-end tests of migraphx-driver on a real model: MobileNetV2 as tools/export_models.py
exports it for the model tests (fixture migx_models; input {1, 3, 224, 224}, output {1, 1000}).
Runs the built binary and checks formats and numbers, on the cpu target where the build has it
(else ref). Exits 77 (skipped) when the model was not exported (no torch).
Usage: test_driver_real.py DRIVER MODEL_DATA_DIR SOURCE_DIR TEST"""
import collections
import os
import re
import sys
import tempfile

import driver_testlib as lib
from driver_testlib import (INSTRUCTION, check, check_error, check_perf_figures, check_trace, close, lines,
                            outputs_of, parse_perf, parse_trace, program_lines, project_version, run)

DRIVER, DATA, SOURCE = sys.argv[1], sys.argv[2], sys.argv[3]
lib.DRIVER = DRIVER
MODEL = os.path.join(DATA, "mobilenetv2", "model.onnx")
INPUT = "input: float_type, {1, 3, 224, 224}, {150528, 50176, 224, 1}"
OUTPUT = "output: float_type, {1, 1000}, {1000, 1}"


def targets():
    line = lines(run("version"))[-1]
    check(line.startswith("Targets: "), "version ends with Targets: " + line)
    return line[len("Targets: "):].split(", ")


TARGET = None  # set in main: cpu where registered, else ref


def op_name(instruction):
    """convolution[...](...) -> convolution, @param:input -> ... -> @param, @literal{ ... } -> @literal."""
    name = re.split(r"[(\[{ ]", instruction.split(" = ", 1)[1])[0]
    return name.split(":")[0] if name.startswith("@") else name


def onnx_op_types():
    try:
        import onnx
    except ImportError:
        return None
    return collections.Counter(n.op_type for n in onnx.load(MODEL).graph.node)


def compiled_program():
    out = lines(run("compile", TARGET, "--quiet", MODEL))
    check(out[:2] == ["Compiling ...", "Reading: " + MODEL], "compile header")
    body = program_lines(out, 2)
    check(out[3 + len(body):] == [""], "compile prints only the program (and a blank line) after its header")
    return body


def test_read():
    out = lines(run("read", MODEL))
    check(out[0] == "Reading: " + MODEL, "read starts with Reading: FILE (spec 10.5)")
    body = program_lines(out, 1)
    check(out[2 + len(body):] == [""], "every line of the program is an instruction line")
    check("input = @param:input -> float_type, {1, 3, 224, 224}, {150528, 50176, 224, 1}" in body, "input param")
    check(body[-1].split(" = ")[1].startswith("@return("), "@return last")
    ops = collections.Counter(op_name(l) for l in body)
    onnx_ops = onnx_op_types()
    if onnx_ops is not None:
        check(ops["convolution"] == onnx_ops["Conv"], f"one convolution per Conv node: {ops['convolution']}")
    conv = next(l for l in body if op_name(l) == "convolution")
    check(re.search(r"convolution\[padding=\{1, 1, 1, 1\},stride=\{2, 2\},dilation=\{1, 1\},group=1,padding_mode=0,"
                    r"use_dynamic_same_auto_pad=0\]\(input,main:@\d+\) -> float_type, \{1, 32, 112, 112\}, "
                    r"\{401408, 12544, 112, 1\}$", conv), "the first convolution as the spec prints it: " + conv)
    ret = body[-1].split("@return(")[1].rstrip(")")
    last = next(l for l in body if l.startswith(ret + " = "))
    check(last.endswith("-> float_type, {1, 1000}, {1000, 1}"), "the returned instruction is {1, 1000}: " + last)
    check(lines(run("read", "--onnx", MODEL)) == out, "read --onnx FILE is read FILE")
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "p.txt")
        check(lines(run("read", MODEL, "--output", f)) == ["Reading: " + MODEL], "--output: nothing else on stdout")
        check(open(f).read().splitlines() == out[1:], "read --output FILE holds the program")
    out2 = lines(run("read", "--input-dim", "@input", "2", "3", "224", "224", MODEL))
    check("input = @param:input -> float_type, {2, 3, 224, 224}, {150528, 50176, 224, 1}" in out2, "--input-dim")
    check(any(l.startswith(ret + " = ") and l.endswith("-> float_type, {2, 1000}, {1000, 1}") for l in out2),
          "the output follows --input-dim")


def test_params():
    out = lines(run("params", MODEL))
    check(out == ["Reading: " + MODEL, "inputs:", INPUT, "", "outputs:", OUTPUT], "params (spec 10.1):\n" + "\n".join(out))
    check(lines(run("params", "--onnx", MODEL))[1:] == out[1:], "params --onnx FILE")
    out = lines(run("params", MODEL, "--input-dim", "@input", "4", "3", "160", "160"))
    check(out[2:] == ["input: float_type, {4, 3, 160, 160}, {76800, 25600, 160, 1}", "", "outputs:",
                      "output: float_type, {4, 1000}, {1000, 1}"], "params with --input-dim:\n" + "\n".join(out))
    body = lines(run("read", MODEL))
    conv = next(l.split(" = ")[0] for l in body if " = convolution[" in l)
    out = lines(run("params", MODEL, "--output-names", conv, "output"))
    check(out[-3:] == ["outputs:", conv + ": float_type, {1, 32, 112, 112}, {401408, 12544, 112, 1}", OUTPUT],
          "--output-names: an instruction and the model output:\n" + "\n".join(out))


def test_compile():
    body = compiled_program()
    check(sum(op_name(l) == "@param" for l in body) == 1, "one parameter")
    check(any(l.startswith("input = @param:input -> float_type, {1, 3, 224, 224}") for l in body), "input")
    ret = body[-1].split("@return(")[1].rstrip(")")
    check(any(l.startswith(ret + " = ") and "-> float_type, {1, 1000}, {1000, 1}" in l for l in body), "output")
    check(compiled_program() == body, "compiling twice gives the same program")
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "p.txt")
        p = run("compile", TARGET, "--quiet", MODEL, "--output", f)
        check(lines(p) == ["Compiling ...", "Reading: " + MODEL], "--output: nothing else on stdout")
        check(open(f).read().splitlines() == ['module: "main"'] + body + [""], "compile --output FILE holds the program")
        if not os.path.exists(os.path.join(SOURCE, "include", "migraphx", "load_save.hpp")):
            m = os.path.join(d, "m.mxr")
            args = ["compile", TARGET, "--enable-offload-copy", "--binary", "--output", m, "--onnx", MODEL]
            p = run(*args, rc=1)
            check("not supported yet" in check_error(args, p), ".mxr: not supported yet")
            check(p.stdout == "" and not os.path.exists(m), ".mxr: stopped before compiling")
    # progress: shown at once with a zero delay, silenced by --quiet
    p = run("compile", TARGET, MODEL, env={"MIGRAPHX_DRIVER_PROGRESS_DELAY_MS": "0"})
    err = p.stderr.splitlines()
    check(len(err) >= 2 and err[0] == "Compiling ... 0s" and re.match(r"^Compiling \.\.\. done in [\d.e-]+s$", err[-1]),
          "progress on stderr: " + str(err))
    check(lines(p)[3:-1] == body, "progress does not touch stdout")
    p = run("compile", TARGET, "--quiet", MODEL, env={"MIGRAPHX_DRIVER_PROGRESS_DELAY_MS": "0"})
    check(p.stderr == "", "--quiet: nothing on stderr")


def values(res, name):
    return res[name][1]


def check_close(got, want, what, rel=1e-3, abs_=1e-4):
    check(len(got) == len(want) == 11 and got[5] is None and want[5] is None, what + ": 5 values, ..., 5 values")
    for a, b in zip(got, want):
        check(a is None or close(a, b, rel, abs_), f"{what}: {a} vs ref {b}")


def test_run():
    p = run("run", TARGET, "--quiet", MODEL, "--fill1", "input")
    out = lines(p)
    check(out[:4] == ["Compiling ...", "Reading: " + MODEL, "Allocating params ...", "Running ..."], "run header")
    res = outputs_of(out)
    check(list(res) == ["output"] and res["output"][0] == OUTPUT[len("output: "):], "one output, {1, 1000}")
    ref = outputs_of(lines(run("run", "--ref", MODEL, "--fill1", "input")))
    check_close(values(res, "output"), values(ref, "output"), TARGET + " vs ref on ones")
    zeros = outputs_of(lines(run("run", TARGET, MODEL, "--fill0", "input")))
    zeros_ref = outputs_of(lines(run("run", "--ref", MODEL, "--fill0", "input")))
    check_close(values(zeros, "output"), values(zeros_ref, "output"), TARGET + " vs ref on zeros")
    check(values(zeros, "output") != values(res, "output"), "--fill0 and --fill1 give different outputs")
    gen = outputs_of(lines(run("run", TARGET, MODEL)))
    check(gen == outputs_of(lines(run("run", TARGET, MODEL))), "generated inputs are the same run after run")
    check(gen != res and gen != zeros, "generated inputs are neither zeros nor ones")
    body = lines(run("read", MODEL))
    conv = next(l.split(" = ")[0] for l in body if " = convolution[" in l)
    mid = outputs_of(lines(run("run", TARGET, MODEL, "--fill1", "input", "--output-names", conv, "output")))
    check(list(mid) == [conv, "output"], "--output-names order")
    check(mid[conv][0] == "float_type, {1, 32, 112, 112}, {401408, 12544, 112, 1}", "intermediate shape")
    mid_ref = outputs_of(lines(run("run", "--ref", MODEL, "--fill1", "input", "--output-names", conv)))
    check_close(values(mid, conv), values(mid_ref, conv), "first convolution on ones")
    check_close(values(mid, "output"), values(ref, "output"), "output with an extra output")
    big = outputs_of(lines(run("run", TARGET, MODEL, "--fill1", "input", "--input-dim", "@input", "2", "3", "224", "224")))
    check(big["output"][0] == "float_type, {2, 1000}, {1000, 1}", "--input-dim batch 2")
    check_close(values(big, "output"), values(res, "output"), "two images of ones: both rows as one image", 1e-5, 1e-6)


def test_perf():
    p = run("perf", TARGET, "-n", "10", "--quiet", MODEL)
    out = lines(p)
    check(p.stderr == "", "--quiet: nothing on stderr")
    ins, groups, nums = parse_perf(out)
    check_perf_figures(ins, groups, nums, batch=1)
    body = compiled_program()
    check(program_lines(out, 2) == body, "perf prints the compiled program first")
    check([t for t, _, _ in ins] == body[:-1], "one timed line per instruction, @return untimed")
    counts = collections.Counter(op_name(t) for t, _, _ in ins)
    if not any("::" in g[0] and g[0].startswith("gpu::code_object") for g in groups):
        check({g[0]: g[2] for g in groups} == dict(counts), "summary: one group per op, with its count")
    check(nums[2][0] > 0 and nums[3][0] > 0, "times are positive")
    ins, groups, nums = parse_perf(lines(run("perf", TARGET, "-n", "3", "--quiet", "--input-dim", "@input", "2", "3",
                                             "224", "224", MODEL)))
    check_perf_figures(ins, groups, nums, batch=2)
    ins, groups, nums = parse_perf(lines(run("perf", TARGET, "-n", "2", "--quiet", "--batch", "8", MODEL)))
    check_perf_figures(ins, groups, nums, batch=8)


def test_verify():
    p = run("verify", TARGET, "--quiet", MODEL)
    out = lines(p)
    t = TARGET[2:]
    check(out[:3] == ["Compiling ...", "Reading: " + MODEL, f"Verifying {t} against ref (rtol=0.001, atol=0.001)"],
          "verify header:\n" + p.stdout)
    m = re.match(r"^output: max abs diff ([\d.e+-]+), max rel diff ([\d.e+-]+|inf), rms rel ([\d.e+-]+|inf), rms of max ([\d.e+-]+|inf), (\d+)/1000 mismatched: PASSED$",
                 out[3])
    check(m and int(m.group(5)) == 0 and float(m.group(1)) <= 1e-3 * 2 and float(m.group(3)) < 1e-3, "output line: " + out[3])
    check(out[4:] == ["PASSED"], "verify passes")
    if t == "ref":
        return
    # Zero tolerance: the target's summation order differs from ref's, so verify fails and
    # --per-instruction names the first instruction that departs.
    args = ["verify", TARGET, "--quiet", "--rtol", "0", "--atol", "0", "--per-instruction", MODEL]
    p = run(*args, rc=1)
    out = lines(p)
    check(re.match(r"^output: max abs diff [\d.e+-]+, max rel diff [\d.e+-]+, rms rel [\d.e+-]+, rms of max [\d.e+-]+, [1-9]\d*/1000 mismatched: FAILED$",
                   out[3]), "a failing output line: " + out[3])
    i = out.index("Instruction by instruction (every instruction's result made an output):")
    checked = out[i + 1:-2]
    check(checked and all(l.endswith(": PASSED") for l in checked[:-1]) and checked[-1].endswith(": FAILED"),
          "instructions checked up to the first failure")
    first = checked[-1].split(": max abs diff")[0]
    check(INSTRUCTION.match(first), "the failing line starts with the instruction")
    check(out[-2:] == ["First departing instruction: " + first, "FAILED"], "names the first departing instruction")


def test_version():
    out = lines(run("version"))
    check(out[:3] == ["MIGraphX version: " + project_version(SOURCE), "ONNX Opset version: 17", "MXR version: " + lib.mxr_version(SOURCE)],
          "version (spec 10.2)")
    check(TARGET[2:] in targets() and "ref" in targets(), "the targets in use are listed")


def test_onnx_list():
    out = lines(run("onnx", "-l"))
    check(out == sorted(out) and len(out) == len(set(out)), "sorted, unique")
    ops = onnx_op_types()
    if ops is None:
        ops = {"Constant", "Conv", "Clip", "Add", "GlobalAveragePool", "Flatten", "Gemm"}
    check(set(ops) <= set(out), "every operator of the model is listed: missing " + str(set(ops) - set(out)))


def test_op_list():
    out = set(lines(run("op", "-l")))
    used = {op_name(l) for l in program_lines(lines(run("read", MODEL)), 1) + compiled_program()}
    used = {u for u in used if not u.startswith("@")}
    check(used <= out, "every op of the parsed and compiled model is listed: missing " + str(used - out))
    check(lines(run("op", "convolution")) == ["convolution[padding={0, 0},stride={1, 1},dilation={1, 1},group=1,"
                                              "padding_mode=0,use_dynamic_same_auto_pad=0]"], "op convolution")


def test_trace():
    body = compiled_program()
    base = ["run", TARGET, "--quiet", MODEL, "--fill1", "input"]
    plain = lines(run(*base))
    for level in (1, 2):
        out = lines(run(*base, env={"MIGRAPHX_TRACE_EVAL": str(level)}))
        blocks = parse_trace(out)
        check([b[0] for b in blocks] == body[:-1], f"level {level}: every instruction but @return, in order")
        check_trace(blocks, level)
        rest = [l for l in out if not l.startswith(("Run instruction: ", "Time: ", "Output has ", "Output: "))]
        check(rest == plain, "the trace only adds lines")
        if level == 2:
            ret = body[-1].split("@return(")[1].rstrip(")")
            last = next(b for b in blocks if b[0].startswith(ret + " = "))
            check(last[4] == plain[-1], "the returned instruction's Output: is what run prints")
    small = ["run", TARGET, "--quiet", MODEL, "--fill1", "input", "--input-dim", "@input", "1", "3", "32", "32"]
    blocks = parse_trace(lines(run(*small, env={"MIGRAPHX_TRACE_EVAL": "3"})))
    check_trace(blocks, 3)
    check(sum(b[3] is not None for b in blocks) > 50, "level 3: whole buffers of the computed instructions")


def test_errors():
    bad = [["read", MODEL, "--input-dim", "@input", "1", "4", "224", "224"],
           ["read", MODEL, "--input-dim", "@input", "1", "3", "224"],
           ["read", MODEL, "--input-dim", "@nosuch", "1", "3", "224", "224"],
           ["read", MODEL, "--input-dim", "input", "1", "3", "224", "224"],
           ["read", MODEL, "--input-dim", "@input", "1", "3", "224", "x"],
           ["run", TARGET, MODEL, "--fill1", "nosuch"], ["run", TARGET, MODEL, "--output-names", "nosuch"],
           ["perf", TARGET, MODEL, "-n", "many"], ["perf", TARGET, MODEL, "--bogus"], ["compile", TARGET, MODEL, "--binary"],
           ["perf", TARGET, os.path.join(DATA, "mobilenetv2", "nosuch.onnx")], ["params", os.path.join(DATA, "mobilenetv2")],
           ["verify", TARGET, MODEL, "--atol", "-1"]]
    if "gpu" not in targets():
        bad.append(["perf", "--gpu", MODEL])
    for args in bad:
        p = run(*args, rc=None)
        check_error(args, p)
        check("module:" not in p.stdout, f"{args}: stopped before printing a program")


if __name__ == "__main__":
    if not os.path.exists(MODEL):
        print("skipping: " + MODEL + " was not exported (tools/export_models.py needs torch)")
        sys.exit(77)
    TARGET = "--cpu" if "cpu" in targets() else "--ref"
    globals()["test_" + sys.argv[4]]()
    print("PASSED " + sys.argv[4])
