#!/usr/bin/env python3
"""Compares `vprof counters` with HTA's get_queue_length_summary and
get_memory_bw_summary.

For every trace set in ../shared/fixtures/real/hta with
hta_oracle/<set>/queue_length_summary.csv or memory_bw_summary.csv (HTA's
groupby().describe() frames: per rank and stream, per rank and copy kind),
runs `vprof counters -f csv --table queue|bandwidth` (with --steps :-1
where the trace has two steps or more: HTA drops the last step when it
loads a trace) and checks that the rows are the same (rank and stream, or
rank and copy kind) and every statistic (count, mean, std, min, 25%, 50%,
75%, max) equals HTA's to the bit (the doubles HTA's CSV holds, read back
exactly): vprof orders equal times as numpy's quicksort does, rounds
fractional times as HTA does, and sums as numpy and bottleneck do.

Then, per trace file, the counter events `vprof counters --trace-out`
writes (HTA's generate_trace_with_counters): per stream the "Queue Length"
events, per copy kind the "Memcpy BW" events above 0, must give HTA's
count, min and max exactly and its mean to 1e-12 (Python's sum, not
numpy's), and every stream and copy kind of HTA's frames must have them.

Exit status 0 when all match, 1 otherwise, 77 (skip) when the fixtures are
absent.
"""
import csv
import gzip
import io
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_hta as base  # noqa: E402  (the trace sets and their loading)

VPROF = sys.argv[1]
STATS = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]
MINE = ["Count", "Mean", "Std", "Min", "25%", "50%", "75%", "Max"]
TABLES = {"queue": ("queue_length_summary.csv", "Stream"),
          "bandwidth": ("memory_bw_summary.csv", "Name")}


def hta_summary(path):
    """HTA's frame: three header lines, then rank, key, the 8 statistics."""
    with open(path) as f:
        rows = list(csv.reader(f))[3:]
    return {(int(r[0]), r[1]): [float(x) if x != "" else math.nan for x in r[2:10]] for r in rows}


def run_vprof(files, drop_last, table):
    cmd = [VPROF, "counters", "-f", "csv", "-q", "--table", table]
    cmd += (["--steps", ":-1"] if drop_last else []) + files
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"vprof failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}")
    rows = list(csv.DictReader(io.StringIO(res.stdout.strip("\n").split("\n\n")[0])))
    return {(int(r["Rank"]), r[TABLES[table][1]]): [float(r[c]) if r[c] != "" else math.nan
                                                    for c in MINE] for r in rows}


def counter_events(path, drop_last):
    """{("queue", rank, stream) or ("bandwidth", rank, kind): [values]} from
    the counter events vprof --trace-out adds to one trace file."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "with_counters.json.gz")
        cmd = [VPROF, "counters", "-f", "csv", "-q", "--trace-out", out]
        cmd += (["--steps", ":-1"] if drop_last else []) + [path]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise SystemExit(f"vprof failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}")
        ranks = {r["Rank"] for r in csv.DictReader(io.StringIO(res.stdout.split("\n\n")[0]))}
        with gzip.open(out, "rt") as f:
            events = json.load(f)["traceEvents"]
    rank = int(ranks.pop()) if len(ranks) == 1 else 0
    series = {}
    for e in events:
        if e.get("ph") != "C":
            continue
        if e["name"] == "Queue Length":
            series.setdefault(("queue", rank, str(e["id"])), []).append(e["args"]["Queue Length"])
        else:
            v = e["args"]["Memcpy BW"]
            if v > 0:   # HTA's get_memory_bw_summary keeps the points above 0
                series.setdefault(("bandwidth", rank, e["name"]), []).append(v)
    return series


def check_events(files, drop_last, hta_frames):
    """Problems of the counter events against HTA's frames."""
    got = {}
    for f in files:
        got.update(counter_events(f, drop_last))
    problems = []
    for table, frame in hta_frames.items():
        for (rank, key), stats in frame.items():
            vals = got.get((table, rank, key), [])
            want = (stats[0], stats[3], stats[7])
            have = (float(len(vals)), min(vals, default=math.nan), max(vals, default=math.nan))
            if have != want:
                problems.append(f"{table} rank {rank} {key}: events count/min/max {have}, HTA {want}")
            elif abs(sum(vals) / len(vals) - stats[1]) > 1e-12 * max(1.0, abs(stats[1])):
                problems.append(f"{table} rank {rank} {key}: events mean {sum(vals) / len(vals)!r}, "
                                f"HTA {stats[1]!r}")
    return problems


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def main():
    if not os.path.isdir(base.ROOT):
        print(f"SKIP: {base.ROOT} is absent (the shared fixtures are not beside this checkout)")
        return 77
    checks = base.Checks()
    for set_name, rel in base.SETS.items():
        rels = rel if isinstance(rel, list) else [rel]
        files = [os.path.join(base.ROOT, "tests", "data", r) for r in rels]
        drop_last = None
        frames = {}
        for table, (fname, key) in TABLES.items():
            path = os.path.join(base.ROOT, "hta_oracle", set_name, fname)
            if not os.path.exists(path):
                continue
            if drop_last is None:
                drop_last = min(len(base.steps_of(base.load(f)[0])) for f in files) >= 2
            hta = hta_summary(path)
            frames[table] = hta
            mine = run_vprof(files, drop_last, table)
            problems, exact, nstat = [], 0, 0
            if set(mine) != set(hta):
                problems.append(f"rows differ: vprof only {sorted(set(mine) - set(hta))}, "
                                f"HTA only {sorted(set(hta) - set(mine))}")
            for k in sorted(set(mine) & set(hta)):
                for stat, v, h in zip(STATS, mine[k], hta[k]):
                    nstat += 1
                    exact += v == h or (math.isnan(v) and math.isnan(h))
                    if not close(v, h):
                        problems.append(f"rank {k[0]} {key} {k[1]} {stat}: vprof {v!r}, HTA {h!r}")
            checks.report(f"{set_name} {table}: {len(hta)} rows, {nstat} statistics, {exact} "
                          f"equal to the bit{' with --steps :-1' if drop_last else ''}", problems)
        if frames:
            problems = check_events(files, drop_last, frames)
            nseries = sum(len(f) for f in frames.values())
            checks.report(f"{set_name} --trace-out: counter events of {nseries} series", problems)
    return checks.done()


if __name__ == "__main__":
    sys.exit(main())
