#!/usr/bin/env python3
"""Baseline for `vprof comm`: what HTA does, in plain Python.

    python3 scripts/bench_comm_baseline.py FILE.json[.gz]

Loads the whole trace with json.load (as HTA's parser does before building
its DataFrame), keeps the GPU kernels, memcpys and memsets, classifies them
by name with HTA's rules (nccl* = communication), merges each class into a
union of intervals (sort by start, merge overlapping or touching) and
prints HTA's comp_comm_overlap_pctg and temporal breakdown.  Times are
rounded to integer ns from the float microseconds json.load gives.
"""

import gzip
import json
import sys


def union(iv):
    iv.sort()
    out = []
    for s, e in iv:
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def inter_measure(a, b):
    i = j = m = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            m += e - s
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return m


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_comm_baseline.py FILE.json[.gz]")
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    comp, comm, other = [], [], []
    for ev in events:
        if ev.get("cat") not in ("kernel", "Kernel", "gpu_memcpy", "gpu_memset") or "dur" not in ev:
            continue
        s = int(round(ev["ts"] * 1000))
        e = s + int(round(ev["dur"] * 1000))
        name = ev["name"]
        if name.startswith("nccl") or "ncclKernel" in name or "ncclDevKernel" in name:
            comm.append((s, e))
        elif ev["cat"] in ("kernel", "Kernel"):
            comp.append((s, e))
        else:
            other.append((s, e))
    uc, um = union(comp), union(comm)
    allu = union(comp + comm + other)
    m_comm = sum(e - s for s, e in um)
    over = inter_measure(uc, um)
    span = allu[-1][1] - allu[0][0] if allu else 0
    busy = sum(e - s for s, e in allu)
    print("overlap %%: %s" % ("%.2f" % (100.0 * over / m_comm) if m_comm else "NaN"))
    print("span ns: %d" % span)
    print("idle ns: %d" % (span - busy))
    print("compute ns: %d" % sum(e - s for s, e in uc))


if __name__ == "__main__":
    main()
