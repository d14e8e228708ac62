#!/usr/bin/env python3
"""An independent reading of a trace, for the wild-corpus suite (tests/wild).

Written for issue 32 from the trace format alone: it imports nothing of
vprof's, calls no vprof binary and shares no code with it, so that where it
and vprof agree on a real trace of another project, both are more likely
right than where one of them was checked only against itself.  Python's
standard library only.

Per trace it computes (rules in tests/wild/README.md, "The independent
checker"):

  kernels   per kernel name: instances and total time (ns)
  comm      |union of communication kernels|, |union of compute kernels|,
            exposed = |comm union minus compute union| (ns), and the names
            of the kernels it counted as communication
  memory    per GPU device: the peak of allocated bytes, from "Total
            Allocated" where [memory] events carry it, else by replaying
            their "Bytes" from 0
  steps     ProfilerStep#N (CPU annotation) -> its duration (ns)
  ranks     world_size from distributedInfo (None when absent)
  launcher  the CPU op that launched the most kernels (for `sequences`)
  backward  per step, the CPU ops of the backward pass that start in it
            (autograd::engine::evaluate_function:..., or named *Backward*)
  busy      per step, % of its CPU window in which some GPU work ran
  device    the first device's name in deviceProperties/computeProperties

Usage:
  independent.py TRACE...             print the figures as JSON
  independent.py --write OUT TRACE... write them (the suite's expectations)
  independent.py --check OUT TRACE... exit 1 when OUT does not hold exactly
                                      what this script computes now
A TRACE that is a folder stands for its *.json.gz; no TRACE at all for the
corpus folder $VPROF_WILD_DIR, else ../shared/fixtures/wild beside the
checkout (tests/wild/SOURCE.md).  Exit 77 (skip), saying where it looked,
when that gives no trace.
"""
import collections
import decimal
import gzip
import json
import os
import re
import sys

# Times: decimal microseconds to integer nanoseconds, three decimals kept and
# the rest rounded half away from zero (ROUND_HALF_UP is away from zero in
# decimal), on the number's text, never through a double.
_NS = decimal.Decimal("0.001")


def to_ns(v):
    if v is None:
        return None
    if isinstance(v, str):
        v = v.strip()
        if not v:
            return None
    d = decimal.Decimal(v) if not isinstance(v, decimal.Decimal) else v
    return int((d.quantize(_NS, rounding=decimal.ROUND_HALF_UP) * 1000))


# What an event is, by category, for every Kineto era: torch 1.8-1.10 wrote
# Operator/Runtime/Kernel/Memcpy/Memset, later ones cpu_op/cuda_runtime/
# kernel/gpu_memcpy/gpu_memset; ROCm traces use the same names.
KERNEL_CATS = {"kernel"}
COPY_CATS = {"gpu_memcpy", "gpu_memset", "memcpy", "memset"}
LAUNCH_CATS = {"cuda_runtime", "runtime", "cuda_driver"}
OP_CATS = {"cpu_op", "operator"}

# Communication, by the kernel's library family or the collective op that
# launched it (the evidence the issue lists).  Layout bookkeeping of those
# libraries (DeepEP's get_dispatch_layout) is compute.
COMM_KERNEL = re.compile(
    r"nccl|rccl|hccl|nvshmem|msccl|mscclpp|oneccl|"
    r"dpsk::ep::(?:internode|intranode)::|deep_ep::(?:internode|intranode)::|"
    r"multimem_all_reduce|one_shot_all_reduce|two_shot_all_reduce|"
    r"cross_device_reduce|allreduce|all_reduce|allgather|reducescatter|"
    r"reduce_scatter|alltoall|all_to_all",
    re.I)
COMM_NOT = re.compile(r"get_dispatch_layout", re.I)
COMM_OP = re.compile(
    r"^(?:c10d::|_c10d_functional::|c10d_functional::|nccl:|"
    r"record_param_comms$|vllm::all_reduce|vllm::all_gather|"
    r"vllm::reduce_scatter|symm_mem::|deep_ep::)")
STEP = re.compile(r"^ProfilerStep#(\d+)$")
BACKWARD = re.compile(r"^autograd::engine::evaluate_function:|Backward")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    return json.loads(raw, parse_float=decimal.Decimal)


def union_length(intervals):
    total, end = 0, None
    start = None
    for s, e in sorted(intervals):
        if end is None or s > end:
            if end is not None:
                total += end - start
            start, end = s, e
        elif e > end:
            end = e
    if end is not None:
        total += end - start
    return total


def subtract_length(a, b):
    """|union(a) minus union(b)|."""
    def merged(iv):
        out = []
        for s, e in sorted(iv):
            if out and s <= out[-1][1]:
                out[-1][1] = max(out[-1][1], e)
            else:
                out.append([s, e])
        return out
    a, b = merged(a), merged(b)
    total, j = 0, 0
    for s, e in a:
        cur = s
        while j < len(b) and b[j][1] <= cur:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > cur:
                total += b[k][0] - cur
            cur = max(cur, b[k][1])
            k += 1
        if cur < e:
            total += e - cur
    return total


def world_size(meta):
    di = meta.get("distributedInfo")
    if not isinstance(di, dict):
        return None
    if "world_size" in di:
        return di.get("world_size")
    # a merged trace keeps one distributedInfo per rank
    sizes = [v.get("world_size") for v in di.values() if isinstance(v, dict)]
    return max(sizes) if sizes else None


def analyse(path):
    doc = load(path)
    if isinstance(doc, list):
        events, meta = doc, {}
    else:
        events, meta = doc.get("traceEvents", []), doc
    # torch_npu's trace_view.json has no kernel category: the NPU's tasks
    # are the events of the process named "Ascend Hardware".
    npu_pids = {e.get("pid") for e in events if isinstance(e, dict)
                and e.get("ph") == "M" and e.get("name") == "process_name"
                and isinstance(e.get("args"), dict)
                and e["args"].get("name") == "Ascend Hardware"}
    kernels = collections.OrderedDict()
    kernel_ev = []          # (start, end, name, correlation)
    launches = {}           # correlation -> (pid, tid, ts)
    ops = collections.defaultdict(list)   # (pid, tid) -> [(ts, end, name)]
    steps, windows, gpu = {}, {}, []
    memory = collections.defaultdict(lambda: {"peak": 0, "cur": 0, "totals": False})
    for e in events:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        cat = str(e.get("cat", "")).lower()
        name = e.get("name", "")
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if name == "[memory]":
            dtype = args.get("Device Type")
            if dtype in (None, 0):
                continue            # the host's allocations
            dev = "%s:%s" % (dtype, args.get("Device Id"))
            m = memory[dev]
            if "Total Allocated" in args:
                m["totals"] = True
                m["peak"] = max(m["peak"], int(args["Total Allocated"]))
            elif not m["totals"] and "Bytes" in args:
                m["cur"] += int(args["Bytes"])
                m["peak"] = max(m["peak"], m["cur"])
            continue
        if ph != "X":
            continue
        ts, dur = to_ns(e.get("ts")), to_ns(e.get("dur", 0))
        if ts is None:
            continue
        dur = dur or 0
        corr = args.get("correlation")
        if cat in KERNEL_CATS or (npu_pids and e.get("pid") in npu_pids):
            k = kernels.setdefault(name, [0, 0])
            k[0] += 1
            k[1] += dur
            kernel_ev.append((ts, ts + dur, name, corr))
        elif cat in LAUNCH_CATS:
            if corr is not None:
                launches[corr] = (e.get("pid"), e.get("tid"), ts)
        elif cat in OP_CATS:
            ops[(e.get("pid"), e.get("tid"))].append((ts, ts + dur, name))
        if cat not in ("gpu_user_annotation",) and cat not in KERNEL_CATS:
            m = STEP.match(str(name))
            if m and int(m.group(1)) not in steps:
                steps[int(m.group(1))] = dur
                windows[int(m.group(1))] = (ts, ts + dur)
        if cat in KERNEL_CATS or cat in COPY_CATS or (npu_pids and e.get("pid") in npu_pids):
            gpu.append((ts, ts + dur))

    # The ops enclosing each launch call, by nesting on its thread.
    for key in ops:
        ops[key].sort(key=lambda o: (o[0], -o[1]))
    by_thread = collections.defaultdict(list)
    for corr, (pid, tid, ts) in launches.items():
        by_thread[(pid, tid)].append((ts, corr))
    collective_launch, launcher = set(), {}
    for key, calls in by_thread.items():
        calls.sort()
        olist, i, stack = ops.get(key, []), 0, []
        for ts, corr in calls:
            while i < len(olist) and olist[i][0] <= ts:
                while stack and stack[-1][1] < olist[i][0]:
                    stack.pop()
                stack.append(olist[i])
                i += 1
            while stack and stack[-1][1] < ts:
                stack.pop()
            if stack:
                launcher[corr] = stack[-1][2]
            if any(COMM_OP.match(o[2]) for o in stack):
                collective_launch.add(corr)

    backward, busy = {}, {}
    for n, (a, b) in windows.items():
        backward[str(n)] = sum(1 for olist in ops.values() for o in olist
                               if a <= o[0] <= b and BACKWARD.search(o[2]))
        clipped = [(max(s, a), min(e, b)) for s, e in gpu if e > a and s < b]
        busy[str(n)] = round(100.0 * union_length(clipped) / (b - a), 3) if b > a else 0.0
    devs = meta.get("deviceProperties") or meta.get("computeProperties") or []
    if isinstance(devs, dict):      # a merged trace: one list per rank
        devs = next(iter(devs.values()), [])
    device = devs[0].get("name") if devs and isinstance(devs[0], dict) else None

    comm, compute, comm_names = [], [], set()
    launch_count = collections.Counter()
    for s, e, name, corr in kernel_ev:
        if corr in launcher:
            launch_count[launcher[corr]] += 1
        is_comm = (COMM_KERNEL.search(name) and not COMM_NOT.search(name)) \
            or corr in collective_launch
        if is_comm:
            comm.append((s, e))
            comm_names.add(name)
        else:
            compute.append((s, e))
    return {
        "kernels": {n: v for n, v in kernels.items()},
        "comm": {"union_ns": union_length(comm),
                 "compute_ns": union_length(compute),
                 "exposed_ns": subtract_length(comm, compute),
                 "kernels": sorted(comm_names)},
        "memory": {d: m["peak"] for d, m in sorted(memory.items())},
        "memory_from": sorted({("totals" if m["totals"] else "bytes")
                               for m in memory.values()}),
        "steps": {str(n): steps[n] for n in sorted(steps)},
        "world_size": world_size(meta),
        "launcher": launch_count.most_common(1)[0][0] if launch_count else None,
        "backward": backward,
        "busy": busy,
        "device": device,
    }


def main(argv):
    mode, out = None, None
    if argv and argv[0] in ("--write", "--check"):
        mode, out, argv = argv[0], argv[1], argv[2:]
    if not argv:
        argv = [os.environ.get("VPROF_WILD_DIR") or os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures", "wild")]
    traces = []
    for p in argv:
        if os.path.isdir(p):
            traces += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".json.gz"))
        elif os.path.exists(p) or "." in os.path.basename(p):  # else an absent folder
            traces.append(p)
    if not traces:
        print("SKIP independent.py: no trace (*.json.gz) in %s: the wild corpus is fetched public "
              "data kept in the steering repository's shared/fixtures/wild (tests/wild/SOURCE.md)"
              % " ".join(argv))
        return 77
    result = {os.path.basename(p): analyse(p) for p in traces}
    if mode is None:
        json.dump(result, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    if mode == "--write":
        old = {}
        if os.path.exists(out):
            with open(out) as f:
                old = json.load(f)
        old.update(result)
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(old, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(tmp, out)
        return 0
    with open(out) as f:
        have = json.load(f)
    bad = 0
    for name, fig in result.items():
        if have.get(name) != json.loads(json.dumps(fig)):
            print("%s: %s does not hold what independent.py computes now; "
                  "rerun independent.py --write" % (name, out))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
