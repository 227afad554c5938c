"""Where a compiled migx program's run spends its GPU time between kernels (issue 7): runs the
model through the Python module (offload_copy=False, parameters already on the GPU, as
migx_gpu_bench does) under torch.profiler, whose CUPTI tracing sees every kernel and copy of the
process, also those of migx's CUDA graph replays. For the median of the timed runs it prints the
span (first item's start to last item's end), kernel time, idle time between items, the largest
gaps and what they sit between, and the kernels by total time. Real clocks, warm caches (unlike
ncu's per-kernel replays). Needs the Python module built against the install (zoo_gpu.sh builds it).
  python3 trace_gaps.py MODEL.onnx [--fp16] [--runs 20] [--trace out.json]"""
import argparse
import json
import statistics
import sys


def run_groups(events, runs):
    """The timed runs' items: events sorted by start, split where the idle time before an item is
    over 20x the median idle time (the host returns and waits between runs)."""
    ev = sorted(events)
    gaps = [b[0] - (a[0] + a[1]) for a, b in zip(ev, ev[1:])]
    cut = 20 * max(statistics.median(gaps), 1.0)
    groups, cur = [], [ev[0]]
    for g, e in zip(gaps, ev[1:]):
        if g > cut:
            groups.append(cur)
            cur = []
        cur.append(e)
    groups.append(cur)
    size = statistics.mode(len(g) for g in groups)
    return groups, [g for g in groups if len(g) == size][-runs:]


def report(events, runs, out=sys.stdout):
    """events: (start us, duration us, name, kind)."""
    groups, timed = run_groups(events, runs)
    stats = sorted(((g[-1][0] + g[-1][1] - g[0][0], sum(e[1] for e in g), g) for g in timed), key=lambda s: s[0])
    span, busy, g = stats[len(stats) // 2]
    p = lambda *a: print(*a, file=out)
    p(f"{len(groups)} groups of GPU items, {len(timed)} timed runs of {len(g)} items "
      f"({sum(1 for e in g if e[3] == 'kernel')} kernels)")
    p(f"median run: span {span:.1f} us, busy {busy:.1f} us, idle between items {span - busy:.1f} us "
      f"({100 * (span - busy) / span:.1f} %), {(span - busy) / max(len(g) - 1, 1):.2f} us per gap")
    p(f"spans over the timed runs: min {stats[0][0]:.1f}, max {stats[-1][0]:.1f} us")
    between = sorted(((b[0] - (a[0] + a[1]), a[2], b[2]) for a, b in zip(g, g[1:])), reverse=True)
    p("largest gaps (us, after -> before):")
    for d, a, b in between[:12]:
        p(f"  {d:7.2f}  {a[:60]} -> {b[:60]}")
    gl = sorted(d for d, _, _ in between)
    p(f"gaps: median {gl[len(gl) // 2]:.2f} us, p10 {gl[len(gl) // 10]:.2f}, p90 {gl[9 * len(gl) // 10]:.2f}")
    by = {}
    for _, d, n, k in g:
        key = (k, n[:80])
        by.setdefault(key, [0, 0.0])
        by[key][0] += 1
        by[key][1] += d
    p("items by name (count, total us, kind):")
    for (k, n), (c, d) in sorted(by.items(), key=lambda x: -x[1][1])[:30]:
        p(f"  {c:4d} {d:9.1f}  {k:7s} {n}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--fp16", action="store_true")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--trace")
    a = ap.parse_args()
    import migraphx
    import torch
    from torch.profiler import ProfilerActivity, profile
    prog = migraphx.parse_onnx(a.model)
    if a.fp16:
        migraphx.quantize_fp16(prog)
    prog.compile(migraphx.get_target("gpu"), offload_copy=False)
    params = {n: migraphx.to_gpu(migraphx.generate_argument(s)) for n, s in prog.get_parameter_shapes().items()}
    for _ in range(10):
        prog.run(params)
    migraphx.gpu_sync()
    import time
    walls = []
    for _ in range(50):
        t0 = time.perf_counter()
        prog.run(params)
        migraphx.gpu_sync()
        walls.append((time.perf_counter() - t0) * 1e6)
    print(f"wall time of run + gpu_sync, median of 50 (no profiler): {statistics.median(walls):.1f} us")
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(a.runs + 3):
            prog.run(params)
            migraphx.gpu_sync()
    path = a.trace or "/tmp/trace_gaps.json"
    prof.export_chrome_trace(path)
    kinds = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
    events = [(float(e["ts"]), float(e.get("dur", 0)), e.get("name", "?"), kinds[e["cat"]])
              for e in json.load(open(path))["traceEvents"] if e.get("cat") in kinds]
    if not events:
        sys.exit("trace_gaps.py: the profiler recorded no GPU items (CUPTI not available?)")
    report(events, a.runs)


if __name__ == "__main__":
    main()
