#!/usr/bin/env python3
"""Compares `vprof kernels` with HTA's kernel breakdown on the real fixtures.

For every trace set in ../shared/fixtures/real/hta (the traces and the
outputs HTA produced on them, hta_oracle/<set>/kernel_breakdown_full.csv),
runs `vprof kernels --steps :-1 --include memcpy,memset --by rank -f csv`
(no --steps where the trace has fewer than two steps, since HTA then keeps
everything) and checks per rank and kernel name:

- integer-timestamp traces: instance count and total time equal HTA's
  exactly (HTA's count is sum / mean);
- fractional-timestamp traces: HTA rounds each event's start up and end down
  to whole microseconds (peers.md 1.1), so its totals differ. There the
  expected values are an exact computation made here, independently of
  vprof, with Python's Decimal over the same events and HTA's selection
  rules; and the HTA figures are printed beside them.

Exit status 0 when all match, 1 otherwise, 77 (skip) when the fixtures are
absent.
"""
import csv
import decimal
import gzip
import io
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

VPROF = sys.argv[1]
SHARED = os.environ.get("VPROF_SHARED") or os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
ROOT = os.path.join(SHARED, "fixtures", "real", "hta")

SETS = {
    "amd_trace": "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "cpu_only": "cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
    "critical_path_alexnet": "critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
    "critical_path_cuda_event_sync": "critical_path/cuda_event_sync/event_sync_trace.json.gz",
    "df_index_resolver": "df_index_resolver/df_index_resolver.json.gz",
    "mtia_inference_trace": "mtia_inference_trace/mtia_inference_rank_0.json.gz",
    "nccl_parser_config": "nccl_parser_config/nccl_data.json.gz",
    "ns_resolution_trace": "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "rank_non_gpu": "rank_non_gpu/rank_non_gpu.json.gz",
    "trace_compare_base": "trace_compare/base/base.json.gz",
    "trace_compare_test": "trace_compare/test/test.json.gz",
    "trace_filter": ["trace_filter/sampled_rank-0.json.gz", "trace_filter/sampled_rank-1.json.gz"],
}

GPU_CATS = {"kernel", "Kernel", "mtia_ccp_events", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
LAUNCH_CATS = re.compile(r"^(cuda_runtime|cuda_driver|Runtime|.*_runtime|.*_driver)$")


class Checks:
    """The ok/FAIL lines of a comparison, one per check, and their count."""

    def __init__(self):
        self.passed = self.failed = 0

    def report(self, label, problems, most=20, indent="    "):
        """ok with the label, or FAIL with it and the first `most` problems."""
        if problems:
            self.failed += 1
            print(f"FAIL {label}")
            for p in problems[:most]:
                print(f"{indent}{p}")
        else:
            self.passed += 1
            print(f"ok   {label}")

    def done(self):
        """The count line; the exit status."""
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def load(path):
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        d = json.load(f, parse_float=decimal.Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d, d


def ns(x):
    return int((decimal.Decimal(str(x)) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def is_integral(events):
    for e in events:
        for k in ("ts", "dur"):
            v = e.get(k)
            if isinstance(v, decimal.Decimal) and v != v.to_integral_value():
                return False
    return True


def steps_of(events):
    st = {}
    for e in events:
        m = re.match(r"^ProfilerStep#(\d+)$", str(e.get("name", "")))
        if m and e.get("ph") == "X" and e.get("cat") != "gpu_user_annotation":
            n = int(m.group(1))
            s, t = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
            if n in st:
                s, t = min(s, st[n][0]), max(t, st[n][1])
            st[n] = (s, t)
    return [st[n] for n in sorted(st)]


def exact_expectation(events, drop_last):
    """Per name: (count, total ns) of GPU kernel/memcpy/memset events, with
    HTA's selection when drop_last: launched by a CPU call inside a step
    other than the last."""
    steps = steps_of(events)
    launch = {}
    for e in events:
        if LAUNCH_CATS.match(str(e.get("cat", ""))) and isinstance(e.get("args"), dict):
            c = e["args"].get("correlation")
            if isinstance(c, (int, decimal.Decimal)):
                t = ns(e["ts"])
                launch[int(c)] = min(t, launch.get(int(c), t))
    kept = steps[:-1] if drop_last else steps
    out = defaultdict(lambda: [0, 0])
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in GPU_CATS or "dur" not in e:
            continue
        if drop_last:
            c = e.get("args", {}).get("correlation")
            t = launch.get(int(c)) if isinstance(c, (int, decimal.Decimal)) else None
            if t is None or not any(a <= t < b for a, b in kept):
                continue
        o = out[e["name"]]
        o[0] += 1
        o[1] += ns(e["dur"])
    return out


def run_vprof(files, drop_last):
    cmd = [VPROF, "kernels", "--include", "memcpy,memset", "--by", "rank", "-f", "csv", "-q"]
    if drop_last:
        cmd += ["--steps", ":-1"]
    res = subprocess.run(cmd + files, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"vprof failed ({res.returncode}): {res.stderr}")
    rows = defaultdict(dict)
    for r in csv.DictReader(io.StringIO(res.stdout)):
        rows[int(r["Rank"])][r["Name"]] = (int(r["Instances"]), int(r["Total Time (ns)"]))
    return rows


def hta_rows(set_name):
    rows = defaultdict(dict)
    path = os.path.join(ROOT, "hta_oracle", set_name, "kernel_breakdown_full.csv")
    with open(path) as f:
        for r in csv.DictReader(f):
            s, mean = float(r["sum (us)"]), float(r["mean (us)"])
            n = round(s / mean) if mean else 0
            rows[int(r["rank"])][r["name"]] = (n, s)
    return rows


def main():
    if not os.path.isdir(ROOT):
        print(f"SKIP: {ROOT} is absent (the shared fixtures are not beside this checkout)")
        return 77
    checks = Checks()
    for set_name, rel in SETS.items():
        rels = rel if isinstance(rel, list) else [rel]
        files = [os.path.join(ROOT, "tests", "data", r) for r in rels]
        loaded = [load(f) for f in files]
        integral = all(is_integral(ev) for ev, _ in loaded)
        nsteps = min(len(steps_of(ev)) for ev, _ in loaded)
        drop_last = nsteps >= 2
        got = run_vprof(files, drop_last)
        hta = hta_rows(set_name)
        problems = []
        for rank_pos, (ev, doc) in enumerate(loaded):
            rank = doc.get("distributedInfo", {}).get("rank", rank_pos) if isinstance(doc, dict) else rank_pos
            mine = got.get(rank, {})
            if integral:
                want = {n: (c, int(round(s)) * 1000) for n, (c, s) in hta.get(rank, {}).items()}
                how = "HTA"
            else:
                want = {n: tuple(v) for n, v in exact_expectation(ev, drop_last).items()}
                how = "exact"
            for name in sorted(set(want) | set(mine)):
                if want.get(name) != mine.get(name):
                    problems.append(f"rank {rank} {name[:70]!r}: vprof {mine.get(name)} {how} {want.get(name)}")
            if not integral:
                # Instance counts do not depend on rounding: they must be HTA's.
                for name, (c, s) in hta.get(rank, {}).items():
                    if c and mine.get(name, (None,))[0] != c:
                        problems.append(f"rank {rank} {name[:70]!r}: vprof count {mine.get(name, (None,))[0]} HTA {c}")
                # Say how far HTA's rounded totals are from the exact ones.
                h = sum(s for _, s in hta.get(rank, {}).values()) * 1000
                e = sum(s for _, s in want.values())
                print(f"  {set_name} rank {rank}: fractional timestamps; exact total {e} ns, "
                      f"HTA's rounded total {h:.0f} ns ({(h - e) / e * 100 if e else 0:+.3f} %)")
        label = f"{set_name}: {'HTA exact match' if integral else 'exact computation'}" \
                f"{' with --steps :-1' if drop_last else ''}, {sum(len(v) for v in got.values())} rows"
        checks.report(label, problems)
    return checks.done()


if __name__ == "__main__":
    sys.exit(main())
