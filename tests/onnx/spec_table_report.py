#!/usr/bin/python3
"""The ONNX import issue's "done when" numbers, from a conformance run's per-case results.

Reads the spec's operator table (section 1.4 of the MIGraphX tutorial text: one line per op,
`<Op>Y<types>` or `<Op>N`), finds the ops of every node case's model (sub-graphs included),
and combines them with the results file that `onnx_conformance --results FILE` writes.

  tests/onnx/spec_table_report.py --results RESULTS [--spec DIR_OR_FILE] [--data DIR]
                                  [--expected FILE] [--failures]

With no --results it runs build/tests/onnx/onnx_conformance itself (target ref) to make one.
Needs Debian's python3-onnx (use /usr/bin/python3).
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def find_spec_table(spec):
    """{op: 'Y' or 'N'} from the spec text's section 1.4 table."""
    files = [spec] if os.path.isfile(spec) else sorted(glob.glob(os.path.join(spec, "*.txt")))
    for path in files:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        # The table of contents also names 1.4; the section itself is the heading followed by the table.
        for i, line in enumerate(lines):
            if not re.match(r"^1\.4\s", line.strip()):
                continue
            table = {}
            for row in lines[i + 1:]:
                row = row.strip()
                if re.match(r"^1\.5\s", row):
                    break
                m = re.match(r"^([A-Za-z0-9]+)Y(?=FP|INT|UINT|BOOL|DOUBLE)", row)
                if m:
                    table[m.group(1)] = "Y"
                    continue
                m = re.match(r"^([A-Za-z0-9]+)N$", row)
                if m:
                    table[m.group(1)] = "N"
            if len(table) > 50:
                return table, path
    raise SystemExit("spec_table_report: no operator table (section 1.4) found under " + spec)


def graph_ops(g, out):
    for n in g.node:
        out.add(n.op_type if n.domain in ("", "ai.onnx") else n.domain + "." + n.op_type)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                graph_ops(a.g, out)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for sg in a.graphs:
                    graph_ops(sg, out)
    return out


def case_ops(case_dir):
    m = onnx.load(os.path.join(case_dir, "model.onnx"), load_external_data=False)
    return graph_ops(m.graph, set())


def read_results(path):
    r = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                r[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    return r


def read_expected(path):
    r = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line and not line.startswith("#"):
                    k, _, reason = line.partition(" ")
                    r[k] = reason
    return r


def run_conformance(runner, data, expected, out):
    cmd = [runner, "--target", "ref", "--data", data, "-j", "2", "--results", out]
    if expected:
        cmd += ["--expected", expected]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)


def pct(a, b):
    return 100.0 * a / b if b else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", help="per-case results written by onnx_conformance --results")
    ap.add_argument("--spec", default="/work/shared/spec", help="spec text file or folder of them")
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--expected", default=os.path.join(HERE, "expected_failures_ref.txt"))
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "tests", "onnx", "onnx_conformance"))
    ap.add_argument("--failures", action="store_true", help="list every failing case with its reason")
    args = ap.parse_args()

    table, spec_path = find_spec_table(args.spec)
    yes = {op for op, v in table.items() if v == "Y"}
    results_path = args.results
    if not results_path:
        results_path = os.path.join(tempfile.mkdtemp(), "results.tsv")
        run_conformance(args.runner, args.data, args.expected, results_path)
    results = read_results(results_path)
    expected = read_expected(args.expected)

    def passed(case_id):
        return results.get(case_id, ("MISSING", ""))[0] in ("PASS", "XPASS")

    node_dir = os.path.join(args.data, "node")
    node_cases = sorted(os.listdir(node_dir))
    all_y, not_y_ops = [], collections.Counter()
    for name in node_cases:
        ops = case_ops(os.path.join(node_dir, name))
        others = sorted(op for op in ops if op not in yes)
        if others:
            not_y_ops.update(others)
        else:
            all_y.append("node/" + name)

    print(f"spec table: {spec_path} ({len(table)} ops, {len(yes)} marked Y)")
    missing = [c for c in ("node/" + n for n in node_cases) if c not in results]
    if missing:
        print(f"warning: {len(missing)} node cases have no result (counted as failed), e.g. {missing[0]}")

    n_ally = sum(passed(c) for c in all_y)
    print(f"node cases whose ops are all Y: {len(all_y)}, passed {n_ally}, {pct(n_ally, len(all_y)):.1f}%")
    pt = [f + "/" + n for f in ("pytorch-converted", "pytorch-operator")
          for n in sorted(os.listdir(os.path.join(args.data, f)))]
    n_pt = sum(passed(c) for c in pt)
    print(f"pytorch-converted + pytorch-operator: passed {n_pt}/{len(pt)}, {pct(n_pt, len(pt)):.1f}%")
    n_node = sum(passed("node/" + n) for n in node_cases)
    print(f"all node cases: {len(node_cases)}, passed {n_node}, {pct(n_node, len(node_cases)):.1f}%")
    for folder in ("node", "pytorch-converted", "pytorch-operator", "simple"):
        ids = [k for k in results if k.startswith(folder + "/")]
        c = collections.Counter(results[k][0] for k in ids)
        print(f"  {folder}: {c['PASS'] + c['XPASS']} passed, {c['FAIL'] + c['XFAIL']} failed, {c['SKIP']} skipped")

    failing = [c for c in all_y if not passed(c)]
    if failing:
        print("failing all-Y node cases:")
        for c in failing:
            print(f"  {c}: {expected.get(c) or results.get(c, ('', 'no result'))[1]}")
    if args.failures:
        print("all failing cases:")
        for k in sorted(results):
            if not passed(k):
                print(f"  {k}: {expected.get(k) or results[k][1]}")
    print("ops outside the table's Y list, by node cases using them: " +
          ", ".join(f"{op} {n}" for op, n in not_y_ops.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
