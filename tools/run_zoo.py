#!/usr/bin/python3
"""Run the model zoo (tools/export_zoo.py's output) on one target and print a markdown table.

For every model of the zoo (every model export_zoo.py knows, plus any other folder of DIR with a
model.onnx), in a child process of its own so that a crash or a hang is one row, not the end:
parse the ONNX file, compile it for the target (after quantize_fp16 with --fp16), run it on the
saved inputs (test_data_set_0/input_*.pb) and compare each output with torch's
(test_data_set_0/output_*.pb). The run goes through the `migraphx` Python module of the same
build as the driver (the driver only feeds generated inputs and prints 10 values of an output,
so it cannot be compared with saved references); the driver names the build (`version`) and,
for a model whose results depart from torch's, finds the first instruction that departs from
the `ref` target (`verify --per-instruction`).

A model folder with several test data sets (export_zoo.py's dynamic-shape variants <model>_dyn) is
parsed once with map_dyn_input_dims covering every set's input shapes, compiled once, and run and
compared on every set: its row has the worst error over the sets and how many sizes passed.

Error measure, per output element i, with m = mean |ref| over the output:
    err_i = |got_i - ref_i| / (|ref_i| + m)
"max rel err" is the largest err_i over all outputs; a model passes when it is <= TOL, i.e.
|got - ref| <= TOL * |ref| + TOL * m: the driver's and model tests' rtol, with an atol scaled to
the output's magnitude (tests/models/CMakeLists.txt's rule). TOL = 1e-3 for fp32, 1e-2 with --fp16
(the driver's verify defaults). A reference output with m < 1e-4 is refused (model_test's rule).

Usage: tools/run_zoo.py --zoo DIR [--driver build-cpu/src/migraphx-driver] [--target cpu|ref|gpu]
                        [--fp16] [--models a,b,c|all|static|dynamic] [--out FILE.md] [--timeout S] [--no-diagnose]
Exit status: 0 when every listed model passes, 1 otherwise.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


# --- the child: one model, one target -------------------------------------------------------------

def timed_runs(prog, inputs, runs):
    """Runs prog on the saved inputs up to `runs` times (once when the first run takes over 20 s);
    returns the run times and the first run's outputs as numpy arrays."""
    import numpy as np
    params = {name: np.ascontiguousarray(value) for name, value in inputs}
    missing = [n for n in params if n not in prog.get_parameter_names()]
    if missing:
        raise RuntimeError(f"test data inputs {missing} are not parameters of the model")
    times, gots = [], None
    for _ in range(max(1, runs)):
        t0 = time.perf_counter()
        outs = prog.run(params)
        times.append(time.perf_counter() - t0)
        if gots is None:
            gots = [np.array(o) for o in outs]
        if times[0] > 20:  # a slow model: one run is enough
            break
    return times, gots


def parse_and_compile(migraphx, model_dir, target, fp16, result, stage, **parse_options):
    """parse_onnx (with parse_options), quantize_fp16 with --fp16, compile with offload_copy; the
    parse and compile times go into result."""
    stage("parse")
    t0 = time.perf_counter()
    prog = migraphx.parse_onnx(os.path.join(model_dir, "model.onnx"), **parse_options)
    result["parse_s"] = time.perf_counter() - t0
    if fp16:
        stage("quantize_fp16")
        migraphx.quantize_fp16(prog)
    stage("compile")
    t0 = time.perf_counter()
    prog.compile(migraphx.get_target(target), offload_copy=True)
    result["compile_s"] = time.perf_counter() - t0
    return prog


def load_pbs(data_dir, prefix):
    import onnx
    import onnx.numpy_helper
    out = []
    for i in range(10000):
        path = os.path.join(data_dir, f"{prefix}{i}.pb")
        if not os.path.exists(path):
            break
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        out.append((t.name, onnx.numpy_helper.to_array(t)))
    return out


def data_sets(model_dir):
    """The model's test_data_set_<k> folders, in k order."""
    found = []
    for d in glob.glob(os.path.join(model_dir, "test_data_set_*")):
        suffix = os.path.basename(d)[len("test_data_set_"):]
        if suffix.isdigit() and os.path.isdir(d):
            found.append((int(suffix), d))
    return [d for _, d in sorted(found)]


def compare(wants, gots):
    """(max rel err over all outputs, notes) of torch's outputs `wants` and the engine's `gots`."""
    import numpy as np
    if len(gots) != len(wants):
        raise RuntimeError(f"{len(gots)} outputs, expected {len(wants)}")
    worst, notes = 0.0, []
    for (name, want), got in zip(wants, gots):
        want = want.astype(np.float64)
        got = got.astype(np.float64)
        if got.shape != want.shape:
            raise RuntimeError(f"output {name}: shape {list(got.shape)}, expected {list(want.shape)}")
        m = float(np.abs(want).mean()) if want.size else 0.0
        if m < 1e-4:
            notes.append(f"{name}: reference output ~0 (mean |ref| {m:.3g}): re-export")
            worst = float("inf")
            continue
        err = np.abs(got - want) / (np.abs(want) + m)
        err = np.where(np.isnan(err), np.inf, err)
        e = float(err.max()) if err.size else 0.0
        if e > worst:
            worst = e
        notes.append(f"{name}: mean |ref| {m:.3g}, max abs diff {float(np.nanmax(np.abs(got - want))):.3g}")
    return worst, notes


def dyn_ranges(sets):
    """map_dyn_input_dims covering every data set's input shapes: per input and dim, the smallest
    and the largest size the sets give (a dim all sets agree on is fixed: {n, n})."""
    ranges = {}
    for name, _ in sets[0][0]:
        shapes = [dict(inputs)[name].shape for inputs, _ in sets]
        if len({len(sh) for sh in shapes}) != 1:
            raise RuntimeError(f"input {name}: the data sets' ranks differ ({shapes}); migx dims are dynamic, "
                               "ranks are not (spec 9.2)")
        ranges[name] = [(min(d), max(d)) for d in zip(*shapes)]
    return ranges


def size_label(inputs, ranges):
    """A data set's size: the shapes of the inputs whose dims vary over the sets ('2x3x160x192';
    'input_ids 1x8, past_key_values 12x2x1x12x16x64'), one shape for inputs that share it."""
    varying = [(n, "x".join(str(d) for d in v.shape)) for n, v in inputs
               if any(lo != hi for lo, hi in ranges[n])] or [(n, "x".join(str(d) for d in v.shape)) for n, v in inputs]
    if len({d for _, d in varying}) == 1:
        return varying[0][1]
    # inputs of different shapes: only the varying dims, 'input_ids[1]=8, past_key_values[4]=16'
    return ", ".join(f"{n}[{i}]={v.shape[i]}" for n, v in inputs for i, (lo, hi) in enumerate(ranges[n]) if lo != hi)


def child_dynamic(model_dir, target, fp16, runs, sets_dirs, only_set=None):
    """A model with several test data sets (a dynamic-shape variant): parse once with a range per
    input dim covering every set (map_dyn_input_dims), compile once, run each set (the first run at
    a shape other than the maximum specialises: parse + compile of that shape, cached), compare.
    Per-set results go to result['sizes']; a set whose run raises is recorded and the next one runs."""
    import numpy as np
    import migraphx

    def stage(name):
        print(f"STAGE {name}", flush=True)

    result = {"dynamic": True, "sizes": []}
    stage("load")
    sets = [(load_pbs(d, "input_"), load_pbs(d, "output_")) for d in sets_dirs]
    if target not in migraphx.get_targets():
        raise RuntimeError(f"target '{target}' is not registered in this build ({migraphx.get_targets()})")
    ranges = dyn_ranges(sets)
    result["ranges"] = {n: ["{}..{}".format(*r) if r[0] != r[1] else str(r[0]) for r in dims]
                        for n, dims in ranges.items()}

    dd = migraphx.shape.dynamic_dimension
    prog = parse_and_compile(migraphx, model_dir, target, fp16, result, stage,
                             map_dyn_input_dims={n: [dd(lo, hi) for lo, hi in dims] for n, dims in ranges.items()})

    for k, (inputs, wants) in enumerate(sets):
        if only_set is not None and k != only_set:
            continue
        size = {"set": k, "label": size_label(inputs, ranges)}
        result["sizes"].append(size)
        stage(f"run set {k} ({size['label']})")
        try:
            times, gots = timed_runs(prog, inputs, runs)
            size["first_run_s"] = times[0]
            size["run_ms"] = 1000 * min(times)
            stage(f"compare set {k}")
            size["max_rel_err"], size["notes"] = compare(wants, gots)
        except Exception as e:  # noqa: BLE001  one size's failure is a note of the row, the next size runs
            size["error"] = first_line(f"{type(e).__name__}: {e}", 300)
        print("SIZE " + json.dumps(size), flush=True)
    errs = [s.get("max_rel_err", float("inf")) for s in result["sizes"]]
    result["max_rel_err"] = max(errs) if errs else float("inf")
    result["run_ms"] = None
    result["notes"] = [f"set {s['set']} ({s['label']}): "
                       + (f"max rel err {s['max_rel_err']:.3g}; " if "max_rel_err" in s else "")
                       + "; ".join(s.get("notes", [s.get("error", "")]))
                       for s in result["sizes"]]
    print("RESULT " + json.dumps(result), flush=True)


def child(model_dir, target, fp16, runs, only_set=None):
    """Prints `STAGE <name>` lines as it goes and one `RESULT <json>` line at the end."""
    import numpy as np
    import migraphx

    sets_dirs = data_sets(model_dir)
    if len(sets_dirs) > 1:
        return child_dynamic(model_dir, target, fp16, runs, sets_dirs, only_set)
    result = {}

    def stage(name):
        print(f"STAGE {name}", flush=True)

    stage("load")
    data_dir = os.path.join(model_dir, "test_data_set_0")
    inputs = load_pbs(data_dir, "input_")
    wants = load_pbs(data_dir, "output_")
    if target not in migraphx.get_targets():
        raise RuntimeError(f"target '{target}' is not registered in this build ({migraphx.get_targets()})")

    prog = parse_and_compile(migraphx, model_dir, target, fp16, result, stage)

    stage("run")
    times, gots = timed_runs(prog, inputs, runs)
    result["run_ms"] = 1000 * min(times)

    stage("compare")
    worst, notes = compare(wants, gots)
    result["max_rel_err"] = worst
    result["notes"] = notes
    print("RESULT " + json.dumps(result), flush=True)


# --- the parent: the table ------------------------------------------------------------------------

def onnx_info(path):
    """(opset, nodes) of an ONNX file, without loading external data."""
    try:
        import onnx
        m = onnx.load(path, load_external_data=False)
        opset = max((o.version for o in m.opset_import if o.domain in ("", "ai.onnx")), default=None)
        return opset, len(m.graph.node)
    except Exception:  # noqa: BLE001
        return None, None


def first_line(text, limit=160):
    for line in text.strip().splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[:limit - 3] + "..."
    return ""


def diagnose(driver, model_dir, target, fp16, timeout, input_dims=None):
    """The first instruction whose cpu/gpu result departs from ref's (driver verify --per-instruction);
    input_dims {name: dims} parses the model at that shape (a dynamic variant's failing size)."""
    cmd = [driver, "verify", f"--{target}", "--quiet", "--per-instruction"]
    if fp16:
        cmd.append("--fp16")
    for name, dims in (input_dims or {}).items():
        cmd += ["--input-dim", "@" + name] + [str(d) for d in dims]
    cmd.append(os.path.join(model_dir, "model.onnx"))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"verify --per-instruction timed out after {timeout}s"
    for line in p.stdout.splitlines():
        if line.startswith("First departing instruction:"):
            return line.strip()
        if line.startswith("No instruction departs"):
            return (f"{target} agrees with ref on every instruction (generated inputs): the parser or a ref "
                    "operator differs from torch, or the difference is inside a fused kernel / needs the saved inputs")
    return "verify: " + first_line(p.stderr or p.stdout)


def failing_instruction(cmd, env, timeout):
    """Re-runs a child whose run raised, with MIGRAPHX_TRACE_EVAL=1: the last instruction the trace
    shows starting is the one that raised."""
    env = dict(env, MIGRAPHX_TRACE_EVAL="1")
    last = None
    try:
        with tempfile.TemporaryFile("w+") as out:
            subprocess.run(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env, timeout=timeout)
            out.seek(0)
            for line in out:
                if line.startswith("Run instruction: "):
                    last = line[len("Run instruction: "):].strip()
    except subprocess.TimeoutExpired:
        return None
    return last


def run_model(args, name, model_dir, env):
    row = {"model": name, "opset": None, "nodes": None, "parse_s": None, "compile_s": None, "run_ms": None,
           "max_rel_err": None, "result": "FAIL", "fault": ""}
    error_file = os.path.join(model_dir, "export.error")
    onnx_path = os.path.join(model_dir, "model.onnx")
    if os.path.exists(error_file):
        with open(error_file) as f:
            text = f.read().strip()
        if text.startswith("skipped:"):
            row["result"], row["fault"] = "SKIP", text[len("skipped:"):].strip()
        elif text.startswith("todo:"):
            row["result"], row["fault"] = "TODO", text[len("todo:"):].strip()
        else:
            row["fault"] = "export " + text
        return row
    if not os.path.exists(onnx_path) or not os.path.exists(os.path.join(model_dir, "test_data_set_0", "output_0.pb")):
        row["result"], row["fault"] = "MISSING", "not exported (run tools/export_zoo.py)"
        return row
    row["opset"], row["nodes"] = onnx_info(onnx_path)

    cmd = [sys.executable, os.path.abspath(__file__), "--child", model_dir, "--target", args.target,
           "--runs", str(args.runs)] + (["--fp16"] if args.fp16 else [])
    stage, out, err = "start", "", ""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc = None
    result, sizes = None, []
    for line in out.splitlines():
        if line.startswith("STAGE "):
            stage = line[6:].strip()
        elif line.startswith("SIZE "):
            sizes.append(json.loads(line[5:]))
        elif line.startswith("RESULT "):
            result = json.loads(line[7:])
    sets_dirs = data_sets(model_dir)
    if len(sets_dirs) > 1:
        return dynamic_row(args, row, model_dir, sets_dirs, cmd, env, stage, result, sizes, rc, err)
    if result is None:
        if rc is None:
            row["fault"] = f"{stage}: timed out after {args.timeout}s"
        elif rc < 0:
            row["fault"] = f"{stage}: crashed (signal {-rc})"
        else:
            # the child's exception: its last line is "ExceptionType: message"
            lines = [l for l in err.strip().splitlines() if l.strip()]
            row["fault"] = f"{stage}: " + (first_line(lines[-1], 300) if lines else f"exit {rc}")
        if stage == "run" and args.diagnose:
            ins = failing_instruction(cmd[:cmd.index("--runs") + 1] + ["1"] + cmd[cmd.index("--runs") + 2:],
                                      env, args.timeout)
            if ins:
                row["fault"] += f"; raised in `{ins}`"
        return row
    row.update({k: result[k] for k in ("parse_s", "compile_s", "run_ms", "max_rel_err")})
    row["notes"] = result["notes"]
    if result["max_rel_err"] <= args.tol:
        row["result"] = "PASS"
    elif args.diagnose:
        row["fault"] = diagnose(args.driver, model_dir, args.target, args.fp16, args.timeout)
    else:
        row["fault"] = "results depart from torch's"
    return row


def child_failure(args, stage, rc, err):
    if rc is None:
        return f"{stage}: timed out after {args.timeout}s"
    if rc < 0:
        return f"{stage}: crashed (signal {-rc})"
    lines = [l for l in err.strip().splitlines() if l.strip()]  # "ExceptionType: message"
    return f"{stage}: " + (first_line(lines[-1], 300) if lines else f"exit {rc}")


def dynamic_row(args, row, model_dir, sets_dirs, cmd, env, stage, result, sizes, rc, err):
    """The row of a model with several test data sets: parse/compile once, one run per set; the
    worst error over the sets, 'k/n sizes' passed, and for each failing size what is at fault."""
    total = len(sets_dirs)
    tol = args.tol
    if result is not None:
        row.update({k: result[k] for k in ("parse_s", "compile_s")})
        sizes = result["sizes"]
        row["notes"] = result["notes"]
    passed = [s for s in sizes if s.get("max_rel_err", float("inf")) <= tol]
    errs = [s["max_rel_err"] for s in sizes if "max_rel_err" in s]
    row["max_rel_err"] = max(errs) if errs else None
    if errs and len(errs) < total:
        row["max_rel_err"] = float("inf")  # a size that raised or never ran has no error to show
    row["run_ms"] = " / ".join(f"{s['run_ms']:.1f}" if "run_ms" in s else "-" for s in sizes) or None
    row["result"] = "PASS" if len(passed) == total else "FAIL"
    row["result"] += f" {len(passed)}/{total} sizes"
    faults = []
    if result is None:  # crashed, timed out or raised outside a size's run
        faults.append(child_failure(args, stage, rc, err))
    for s in sizes:
        if s.get("max_rel_err", float("inf")) <= tol:
            continue
        what = f"set {s['set']} ({s['label']})"
        if "error" in s:
            what += ": " + s["error"]
            if args.diagnose:
                k = cmd.index("--runs")
                ins = failing_instruction(cmd[:k + 1] + ["1"] + cmd[k + 2:] + ["--only-set", str(s["set"])],
                                          env, args.timeout)
                if ins:
                    what += f"; raised in `{ins}`"
        else:
            what += f": max rel err {s['max_rel_err']:.2e}"
            if args.diagnose:
                inputs = load_pbs(sets_dirs[s["set"]], "input_")
                what += "; static parse at this size: " + diagnose(
                    args.driver, model_dir, args.target, args.fp16, args.timeout,
                    {n: list(v.shape) for n, v in inputs})
        faults.append(what)
    info = []
    if sizes:
        info.append("sizes " + " / ".join(s["label"] for s in sizes))
    if result is not None:
        info.append("range " + "; ".join(f"{n} {{{', '.join(d)}}}" for n, d in result["ranges"].items()))
    if any("max_rel_err" in s for s in sizes):
        info.append("max rel err " + " / ".join(f"{s['max_rel_err']:.1e}" if "max_rel_err" in s else "-"
                                                 for s in sizes))
    if any("first_run_s" in s for s in sizes):
        info.append("first run s " + " / ".join(f"{s['first_run_s']:.2f}" if "first_run_s" in s else "-"
                                                for s in sizes))
    row["fault"] = "; ".join(faults + info)
    return row


def fmt(v, spec):
    if isinstance(v, str):
        return v
    return "" if v is None else format(v, spec)


def table_row(r):
    err = r["max_rel_err"]
    err = "" if err is None else ("inf" if err == float("inf") else format(err, ".2e"))
    return (f"| {r['model']} | {fmt(r['opset'], '')} | {fmt(r['nodes'], '')} | {fmt(r['parse_s'], '.2f')} | "
            f"{fmt(r['compile_s'], '.2f')} | {fmt(r['run_ms'], '.1f')} | {err} | {r['result']} | "
            f"{r['fault'].replace('|', '/')} |")


def machine_line(driver):
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        version = subprocess.run([driver, "version"], capture_output=True, text=True, timeout=60).stdout
        version = "; ".join(l.strip() for l in version.splitlines() if l.strip())
    except (OSError, subprocess.TimeoutExpired) as e:
        version = f"driver not runnable: {e}"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{cpu}, {os.cpu_count()} cores, load average at start {load}; {version}"


def torch_versions():
    try:
        out = subprocess.run(["/usr/bin/python3", "-c", "import torch, torchvision, onnx; "
                              "print(f'torch {torch.__version__}, torchvision {torchvision.__version__}, "
                              "onnx {onnx.__version__}')"], capture_output=True, text=True, timeout=120).stdout
        return out.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def zoo_names(zoo):
    """Every model export_zoo.py knows, then any other exported folder of the zoo."""
    names = []
    try:
        out = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "export_zoo.py"), "--list"],
                             capture_output=True, text=True, timeout=300).stdout
        names = [l.split(":", 1)[0] for l in out.splitlines() if ":" in l]
    except (OSError, subprocess.TimeoutExpired):
        pass
    for d in sorted(glob.glob(os.path.join(zoo, "*", "model.onnx"))):
        n = os.path.basename(os.path.dirname(d))
        if n not in names:
            names.append(n)
    return names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--zoo", help="the folder export_zoo.py wrote")
    parser.add_argument("--driver", default="build-cpu/src/migraphx-driver", help="migraphx-driver of the build")
    parser.add_argument("--python-module", help="folder of the build's migraphx Python module "
                        "(default: DRIVER/../../python, i.e. <build>/python)")
    parser.add_argument("--target", default="cpu", choices=["cpu", "ref", "gpu"])
    parser.add_argument("--fp16", action="store_true", help="quantize_fp16 before compiling (TOL 1e-2)")
    parser.add_argument("--models", help="comma-separated names, 'all' (the default: the whole zoo), 'static' or "
                        "'dynamic' (the dynamic-shape variants <model>_dyn, spec 9.3)")
    parser.add_argument("--out", help="also write the table to this markdown file")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per model (default 1800)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per model; the fastest is reported")
    parser.add_argument("--tol", type=float, help="error bound (default 1e-3, 1e-2 with --fp16)")
    parser.add_argument("--no-diagnose", dest="diagnose", action="store_false",
                        help="do not run the driver's verify --per-instruction on a mismatch")
    parser.add_argument("--child", metavar="MODEL_DIR", help=argparse.SUPPRESS)
    parser.add_argument("--only-set", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        child(args.child, args.target, args.fp16, args.runs, args.only_set)
        return 0
    if not args.zoo:
        parser.error("--zoo DIR is required")
    if args.tol is None:
        args.tol = 1e-2 if args.fp16 else 1e-3
    args.driver = os.path.abspath(args.driver)
    module_dir = os.path.abspath(args.python_module or os.path.join(os.path.dirname(args.driver), "..", "python"))
    if not glob.glob(os.path.join(module_dir, "migraphx*.so")):
        parser.error(f"no migraphx Python module in {module_dir} (build migraphx_python, or --python-module)")
    env = dict(os.environ)
    env["PYTHONPATH"] = module_dir + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")

    names = []
    for n in (n.strip() for n in (args.models or "all").split(",")):
        if n in ("all", "static", "dynamic"):  # the dynamic-shape variants are the zoo's <model>_dyn
            group = [m for m in zoo_names(args.zoo) if n == "all" or (n == "dynamic") == m.endswith("_dyn")]
        else:
            group = [n] if n else []
        names += [m for m in group if m not in names]
    mode = f"{args.target}{' fp16' if args.fp16 else ' fp32'}"
    header = [f"# Model zoo on {mode}", "",
              f"Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}. Machine: {machine_line(args.driver)}.",
              f"Exports: {torch_versions()}; `tools/export_zoo.py`, random weights, batch norm re-estimated.",
              f"Pass: max over elements of |got - ref| / (|ref| + mean|ref|) <= {args.tol:g} "
              f"(see docs/model-zoo.md). Run: the fastest of up to {args.runs} runs, 1 image, offload_copy.",
              "Dynamic-shape variants (`<model>_dyn`, several test data sets): parsed once with a range per "
              "input dim covering the sets, compiled once, run ms per set; the first run at a shape other "
              "than the maximum specialises (parse + compile of that shape; 'first run s'), so with --runs 1 "
              "run ms includes it.",
              "",
              "| model | opset | nodes | parse s | compile s | run ms | max rel err | result | at fault / note |",
              "|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(header), flush=True)
    rows, failed = [], 0
    for name in names:
        row = run_model(args, name, os.path.join(args.zoo, name), env)
        rows.append(row)
        failed += row["result"].startswith(("FAIL", "MISSING"))
        line = table_row(row)
        print(line, flush=True)
        for note in row.get("notes", []):
            print(f"    {name}: {note}", file=sys.stderr, flush=True)
    passed = sum(r["result"].startswith("PASS") for r in rows)
    skipped = sum(r["result"] == "SKIP" for r in rows)
    todos = sum(r["result"] == "TODO" for r in rows)
    summary = (f"\n{passed} passed, {failed} failed (or not exported), {skipped} skipped (torchvision lacks them), "
               f"{todos} not written yet (of {len(rows)}).")
    print(summary, flush=True)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        table = [table_row(r) for r in rows]
        with open(args.out, "w") as f:
            f.write("\n".join(header + table) + "\n" + summary + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
