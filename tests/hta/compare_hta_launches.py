#!/usr/bin/env python3
"""Compares `vprof launches` with HTA's get_cuda_kernel_launch_stats.

For every trace set in ../shared/fixtures/real/hta (hta_oracle/<set>/
launch_stats_rank<R>.csv: HTA's DataFrame per rank, times in us), runs
`vprof launches --list -f csv` (with --steps :-1 where the trace has two
steps or more: HTA drops the last step when it loads a trace) and checks per
rank:

- the same launches: the correlation ids of vprof's rows whose API Name is
  one HTA joins (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync,
  cudaMemsetAsync, MTIA's runFunction - job_prep_and_submit_for_execution)
  are exactly HTA's; vprof also joins other runtime and driver calls
  (hipLaunchKernel, cuLaunchKernel ...), which HTA leaves out;
- CPU duration, GPU duration and launch delay: equal on integer-timestamp
  traces; on fractional ones within HTA's rounding (it rounds each start up
  and each end down to whole us, so each of its numbers is less than 2 us
  from the exact one);
- where vprof's launches are exactly HTA's, the per-rank counts of HTA's
  plots (calls > 50 us, delays > 100 us, GPU work shorter than a call of
  <= 50 us) in vprof's launch_summary table, counted from HTA's rows.

Exit status 0 when all match, 1 otherwise, 77 (skip) when the fixtures are
absent.
"""
import csv
import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_hta as base  # noqa: E402  (the trace sets and their loading)

VPROF = sys.argv[1]
HTA_APIS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
            "runFunction - job_prep_and_submit_for_execution"}


def tables(text):
    """The csv output's tables (separated by a blank line) as lists of dicts."""
    return [list(csv.DictReader(io.StringIO(part))) for part in text.strip("\n").split("\n\n")]


def run_vprof(files, drop_last):
    cmd = [VPROF, "launches", "--list", "-f", "csv", "-q"] + (["--steps", ":-1"] if drop_last else [])
    out = []
    for table in ("launch_summary", "launches"):   # csv prints one table a run
        res = subprocess.run(cmd + ["--table", table] + files, capture_output=True, text=True)
        if res.returncode != 0:
            raise SystemExit(f"vprof failed ({res.returncode}): {res.stderr}")
        (rows,) = tables(res.stdout)
        out.append(rows)
    return out[0], out[1]


def hta_rows(set_name, rank):
    path = os.path.join(base.ROOT, "hta_oracle", set_name, f"launch_stats_rank{rank}.csv")
    with open(path) as f:
        return {int(r["correlation"]): (float(r["cpu_duration"]), float(r["gpu_duration"]),
                                        float(r["launch_delay"])) for r in csv.DictReader(f)}


def main():
    if not os.path.isdir(base.ROOT):
        print(f"SKIP: {base.ROOT} is absent (the shared fixtures are not beside this checkout)")
        return 77
    checks = base.Checks()
    for set_name, rel in base.SETS.items():
        rels = rel if isinstance(rel, list) else [rel]
        files = [os.path.join(base.ROOT, "tests", "data", r) for r in rels]
        loaded = [base.load(f) for f in files]
        integral = all(base.is_integral(ev) for ev, _ in loaded)
        drop_last = min(len(base.steps_of(ev)) for ev, _ in loaded) >= 2
        summary, rows = run_vprof(files, drop_last)
        problems, nrows = [], 0
        for pos, (ev, doc) in enumerate(loaded):
            rank = doc.get("distributedInfo", {}).get("rank", pos) if isinstance(doc, dict) else pos
            mine_all = [r for r in rows if len(files) == 1 or int(r["Rank"]) == rank]
            mine = {int(r["Correlation"]): tuple(int(r[c]) for c in (
                "CPU Duration (ns)", "GPU Duration (ns)", "Launch Delay (ns)"))
                for r in mine_all if r["API Name"] in HTA_APIS}
            hta = hta_rows(set_name, rank)
            nrows += len(mine)
            if set(mine) != set(hta):
                extra, missing = sorted(set(mine) - set(hta)), sorted(set(hta) - set(mine))
                problems.append(f"rank {rank}: correlation ids differ: vprof only {extra[:8]} "
                                f"({len(extra)}), HTA only {missing[:8]} ({len(missing)})")
            for corr in sorted(set(mine) & set(hta)):
                for what, v, h in zip(("cpu", "gpu", "delay"), mine[corr], hta[corr]):
                    ok = v == round(h * 1000) if integral else abs(v - h * 1000) < 2000
                    if not ok:
                        problems.append(f"rank {rank} correlation {corr} {what}: vprof {v} ns, HTA {h} us")
            srow = summary[0] if len(files) == 1 else next(
                (s for s in summary if int(s["Rank"]) == rank), None)
            if integral and len(mine_all) == len(mine) and srow is not None:
                want = (len(hta), sum(c > 50 for c, _, _ in hta.values()),
                        sum(d > 100 for _, _, d in hta.values()),
                        sum(c <= 50 and g < c for c, g, _ in hta.values()))
                got = tuple(int(srow[c]) for c in ("Launches", "Long Calls", "Long Delays",
                                                   "Short GPU Work"))
                if got != want:
                    problems.append(f"rank {rank}: launches, long calls, long delays, short GPU "
                                    f"work: vprof {got}, HTA {want}")
        label = (f"{set_name}: {'exact' if integral else 'within 2 us'}"
                 f"{' with --steps :-1' if drop_last else ''}, {nrows} launches")
        checks.report(label, problems)
    return checks.done()


if __name__ == "__main__":
    sys.exit(main())
