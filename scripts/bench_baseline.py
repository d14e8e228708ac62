#!/usr/bin/env python3
"""Baseline for `vprof kernels`: what people write today.

    python3 scripts/bench_baseline.py FILE.json[.gz]

Loads the whole trace with json.load, walks traceEvents, and for the events
whose cat is "kernel" (or the old "Kernel") sums dur per name.  Prints the
kernel count, the total duration in ns (each dur * 1000 rounded to an integer,
then summed) and the top 5 names by total time.
"""

import gzip
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_baseline.py FILE.json[.gz]")
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace

    per_name = {}
    count = 0
    total_ns = 0
    for ev in events:
        if ev.get("cat") in ("kernel", "Kernel"):
            ns = int(round(ev.get("dur", 0) * 1000))
            count += 1
            total_ns += ns
            agg = per_name.get(ev["name"])
            if agg is None:
                per_name[ev["name"]] = [1, ns]
            else:
                agg[0] += 1
                agg[1] += ns

    print("kernels: %d" % count)
    print("total ns: %d" % total_ns)
    print("distinct names: %d" % len(per_name))
    top = sorted(per_name.items(), key=lambda kv: (-kv[1][1], kv[0]))[:5]
    for name, (n, ns) in top:
        pct = 100.0 * ns / total_ns if total_ns else 0.0
        print("%6.2f%%  %16d ns  %9d x  %s" % (pct, ns, n, name[:120]))


if __name__ == "__main__":
    main()
