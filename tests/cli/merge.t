# vprof merge: structure the viewers need, equality of `vprof kernels --by
# rank` before and after, clocks, filters, outputs and bad input.
# merge_check.py (beside this file) compares a merged trace with its inputs
# event by event and checks metadata names, sort indexes and flow pairs.
CHECK="python3 $(dirname "$T")/merge_check.py"
H=$DATA/hta
K0=$H/trace_filter_rank-0.json.gz
K1=$H/trace_filter_rank-1.json.gz
cd "$WORK"
# Two small Kineto-like ranks whose rank and clock base come after their
# events (2024 layout), with names that suggest other ranks, a flow pair
# with the same id on both, a string pid "" and a quoted thread name.
python3 - <<'PY'
import json
def trace(path, rank, base, ts0):
    evs = [{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
            "pid": 0, "tid": 7, "ts": ts0 + 10, "dur": 5.25, "args": {"device": 0, "stream": 7, "correlation": 1}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": ts0, "dur": 2,
            "args": {"correlation": 1}},
           {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 4242, "tid": 4242, "ts": ts0},
           {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 0, "tid": 7, "ts": ts0 + 10, "bp": "e"},
           {"ph": "M", "name": "process_name", "pid": 4242, "tid": 0, "args": {"name": "python3"}},
           {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python3"}},
           {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
           {"ph": "M", "name": "process_sort_index", "pid": 0, "tid": 0, "args": {"sort_index": 5000000}},
           {"ph": "M", "name": "thread_name", "pid": 4242, "tid": 4242, "args": {"name": "main \"quoted\""}},
           {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": ts0 + 20}]
    d = {"schemaVersion": 1, "traceEvents": evs, "distributedInfo": {"rank": rank},
         "displayTimeUnit": "ms", "baseTimeNanoseconds": base}
    with open(path, "w") as f:
        json.dump(d, f, indent=1)
trace("a_rank7.json", 0, 1711964646000000000, 1000.5)
trace("b_rank9.json", 1, 1711964646002000000, 1000.5)
PY

case_ 'two real ranks: valid JSON, events and metadata as the viewers need them'
vp merge -o m.json "$K0" "$K1"
expect_status 0
expect_stderr <<END
vprof: merge: 2 ranks, 9575 of 9575 events to m.json; time: as recorded: no input has baseTimeNanoseconds (--align base)
END
if python3 -m json.tool m.json >/dev/null; then pass; else fail "not valid JSON"; fi
$CHECK m.json "$K0@0" "$K1@1" >check.out
if diff -u - check.out <<'END'; then pass; else fail "merge_check"; fi
rank 0: 4856 events, 10 processes, 0 flow pairs
rank 1: 4721 events, 10 processes, 0 flow pairs
OK
END

case_ 'kernels --by rank: the merged file gives the inputs table'
vp kernels --by rank -f csv "$K0" "$K1"
cp "$OUT_STDOUT" inputs.csv
vp kernels --by rank -f csv m.json
expect_status 0
expect_stdout_file inputs.csv
vp kernels --by rank,stream,class -f csv "$K0" "$K1"
cp "$OUT_STDOUT" inputs2.csv
vp kernels --by rank,stream,class -f csv m.json
expect_stdout_file inputs2.csv

case_ 'head and tail of the merged file'
head -3 m.json >head.out
if diff -u - head.out <<'END'; then pass; else fail "head"; fi
{"schemaVersion": 1,
"vprofMerge": {"version": 1, "pidsPerRank": 1000},
"traceEvents": [
END
python3 -c '
import json, sys
d = json.load(open("m.json"))
print(list(d))
print(sorted(d["distributedInfo"]), d["distributedInfo"]["1"])
i = d["vprofMergeInfo"]
print(i["align"], i["partial"], sorted(i["ranks"]), i["ranks"]["1"]["rankFrom"], i["ranks"]["1"]["eventsRead"])
names = [e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"]
print(names[:2], names[-1])
' >tail.out
if diff -u - tail.out <<'END'; then pass; else fail "tail"; fi
['schemaVersion', 'vprofMerge', 'traceEvents', 'traceName', 'deviceProperties', 'distributedInfo', 'vprofMergeInfo']
['0', '1'] {'backend': 'nccl', 'rank': 1, 'world_size': 128}
base False ['0', '1'] distributedInfo.rank 4720
['rank 0: pyper:trainer:0:0', 'rank 0: pyper:trainer:0:0'] rank 1: Spans
END

case_ 'gzip by name, Ascend trace_view with a rank given explicitly'
need_shared fixtures/real/ascend/msprof_analyze_advisor_timeline/trace_view.json
A=$SHARED/fixtures/real/ascend/msprof_analyze_advisor_timeline/trace_view.json
vp merge -q -o g.json.gz "$K0" "$A@5"
expect_status 0
expect_stderr_empty
if [ "$(head -c 2 g.json.gz | od -An -tx1 | tr -d ' ')" = 1f8b ]; then pass; else fail "not gzip"; fi
$CHECK g.json.gz "$K0@0" "$A@5" >check.out
if diff -u - check.out <<'END'; then pass; else fail "merge_check"; fi
rank 0: 4856 events, 10 processes, 0 flow pairs
rank 5: 3670 events, 4 processes, 713 flow pairs
OK
END

case_ 'one trace twice as two ranks: flows and async ids never join the ranks'
vp merge -q -o amd.json "$H/amd_trace.json.gz@0" "$H/amd_trace.json.gz@1"
expect_status 0
$CHECK amd.json "$H/amd_trace.json.gz@0" "$H/amd_trace.json.gz@1" >check.out
if diff -u - check.out <<'END'; then pass; else fail "merge_check"; fi
rank 0: 225 events, 20 processes, 20 flow pairs
rank 1: 225 events, 20 processes, 20 flow pairs
OK
END

case_ 'rank and base after the events: copied again, ts moved onto one clock'
vp merge -v -o syn.json a_rank7.json b_rank9.json
expect_status 0
expect_stderr <<'END'
vprof: merge: a_rank7.json: rank or clock base found after the events; copying it again
vprof: merge: a_rank7.json: rank 0 (from distributedInfo.rank); 10 of 10 events written, ts shifted by 0 ns
vprof: merge: b_rank9.json: rank or clock base found after the events; copying it again
vprof: merge: b_rank9.json: rank 1 (from distributedInfo.rank); 10 of 10 events written, ts shifted by 2000000 ns
vprof: merge: 2 ranks, 20 of 20 events to syn.json; time: one clock from baseTimeNanoseconds (--align base)
END
$CHECK syn.json a_rank7.json@0 b_rank9.json@1+2000 >check.out
if diff -u - check.out <<'END'; then pass; else fail "merge_check"; fi
rank 0: 13 events, 3 processes, 1 flow pairs
rank 1: 13 events, 3 processes, 1 flow pairs
OK
END
python3 -c '
import json
d = json.load(open("syn.json"))
print(d["baseTimeNanoseconds"], d["displayTimeUnit"])
for e in d["traceEvents"]:
    if e["ph"] in "sf" or e["ph"] == "M" and e["name"] in ("process_name", "process_sort_index", "thread_name"):
        print(e["ph"], e["pid"], e.get("id"), e.get("ts"), e["name"], e["args"] if e["ph"] == "M" else "")
' >syn.out
if diff -u - syn.out <<'END'; then pass; else fail "syn"; fi
1711964646000000000 ms
s 1 1 1000.5 ac2g 
f 0 1 1010.5 ac2g 
M 1 None None thread_name {'name': 'main "quoted"'}
M 1 None None process_name {'name': 'rank 0: python3'}
M 1 None None process_sort_index {'sort_index': 0}
M 0 None None process_name {'name': 'rank 0: python3'}
M 0 None None process_sort_index {'sort_index': 1}
M 2 None None process_name {'name': 'rank 0: pid ""'}
M 2 None None process_sort_index {'sort_index': 2}
s 1001 4294967297 3000.5 ac2g 
f 1000 4294967297 3010.5 ac2g 
M 1001 None None thread_name {'name': 'main "quoted"'}
M 1001 None None process_name {'name': 'rank 1: python3'}
M 1001 None None process_sort_index {'sort_index': 1000}
M 1000 None None process_name {'name': 'rank 1: python3'}
M 1000 None None process_sort_index {'sort_index': 1001}
M 1002 None None process_name {'name': 'rank 1: pid ""'}
M 1002 None None process_sort_index {'sort_index': 1002}
END

case_ 'standard output: the same bytes (inputs read twice instead of rewinding)'
vp merge -o - a_rank7.json b_rank9.json
expect_status 0
expect_stdout_file syn.json

case_ '-z to standard output; --level'
vp merge -q -z --level 9 -o - a_rank7.json b_rank9.json
expect_status 0
if gzip -dc <"$OUT_STDOUT" | cmp -s - syn.json; then pass; else fail "gzip stdout differs"; fi

case_ '--align none keeps ts as recorded'
vp merge --align none -o none.json a_rank7.json b_rank9.json
expect_status 0
expect_stderr_has 'time: as recorded (--align none)'
$CHECK none.json a_rank7.json@0 b_rank9.json@1 >check.out
expect_status 0
if tail -1 check.out | grep -qx OK; then pass; else fail "merge_check"; cat check.out >&2; fi

case_ '--align start: every rank starts at 0'
vp merge -q --align start -o start.json "$K0" "$K1"
expect_status 0
python3 -c '
import json, collections
d = json.load(open("start.json"))
m = collections.defaultdict(lambda: 1e30)
for e in d["traceEvents"]:
    if e["ph"] != "M" and "ts" in e:
        m[e["pid"] // 1000] = min(m[e["pid"] // 1000], float(e["ts"]))
print(dict(m), "baseTimeNanoseconds" in d)
' >start.out
if diff -u - start.out <<'END'; then pass; else fail "start"; fi
{0: 0.0, 1: 0.0} False
END

case_ '--align collective: shifts from matching NCCL kernels, reported'
vp merge --align collective:8 -o coll.json "$K0" "$K1"
expect_status 0
expect_stderr <<'END'
vprof: merge: 2 ranks, 9575 of 9575 events to coll.json; time: shifted to align collective kernels (--align collective)
vprof: merge: rank 0: shifted by +0.000 us (8 collectives matched)
vprof: merge: rank 1: shifted by -14570.000 us (8 collectives matched)
END

case_ '--ranks, --drop, --keep'
vp merge -q --ranks 1 -o r1.json "$K0" "$K1"
expect_status 0
$CHECK r1.json "$K1@1" >check.out
if tail -1 check.out | grep -qx OK; then pass; else fail "merge_check"; cat check.out >&2; fi
python3 -c '
import json
print(sorted({e["pid"] // 1000 for e in json.load(open("r1.json"))["traceEvents"]}))' >r.out
if diff -u - r.out <<'END'; then pass; else fail "ranks"; fi
[1]
END
vp merge --drop cpu_op,python_function -o drop.json "$K0"
expect_status 0
expect_stderr <<'END'
vprof: merge: 1 rank, 2526 of 4855 events to drop.json; time: as recorded: no input has baseTimeNanoseconds (--align base)
END
vp merge -q --keep kernel -o keep.json "$K0"
python3 -c '
import json, collections
print(sorted(collections.Counter(e.get("cat", "M") for e in json.load(open("keep.json"))["traceEvents"]).items()))' >k.out
if diff -u - k.out <<'END'; then pass; else fail "keep"; fi
[('M', 45), ('kernel', 1154)]
END

case_ '--steps by time window per rank, --window on the merged clock'
vp merge --steps 552:553 -o steps.json "$K0" "$K1"
expect_status 0
expect_stderr <<'END'
vprof: merge: 2 ranks, 4833 of 9575 events to steps.json; time: as recorded: no input has baseTimeNanoseconds (--align base)
END
python3 -c '
import json
d = json.load(open("steps.json"))
for r, w in sorted(d["vprofMergeInfo"]["ranks"].items()):
    a, b = w["stepsWindowNs"]
    ev = [e for e in d["traceEvents"] if e["pid"] // 1000 == int(r) and e["ph"] != "M" and "ts" in e]
    inside = all(float(e["ts"]) * 1000 <= b and float(e["ts"]) * 1000 + float(e.get("dur", 0)) * 1000 >= a for e in ev)
    print(r, a, b, len(ev), inside)
' >s.out
if diff -u - s.out <<'END'; then pass; else fail "steps"; fi
0 1682725898686653000 1682725899309581000 2408 True
1 1682725898687438000 1682725899318077000 2337 True
END
vp merge -q --window 1682725898236567:1682725898236600 -o win.json "$K0"
expect_status 0
python3 -c '
import json
print(len([e for e in json.load(open("win.json"))["traceEvents"] if e["ph"] != "M"]))' >w.out
if diff -u - w.out <<'END'; then pass; else fail "window"; fi
7
END

case_ 'standard input as one rank'
vp merge -q -o stdin.json -- "$K0" -@1 <"$K1"
expect_status 0
$CHECK stdin.json "$K0@0" "$K1@1" >check.out
if tail -1 check.out | grep -qx OK; then pass; else fail "merge_check"; cat check.out >&2; fi

case_ 'two inputs of one rank: an error naming both, nothing written'
mkdir -p dup && cd dup
cp "$K0" ../copy-rank0.json.gz
vp merge -o out.json "$K0" ../copy-rank0.json.gz
expect_status 3
expect_stderr <<END
vprof: $K0 and ../copy-rank0.json.gz are both rank 0 (from distributedInfo.rank and distributedInfo.rank); give the ranks as FILE@RANK
END
if [ -z "$(ls -A)" ]; then pass; else fail "left files: $(ls -A)"; fi
vp merge -o out.json "$K0@1" "$K1@1"
expect_status 2
expect_stderr <<END
vprof: merge: $K0@1 and $K1@1 are both given as rank 1
Try 'vprof help merge'.
END
cd "$WORK"

case_ 'truncated input: exit 3, no output left; --partial merges what was read'
mkdir -p trunc && cd trunc
head -c 60000 "$K1" >cut.json.gz
vp merge -o out.json.gz "$K0" cut.json.gz
expect_status 3
expect_stderr_has 'cut.json.gz'
if [ "$(ls -A)" = cut.json.gz ]; then pass; else fail "left files: $(ls -A)"; fi
vp merge --partial -o out.json.gz "$K0" cut.json.gz@1
expect_status 0
expect_stderr_has 'cut.json.gz: truncated: merged the'
python3 -c '
import json, gzip
d = json.load(gzip.open("out.json.gz"))
print(d["vprofMergeInfo"]["partial"], d["vprofMergeInfo"]["ranks"]["1"]["truncated"], d["vprofMergeInfo"]["ranks"]["0"]["truncated"])' >p.out
if diff -u - p.out <<'END'; then pass; else fail "partial"; fi
True True False
END
cd "$WORK"

case_ 'usage errors'
vp merge "$K0"
expect_status 2
expect_stderr <<'END'
vprof: merge: no output given (-o FILE, or -o - for standard output)
Try 'vprof help merge'.
END
vp merge -o x.json
expect_status 2
expect_stderr_has 'no trace given'
vp merge --align sideways -o x.json "$K0"
expect_status 2
expect_stderr_has "--align: expected none, base, start or collective[:N], found 'sideways'"
vp merge --level 3 -o x.json "$K0"
expect_status 2
expect_stderr_has '--level needs gzip output'
vp merge --ranks 3-1 -o x.json "$K0"
expect_status 2
vp merge --window 5:1 -o x.json "$K0"
expect_status 2
vp merge --ranks 7 -o x.json "$K0"
expect_status 2
expect_stderr_has '--ranks selects none'
vp merge --steps 1:2 -o x.json - <"$K0"
expect_status 2
expect_stderr_has 'standard input can be merged only when it needs a single reading'
vp merge -f csv -o x.json "$K0"
expect_status 2
if [ ! -e x.json ]; then pass; else fail "x.json written"; fi
vp merge -o x.json /nonexistent/trace.json
expect_status 3
expect_stderr_has '/nonexistent/trace.json'

case_ 'help'
vp merge --help
expect_status 0
expect_stdout_has 'usage: vprof merge -o OUTPUT [options] TRACE[@RANK]...'
vp help
expect_stdout_has '  merge      one timeline for all ranks'
