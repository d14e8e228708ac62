#!/usr/bin/env python3
"""Checks a trace written by `vprof merge` against its inputs, as the viewers
and `vprof kernels` need it (used by tests/cli/merge.t).

    merge_check.py MERGED INPUT@RANK[+SHIFT_US]...

- the merged file is valid JSON with "vprofMerge": {"pidsPerRank": 1000};
- every input event is in the merged file, once, with the same ph, ts, dur,
  tid, cat, name and args, under a pid of its own rank (pid // 1000), and the
  original pids map one to one onto new pids;
- each new pid has exactly one process_name, "rank R: <original name>", and
  one process_sort_index, and the sort indexes order ranks first;
- metadata events keep the names viewers recognise;
- flow events (s/t/f) keep their pairs: an id never joins two ranks, and
  each rank has as many complete s->f pairs as its input had.
Prints one line of counts per rank, then OK; exits 1 on the first failure.
"""
import collections
import decimal
import gzip
import json
import sys

KNOWN_M = {"process_name", "process_labels", "process_sort_index", "thread_name",
           "thread_sort_index", "num_cpus"}


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    d = json.loads(data)
    return d if isinstance(d, dict) else {"traceEvents": d}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def key(e, shift=0):
    ts = e.get("ts")
    if ts is not None and (shift or not isinstance(ts, str)):
        ts = str((decimal.Decimal(str(ts)) + shift).normalize())
    return json.dumps([e.get("ph"), ts, e.get("dur"), e.get("tid"), e.get("cat"),
                       e.get("name"), e.get("args")], sort_keys=True)


def flow_pairs(events):
    ids = collections.defaultdict(set)
    for e in events:
        if e.get("ph") in ("s", "f") and "id" in e:
            ids[(e.get("cat"), e.get("name"), json.dumps(e["id"]))].add(e["ph"])
    return sum(1 for v in ids.values() if v == {"s", "f"})


def main():
    merged = load(sys.argv[1])
    vm = merged.get("vprofMerge", {})
    if vm.get("pidsPerRank") != 1000:
        fail("no vprofMerge.pidsPerRank")
    mev = merged["traceEvents"]
    by_rank = collections.defaultdict(list)
    for e in mev:
        if not isinstance(e.get("pid"), int):
            fail("pid not an integer: %r" % e)
        by_rank[e["pid"] // 1000].append(e)
    for e in mev:
        if e.get("ph") == "M" and e.get("name") not in KNOWN_M:
            fail("unknown metadata name %r" % e.get("name"))
    # flows never join two ranks
    flow_rank = {}
    for e in mev:
        if e.get("ph") in ("s", "t", "f") and "id" in e:
            k = (e.get("cat"), e.get("name"), json.dumps(e["id"]))
            if flow_rank.setdefault(k, e["pid"] // 1000) != e["pid"] // 1000:
                fail("flow %r joins ranks %d and %d" % (k, flow_rank[k], e["pid"] // 1000))
    sort_of = {}
    for arg in sys.argv[2:]:
        path, rank = arg.rsplit("@", 1)
        shift = 0
        if "+" in rank or "-" in rank[1:]:
            i = max(rank.find("+"), rank.find("-", 1))
            rank, shift = rank[:i], decimal.Decimal(rank[i:])
        rank = int(rank)
        src = load(path)["traceEvents"]
        got = by_rank.get(rank, [])
        names = {}
        for e in src:
            if e.get("ph") == "M" and e.get("name") == "process_name":
                names[json.dumps(e.get("pid"))] = e["args"]["name"]
        # events other than the held process metadata: same multiset
        want = collections.Counter(key(e, shift) for e in src
                                   if not (e.get("ph") == "M" and e.get("name") in ("process_name", "process_sort_index")))
        have = collections.Counter(key(e) for e in got
                                   if not (e.get("ph") == "M" and e.get("name") in ("process_name", "process_sort_index")))
        if want != have:
            missing = list((want - have).elements())[:2]
            extra = list((have - want).elements())[:2]
            fail("rank %d: events differ; missing %s; extra %s" % (rank, missing, extra))
        # pid mapping one to one, in the order of the events
        pmap, rmap = {}, {}
        gi = [e for e in got if not (e.get("ph") == "M" and e.get("name") in ("process_name", "process_sort_index"))]
        si = [e for e in src if not (e.get("ph") == "M" and e.get("name") in ("process_name", "process_sort_index"))]
        for a, b in zip(si, gi):
            o = json.dumps(a.get("pid"))
            if pmap.setdefault(o, b["pid"]) != b["pid"] or rmap.setdefault(b["pid"], o) != o:
                fail("rank %d: pid %s is not mapped one to one" % (rank, o))
        # one process_name and one sort index per pid
        pn = collections.defaultdict(list)
        ps = collections.defaultdict(list)
        for e in got:
            if e.get("ph") == "M" and e.get("name") == "process_name":
                pn[e["pid"]].append(e["args"]["name"])
            if e.get("ph") == "M" and e.get("name") == "process_sort_index":
                ps[e["pid"]].append(e["args"]["sort_index"])
        pids = {e["pid"] for e in got}
        for p in pids:
            if len(pn[p]) != 1 or len(ps[p]) != 1:
                fail("rank %d: pid %d has %d process_name and %d process_sort_index events"
                     % (rank, p, len(pn[p]), len(ps[p])))
            if not pn[p][0].startswith("rank %d: " % rank):
                fail("rank %d: pid %d is named %r" % (rank, p, pn[p][0]))
            o = rmap.get(p)
            if o in names and pn[p][0] != "rank %d: %s" % (rank, names[o]):
                fail("rank %d: pid %d named %r, its input named it %r" % (rank, p, pn[p][0], names[o]))
            sort_of[p] = (rank, ps[p][0])
        if flow_pairs(src) != flow_pairs(got):
            fail("rank %d: %d flow pairs in the input, %d in the merged file" % (rank, flow_pairs(src), flow_pairs(got)))
        print("rank %d: %d events, %d processes, %d flow pairs" % (rank, len(got), len(pids), flow_pairs(got)))
    order = sorted(sort_of, key=lambda p: sort_of[p][1])
    if [sort_of[p][0] for p in order] != sorted(sort_of[p][0] for p in order):
        fail("process_sort_index does not order the ranks")
    print("OK")


main()
