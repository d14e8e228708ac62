#!/usr/bin/env python3
"""Compares `vprof critical-path` with HTA's critical_path_analysis.

For every trace set in ../shared/fixtures/real/hta with a
critical_path_summary.csv (hta_oracle/<set>/: HTA's summary, the path's
edges in critical_path_breakdown.csv, the overlaid trace HTA wrote), runs
vprof with the annotation and instance the set's README.md says HTA was
called with, and checks:

- summary: per bound_by category, vprof's Time (ns) is HTA's duration_us
  to the microsecond (vprof computes on HTA's microsecond grid, so the
  same on nanosecond traces), and the percentages agree to the csv's two decimals;
- path: the same edges in the same order: the attributed event's index in
  traceEvents, duration, edge type and bound_by of each, and each edge's
  begin/end times (HTA shifts its times by the trace's first timestamp: the
  offset must be one constant);
- overlay (-o): the same events carry args.critical = 1, and the same
  critical_path flow events (phase, pid, tid, ts, weight, type; the flow
  ids are numbered in another order: HTA takes the path's edges from a
  set).

Exit status 0 when all match, 1 otherwise, 77 (skip) when the fixtures are
absent.
"""
import csv
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_hta as base  # noqa: E402  (the trace sets)

VPROF = sys.argv[1]


def call_of(set_name):
    """annotation, instance from the README's critical_path_analysis(...) line."""
    with open(os.path.join(base.ROOT, "hta_oracle", set_name, "README.md")) as f:
        text = f.read()
    m = re.search(r"critical_path_analysis\(rank=(\d+), annotation='([^']*)', instance_id=(\d+)", text)
    if not m:
        raise SystemExit(f"{set_name}: README.md does not say how critical_path_analysis was called")
    return m.group(2), int(m.group(3))


def run(args):
    res = subprocess.run([VPROF, "critical-path", "-q"] + args, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"vprof {' '.join(args)} failed ({res.returncode}): {res.stderr}")
    return res.stdout


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def oracle(set_name, name):
    with open(os.path.join(base.ROOT, "hta_oracle", set_name, name)) as f:
        return list(csv.DictReader(f))


def marks(doc, n_orig):
    ev = doc["traceEvents"]
    critical = {i for i, e in enumerate(ev[:n_orig]) if isinstance(e.get("args"), dict)
                and e["args"].get("critical") == 1}
    flows = sorted((e["ph"], e["pid"], e["tid"], int(e["ts"]), e["args"]["weight"], e["args"]["type"])
                   for e in ev[n_orig:] if e.get("cat") == "critical_path")
    return critical, flows


def check_set(set_name, trace, problems):
    annotation, instance = call_of(set_name)
    common = ["--annotation", annotation, "--instance", str(instance), "-f", "csv"]
    # summary
    mine = {r["Bound By"]: r for r in csv_rows(run(common + ["--table", "summary", trace]))}
    hta = {r["bound_by"]: r for r in oracle(set_name, "critical_path_summary.csv")}
    if set(mine) != set(hta):
        problems.append(f"bound_by categories: vprof {sorted(mine)}, HTA {sorted(hta)}")
    for k in sorted(set(mine) & set(hta)):
        t_ns, t_us = int(mine[k]["Time (ns)"]), int(hta[k]["duration_us"])
        if t_ns != t_us * 1000:
            problems.append(f"{k or '(none)'}: vprof {t_ns} ns, HTA {t_us} us")
        if abs(float(mine[k]["Time (%)"] or 0) - float(hta[k]["pct"])) > 0.005 + 1e-9:   # csv: 2 decimals
            problems.append(f"{k or '(none)'}: vprof {mine[k]['Time (%)']} %, HTA {hta[k]['pct']} %")
    # path
    path = csv_rows(run(common + ["--table", "path", trace]))
    hpath = sorted(oracle(set_name, "critical_path_breakdown.csv"), key=lambda r: int(r["path_pos"]))
    if len(path) != len(hpath):
        problems.append(f"path: vprof {len(path)} edges, HTA {len(hpath)}")
    offsets = set()
    for i, (a, b) in enumerate(zip(path, hpath)):
        got = (a["Event"], int(a["Duration (ns)"]) // 1000, a["Type"], a["Bound By"])
        want = (b["event_idx"], int(b["duration"]), b["type"], b["bound_by"])
        if got != want:
            problems.append(f"path edge {i}: vprof {got}, HTA {want}")
            if len(problems) > 20:
                return
        offsets.add(int(a["Begin (us)"]) - int(b["begin_ts"]))
        offsets.add(int(a["End (us)"]) - int(b["end_ts"]))
    if len(offsets) > 1:
        problems.append(f"path edge times: offsets from HTA's vary: {sorted(offsets)[:5]}")
    # overlay
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "overlaid.json.gz")
        run(["--annotation", annotation, "--instance", str(instance), "-o", out, trace])
        with gzip.open(out, "rt") as f:
            doc = json.load(f)
    events, _ = base.load(trace)
    n_orig = len(events)
    with gzip.open(os.path.join(base.ROOT, "hta_oracle", set_name, "critical_path_overlaid.json.gz"), "rt") as f:
        hdoc = json.load(f)
    mc, mf = marks(doc, n_orig)
    hc, hf = marks(hdoc, n_orig)
    if mc != hc:
        problems.append(f"overlay: critical events differ: vprof only {sorted(mc - hc)[:10]}, "
                        f"HTA only {sorted(hc - mc)[:10]}")
    if mf != hf:
        problems.append(f"overlay: flows differ: vprof {len(mf)} {mf[:3]}, HTA {len(hf)} {hf[:3]}")
    return len(path), len(mc), len(mf)


def main():
    if not os.path.isdir(base.ROOT):
        print(f"SKIP: {base.ROOT} is absent (the shared fixtures are not beside this checkout)")
        return 77
    checks = base.Checks()
    for set_name, rel in base.SETS.items():
        if not os.path.exists(os.path.join(base.ROOT, "hta_oracle", set_name, "critical_path_summary.csv")):
            continue
        trace = os.path.join(base.ROOT, "tests", "data", rel)
        problems = []
        counts = check_set(set_name, trace, problems)   # None when it stops early
        label = f"{set_name}:" if problems else (f"{set_name}: {counts[0]} path edges, {counts[1]} "
                                                 f"critical events, {counts[2]} flow events, as HTA")
        checks.report(label, problems, indent="  ")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
