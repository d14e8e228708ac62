#!/usr/bin/env python3
"""Compares `vprof comm` and `vprof steps --idle` with HTA on the real fixtures.

For every trace set in ../shared/fixtures/real/hta (traces, and HTA's own
outputs in hta_oracle/<set>/), runs vprof with `--steps :-1` where the trace
has two or more steps (HTA drops the last step by default; with fewer it
keeps everything) and checks per rank:

- `vprof comm -f csv`: Overlap (%) against comm_comp_overlap.csv
  (comp_comm_overlap_pctg, 2 decimals; HTA's NaN = vprof's empty cell);
- `vprof steps --idle -f csv`: the temporal table against
  temporal_breakdown.csv (idle, compute, non-compute, span, and the three
  percentages) and the idle table against idle_time_breakdown.csv (host
  wait, kernel wait, other per stream; a category HTA does not list is 0).

Integer-timestamp traces must equal HTA.  On fractional-timestamp traces HTA
rounds each event's start up and end down to whole microseconds (peers.md
1.1), so there the expected values are an exact computation made here,
independently of vprof, with Python's Decimal over the same events and the
same rules; HTA's figures are printed beside them.

Exit status 0 when all match, 1 otherwise, 77 (skip) without the fixtures.
"""
import collections
import csv
import decimal
import io
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the trace sets, their loading, the ok/FAIL lines
from compare_hta import LAUNCH_CATS, ROOT, SETS, Checks, is_integral, load, ns  # noqa: E402

VPROF = sys.argv[1]

KIND = {"kernel": "k", "Kernel": "k", "mtia_ccp_events": "k", "gpu_memcpy": "m", "Memcpy": "m",
        "gpu_memset": "m", "Memset": "m", "cuda_sync": "s"}


def klass(kind, name):
    """docs/kernels.md "Classes"."""
    if kind == "m":
        return "mem"
    if kind == "s":
        return "sync"
    if name.startswith(("nccl", "rccl", "hccl", "Hccl")) or "ncclKernel" in name or "ncclDevKernel" in name:
        return "comm"
    if name.startswith(("Memcpy", "Memset", "hipMemcpy", "hipMemset", "dma")):
        return "mem"
    return "comp"


def union(iv):
    out = []
    for s, e in sorted(iv):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def measure(u):
    return sum(e - s for s, e in u)


def inter_measure(a, b):
    i = j = m = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        m += max(0, e - s)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return m


def exact(events, drop_last, threshold_ns=30000):
    """The exact values vprof must print, computed from the definitions in
    docs/comm.md and docs/steps.md."""
    steps, launch = {}, {}
    for e in events:
        m = re.match(r"^ProfilerStep#(\d+)", str(e.get("name", "")))
        if m and e.get("ph") == "X" and e.get("cat") != "gpu_user_annotation":
            n, s = int(m.group(1)), ns(e["ts"])
            t = s + ns(e.get("dur", 0))
            if n in steps:
                s, t = min(s, steps[n][0]), max(t, steps[n][1])
            steps[n] = (s, t)
        if LAUNCH_CATS.match(str(e.get("cat", ""))) and isinstance(e.get("args"), dict):
            c = e["args"].get("correlation")
            if isinstance(c, (int, decimal.Decimal)):
                t = ns(e["ts"])
                launch[int(c)] = min(t, launch.get(int(c), t))
    kept = [steps[n] for n in sorted(steps)][:-1]
    gpu = []
    for e in events:
        k = KIND.get(e.get("cat"))
        if not k or e.get("ph") != "X" or "dur" not in e:
            continue
        a = e.get("args") or {}
        stream = a.get("stream", -1)
        stream = int(stream) if isinstance(stream, (int, decimal.Decimal)) else -1
        if k == "s" and stream < 0:
            continue
        c = a.get("correlation")
        lt = launch.get(int(c)) if isinstance(c, (int, decimal.Decimal)) else None
        if drop_last and (lt is None or not any(x <= lt < y for x, y in kept)):
            continue
        s = ns(e["ts"])
        gpu.append((s, s + max(0, ns(e["dur"])), klass(k, e["name"]), k, stream, lt))
    u = {c: union([(s, t) for s, t, cc, *_ in gpu if cc == c]) for c in ("comp", "comm", "mem", "sync")}
    res = {}
    comm = measure(u["comm"])
    res["overlap"] = "%.2f" % (100.0 * inter_measure(u["comp"], u["comm"]) / comm) if comm else ""
    if gpu:
        span = max(t for _, t, *_ in gpu) - min(s for s, *_ in gpu)
        idle = span - measure(union([(s, t) for s, t, *_ in gpu]))
        comp = measure(u["comp"])
        res["temporal"] = (idle, comp, span - comp - idle, span)
    bys = collections.defaultdict(list)
    for g in gpu:
        if g[3] != "s":
            bys[g[4]].append(g)
    idle_rows = {}
    for st, evs in bys.items():
        evs.sort(key=lambda g: (g[0], g[1]))
        h = kw = o = 0
        end = evs[0][1]
        for g in evs[1:]:
            gap = g[0] - end
            if gap > 0:
                if g[5] is not None and g[5] > end:
                    h += gap
                elif gap < threshold_ns:
                    kw += gap
                else:
                    o += gap
            end = max(end, g[1])
        idle_rows[st] = (h, kw, o)
    res["idle"] = idle_rows
    return res


def steps_of(events):
    st = set()
    for e in events:
        m = re.match(r"^ProfilerStep#(\d+)", str(e.get("name", "")))
        if m and e.get("ph") == "X" and e.get("cat") != "gpu_user_annotation":
            st.add(int(m.group(1)))
    return len(st)


def run(args):
    res = subprocess.run([VPROF] + args, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"vprof {' '.join(args)} failed ({res.returncode}): {res.stderr}")
    return res.stdout


def csv_tables(text):
    """csv output of several tables: blocks separated by a blank line."""
    return [list(csv.DictReader(io.StringIO(b))) for b in text.strip("\n").split("\n\n")]


def oracle(set_name, name):
    path = os.path.join(ROOT, "hta_oracle", set_name, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return list(csv.DictReader(f))


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
        drop = min(steps_of(ev) for ev, _ in loaded) >= 2
        sel = ["--steps", ":-1"] if drop else []
        comm = csv_tables(run(["comm", "-q", "-f", "csv"] + sel + files))[0]
        # csv prints one table a run: --table names each
        temporal, idle = (csv_tables(run(["steps", "--idle", "-q", "-f", "csv", "--table", t]
                                         + sel + files))[0] for t in ("temporal", "idle"))
        problems = []
        # pandas prints 0.0 for 0.00: compare as numbers with 2 decimals.
        h_over = {int(r["rank"]): "%.2f" % float(r["comp_comm_overlap_pctg"]) if r["comp_comm_overlap_pctg"] else ""
                  for r in oracle(set_name, "comm_comp_overlap.csv")}
        h_temp = {int(r["rank"]): r for r in (oracle(set_name, "temporal_breakdown.csv") or [])}
        h_idle = collections.defaultdict(dict)
        for r in oracle(set_name, "idle_time_breakdown.csv") or []:
            h_idle[(int(r["rank"]), int(r["stream"]))][r["idle_category"]] = decimal.Decimal(r["idle_time"])
        v_over = {int(r["Rank"]): r["Overlap (%)"] for r in comm}
        v_temp = {int(r["Rank"]): r for r in temporal}
        v_idle = {(int(r["Rank"]), int(r["Stream"])): r for r in idle}
        notes = []
        for pos, (ev, doc) in enumerate(loaded):
            di = doc.get("distributedInfo", {}) if isinstance(doc, dict) else {}
            rank = di.get("rank", pos) if len(loaded) > 1 or "rank" in di else pos
            rank = int(rank) if rank is not None else pos
            if rank not in v_over:   # the HTA rank comes from the file name here
                rank = next(iter(v_over)) if len(v_over) == 1 else rank
            ex = exact(ev, drop)
            # -- overlap
            hta = h_over.get(rank, h_over.get(next(iter(h_over))) if len(h_over) == 1 else None)
            want = hta if integral else ex["overlap"]
            if v_over.get(rank) != want:
                problems.append(f"rank {rank} overlap: vprof {v_over.get(rank)!r} want {want!r} (HTA {hta!r})")
            if not integral and hta != ex["overlap"]:
                notes.append(f"overlap HTA {hta or 'NaN'} exact {ex['overlap'] or 'NaN'}")
            # -- temporal
            vt = v_temp.get(rank)
            ht = h_temp.get(rank) or (next(iter(h_temp.values())) if len(h_temp) == 1 else None)
            if "temporal" not in ex:
                if vt and vt["Span (ns)"] != "0":
                    problems.append(f"rank {rank} temporal: vprof has GPU time, the trace none")
            else:
                idle_, comp, nonc, span = ex["temporal"]
                if integral:
                    want_t = tuple(int(decimal.Decimal(ht[k])) * 1000 for k in
                                   ("idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)"))
                    want_p = tuple("%.2f" % float(ht[k]) for k in ("idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"))
                else:
                    want_t = (idle_, comp, nonc, span)
                    want_p = tuple("%.2f" % (100.0 * x / span) for x in (idle_, comp, nonc)) if span else ("", "", "")
                    if ht:
                        notes.append("temporal (us) HTA idle/comp/non-comp/span %s exact %s" % (
                            "/".join(str(ht[k]) for k in ("idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)")),
                            "/".join("%.3f" % (x / 1000) for x in want_t)))
                got_t = tuple(int(vt[k]) for k in ("Idle (ns)", "Compute (ns)", "Non-Compute (ns)", "Span (ns)"))
                got_p = tuple(vt[k] for k in ("Idle (%)", "Compute (%)", "Non-Compute (%)"))
                if got_t != want_t or got_p != want_p:
                    problems.append(f"rank {rank} temporal: vprof {got_t} {got_p} want {want_t} {want_p}")
            # -- idle breakdown
            streams = {s for (r, s) in v_idle if r == rank} | set(ex["idle"]) | {s for (r, s) in h_idle if r == rank}
            for s in sorted(streams):
                vr = v_idle.get((rank, s))
                got = tuple(int(vr[k]) for k in ("Host Wait (ns)", "Kernel Wait (ns)", "Other (ns)")) if vr else None
                if integral and (rank, s) in h_idle:
                    h = h_idle[(rank, s)]
                    want = tuple(int(h.get(k, 0)) * 1000 for k in ("host_wait", "kernel_wait", "other"))
                else:
                    want = ex["idle"].get(s)
                    h = h_idle.get((rank, s))
                    if h and not integral:
                        notes.append("stream %d idle (us) HTA %s exact %s" % (
                            s, "/".join(str(h.get(k, 0)) for k in ("host_wait", "kernel_wait", "other")),
                            "/".join("%.3f" % (x / 1000) for x in want)))
                if got != want:
                    problems.append(f"rank {rank} stream {s} idle: vprof {got} want {want}")
        label = f"{set_name}: {'HTA exact match' if integral else 'exact computation'}" \
                f"{' with --steps :-1' if drop else ''}, {len(v_over)} rank(s), {len(v_idle)} stream(s)"
        checks.report(label, problems)
        for n in notes:
            print(f"       {n}")
    return checks.done()


if __name__ == "__main__":
    sys.exit(main())
