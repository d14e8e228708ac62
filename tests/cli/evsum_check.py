#!/usr/bin/env python3
"""What `vprof api|copies|ranges -f csv` must print, computed here from the
traces alone (json, integer ns from the decimal us), for tests/cli/api.t,
copies.t and ranges.t.

    evsum_check.py api|copies|ranges TRACE...
"""
import decimal
import gzip
import json
import re
import statistics
import sys


def ns(x):
    return int(decimal.Decimal(str(x)) * 1000)


def q(s):
    return '"%s"' % s.replace('"', '""') if any(c in s for c in ',"\n') else s


def key_of(cmd, e):
    cat = e.get("cat", "")
    if cmd == "api":
        if cat in ("cuda_runtime", "cuda_driver", "Runtime") or re.search(r".(_runtime|_driver)$", cat):
            return (e["name"],)
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


def main():
    cmd, paths = sys.argv[1], sys.argv[2:]
    durs, sizes = {}, {}
    for p in paths:
        with gzip.open(p, "rt") as f:
            for e in json.load(f, parse_float=decimal.Decimal)["traceEvents"]:
                if e.get("ph") != "X" or "dur" not in e:
                    continue
                k = key_of(cmd, e)
                if k is None:
                    continue
                durs.setdefault(k, []).append(ns(e["dur"]))
                b = (e.get("args") or {}).get("bytes")
                if cmd == "copies" and isinstance(b, int) and b >= 0:
                    sizes.setdefault(k, []).append(b)
    grand = sum(sum(v) for v in durs.values())
    order = sorted(durs, key=lambda k: (-sum(durs[k]), k[-1], k[0]))
    count = {"api": "Num Calls", "copies": "Count", "ranges": "Instances"}[cmd]
    last = {"api": ["Name"], "copies": ["Operation"], "ranges": ["Category", "Range"]}[cmd]
    print(",".join(["Time (%)", "Total Time (ns)", count, "Avg (ns)", "Med (ns)", "Min (ns)",
                    "Max (ns)", "StdDev (ns)"] + last))
    for k in order:
        v = durs[k]
        print(",".join(["%.1f" % (100.0 * sum(v) / grand), str(sum(v)), str(len(v))] + stats(v)
                       + [q(x) for x in k]))
    if cmd != "copies":
        return
    print()
    print("Total (B),Count,Avg (B),Med (B),Min (B),Max (B),StdDev (B),Bandwidth (GB/s),Operation")
    for k in order:
        b = sizes.get(k, [])
        row = [str(sum(b)), str(len(b))] + stats(b) if b else ["", "0", "", "", "", "", ""]
        bw = "%.3f" % (sum(b) / sum(durs[k])) if len(b) == len(durs[k]) and sum(durs[k]) else ""
        print(",".join(row + [bw, q(k[0])]))


if __name__ == "__main__":
    main()
