#!/usr/bin/env python3
"""What `vprof launches -f csv` must print, computed here from the traces
alone (json, integer ns from the decimal us), for tests/cli/launches.t.

    launches_check.py summary|list|exec TRACE...

summary: the launch_summary table; list: it and the --list --sort start
rows; exec: it and the per API and kernel name table (nsys
cuda_kern_exec_sum).  A launch is a kernel, gpu_memcpy or gpu_memset event
with args.correlation and the cuda_runtime/cuda_driver event with the same
id in the same file (the earliest if several); no steps, default cutoffs.
"""
import decimal
import gzip
import json
import statistics
import sys

GPU = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
CALLS = {"cuda_runtime", "cuda_driver"}


def ns(x):
    return int(decimal.Decimal(str(x)) * 1000)


def launches(path):
    with gzip.open(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    calls, work = {}, []
    for e in doc["traceEvents"]:
        a = e.get("args") or {}
        if e.get("ph") != "X" or "correlation" not in a:
            continue
        if e.get("cat") in CALLS:
            c = (ns(e["ts"]), ns(e.get("dur", 0)), e["name"])
            if a["correlation"] not in calls or c[0] < calls[a["correlation"]][0]:
                calls[a["correlation"]] = c
        elif e.get("cat") in GPU and "dur" in e:
            work.append((a["correlation"], ns(e["ts"]), ns(e["dur"]), GPU[e["cat"]], e["name"]))
    out = []
    for corr, gts, gdur, kind, name in work:
        if corr in calls:
            cts, cdur, api = calls[corr]
            out.append(dict(corr=corr, cts=cts, gts=gts, cpu=cdur, gpu=gdur,
                            delay=max(0, gts - cts - cdur), kind=kind, api=api, name=name))
    return doc.get("distributedInfo", {}).get("rank", 0), out


def q(s):
    return '"%s"' % s.replace('"', '""') if any(c in s for c in ',"\n') else s


def stats(v):
    if not v:
        return [""] * 5
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    return ["%.1f" % statistics.mean(v), "%.1f" % statistics.median(v), str(min(v)), str(max(v)),
            "%.1f" % sd]


def main():
    mode, paths = sys.argv[1], sys.argv[2:]
    files = [launches(p) for p in paths]
    many = len(files) > 1
    rank = ["Rank"] if many else []
    print(",".join(rank + ["Launches", "Long Calls", "Long Delays", "Short GPU Work",
                           "CPU Duration (ns)", "GPU Duration (ns)", "Launch Delay (ns)",
                           "Max Launch Delay (ns)", "Unlaunched", "Launch-Bound"]))
    for r, ls in files:
        row = [len(ls), sum(x["cpu"] > 50000 for x in ls), sum(x["delay"] > 100000 for x in ls),
               sum(x["cpu"] <= 50000 and x["gpu"] < x["cpu"] for x in ls),
               sum(x["cpu"] for x in ls), sum(x["gpu"] for x in ls), sum(x["delay"] for x in ls),
               max([x["delay"] for x in ls] + [0]), 0,
               sum(x["gpu"] < x["cpu"] and x["delay"] < x["cpu"] for x in ls)]
        print(",".join(([str(r)] if many else []) + [str(v) for v in row]))
    if mode == "summary":
        return
    print()
    if mode == "list":
        print(",".join(rank + ["Correlation", "CPU Duration (ns)", "GPU Duration (ns)",
                               "Launch Delay (ns)", "Kind", "API Name", "Name"]))
        for r, ls in files:
            for x in sorted(ls, key=lambda x: (x["cts"], x["gts"], x["corr"])):
                print(",".join(([str(r)] if many else []) + [str(x[k]) for k in (
                    "corr", "cpu", "gpu", "delay")] + [x["kind"], q(x["api"]), q(x["name"])]))
        return
    groups = {}
    for _, ls in files:
        for x in ls:
            if x["kind"] == "kernel":
                groups.setdefault((x["api"], x["name"]), []).append(x)
    cols = ["Count", "QCount"] + ["%s%s (ns)" % (p, s) for p in "TAQK"
                                  for s in ("Avg", "Med", "Min", "Max", "StdDev")]
    print(",".join(cols + ["API Name", "Kernel Name"]))
    rows = []
    for (api, name), xs in groups.items():
        queue = [x["gts"] - x["cts"] - x["cpu"] for x in xs]
        total = [x["cpu"] + max(0, qu + x["gpu"]) for x, qu in zip(xs, queue)]
        k = [x["gpu"] for x in xs]
        line = [str(len(xs)), str(sum(v > 0 for v in queue))] + stats(total) + stats(
            [x["cpu"] for x in xs]) + stats([v for v in queue if v > 0]) + stats(k)
        rows.append((-sum(k), name, api, ",".join(line + [q(api), q(name)])))
    for row in sorted(rows):
        print(row[3])


if __name__ == "__main__":
    main()
