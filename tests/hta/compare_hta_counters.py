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

Exit status 0 when all match, 1 otherwise, 77 (skip) when the fixtures are
absent.
"""
import csv
import io
import math
import os
import subprocess
import sys

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


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def main():
    if not os.path.isdir(base.ROOT):
        print(f"SKIP: {base.ROOT} is absent (the shared fixtures are not beside this checkout)")
        return 77
    passed = failed = 0
    for set_name, rel in base.SETS.items():
        rels = rel if isinstance(rel, list) else [rel]
        files = [os.path.join(base.ROOT, "tests", "data", r) for r in rels]
        drop_last = None
        for table, (fname, key) in TABLES.items():
            path = os.path.join(base.ROOT, "hta_oracle", set_name, fname)
            if not os.path.exists(path):
                continue
            if drop_last is None:
                drop_last = min(len(base.steps_of(base.load(f)[0])) for f in files) >= 2
            hta = hta_summary(path)
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
            label = (f"{set_name} {table}: {len(hta)} rows, {nstat} statistics, {exact} equal to "
                     f"the bit{' with --steps :-1' if drop_last else ''}")
            if problems:
                failed += 1
                print(f"FAIL {label}")
                for p in problems[:20]:
                    print("   ", p)
            else:
                passed += 1
                print(f"ok   {label}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
