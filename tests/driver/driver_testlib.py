"""Helpers shared by the driver's end-to-end tests: run the binary, parse its report formats."""
import math
import os
import re
import subprocess
import sys

SHAPE = r"\w+_type, \{[\d, ]*\}, \{[\d, ]*\}"
INSTRUCTION = re.compile(r"^(\S+) = (\S.*?)(?: -> (" + SHAPE + "))?$")
NUMBER = r"(-?(?:[\d.]+(?:e[-+]?\d+)?|inf|nan))"

DRIVER = None  # set by the test script


def run(*args, rc=0, env=None, timeout=300):
    full_env = dict(os.environ)
    full_env.pop("MIGRAPHX_TRACE_EVAL", None)
    full_env.pop("MIGRAPHX_DRIVER_PROGRESS_DELAY_MS", None)
    full_env.update(env or {})
    p = subprocess.run([DRIVER, *args], capture_output=True, text=True, timeout=timeout, env=full_env)
    if rc is not None and p.returncode != rc:
        sys.exit(f"FAIL: {' '.join(args)} exited {p.returncode}, expected {rc}\n"
                 f"stdout:\n{p.stdout[-4000:]}\nstderr:\n{p.stderr[-4000:]}")
    return p


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def close(a, b, rel=1e-4, abs_=1e-6):
    return abs(a - b) <= abs_ + rel * max(abs(a), abs(b))


def half_ulp(x):
    """Rounding error of a number the driver printed with the stream's default 6 significant digits."""
    return 0.0 if x == 0 else 0.5 * 10.0 ** (math.floor(math.log10(abs(x))) - 5)


def lines(p):
    return p.stdout.splitlines()


def project_version(source):
    text = open(os.path.join(source, "CMakeLists.txt")).read()
    m = re.search(r"project\(\s*\w+\s+VERSION\s+([\d.]+)", text)
    check(m, "project(... VERSION x.y.z) in CMakeLists.txt")
    return m.group(1)


def mxr_version(source):
    """The .mxr format version this build writes (serialize::mxr_version)."""
    text = open(os.path.join(source, "src", "serialize", "mxr_format.hpp")).read()
    m = re.search(r"constexpr int mxr_version\s*=\s*(\d+)", text)
    check(m, "constexpr int mxr_version = N in src/serialize/mxr_format.hpp")
    return m.group(1)


def check_error(args, p):
    """A user mistake: exit 1 or 2, one line on stderr, no crash."""
    err = p.stderr.splitlines()
    check(p.returncode in (1, 2), f"{args}: exit {p.returncode}")
    check(len(err) == 1 and err[0].startswith("migraphx-driver: error: "), f"{args}: one-line error: {err}")
    check("terminate" not in p.stderr and "Traceback" not in p.stdout, f"{args}: no crash")
    return err[0]


def outputs_of(out):
    """{name: (shape, [values, None for ...])} from run's output."""
    r, i = {}, out.index("Running ...") + 1
    while i + 1 < len(out):
        m = re.match(r"^(\S+): (" + SHAPE + ")$", out[i])
        check(m, "run output line: " + out[i])
        r[m.group(1)] = (m.group(2), [float(v) if v != "..." else None for v in out[i + 1].split(", ")])
        i += 2
    return r


def program_lines(out, start):
    """The instruction lines of a printed program beginning at out[start] == 'module: "main"'."""
    check(out[start] == 'module: "main"', 'program starts with module: "main": ' + out[start])
    body, i = [], start + 1
    while i < len(out) and INSTRUCTION.match(out[i]) and not out[i].startswith("Allocating"):
        body.append(out[i])
        if "@return(" in out[i]:
            break
        i += 1
    return body


def parse_perf(out):
    """(instruction lines [(text, ms, pct)], summary [(name, total, count, each, pct)], tail numbers)."""
    i = out.index("Running performance report ...")
    check(out[0] == "Compiling ..." and out[1].startswith("Reading: "), "perf header")
    check(out[2] == 'module: "main"', "perf prints the compiled program")
    check(out[i - 1] == "Allocating params ...", "Allocating params ... before the report")
    ins, i = [], i + 1
    while out[i]:
        m = re.match(r"^(.*): " + NUMBER + r"ms, " + NUMBER + r"%$", out[i])
        if m:
            check(INSTRUCTION.match(m.group(1)), "timed line is an instruction: " + out[i])
            ins.append((m.group(1), float(m.group(2)), float(m.group(3))))
        else:
            check(INSTRUCTION.match(out[i]) and "@return" in out[i], "untimed line is @return: " + out[i])
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


def check_perf_figures(ins, groups, nums, batch):
    """The report's figures agree with each other as spec chapter 8 defines them."""
    (b,), (rate,), (total, tmin, tmed, tmax), (total_ins,), (ov1, ov2), (pc1, pc2) = nums
    check(b == batch, f"Batch size {b}, expected {batch}")
    check(close(rate, 1000.0 / total * batch, 1e-4), f"Rate {rate} = 1000 / {total} * {batch}")
    check(0 < tmin <= total <= tmax and tmin <= tmed <= tmax, "min <= Total time, median <= max")
    check(abs(sum(x[2] for x in ins) - 100) < 0.05, "instruction percentages sum to 100")
    check(close(sum(x[1] for x in ins), total_ins, 1e-3, 1e-5), "instruction times sum to Total instructions time")
    for text, t, pct in ins:
        check(close(pct, 100 * t / total_ins, 1e-3, 1e-3), "instruction % of Total instructions time: " + text)
    check(abs(sum(g[4] for g in groups) - 100) < 0.05, "summary percentages sum to 100")
    check(sum(g[2] for g in groups) == len(ins), "summary counts every instruction once")
    check([g[1] for g in groups] == sorted((g[1] for g in groups), reverse=True), "summary sorted by time")
    for name, t, n, each, pct in groups:
        check(close(each, t / n, 1e-4, 1e-9), f"{name}: each = total / count")
        check(close(pct, 100 * t / total_ins, 1e-3, 1e-3), f"{name}: % of Total instructions time")
    # The driver subtracts unrounded values; each printed figure carries its own rounding.
    slack = half_ulp(total) + half_ulp(total_ins) + half_ulp(ov2) + 1e-9
    check(abs(ov2 - (total - total_ins)) <= slack,
          f"second overhead {ov2} = Total time {total} - Total instructions time {total_ins}")
    check(ov1 >= 0, "measured overhead is not negative")
    check(abs(pc1 - round(100 * ov1 / total)) <= 1 and abs(pc2 - round(100 * ov2 / total)) <= 1, "Overhead %")


def parse_trace(out):
    """MIGRAPHX_TRACE_EVAL blocks: [(instruction, t1, t2, kinds or None, values text or None)]."""
    blocks, i = [], 0
    while i < len(out):
        if not out[i].startswith("Run instruction: "):
            i += 1
            continue
        text = out[i][len("Run instruction: "):]
        check(INSTRUCTION.match(text), "traced instruction: " + text)
        m = re.match(r"^Time: " + NUMBER + r"ms, " + NUMBER + r"ms$", out[i + 1])
        check(m, "Time line: " + out[i + 1])
        kinds = values = None
        i += 2
        if i < len(out) and out[i].startswith("Output has "):
            kinds = out[i][len("Output has "):].split(", ")
            check(out[i + 1].startswith("Output: "), "Output: follows Output has")
            values = out[i + 1][len("Output: "):]
            i += 2
        blocks.append((text, float(m.group(1)), float(m.group(2)), kinds, values))
    return blocks


def check_trace(blocks, level):
    for text, t1, t2, kinds, values in blocks:
        check(0 <= t1 <= t2, f"Time: {t1}ms, {t2}ms: compute time then time with the sync")
        op = text.split(" = ", 1)[1]
        # allocations and their planned views (load) hold nothing written yet: no summary
        if level == 1 or op.startswith("@") or op.startswith("load[") or "allocate" in op.split("[")[0]:
            check(kinds is None, "no output summary for " + text)
            continue
        check(kinds and set(kinds) <= {"normal", "subnormal", "zero", "inf", "nan"}, "Output has: " + str(kinds))
        vals = values.split(", ")
        for v in vals:
            if v != "...":
                x = float(v)
                kind = "nan" if x != x else "inf" if abs(x) == float("inf") else "zero" if x == 0 else None
                check(kind is None or kind in kinds, f"{v} is {kind}, but Output has {kinds}")
                check(kind is not None or "normal" in kinds or "subnormal" in kinds, f"{v} but Output has {kinds}")
        n = 1
        for d in re.search(r"-> \w+_type, \{([\d, ]*)\}", text).group(1).split(", "):
            n *= int(d) if d else 1
        if level == 2 and n > 10:
            check(len(vals) == 11 and vals[5] == "...", "level 2: first 5, ..., last 5: " + values[:200])
        else:
            check(len(vals) == n and "..." not in vals, f"level {level}: all {n} values")
