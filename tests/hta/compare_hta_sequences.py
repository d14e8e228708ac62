#!/usr/bin/env python3
"""Compares `vprof sequences` with HTA's get_frequent_cuda_kernel_sequences.

For every trace set in ../shared/fixtures/real/hta whose
hta_oracle/<set>/frequent_sequences_ops.csv lists operators (file,
operator_name, rank; the README says how they were picked and how HTA was
called: min_pattern_len=3), and whose frequent_sequences_<op>.csv exists
(HTA failed on some traces: those have an _ERROR.txt instead and are
reported, not compared), runs `vprof sequences --op NAME -f csv` on that
rank's trace (with --steps :-1 where the trace has two steps or more: HTA
drops the last step when it loads a trace) and checks that the patterns
are the same, in HTA's order (count, largest first, then pattern), with the
same counts, and GPU kernel and CPU op durations equal to HTA's (us: exact
on integer-timestamp traces; within HTA's rounding, 2 us an instance,
otherwise).

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
csv.field_size_limit(1 << 30)


def rank_file(files, rank):
    for pos, f in enumerate(files):
        ev, doc = base.load(f)
        r = doc.get("distributedInfo", {}).get("rank", pos) if isinstance(doc, dict) else pos
        if r == rank or len(files) == 1:
            return f, ev
    raise SystemExit(f"no trace of rank {rank} among {files}")


def run_vprof(path, op, drop_last):
    cmd = [VPROF, "sequences", "-f", "csv", "-q", "--op", op] + (
        ["--steps", ":-1"] if drop_last else []) + [path]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"vprof failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}")
    return [(r["Pattern"], int(r["Count"]), int(r["GPU Kernel Duration (ns)"]),
             int(r["CPU Op Duration (ns)"])) for r in csv.DictReader(io.StringIO(res.stdout))]


def main():
    if not os.path.isdir(base.ROOT):
        print(f"SKIP: {base.ROOT} is absent (the shared fixtures are not beside this checkout)")
        return 77
    checks = base.Checks()
    for set_name, rel in base.SETS.items():
        d = os.path.join(base.ROOT, "hta_oracle", set_name)
        ops_csv = os.path.join(d, "frequent_sequences_ops.csv")
        if not os.path.exists(ops_csv):
            continue
        rels = rel if isinstance(rel, list) else [rel]
        files = [os.path.join(base.ROOT, "tests", "data", r) for r in rels]
        with open(ops_csv) as f:
            ops = list(csv.DictReader(f))
        for op in ops:
            path = os.path.join(d, op["file"])
            if not os.path.exists(path) or not path.endswith(".csv"):
                print(f"--   {set_name} {op['operator_name']!r}: HTA failed (see its _ERROR.txt), "
                      "nothing to compare")
                continue
            trace, ev = rank_file(files, int(op["rank"]))
            integral = base.is_integral(ev)
            drop_last = len(base.steps_of(ev)) >= 2
            with open(path) as f:
                hta = [(r["pattern"], int(r["count"]), float(r["GPU kernel duration (us)"]),
                        float(r["CPU op duration (us)"])) for r in csv.DictReader(f)]
            mine = run_vprof(trace, op["operator_name"], drop_last)
            problems = []
            if [m[0] for m in mine] != [h[0] for h in hta]:
                only_m = [m[0][:80] for m in mine if m[0] not in {h[0] for h in hta}]
                only_h = [h[0][:80] for h in hta if h[0] not in {m[0] for m in mine}]
                problems.append(f"patterns differ ({len(mine)} vprof, {len(hta)} HTA): vprof "
                                f"only {only_m[:3]}, HTA only {only_h[:3]}")
            hd = {h[0]: h for h in hta}
            for p, cnt, gpu, cpu in mine:
                if p not in hd:
                    continue
                _, hc, hg, hcpu = hd[p]
                for what, v, h in (("gpu", gpu, hg), ("cpu", cpu, hcpu)):
                    ok = v == round(h * 1000) if integral else abs(v - h * 1000) <= 2000 * cnt
                    if not ok:
                        problems.append(f"{p[:60]}... {what}: vprof {v} ns, HTA {h} us")
                if cnt != hc:
                    problems.append(f"{p[:60]}... count: vprof {cnt}, HTA {hc}")
            label = (f"{set_name} {op['operator_name']!r}: {len(hta)} patterns, "
                     f"{'exact' if integral else 'within 2 us an instance'}"
                     f"{' with --steps :-1' if drop_last else ''}")
            checks.report(label, problems, most=10)
    return checks.done()


if __name__ == "__main__":
    sys.exit(main())
