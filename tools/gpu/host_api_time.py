"""Where a host-bound run's host time goes: the CUDA runtime and driver calls (launches, copies,
waits) against the rest (migx's own work between them). Runs MODEL through the Python module
(offload_copy=False, parameters on the GPU) under torch.profiler, whose CUPTI tracing records each
API call the process makes with its duration; each run is marked (record_function), and for the
median run it prints the run's span, the time inside API calls by name (count, total, mean) and
the time outside them. Needs the Python module built against the install (zoo_gpu.sh builds it).
  python3 host_api_time.py MODEL.onnx [--input NAME=FILE.pb] [--fp16] [--runs 10]"""
import argparse
import json
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--input", action="append", default=[], help="NAME=TensorProto file")
    ap.add_argument("--fp16", action="store_true")
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    import migraphx
    import numpy as np
    import onnx
    from onnx import numpy_helper
    from torch.profiler import ProfilerActivity, profile, record_function
    prog = migraphx.parse_onnx(a.model)
    if a.fp16:
        migraphx.quantize_fp16(prog)
    prog.compile(migraphx.get_target("gpu"), offload_copy=False)
    given = {}
    for item in a.input:
        name, path = item.split("=", 1)
        t = onnx.TensorProto()
        t.ParseFromString(open(path, "rb").read())
        given[name] = migraphx.argument(np.ascontiguousarray(numpy_helper.to_array(t)))
    params = {n: migraphx.to_gpu(given[n] if n in given else migraphx.generate_argument(s))
              for n, s in prog.get_parameter_shapes().items()}
    for _ in range(5):
        prog.run(params)
    migraphx.gpu_sync()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(a.runs):
            with record_function("migx_run"):
                prog.run(params)
                migraphx.gpu_sync()
    path = "/tmp/host_api_time.json"
    prof.export_chrome_trace(path)
    ev = json.load(open(path))["traceEvents"]
    runs = sorted((float(e["ts"]), float(e["dur"])) for e in ev if e.get("name") == "migx_run" and "dur" in e)
    api = [(float(e["ts"]), float(e.get("dur", 0)), e["name"]) for e in ev
           if e.get("cat") in ("cuda_runtime", "cuda_driver")]
    per_run = []
    for start, dur in runs:
        inside = [x for x in api if start <= x[0] < start + dur]
        per_run.append((dur, inside))
    per_run.sort(key=lambda r: r[0])
    span, inside = per_run[len(per_run) // 2]
    in_api = sum(x[1] for x in inside)
    print(f"{len(runs)} runs; median run span {span:.1f} us (spans {per_run[0][0]:.1f} .. {per_run[-1][0]:.1f})")
    print(f"inside CUDA API calls: {in_api:.1f} us ({100 * in_api / span:.1f} %), {len(inside)} calls; "
          f"outside them (migx's own host work, Python): {span - in_api:.1f} us")
    by = {}
    for _, d, n in inside:
        by.setdefault(n, []).append(d)
    print("calls by name: count, total us, mean us, median us")
    for n, ds in sorted(by.items(), key=lambda x: -sum(x[1])):
        print(f"  {len(ds):5d} {sum(ds):9.1f} {sum(ds) / len(ds):7.2f} {statistics.median(ds):7.2f}  {n}")


if __name__ == "__main__":
    main()
