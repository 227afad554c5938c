#!/usr/bin/python3
"""Run the model zoo (tools/export_zoo.py's output) on one target and print a markdown table.

For every model of the zoo (every model export_zoo.py knows, plus any other folder of DIR with a
model.onnx or an export.error), in a child process of its own so that a crash or a hang is one row, not the end:
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
These fp32 rules are the whole rule without --fp16.

fp16 (--fp16): half precision alone moves a deep network's worst element past 1e-2 (torch's own
fp16 does too), so an fp16 output passes by either of two rules, and the table says which:
  fixed   its max rel err <= TOL (1e-2), as above; or
  torch   migx's output is, on both measures, at most twice as far (plus a small floor) from the
          fp32 reference as torch's own fp16 output of the same model on the same input is from
          that reference (export_zoo.py writes it: model.half() on CUDA, <model>/torch_fp16/):
              max rel err(migx)  <= 2 * max rel err(torch fp16) + 1e-3    and
              1 - cos(migx, ref) <= 2 * (1 - cos(torch fp16, ref)) + 1e-6
          (cos: cosine similarity of the output and the reference, flattened, in float64).
A row passes when every output (of every data set) passes by one of them: rule "fixed" when all
pass the fixed bound, "torch fp16 x2" when some need the second rule. Where torch's fp16 outputs
are missing (not computed, torch could not run the model in half, non-finite, another shape) the
row can pass only by the fixed bound, and its rule column says "fixed only" and why.
Data-dependent output shapes (a detector's kept boxes): half precision can move a score across a
threshold, so an fp16 output may hold another number of rows than the fp32 reference. Where
migx's shape differs from the reference's but equals torch fp16's, that output is compared with
torch fp16's output instead (the same error measure, torch fp16 as the reference, within the
fixed fp16 TOL; no x2 rule, as there is no fp32 yardstick for it) and the rule column says so
("as torch fp16: boxes [100, 4], ref [99, 4]"). An output whose shape matches neither fails.

Detections (outputs named boxes [K, 4], scores [K], labels [K] with integer labels: the *_boxes
models and detection_boxes, K data dependent) are compared as a set, in any order (detection_set,
match_detections): each reference detection, by decreasing score, is matched to the closest
unmatched detection of migx with the same label whose box coordinates and score are within TOL
by the error measure above (m of the boxes resp. the scores); the note gives matched / missing /
extra. fp32: the row passes when every reference detection is matched and none is extra (its max
rel err: the worst over the matched pairs). fp16: also when migx's missing + extra is at most 2x
torch fp16's own missing + extra against the same reference (rule "detections x2 torch fp16");
without torch fp16's outputs, differing detections fail. Outputs with one row per detection
(Mask R-CNN's masks [K, 1, 28, 28]; per_detection_outputs) are compared on the matched pairs
only, reference row i against migx's row j, by the usual rules (fp16: torch fp16's rows of its
own matched pairs give the x2 yardstick). `--self-test` checks these rules on synthetic detections.

Usage: tools/run_zoo.py --zoo DIR [--driver build-cpu/src/migraphx-driver] [--target cpu|ref|gpu]
                        [--fp16] [--models a,b,c|all|static|dynamic] [--out FILE.md] [--timeout S] [--no-diagnose]
       tools/run_zoo.py --self-test
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


def errors(want, got, m):
    """(max rel err, 1 - cosine similarity) of `got` against the reference `want` (float64 arrays of
    one shape; m = mean |want|). NaN counts as infinitely far."""
    import numpy as np
    err = np.abs(got - want) / (np.abs(want) + m)
    err = np.where(np.isnan(err), np.inf, err)
    e = float(err.max()) if err.size else 0.0
    norms = float(np.linalg.norm(got)) * float(np.linalg.norm(want))
    if not np.all(np.isfinite(got)):
        c = float("inf")
    elif norms == 0.0:
        c = 0.0 if not np.any(got) and not np.any(want) else 1.0
    else:
        c = max(0.0, 1.0 - float(np.dot(got.ravel(), want.ravel())) / norms)
    return e, c


def compare(wants, gots, fp16_refs=None, tol=None):
    """(max rel err over all outputs, notes, per-output metrics) of torch's outputs `wants` and the
    engine's `gots`. fp16_refs: (torch's fp16 outputs or None, why they are missing) for --fp16;
    each output's metrics then also hold torch fp16's errors against the same reference (t_err,
    t_cos) or why there are none (t_why)."""
    import numpy as np
    if len(gots) != len(wants):
        raise RuntimeError(f"{len(gots)} outputs, expected {len(wants)}")
    t16, t16_why = fp16_refs if fp16_refs is not None else (None, None)
    if tol is None:
        tol = 1e-2 if fp16_refs is not None else 1e-3
    if t16 is not None and len(t16) != len(wants):
        t16, t16_why = None, f"torch fp16 has {len(t16)} outputs, the reference {len(wants)}"
    worst, notes, outs = 0.0, [], []
    det = detection_set(wants)
    per_det = []
    if det is not None:
        # boxes/scores/labels: one entry, the detections compared as a set (any order)
        o = compare_detections([wants[i][1] for i in det], [gots[i] for i in det],
                               [t16[i][1] for i in det] if t16 is not None else None, t16_why, tol,
                               fp16_refs is not None)
        worst = max(worst, o["err"])
        outs.append(o)
        notes.append(detection_note(o))
        per_det = per_detection_outputs(wants, gots, det)
        for k in per_det:
            p = compare_per_detection(wants[k], gots[k], o, t16[k][1] if t16 is not None else None, t16_why,
                                      fp16_refs is not None)
            worst = max(worst, p["err"])
            outs.append(p)
            notes.append(p.pop("note"))
    for k, ((name, want), got) in enumerate(zip(wants, gots)):
        if det is not None and (k in det or k in per_det):
            continue
        want = want.astype(np.float64)
        got = got.astype(np.float64)
        t = t16[k][1].astype(np.float64) if t16 is not None else None
        if got.shape != want.shape:
            if t is not None and t.shape == got.shape and np.all(np.isfinite(t)):
                # a data-dependent shape as torch's own fp16 gives it: measured against that
                shapes = f"{name} {list(got.shape)}, ref {list(want.shape)}"
                mt = float(np.abs(t).mean()) if t.size else 0.0
                if mt < 1e-4:
                    notes.append(f"{name}: shape as torch fp16's ({shapes}), whose output is ~0 "
                                 f"(mean |torch fp16| {mt:.3g}): nothing to compare with")
                    worst = float("inf")
                    outs.append({"name": name, "err": float("inf"), "cos": float("inf"), "as_t16": shapes})
                    continue
                e, c = errors(t, got, mt)
                worst = max(worst, e)
                outs.append({"name": name, "err": e, "cos": c, "as_t16": shapes})
                notes.append(f"{name}: shape {list(got.shape)} as torch fp16's, the fp32 reference's "
                             f"{list(want.shape)}: against torch fp16 (mean |torch fp16| {mt:.3g}): max abs diff "
                             f"{float(np.nanmax(np.abs(got - t))) if t.size else 0.0:.3g}, max rel err {e:.3g}, "
                             f"1-cos {c:.2e}")
                continue
            extra = ""
            if t is not None:
                extra = (f" (torch fp16: shape {list(t.shape)}, as migx's, not finite)" if t.shape == got.shape
                         else f" (torch fp16: shape {list(t.shape)})")
            raise RuntimeError(f"output {name}: shape {list(got.shape)}, expected {list(want.shape)}{extra}")
        m = float(np.abs(want).mean()) if want.size else 0.0
        if m < 1e-4:
            notes.append(f"{name}: reference output ~0 (mean |ref| {m:.3g}): re-export")
            worst = float("inf")
            outs.append({"name": name, "err": float("inf"), "cos": float("inf"), "t_why": "reference ~0"})
            continue
        e, c = errors(want, got, m)
        worst = max(worst, e)
        o = {"name": name, "err": e, "cos": c}
        if fp16_refs is not None:
            if t is None:
                o["t_why"] = t16_why
            elif t.shape != want.shape:
                o["t_why"] = f"torch fp16 {name}: shape {list(t.shape)}, reference {list(want.shape)}"
            elif not np.all(np.isfinite(t)):
                o["t_why"] = f"torch fp16 {name}: {int(np.sum(~np.isfinite(t)))} non-finite values"
            else:
                o["t_err"], o["t_cos"] = errors(want, t, m)
        outs.append(o)
        note = f"{name}: mean |ref| {m:.3g}, max abs diff {float(np.nanmax(np.abs(got - want))):.3g}, 1-cos {c:.2e}"
        if "t_err" in o:
            note += f"; torch fp16: max rel err {o['t_err']:.3g}, 1-cos {o['t_cos']:.2e}"
        elif "t_why" in o:
            note += f"; no torch fp16 ({o['t_why']})"
        notes.append(note)
    return worst, notes, outs


# --- detections of data-dependent count, compared as sets -------------------------------------------

DETECTION_OUTPUTS = ("boxes", "scores", "labels")


def detection_set(wants):
    """(i_boxes, i_scores, i_labels), the reference outputs that form a detection set, or None.
    The rule: outputs named exactly boxes, scores and labels (export_zoo.py's *_boxes and
    detection_boxes models), of shapes [K, 4], [K] and [K] with integer labels, one K. Other
    outputs with such names (a raw head's boxes [1, N, 4] and scores, no labels) do not qualify."""
    import numpy as np
    names = [n for n, _ in wants]
    if any(names.count(n) != 1 for n in DETECTION_OUTPUTS):
        return None
    idx = tuple(names.index(n) for n in DETECTION_OUTPUTS)
    b, s, l = (wants[i][1] for i in idx)
    if b.ndim != 2 or b.shape[1] != 4 or s.shape != (b.shape[0],) or l.shape != (b.shape[0],) \
            or not np.issubdtype(l.dtype, np.integer):
        return None
    return idx


def match_detections(ref, got, tol):
    """Matches got's detections to ref's one to one, in any order: ref's by decreasing score, each
    to the closest unmatched detection of got with the same label whose 4 box coordinates and score
    are within tol by the error measure (|got - ref| / (|ref| + m), m = mean |ref| of the reference's
    boxes resp. scores). ref, got: (boxes [K, 4], scores [K], labels [K]). Returns matched (pairs of
    indices), missing (ref's unmatched), extra (got's unmatched), and the worst error over the matched
    pairs of boxes and scores."""
    import numpy as np
    rb, rs, rl = (np.asarray(x, np.float64) for x in ref)
    gb, gs, gl = (np.asarray(x, np.float64) for x in got)
    mb = float(np.abs(rb).mean()) if rb.size else 0.0
    ms = float(np.abs(rs).mean()) if rs.size else 0.0
    used = np.zeros(len(gs), bool)
    matched, missing, err_b, err_s = [], [], 0.0, 0.0
    for i in np.argsort(-rs, kind="stable"):
        eb = (np.abs(gb - rb[i]) / (np.abs(rb[i]) + mb)).max(axis=1) if len(gs) else np.zeros(0)
        es = np.abs(gs - rs[i]) / (abs(rs[i]) + ms)
        e = np.maximum(eb, es)
        ok = (gl == rl[i]) & ~used & (e <= tol)  # NaN is never within tol
        if not ok.any():
            missing.append(int(i))
            continue
        j = int(np.flatnonzero(ok)[np.argmin(e[ok])])
        used[j] = True
        matched.append((int(i), j))
        err_b, err_s = max(err_b, float(eb[j])), max(err_s, float(es[j]))
    return {"matched": matched, "missing": missing, "extra": [int(j) for j in np.flatnonzero(~used)],
            "err_boxes": err_b, "err_scores": err_s}


def per_detection_outputs(wants, gots, det):
    """Indices of the outputs other than boxes/scores/labels that hold one row per detection (Mask
    R-CNN's masks [K, 1, 28, 28]): leading dim K in the reference and migx's own K in migx's."""
    k_ref, k_got = wants[det[0]][1].shape[0], gots[det[0]].shape[0]
    return [k for k, ((_, w), g) in enumerate(zip(wants, gots)) if k not in det and w.ndim >= 1
            and g.ndim == w.ndim and w.shape[0] == k_ref and g.shape[0] == k_got and g.shape[1:] == w.shape[1:]]


def compare_per_detection(want, got, det_entry, t16, t16_why, fp16):
    """compare()'s entry for a per-detection output (name, reference) against migx's `got`: the rows
    of the matched detections only, reference row i against migx's row j for each matched pair (i, j)
    of det_entry (compare_detections'); with fp16 and torch fp16's output, torch fp16's rows of its
    own matched pairs against the same reference rows give t_err / t_cos."""
    import numpy as np
    name, want = want
    pairs = det_entry.get("pairs", [])
    if not pairs:
        return {"name": name, "err": 0.0, "cos": 0.0, "note": f"{name}: no matched detections to compare",
                **({"t_why": "no matched detections"} if fp16 else {})}
    w = np.stack([want[i] for i, _ in pairs]).astype(np.float64)
    g = np.stack([got[j] for _, j in pairs]).astype(np.float64)
    m = float(np.abs(w).mean())
    e, c = errors(w, g, m)
    o = {"name": name, "err": e, "cos": c}
    note = (f"{name}: the {len(pairs)} matched detections' rows, mean |ref| {m:.3g}, max abs diff "
            f"{float(np.nanmax(np.abs(g - w))):.3g}, max rel err {e:.3g}, 1-cos {c:.2e}")
    if fp16:
        t_pairs = det_entry.get("t_pairs")
        if t16 is None or t_pairs is None:
            o["t_why"] = t16_why or det_entry.get("t_why", "no torch fp16 detections")
        elif not t_pairs:
            o["t_why"] = "torch fp16 matched no detections"
        elif t16.shape[1:] != want.shape[1:] or t16.shape[0] != det_entry["det"].get("t_got"):
            o["t_why"] = f"torch fp16 {name}: shape {list(t16.shape)}"
        else:
            wt = np.stack([want[i] for i, _ in t_pairs]).astype(np.float64)
            gt = np.stack([t16[j] for _, j in t_pairs]).astype(np.float64)
            o["t_err"], o["t_cos"] = errors(wt, gt, float(np.abs(wt).mean()))
            note += f"; torch fp16 (its {len(t_pairs)} matched): max rel err {o['t_err']:.3g}, 1-cos {o['t_cos']:.2e}"
        if "t_why" in o:
            note += f"; no torch fp16 ({o['t_why']})"
    o["note"] = note
    return o


def compare_detections(want, got, t16, t16_why, tol, fp16):
    """compare()'s entry for a detection set: want, got, t16 (torch fp16's or None): [boxes, scores,
    labels]. 'err' is the worst error over the matched pairs; 'det' the counts; with fp16 and torch
    fp16's detections, 't_missing' / 't_extra': torch fp16's own against the same reference, else
    't_why'."""
    import numpy as np
    k = want[0].shape[0]
    if got[0].ndim != 2 or got[0].shape[1:] != (4,) or got[1].shape != (got[0].shape[0],) \
            or got[2].shape != (got[0].shape[0],):
        raise RuntimeError(f"detections: boxes {list(got[0].shape)}, scores {list(got[1].shape)}, labels "
                           f"{list(got[2].shape)}: not [K, 4], [K], [K]")
    if k and (float(np.abs(want[0]).mean()) < 1e-4 or float(np.abs(want[1]).mean()) < 1e-4):
        return {"name": "detections", "err": float("inf"), "det": {"k": k, "got": got[0].shape[0], "why":
                "reference boxes or scores ~0 (mean |ref| < 1e-4): re-export"}}
    m = match_detections(want, got, tol)
    d = {"k": k, "got": int(got[0].shape[0]), "tol": tol, "matched": len(m["matched"]),
         "missing": len(m["missing"]), "extra": len(m["extra"]),
         "err_boxes": m["err_boxes"], "err_scores": m["err_scores"],
         # the reference's scores of what was missed, and got's of what was extra (near the threshold?)
         "missing_scores": sorted((float(want[1][i]) for i in m["missing"]), reverse=True)[:5],
         "extra_scores": sorted((float(got[1][j]) for j in m["extra"]), reverse=True)[:5]}
    o = {"name": "detections", "err": max(m["err_boxes"], m["err_scores"]), "det": d, "pairs": m["matched"]}
    if fp16:
        if t16 is None:
            o["t_why"] = t16_why
        elif detection_set([(n, a) for n, a in zip(DETECTION_OUTPUTS, t16)]) is None:
            o["t_why"] = "torch fp16's boxes/scores/labels are not [K, 4], [K], [K]"
        elif not all(np.all(np.isfinite(np.asarray(a, np.float64))) for a in t16[:2]):
            o["t_why"] = "torch fp16's boxes or scores are not finite"
        else:
            t = match_detections(want, t16, tol)
            d["t_got"], d["t_missing"], d["t_extra"] = int(t16[0].shape[0]), len(t["missing"]), len(t["extra"])
            o["t_pairs"] = t["matched"]
    return o


def detection_text(d):
    """'108/108 matched, 0 missing, 0 extra (...)' for a detection entry's counts."""
    if "why" in d:
        return f"detections: {d['why']}"
    text = (f"detections as a set (same label, box and score within {d['tol']:g}, any order): "
            f"{d['matched']}/{d['k']} matched, {d['missing']} missing, {d['extra']} extra (migx has {d['got']})")
    if d["matched"]:
        text += f"; matched max rel err boxes {d['err_boxes']:.2e}, scores {d['err_scores']:.2e}"
    if d["missing"]:
        text += ", missing ref scores " + " ".join(f"{x:.4g}" for x in d["missing_scores"])
    if d["extra"]:
        text += ", extra scores " + " ".join(f"{x:.4g}" for x in d["extra_scores"])
    if "t_missing" in d:
        text += (f"; torch fp16: {d['t_missing']} missing, {d['t_extra']} extra (has {d['t_got']})")
    return text


def detection_note(o):
    return detection_text(o["det"]) + (f"; no torch fp16 ({o['t_why']})" if "t_why" in o else "")


def detections_rule(d, fp16):
    """'fixed' (every reference detection matched, none extra), 'detections x2' (fp16: migx's
    missing + extra at most FP16_FACTOR x torch fp16's own against the same reference) or None."""
    if "why" in d:
        return None
    if d["missing"] == 0 and d["extra"] == 0:
        return "fixed"
    if fp16 and "t_missing" in d and d["missing"] + d["extra"] <= FP16_FACTOR * (d["t_missing"] + d["t_extra"]):
        return "detections x2"
    return None


def self_test():
    """Synthetic checks of the detection-set comparison and its fp32 / fp16 rules (compare + judge
    on made-up detections, no model): `tools/run_zoo.py --self-test`. Returns the failures."""
    import numpy as np
    rng = np.random.default_rng(0)
    k = 20
    xy = rng.uniform(0, 200, (k, 2))
    ref = [np.concatenate([xy, xy + rng.uniform(10, 80, (k, 2))], 1).astype(np.float32),
           np.sort(rng.uniform(0.05, 0.9, k))[::-1].astype(np.float32), rng.integers(0, 5, k).astype(np.int64)]
    names = list(DETECTION_OUTPUTS)

    def sub(d, keep):
        return [a[keep] for a in d]

    def run(got, tol=1e-3, t16=None, fp16=False, want=None):
        wants = list(zip(names, ref if want is None else want))
        refs = ((list(zip(names, t16)), None) if t16 is not None else (None, "not computed")) if fp16 else None
        _, notes, outs = compare(wants, got, refs, tol)
        return judge(outs, tol, fp16) + (notes[0],)

    fails = []

    def check(what, result, passed, rule_has=""):
        if result[0] != passed or rule_has not in result[1]:
            fails.append(f"{what}: got {result[:2]}, expected passed={passed} rule with '{rule_has}' ({result[2]})")

    perm = rng.permutation(k)
    noisy = [ref[0] * (1 + 1e-6), ref[1] * (1 - 1e-6), ref[2]]
    check("fp32, another order, 1e-6 noise", run(sub(noisy, perm)), True, "fixed")
    # retinanet_boxes: two neighbours' scores 3e-8 apart (~0.0108), migx's order of them swapped
    close = [a.copy() for a in ref]
    close[1][9:] *= 0.012 / close[1][9]
    close[1][10] = close[1][9] - 3e-8
    swapped = sub(close, np.r_[0:9, 10, 9, 11:k])
    swapped[1][9] += 7e-8
    check("fp32, two neighbours swapped", run(swapped, want=close), True, "fixed")
    check("fp32, one missing", run(sub(ref, np.r_[0:5, 6:k])), False)
    check("fp32, one extra", run(sub(ref, np.r_[0:k, 3])), False)
    relabel = [a.copy() for a in ref]
    relabel[2][4] += 1
    check("fp32, one label differs", run(relabel), False)
    moved = [a.copy() for a in ref]
    moved[0][7, 2] *= 1.01
    check("fp32, one box 1e-2 off", run(moved), False)
    none = [np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)]
    check("fp32, nothing detected where the reference has none", run(none, want=none), True, "fixed")
    check("fp32, nothing detected where the reference has 20", run(none), False)

    # fp16 (tol 1e-2): torch fp16 misses 2 and adds 1 (3 differences); migx may have up to 6
    half = [ref[0].astype(np.float16), ref[1].astype(np.float16), ref[2]]
    extra_det = [np.array([[1, 2, 30, 40]], np.float16), np.array([0.06], np.float16), np.array([2])]
    t16 = [np.concatenate([a[:k - 2], e]) for a, e in zip(half, extra_det)]
    check("fp16, as the reference", run(sub(half, perm), 1e-2, t16, True), True, "fixed")
    check("fp16, 5 missing + 1 extra <= 2 x 3",
          run([np.concatenate([a[:k - 5], e]) for a, e in zip(half, extra_det)], 1e-2, t16, True),
          True, "detections x2 torch fp16: migx 5 missing + 1 extra, torch fp16 2 + 1")
    check("fp16, 7 missing > 2 x 3", run(sub(half, np.r_[0:k - 7]), 1e-2, t16, True), False)
    check("fp16, no torch fp16, 1 missing", run(sub(half, np.r_[0:k - 1]), 1e-2, None, True), False, "fixed only")
    check("fp16, no torch fp16, as the reference", run(half, 1e-2, None, True), True, "fixed only")
    far = [a.copy() for a in half]
    far[0][3, 0] = np.float16(float(far[0][3, 0]) + 0.02 * (abs(float(far[0][3, 0])) + float(np.abs(ref[0]).mean())))
    check("fp16, a box 2e-2 off is one missing + one extra", run(far, 1e-2, t16, True), True, "migx 1 missing + 1 extra")

    # a per-detection output (masks [K, 2, 3]) compared on the matched pairs, in migx's order
    masks = rng.uniform(0.2, 0.8, (k, 2, 3)).astype(np.float32)

    def run_masks(got, got_masks, tol=1e-3, t16=None, t16_masks=None, fp16=False):
        wants = list(zip(names + ["masks"], ref + [masks]))
        refs = ((list(zip(names + ["masks"], t16 + [t16_masks])), None) if t16 is not None
                else (None, "not computed")) if fp16 else None
        _, notes, outs = compare(wants, got + [got_masks], refs, tol)
        return judge(outs, tol, fp16) + ("; ".join(notes),)

    check("fp32, masks in another order", run_masks(sub(noisy, perm), masks[perm] * (1 + 1e-6)), True, "fixed")
    bad = masks[perm].copy()
    bad[5, 1, 2] *= 1.01
    check("fp32, one mask value 1e-2 off", run_masks(sub(noisy, perm), bad), False)
    keep = np.r_[0:k - 5]
    t16_masks = np.concatenate([masks[:k - 2] * (1 + 3e-2), masks[:1]])
    check("fp16, masks of 15 matched, 1.5e-2 off, torch fp16 3e-2 off",
          run_masks([np.concatenate([a[keep], e]) for a, e in zip(half, extra_det)],
                    np.concatenate([masks[keep] * (1 + 1.5e-2), masks[:1]]), 1e-2, t16, t16_masks, True),
          True, "detections x2 torch fp16")
    check("fp16, masks 1e-1 off, torch fp16 3e-2 off",
          run_masks(half, masks * (1 + 1e-1), 1e-2, t16, t16_masks, True), False)

    # outputs that do not form a detection set
    raw = [("boxes", np.zeros((1, 8, 4), np.float32)), ("scores", np.zeros((1, 8, 3), np.float32))]
    if detection_set(raw) is not None:
        fails.append("raw heads' boxes/scores taken for a detection set")
    if detection_set([(n, a.astype(np.float32) if n == "labels" else a) for n, a in zip(names, ref)]) is not None:
        fails.append("float labels taken for a detection set")
    return fails


def torch_fp16_refs(model_dir, k):
    """(torch's fp16 outputs of data set k, None) or (None, why there are none): export_zoo.py's
    <model>/torch_fp16/."""
    folder = os.path.join(model_dir, "torch_fp16")
    try:
        with open(os.path.join(folder, "info.json")) as f:
            info = json.load(f)
    except (OSError, ValueError):
        return None, "not exported (an export_zoo.py without them)"
    where = info.get("device_name") or info.get("device", "?")
    if info.get("status") != "ok":
        return None, f"{info.get('status', '?')} on {where}, torch {info.get('torch', '?')}: {info.get('error', '')}"
    outs = load_pbs(os.path.join(folder, f"test_data_set_{k}"), "output_")
    if not outs:
        return None, f"no torch fp16 outputs for data set {k}"
    return outs, None


# An fp16 output passes "torch" when migx is this close to the fp32 reference, relative to torch fp16.
FP16_FACTOR = 2.0
FP16_ERR_FLOOR = 1e-3
FP16_COS_FLOOR = 1e-6


def output_rule(o, tol, fp16):
    """'fixed', 'torch', 'as torch fp16' or None (fails) for one output's metrics (compare's); the
    torch rules only with --fp16 and torch fp16 numbers. An output of torch fp16's shape, not the
    reference's ('as_t16'), passes only within tol of torch fp16's output."""
    if "det" in o:
        return detections_rule(o["det"], fp16)
    if "as_t16" in o:
        return "as torch fp16" if fp16 and o["err"] <= tol else None
    if o["err"] <= tol:
        return "fixed"
    if fp16 and "t_err" in o and o["err"] <= FP16_FACTOR * o["t_err"] + FP16_ERR_FLOOR \
            and o["cos"] <= FP16_FACTOR * o["t_cos"] + FP16_COS_FLOOR:
        return "torch"
    return None


def judge(outs, tol, fp16):
    """(passed, rule) of one data set's outputs: rule 'fixed', 'torch fp16 x2', or for a failure
    '-'; with --fp16 and torch fp16 numbers missing, 'fixed only (no torch fp16: why)'; outputs of
    torch fp16's shape rather than the reference's put 'as torch fp16: <name> <shape>, ref <shape>'
    before the others' rule."""
    rules = [output_rule(o, tol, fp16) for o in outs]
    missing = "; ".join(sorted({o["t_why"] for o in outs if "t_why" in o})) if fp16 else ""
    passed = bool(outs) and all(rules)
    others = [r for r, o in zip(rules, outs) if r != "as torch fp16" and "det" not in o]
    if passed and all(r == "fixed" for r in others):
        rule = "fixed"
    elif passed:
        rule = "torch fp16 x2"
    else:
        rule = "-"
    if missing:
        rule = (f"torch fp16 x2 (no torch fp16 for some outputs: {missing})" if rule == "torch fp16 x2"
                else f"fixed only (no torch fp16: {missing})")
    as_t16 = [o["as_t16"] for o in outs if "as_t16" in o]
    if passed and as_t16:
        rule = "as torch fp16: " + "; ".join(as_t16) + (f"; others {rule}" if others else "")
    dets = [o["det"] for o, r in zip(outs, rules) if r == "detections x2"]
    if passed and dets:
        d = dets[0]
        rule = (f"detections x2 torch fp16: migx {d['missing']} missing + {d['extra']} extra, torch fp16 "
                f"{d['t_missing']} + {d['t_extra']}" + (f"; others {rule}" if others or as_t16 else ""))
    return passed, rule


def fp16_detail(outs):
    """Per output 'name migx E / torch E, 1-cos migx C / torch C' for the note column."""
    parts = []
    for o in outs:
        if "det" in o:
            parts.append(detection_note(o))
        elif "as_t16" in o:
            parts.append(f"{o['name']}: vs torch fp16 (shape as its, not the reference's) err {o['err']:.2e}, "
                         f"1-cos {o['cos']:.1e}")
        elif "t_err" in o:
            parts.append(f"{o['name']}: err {o['err']:.2e} / torch {o['t_err']:.2e}, "
                         f"1-cos {o['cos']:.1e} / {o['t_cos']:.1e}")
        else:
            parts.append(f"{o['name']}: err {o['err']:.2e}, 1-cos {o['cos']:.1e}")
    return "; ".join(parts)


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


def child_dynamic(model_dir, target, fp16, runs, sets_dirs, only_set=None, tol=None):
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
            size["max_rel_err"], size["notes"], size["outputs"] = compare(
                wants, gots, torch_fp16_refs(model_dir, k) if fp16 else None, tol)
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


def child(model_dir, target, fp16, runs, only_set=None, tol=None):
    """Prints `STAGE <name>` lines as it goes and one `RESULT <json>` line at the end."""
    import numpy as np
    import migraphx

    sets_dirs = data_sets(model_dir)
    if len(sets_dirs) > 1:
        return child_dynamic(model_dir, target, fp16, runs, sets_dirs, only_set, tol)
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
    worst, notes, outs = compare(wants, gots, torch_fp16_refs(model_dir, 0) if fp16 else None, tol)
    result["max_rel_err"] = worst
    result["notes"] = notes
    result["outputs"] = outs
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
           "--runs", str(args.runs), "--tol", repr(args.tol)] + (["--fp16"] if args.fp16 else [])
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
    passed, row["rule"] = judge(result["outputs"], args.tol, args.fp16)
    fp16_columns(row, [result["outputs"]])
    detail = (fp16_detail(result["outputs"]) if args.fp16 and (not passed or row["rule"].startswith("torch")
                                                              or "as torch fp16" in row["rule"]) else "")
    if not detail:  # a detection set's counts go in every row that has one
        detail = "; ".join(detection_note(o) for o in result["outputs"] if "det" in o)
    if passed:
        row["result"], row["fault"] = "PASS", detail
    else:
        cause = (diagnose(args.driver, model_dir, args.target, args.fp16, args.timeout) if args.diagnose
                 else "results depart from torch's")
        row["fault"] = "; ".join(x for x in (detail, cause) if x)
    return row


def fp16_columns(row, output_lists):
    """The fp16 table's extra numbers, worst over the outputs (and data sets): torch fp16's max rel
    err, migx's and torch fp16's 1 - cos; None where torch fp16 has none."""
    # outputs measured against the fp32 reference only (not those of torch fp16's shape)
    outs = [o for outs in output_lists for o in outs if "as_t16" not in o and "det" not in o]
    t_errs = [o["t_err"] for o in outs if "t_err" in o]
    row["t_err"] = max(t_errs) if t_errs else None
    row["cos"] = max((o["cos"] for o in outs), default=None)
    row["t_cos"] = max((o["t_cos"] for o in outs if "t_cos" in o), default=None)


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
    if result is not None:
        row.update({k: result[k] for k in ("parse_s", "compile_s")})
        sizes = result["sizes"]
        row["notes"] = result["notes"]
    for s in sizes:  # each size passes when every output does (judge: the fixed or the torch fp16 rule)
        s["passed"], s["rule"] = judge(s["outputs"], args.tol, args.fp16) if "outputs" in s else (False, "")
    passed = [s for s in sizes if s["passed"]]
    rules = list(dict.fromkeys(s["rule"] for s in sizes if s["rule"]))
    row["rule"] = rules[0] if len(rules) == 1 else " / ".join(f"set {s['set']}: {s['rule']}" for s in sizes
                                                              if s["rule"])
    fp16_columns(row, [s["outputs"] for s in sizes if "outputs" in s])
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
        if s["passed"]:
            if args.fp16 and (s["rule"].startswith(("torch", "detections")) or "as torch fp16" in s["rule"]):
                faults.append(f"set {s['set']} ({s['label']}): " + fp16_detail(s["outputs"]))
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
            if args.fp16:
                what += " (" + fp16_detail(s["outputs"]) + ")"
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


def fmt_err(v, spec=".2e"):
    return "" if v is None else ("inf" if v == float("inf") else format(v, spec))


def table_row(r, fp16=False):
    cells = [r["model"], fmt(r["opset"], ""), fmt(r["nodes"], ""), fmt(r["parse_s"], ".2f"),
             fmt(r["compile_s"], ".2f"), fmt(r["run_ms"], ".1f"), fmt_err(r["max_rel_err"])]
    if fp16:
        ran = r.get("cos") is not None
        cells += [fmt_err(r.get("t_err")) if r.get("t_err") is not None else ("n/a" if ran else ""),
                  fmt_err(r.get("cos"), ".1e") + (" / " + fmt_err(r.get("t_cos"), ".1e") if r.get("t_cos") is not None
                                                  else (" / n/a" if ran else "")),
                  r["result"], r.get("rule", "")]
    else:
        cells.append(r["result"])
    cells.append(r["fault"])
    return "| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |"


TABLE_FP32 = ["| model | opset | nodes | parse s | compile s | run ms | max rel err | result | at fault / note |",
              "|---|---|---|---|---|---|---|---|---|"]
TABLE_FP16 = ["| model | opset | nodes | parse s | compile s | run ms | max rel err | torch fp16 max rel err | "
              "1-cos migx / torch fp16 | result | rule | at fault / note |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]


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
    """The versions export_zoo.py ran with (this Python's: zoo_gpu.sh runs both with the GPU
    machine's torch)."""
    code = ("import torch, torchvision, onnx\n"
            "try:\n    import transformers; t = transformers.__version__\nexcept Exception:\n    t = 'not installed'\n"
            "print(f'torch {torch.__version__}, torchvision {torchvision.__version__}, onnx {onnx.__version__}, "
            "transformers {t}')")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
        return out.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def fp16_provenance(zoo, names):
    """Where the listed models' torch fp16 outputs come from, and which have none."""
    where, missing = {}, []
    for name in names:
        try:
            with open(os.path.join(zoo, name, "torch_fp16", "info.json")) as f:
                info = json.load(f)
        except (OSError, ValueError):
            missing.append(name)
            continue
        if info.get("status") == "ok":
            key = f"{info.get('device_name') or info.get('device')}, torch {info.get('torch')}"
            where[key] = where.get(key, 0) + 1
        else:
            missing.append(name)
    text = "torch fp16 outputs: " + (", ".join(f"{n} models on {k}" for k, n in where.items()) or "none")
    if missing:
        text += f"; missing for {len(missing)} ({', '.join(missing)}): those rows are judged by the fixed bound only"
    return text + "."


def zoo_names(zoo):
    """Every model export_zoo.py knows, then any other exported folder of the zoo."""
    names = []
    try:  # this Python: on the GPU machine the one with torch (Debian's /usr/bin/python3 there has none)
        out = subprocess.run([sys.executable, os.path.join(HERE, "export_zoo.py"), "--list"],
                             capture_output=True, text=True, timeout=300).stdout
        names = [l.split(":", 1)[0] for l in out.splitlines() if ":" in l]
    except (OSError, subprocess.TimeoutExpired):
        pass
    # then every other folder of the zoo, exported or with the reason it was not (export.error)
    for d in sorted(glob.glob(os.path.join(zoo, "*", "model.onnx")) + glob.glob(os.path.join(zoo, "*", "export.error"))):
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
    parser.add_argument("--fp16", action="store_true", help="quantize_fp16 before compiling (TOL 1e-2, or within "
                        "2x torch's own fp16 error: see above)")
    parser.add_argument("--models", help="comma-separated names, 'all' (the default: the whole zoo), 'static' or "
                        "'dynamic' (the dynamic-shape variants <model>_dyn, spec 9.3)")
    parser.add_argument("--out", help="also write the table to this markdown file")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per model (default 1800)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per model; the fastest is reported")
    parser.add_argument("--tol", type=float, help="error bound (default 1e-3, 1e-2 with --fp16)")
    parser.add_argument("--no-diagnose", dest="diagnose", action="store_false",
                        help="do not run the driver's verify --per-instruction on a mismatch")
    parser.add_argument("--self-test", action="store_true", help="check the detection-set comparison and its "
                        "fp32/fp16 rules on synthetic detections, then exit (0: all checks pass)")
    parser.add_argument("--child", metavar="MODEL_DIR", help=argparse.SUPPRESS)
    parser.add_argument("--only-set", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.self_test:
        fails = self_test()
        print("\n".join(fails) if fails else "self-test: all detection-set checks pass")
        return 1 if fails else 0
    if args.tol is None:
        args.tol = 1e-2 if args.fp16 else 1e-3
    if args.child:  # the tolerance matches a detection set's boxes and scores (compare_detections)
        child(args.child, args.target, args.fp16, args.runs, args.only_set, args.tol)
        return 0
    if not args.zoo:
        parser.error("--zoo DIR is required")
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
              *([f"fp16: an output also passes (rule 'torch fp16 x2') when migx's max rel err <= "
                 f"{FP16_FACTOR:g} x torch fp16's + {FP16_ERR_FLOOR:g} and migx's 1-cos <= {FP16_FACTOR:g} x torch "
                 f"fp16's + {FP16_COS_FLOOR:g}, both against the same fp32 reference (torch fp16: model.half() on "
                 "the same inputs, `<model>/torch_fp16/`; 1-cos: 1 - cosine similarity with the reference). "
                 "A row passes when every output passes by either rule; rule 'fixed' when all pass the fixed "
                 "bound; 'fixed only (no torch fp16: why)' where torch's fp16 outputs are missing. The torch "
                 "fp16 and 1-cos columns are the worst over the outputs. A data-dependent output whose shape "
                 "differs from the fp32 reference's but equals torch fp16's (a detector keeping another number "
                 f"of boxes) is measured against torch fp16's output instead, within {args.tol:g} (rule 'as "
                 "torch fp16: name shape, ref shape'; its error is in max rel err, not in the 1-cos columns); "
                 "a shape matching neither fails."] if args.fp16 else []),
              "Detections (outputs boxes [K, 4], scores [K], labels [K]) are compared as a set, in any order: "
              f"each reference detection matched to one of migx's with the same label, box and score within "
              f"{args.tol:g}; a row passes when all are matched and none is extra (max rel err: over the matched "
              "pairs)" + (f", or when migx's missing + extra <= {FP16_FACTOR:g} x torch fp16's own against the same "
                          "reference (rule 'detections x2 torch fp16')" if args.fp16 else "") + "; outputs with a "
              "row per detection (masks) are compared on the matched pairs' rows.",
              "Dynamic-shape variants (`<model>_dyn`, several test data sets): parsed once with a range per "
              "input dim covering the sets, compiled once, run ms per set; the first run at a shape other "
              "than the maximum specialises (parse + compile of that shape; 'first run s'), so with --runs 1 "
              "run ms includes it.",
              ""] + (TABLE_FP16 if args.fp16 else TABLE_FP32)
    print("\n".join(header), flush=True)
    rows, failed = [], 0
    for name in names:
        row = run_model(args, name, os.path.join(args.zoo, name), env)
        rows.append(row)
        failed += row["result"].startswith(("FAIL", "MISSING"))
        line = table_row(row, args.fp16)
        print(line, flush=True)
        for note in row.get("notes", []):
            print(f"    {name}: {note}", file=sys.stderr, flush=True)
    passed = sum(r["result"].startswith("PASS") for r in rows)
    skipped = sum(r["result"] == "SKIP" for r in rows)
    todos = sum(r["result"] == "TODO" for r in rows)
    summary = (f"\n{passed} passed, {failed} failed (or not exported), {skipped} skipped (torchvision or "
               f"transformers lacks them), {todos} not written yet (of {len(rows)}).")
    if args.fp16:
        by_torch = sum(r["result"].startswith("PASS") and r.get("rule", "").startswith("torch") for r in rows)
        as_t16 = sum(r["result"].startswith("PASS") and "as torch fp16" in r.get("rule", "") for r in rows)
        det_x2 = sum(r["result"].startswith("PASS") and r.get("rule", "").startswith("detections x2") for r in rows)
        summary += (f"\nfp16 rules: {passed - by_torch - as_t16 - det_x2} passed by the fixed bound, {by_torch} "
                    f"needed 2x torch fp16, {as_t16} kept torch fp16's data-dependent shape (measured against it), "
                    f"{det_x2} had detections within 2x torch fp16's missing + extra. "
                    + fp16_provenance(args.zoo, [r["model"] for r in rows if r["result"] not in ("SKIP", "TODO")]))
    print(summary, flush=True)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        table = [table_row(r, args.fp16) for r in rows]
        with open(args.out, "w") as f:
            f.write("\n".join(header + table) + "\n" + summary + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
