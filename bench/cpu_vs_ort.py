#!/usr/bin/python3
"""migx's cpu target against ONNX Runtime's CPU provider: same models, same thread count, same
machine, one run. See bench/README.md.

Steps: installs onnxruntime-node into bench/node_modules (npm install --ignore-scripts) unless it
is there; exports the models with tools/export_models.py unless they are there and current; then
per model times ORT (node, after warm-up, median of --runs) and migx (migraphx-driver perf --cpu
-n RUNS, its "Total time ... Median" figure) and prints a table with the ratio migx/ORT.

Usage: bench/cpu_vs_ort.py [--threads T] [--runs N] [--models resnet50,mobilenetv2,bert]
                           [--driver PATH] [--models-dir DIR] [--skip-ort] [--skip-migx]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
ORT_VERSION = "1.30.0"
DEFAULT_MODELS = "resnet50,mobilenetv2,bert"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def ensure_ort():
    if os.path.isfile(os.path.join(BENCH, "node_modules", "onnxruntime-node", "package.json")):
        return
    if shutil.which("npm") is None:
        sys.exit("cpu_vs_ort.py: npm not found (Debian: apt-get install npm)")
    log(f"installing onnxruntime-node@{ORT_VERSION} into {BENCH}/node_modules ...")
    # --ignore-scripts: the package's install script fetches GPU libraries from a host that may be
    # unreachable; the CPU library ships in the npm package itself.
    subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock"],
                   cwd=BENCH, check=True, stdout=sys.stderr)


def zoo_models():
    """The models tools/export_zoo.py knows (its --list), for names export_models.py does not."""
    r = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "export_zoo.py"), "--list"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return {line.split(":")[0].strip() for line in r.stdout.splitlines() if ":" in line}


def ensure_models(models, models_dir):
    # The exporters leave models alone that they exported before with the same script and options.
    # export_models.py's models first; the rest (detectors, ...) from the zoo exporter.
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import export_models  # noqa: E402
    basic = [m for m in models if m in export_models.MODELS]
    zoo = [m for m in models if m not in export_models.MODELS]
    unknown = sorted(set(zoo) - zoo_models()) if zoo else []
    if unknown:
        sys.exit(f"cpu_vs_ort.py: no exporter knows {', '.join(unknown)} (tools/export_models.py, tools/export_zoo.py --list)")
    for script, names, extra in (("export_models.py", basic, []), ("export_zoo.py", zoo, ["--fp16-ref", "none"])):
        if not names:
            continue
        log(f"exporting {','.join(names)} into {models_dir} with {script} (skipped where up to date) ...")
        r = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", script), "--out", models_dir,
                            "--models", ",".join(names), "--skip-existing"] + extra,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for line in r.stdout.splitlines():
            log("  " + line)
        if r.returncode != 0:
            sys.exit(f"cpu_vs_ort.py: export failed ({r.returncode}):\n{r.stderr[-3000:]}")


def test_inputs(model_dir):
    """(name, path) of the exporter's inputs (test_data_set_0/input_*.pb, ONNX TensorProtos)."""
    import onnx
    data = os.path.join(model_dir, "test_data_set_0")
    r, i = [], 0
    while os.path.isfile(os.path.join(data, f"input_{i}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"input_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        r.append((t.name, os.path.join(data, f"input_{i}.pb")))
        i += 1
    return r


def find_driver(explicit):
    candidates = [explicit, os.environ.get("MIGX_DRIVER"),
                  os.path.join(ROOT, "build", "src", "migraphx-driver"),
                  os.path.join(ROOT, "build", "src", "driver", "migraphx-driver"),
                  shutil.which("migraphx-driver")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    sys.exit("cpu_vs_ort.py: migraphx-driver not found; build it (build/src/migraphx-driver) or pass --driver")


def thread_env(threads):
    env = dict(os.environ)
    env["MIGRAPHX_CPU_THREADS"] = str(threads)
    env["OMP_NUM_THREADS"] = str(threads)
    return env


def median(xs):
    xs = sorted(xs)
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


# --- ONNX Runtime ---------------------------------------------------------------------------------

def run_ort(model_dir, threads, warmup, runs, tmp):
    import numpy as np
    import onnx
    import onnx.numpy_helper

    data = os.path.join(model_dir, "test_data_set_0")
    inputs = []
    i = 0
    while os.path.isfile(os.path.join(data, f"input_{i}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"input_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        a = np.ascontiguousarray(onnx.numpy_helper.to_array(t))
        raw = os.path.join(tmp, f"input_{i}.raw")
        a.tofile(raw)
        inputs.append({"name": t.name, "type": str(a.dtype), "dims": list(a.shape), "file": raw})
        i += 1
    out_raw = os.path.join(tmp, "output_0.raw")
    spec = {"model": os.path.join(model_dir, "model.onnx"), "threads": threads, "warmup": warmup, "runs": runs,
            "inputs": inputs, "output_file": out_raw}
    spec_path = os.path.join(tmp, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    r = subprocess.run(["node", os.path.join(BENCH, "ort_bench.js"), spec_path], cwd=BENCH,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=thread_env(threads))
    if r.returncode != 0:
        return {"error": r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"}
    result = json.loads(r.stdout.strip().splitlines()[-1])
    # Sanity: ORT's first output against torch's reference output.
    t = onnx.TensorProto()
    with open(os.path.join(data, "output_0.pb"), "rb") as f:
        t.ParseFromString(f.read())
    want = onnx.numpy_helper.to_array(t)
    got = np.fromfile(out_raw, dtype=want.dtype)
    result["max_abs_diff"] = float(np.max(np.abs(got - want.ravel()))) if got.size == want.size else float("nan")
    return result


# --- migx -----------------------------------------------------------------------------------------

def run_migx(driver, model_path, target, threads, runs, inputs=()):
    """Runs migraphx-driver perf on the given inputs ((name, .pb file) pairs: the same values ORT
    gets, which matters where sizes depend on the data); returns the median total time, the target
    it really ran on, and the time from its "Compiling ..." line to the program it prints after
    compiling (load+compile)."""
    cmd = [driver, "perf", f"--{target}", "--onnx", model_path, "-n", str(runs), "--quiet"]
    for name, path in inputs:
        cmd += ["--input", f"{name}={path}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=thread_env(threads))
    lines, t_compiling, t_compiled = [], None, None
    # "Compiling ..." and "Reading: FILE" come before the parse; the program is printed after compile.
    for line in proc.stdout:
        now = time.monotonic()
        if t_compiling is None and line.startswith("Compiling"):
            t_compiling = now
        elif t_compiling is not None and t_compiled is None and not line.startswith("Reading"):
            t_compiled = now
        lines.append(line)
    err = proc.stderr.read()
    proc.wait()
    if proc.returncode != 0:
        return {"error": (err.strip().splitlines() or [f"exit {proc.returncode}"])[-1]}
    text = "".join(lines)
    m = re.search(r"^Total time: ([0-9.eE+-]+)ms \(Min: ([0-9.eE+-]+)ms, Median: ([0-9.eE+-]+)ms, "
                  r"Max: ([0-9.eE+-]+)ms\)", text, re.M)
    if not m:
        return {"error": "no 'Total time' line in migraphx-driver perf's report"}
    ran_on = "ref" if (target == "cpu" and "using ref" in err) else target
    r = {"median_ms": float(m.group(3)), "min_ms": float(m.group(2)), "max_ms": float(m.group(4)),
         "target": ran_on, "runs": runs}
    if t_compiling is not None and t_compiled is not None:
        r["load_compile_s"] = t_compiled - t_compiling
    return r


def load_time(driver, model_path):
    """Seconds migraphx-driver takes to parse the model alone (its params subcommand)."""
    start = time.monotonic()
    r = subprocess.run([driver, "params", model_path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start if r.returncode == 0 else None


def registered_targets(driver, probe_model):
    """Whether the driver's --cpu really runs on cpu: it falls back to ref with a note otherwise."""
    r = subprocess.run([driver, "compile", "--cpu", "--onnx", probe_model, "--quiet"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return r.returncode == 0 and "using ref" not in r.stderr


def combine_rounds(rounds):
    """One engine's rounds as one result: the median of their medians and the fastest run of all
    (best_ms); the first error if any."""
    for r in rounds:
        if "error" in r:
            return r
    if not rounds:
        return {}
    out = dict(rounds[0])
    out["median_ms"] = median([r["median_ms"] for r in rounds])
    out["best_ms"] = min(r.get("min_ms", r["median_ms"]) for r in rounds)
    return out


# --- main -----------------------------------------------------------------------------------------

def fmt(x, spec):
    if isinstance(x, (int, float)):
        return format(x, spec)
    width = int(re.match(r"\d*", spec).group() or 0)
    return "-".rjust(width)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="threads for both (default: the number of cores, %(default)s here)")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per model (default %(default)s)")
    parser.add_argument("--warmup", type=int, default=5, help="ORT warm-up runs (default %(default)s); "
                        "migraphx-driver perf does its own warm-up run")
    parser.add_argument("--ref-runs", type=int, default=3,
                        help="timed runs when migx falls back to ref (slow; default %(default)s)")
    parser.add_argument("--models", default=DEFAULT_MODELS, help="default %(default)s")
    parser.add_argument("--models-dir", default=os.path.join(BENCH, "models"), help="default bench/models")
    parser.add_argument("--driver", help="migraphx-driver (default: build/src/migraphx-driver, $MIGX_DRIVER, PATH)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds per model, the two engines alternating (default %(default)s): the ratio "
                        "is the median of the rounds' ratios, so drifting load on the machine hits both")
    parser.add_argument("--skip-ort", action="store_true")
    parser.add_argument("--skip-migx", action="store_true")
    args = parser.parse_args(argv)

    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if not args.skip_ort:
        ensure_ort()
    ensure_models(models, args.models_dir)

    target, migx_runs, driver = "cpu", args.runs, None
    if not args.skip_migx:
        driver = find_driver(args.driver)
        if not registered_targets(driver, os.path.join(args.models_dir, models[0], "model.onnx")):
            target, migx_runs = "ref", args.ref_runs
            log("migx: the cpu target is not registered in this build; timing ref instead")

    load_before = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="migx-bench-") as tmp:
        for name in models:
            model_dir = os.path.join(args.models_dir, name)
            model_path = os.path.join(model_dir, "model.onnx")
            ort_rounds, migx_rounds = [], []
            inputs = test_inputs(model_dir)
            for r in range(max(1, args.rounds)):
                # Alternate which engine goes first, so neither always runs on the warmer machine.
                order = ("ort", "migx") if r % 2 == 0 else ("migx", "ort")
                for side in order:
                    if side == "ort" and not args.skip_ort:
                        ort_rounds.append(run_ort(model_dir, args.threads, args.warmup, args.runs, tmp))
                        log(f"{name} round {r + 1}: ORT {json.dumps(ort_rounds[-1])}")
                    if side == "migx" and not args.skip_migx:
                        migx_rounds.append(run_migx(driver, model_path, target, args.threads, migx_runs, inputs))
                        log(f"{name} round {r + 1}: migx {json.dumps(migx_rounds[-1])}")
            ort, migx = combine_rounds(ort_rounds), combine_rounds(migx_rounds)
            if "load_compile_s" in migx:
                parse_s = load_time(driver, model_path)
                if parse_s is not None:
                    migx["compile_s"] = max(0.0, migx["load_compile_s"] - parse_s)
            ratios = [m["median_ms"] / o["median_ms"] for m, o in zip(migx_rounds, ort_rounds)
                      if "median_ms" in m and "median_ms" in o]
            rows.append((name, migx, ort, ratios))

    if args.skip_migx:
        note = " (migx not run)"
    elif target == "cpu":
        note = ""
    else:
        note = " (cpu target not registered: migx on REF, median of %d)" % migx_runs
    print(f"\nmigx {target} vs ONNX Runtime {ORT_VERSION} CPU provider, {args.threads} threads, batch 1, fp32, "
          f"median of {args.runs} runs after warm-up{note}")
    print(f"{args.rounds} rounds per model, the engines alternating; ms: median of the rounds' medians; "
          "migx/ORT: median of the rounds' ratios (lowest-highest); best: the ratio of each engine's fastest "
          "run over all rounds (what other work on the machine slows least)")
    header = (f"{'model':<18} {'migx ' + target + ' ms':>14} {'ORT ms':>10} {'migx/ORT':>9} {'rounds':>11} "
              f"{'best':>6} {'compile s':>10} {'ORT vs torch':>13}")
    print(header)
    print("-" * len(header))
    for name, migx, ort, ratios in rows:
        m, o = migx.get("median_ms"), ort.get("median_ms")
        ratio = median(ratios) if ratios else None
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "-"
        mb, ob = migx.get("best_ms"), ort.get("best_ms")
        best = mb / ob if isinstance(mb, float) and isinstance(ob, float) and ob > 0 else None
        print(f"{name:<18} {fmt(m, '14.2f')} {fmt(o, '10.2f')} {fmt(ratio, '9.2f')} {spread:>11} {fmt(best, '6.2f')} "
              f"{fmt(migx.get('compile_s'), '10.2f')} {fmt(ort.get('max_abs_diff'), '13.2e')}")
        for side, r in (("migx", migx), ("ORT", ort)):
            if "error" in r:
                print(f"  {name}: {side} failed: {r['error']}")
    print(f"load average (1 min) before/after: {load_before:.2f}/{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores "
          "(other work on the machine skews both columns)")
    print("compile s: migraphx-driver's parse+compile time less its parse-only time; "
          "ORT vs torch: max |ORT - torch| on the first output")
    return 1 if any("error" in r for _, m, o, _ in rows for r in (m, o)) else 0


if __name__ == "__main__":
    sys.exit(main())
