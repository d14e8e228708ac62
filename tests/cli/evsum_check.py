#!/usr/bin/env python3
"""What `vprof api|copies|ranges -f csv` must print, computed here from the
traces alone (json, integer ns from the decimal us), for tests/cli/api.t,
copies.t and ranges.t.

    evsum_check.py api|copies|ranges [--steps N] [--by-rank] TRACE...

--steps N keeps what step N holds: API calls and ranges that start inside
the ProfilerStep#N window (its annotations' span, on any thread), copies
whose launching call (same correlation id, the earliest) starts inside it.
--by-rank keys rows by distributedInfo.rank too (a Rank column).

    evsum_check.py api-calls [--by-rank] [--by-level] CALLS.csv SOURCE...

What `vprof api -f csv` must print for the Ascend profiles SOURCE... (their
directory names in CALLS.csv: tests/data/ascend/constructed_api_statistic),
computed from the calls themselves (CALLS.csv has one row per call), not
from the api_statistic CSVs vprof reads: no median (Med empty); Level and
Rank columns with --by-level and --by-rank.
"""
import csv
import decimal
import gzip
import json
import re
import statistics
import sys


def ns(x):
    """Decimal microseconds to integer ns, rounded half away from zero as
    vprof's reader rounds (torch_npu writes sub-ns digits)."""
    return int((decimal.Decimal(str(x)) * 1000).quantize(decimal.Decimal(1), decimal.ROUND_HALF_UP))


def q(s):
    return '"%s"' % s.replace('"', '""') if any(c in s for c in ',"\n') else s


def key_of(cmd, e):
    cat = e.get("cat", "")
    if cmd == "api":
        if cat in ("cuda_runtime", "cuda_driver", "Runtime") or re.search(r".(_runtime|_driver)$", cat):
            return (e["name"],)
        if not cat and e.get("name", "").startswith("AscendCL@") and len(e["name"]) > 9:
            return (e["name"][9:],)
    elif cmd == "ranges":
        if cat in ("user_annotation", "gpu_user_annotation"):
            return (cat, e["name"])
    elif cat in ("gpu_memset", "Memset"):
        return ("memset",)
    elif cat in ("gpu_memcpy", "Memcpy"):
        m = re.match(r"Memcpy ([^ (]+)", e["name"])
        return (m.group(1) if m else "other",)
    return None


def stats(v):
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    return ["%.1f" % statistics.mean(v), "%.1f" % statistics.median(v), str(min(v)), str(max(v)),
            "%.1f" % sd]


def step_window(evs, step):
    spans = [(ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))) for e in evs
             if e.get("ph") == "X" and e.get("name") == "ProfilerStep#%d" % step
             and e.get("cat") != "gpu_user_annotation"]
    return (min(a for a, _ in spans), max(b for _, b in spans)) if spans else (0, 0)


def launches(evs):
    first = {}
    for e in evs:
        c = (e.get("args") or {}).get("correlation")
        if e.get("ph") == "X" and isinstance(c, int) and key_of("api", e) is not None:
            if c not in first or ns(e["ts"]) < first[c]:
                first[c] = ns(e["ts"])
    return first


def api_calls(args):
    by_rank = by_level = False
    while args[0].startswith("--"):
        by_rank |= args[0] == "--by-rank"
        by_level |= args[0] == "--by-level"
        args = args[1:]
    sources = set(args[1:])
    durs = {}
    with open(args[0], newline="") as f:
        for r in csv.DictReader(f):
            if r["source"] in sources:
                k = (r["API Name"], r["Level"] if by_level else "", int(r["rank"]) if by_rank else -1)
                durs.setdefault(k, []).append(ns(r["Duration(us)"]))
    grand = sum(sum(v) for v in durs.values())
    print(",".join(["Time (%)", "Total Time (ns)", "Num Calls", "Avg (ns)", "Med (ns)", "Min (ns)",
                    "Max (ns)", "StdDev (ns)"] + (["Level"] if by_level else [])
                   + (["Rank"] if by_rank else []) + ["Name"]))
    for k in sorted(durs, key=lambda k: (-sum(durs[k]), k[0], k[1], k[2])):
        v = durs[k]
        st = stats(v)
        st[1] = ""
        print(",".join(["%.1f" % (100.0 * sum(v) / grand), str(sum(v)), str(len(v))] + st
                       + ([k[1]] if by_level else []) + ([str(k[2])] if by_rank else [])
                       + [q(k[0])]))


def main():
    args = sys.argv[1:]
    if args[0] == "api-calls":
        return api_calls(args[1:])
    cmd, step, by_rank = args.pop(0), None, False
    while args and args[0].startswith("--"):
        if args[0] == "--steps":
            step = int(args[1])
            args = args[2:]
        else:
            by_rank, args = True, args[1:]
    paths = args
    durs, sizes = {}, {}
    for p in paths:
        with open(p, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
        with (gzip.open(p, "rt") if gz else open(p)) as f:
            doc = json.load(f, parse_float=decimal.Decimal)
        evs = doc if isinstance(doc, list) else doc["traceEvents"]
        rank = None if isinstance(doc, list) else doc.get("distributedInfo", {}).get("rank")
        if step is not None:
            lo, hi = step_window(evs, step)
            calls = launches(evs)
        for e in evs:
            if e.get("ph") != "X" or "dur" not in e:
                continue
            k = key_of(cmd, e)
            if k is None:
                continue
            if step is not None:
                c = (e.get("args") or {}).get("correlation")
                t = calls.get(c) if cmd == "copies" else ns(e["ts"])
                if t is None or not lo <= t < hi:
                    continue
            if by_rank:
                k = k[:-1] + (rank,) + k[-1:]
            durs.setdefault(k, []).append(ns(e["dur"]))
            b = (e.get("args") or {}).get("bytes")
            if cmd == "copies" and isinstance(b, int) and b >= 0:
                sizes.setdefault(k, []).append(b)
    grand = sum(sum(v) for v in durs.values())
    order = sorted(durs, key=lambda k: (-sum(durs[k]), k[-1], k[0], k[-2] if by_rank else 0))
    count = {"api": "Num Calls", "copies": "Count", "ranges": "Instances"}[cmd]
    last = {"api": ["Name"], "copies": ["Operation"], "ranges": ["Category", "Range"]}[cmd]
    if by_rank:
        last = last[:-1] + ["Rank"] + last[-1:]
    print(",".join(["Time (%)", "Total Time (ns)", count, "Avg (ns)", "Med (ns)", "Min (ns)",
                    "Max (ns)", "StdDev (ns)"] + last))
    for k in order:
        v = durs[k]
        print(",".join(["%.1f" % (100.0 * sum(v) / grand), str(sum(v)), str(len(v))] + stats(v)
                       + [q(str(x)) for x in k]))
    if cmd != "copies":
        return
    print()
    print("Total (B),Count,Avg (B),Med (B),Min (B),Max (B),StdDev (B),Bandwidth (GB/s),"
          + ("Rank," if by_rank else "") + "Operation")
    for k in order:
        b = sizes.get(k, [])
        row = [str(sum(b)), str(len(b))] + stats(b) if b else ["", "0", "", "", "", "", ""]
        bw = "%.3f" % (sum(b) / sum(durs[k])) if len(b) == len(durs[k]) and sum(durs[k]) else ""
        print(",".join(row + [bw] + [q(str(x)) for x in k]))


if __name__ == "__main__":
    main()
