#!/usr/bin/env python3
"""What `vprof ranges -f csv --table gpu_proj [--by rank]` must print,
computed here from the traces alone, by brute force over every (range,
operation) pair as nsys' nvtx_gpu_proj_trace SQL joins them, for
tests/cli/ranges.t.

    rangeproj_check.py [--by-rank] TRACE...

An operation (kernel, memcpy, memset) is in a user_annotation range when
the runtime/driver call with its correlation id (the earliest call of that
id) starts and ends inside the range on the range's thread; a range's
projection spans its operations; GPU ops are distinct correlation ids; the
parent of a range is the tightest enclosing range of its thread (among
those before it when sorted by start, longer first); level = depth;
children = projected ranges whose parent it is.  The rank of a file is
its distributedInfo.rank.
"""
import decimal
import gzip
import json
import re
import statistics
import sys

KERNEL_CATS = ("kernel", "Kernel", "gpu_memcpy", "gpu_memset", "Memcpy", "Memset", "mtia_ccp_events")


def ns(x):
    """Decimal microseconds to integer ns, rounded half away from zero as
    vprof's reader rounds (torch_npu writes sub-ns digits)."""
    return int((decimal.Decimal(str(x)) * 1000).quantize(decimal.Decimal(1), decimal.ROUND_HALF_UP))


def q(s):
    return '"%s"' % s.replace('"', '""') if any(c in s for c in ',"\n') else s


def is_launch(cat):
    return cat in ("cuda_runtime", "cuda_driver", "Runtime") or re.search(r".(_runtime|_driver)$", cat)


def corr_of(e):
    c = (e.get("args") or {}).get("correlation")
    return c if isinstance(c, int) else None


def project(doc):
    evs = doc["traceEvents"]
    ranges, calls, ops = [], {}, []
    for i, e in enumerate(evs):
        if e.get("ph") != "X" or "ts" not in e or "dur" not in e:
            continue
        cat = e.get("cat", "")
        ts, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        thread = (str(e.get("pid")), str(e.get("tid")))
        if cat in KERNEL_CATS:
            if corr_of(e) is not None:
                ops.append((corr_of(e), ts, end))
        elif is_launch(cat):
            c = corr_of(e)
            if c is not None and (c not in calls or ts < calls[c][1]):
                calls[c] = (thread, ts, end)
        elif cat == "user_annotation":
            ranges.append({"name": e["name"], "thread": thread, "ts": ts, "end": end, "order": i})
    ranges.sort(key=lambda r: (r["thread"], r["ts"], -r["end"], r["order"]))
    for i, r in enumerate(ranges):
        best = None
        for p in ranges[:i]:
            if p["thread"] == r["thread"] and p["ts"] <= r["ts"] and p["end"] >= r["end"]:
                tight = (r["ts"] - p["ts"]) + (p["end"] - r["end"])
                if best is None or tight <= best[0]:
                    best = (tight, p)
        r["parent"] = best[1] if best else None
    for r in ranges:
        r["level"], p = 0, r["parent"]
        while p is not None:
            r["level"], p = r["level"] + 1, p["parent"]
        corrs, first, last, busy = set(), None, None, 0
        for c, ts, end in ops:
            call = calls.get(c)
            if not call or call[0] != r["thread"] or not (r["ts"] <= call[1] and call[2] <= r["end"]):
                continue
            corrs.add(c)
            first = ts if first is None else min(first, ts)
            last = end if last is None else max(last, end)
            busy += end - ts
        r["ops"], r["proj"], r["busy"] = len(corrs), (last - first) if corrs else 0, busy
    for r in ranges:
        r["children"] = sum(1 for c in ranges if c["parent"] is r and c["ops"])
    return [r for r in ranges if r["ops"]]


def main():
    args = sys.argv[1:]
    by_rank = args and args[0] == "--by-rank"
    paths = args[1:] if by_rank else args
    rows = {}
    for p in paths:
        with gzip.open(p, "rt") as f:
            doc = json.load(f, parse_float=decimal.Decimal)
        rank = doc.get("distributedInfo", {}).get("rank")
        for r in project(doc):
            rows.setdefault((r["name"], rank if by_rank else None), []).append(r)
    def fmt(x):
        return "%.1f" % x
    head = ["Range", "Style"] + (["Rank"] if by_rank else []) + [
        "Total Proj Time (ns)", "Total Range Time (ns)", "Range Instances", "Proj Avg (ns)",
        "Proj Med (ns)", "Proj Min (ns)", "Proj Max (ns)", "Proj StdDev (ns)", "Total GPU Ops",
        "Avg GPU Ops", "Avg Range Lvl", "Avg Num Child", "Total GPU Time (ns)"]
    print(",".join(head))
    order = sorted(rows, key=lambda k: (-sum(r["proj"] for r in rows[k]), k[0], k[1] or 0))
    for k in order:
        v = rows[k]
        proj = [r["proj"] for r in v]
        n = len(v)
        sd = statistics.stdev(proj) if n > 1 else 0.0
        ops = sum(r["ops"] for r in v)
        out = [q(k[0]), "PushPop"] + ([str(k[1])] if by_rank else []) + [
            str(sum(proj)), str(sum(r["end"] - r["ts"] for r in v)), str(n),
            fmt(statistics.mean(proj)), fmt(statistics.median(proj)), str(min(proj)), str(max(proj)),
            fmt(sd), str(ops), fmt(ops / n), fmt(sum(r["level"] for r in v) / n),
            fmt(sum(r["children"] for r in v) / n), str(sum(r["busy"] for r in v))]
        print(",".join(out))


if __name__ == "__main__":
    main()
