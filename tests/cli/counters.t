# vprof counters: HTA's queue length and memory bandwidth summaries.
# event_sync_trace is HTA's critical_path/cuda_event_sync trace and
# trace_filter_rank-0/1 its trace_filter traces: every expected number below
# is HTA's own (hta_oracle/critical_path_cuda_event_sync and trace_filter,
# queue_length_summary.csv and memory_bw_summary.csv, HTA commit f4d0062c,
# pandas 1.5.3), equal to the bit.

case_ 'csv: queue and bandwidth on event_sync_trace, HTA numbers'
cd "$DATA/hta"
vp_tables "queue bandwidth" counters -f csv event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Stream,Count,Mean,Std,Min,25%,50%,75%,Max
0,7,10,0.5,0.5270462766947299,0,0,0.5,1,1

Rank,Name,Count,Mean,Std,Min,25%,50%,75%,Max
0,Memcpy DtoH,1,0.00048828125,,0.00048828125,0.00048828125,0.00048828125,0.00048828125,0.00048828125
END
expect_stderr <<'END'
END

case_ 'two ranks with --steps :-1 (how HTA loads them): trace_filter, HTA numbers'
vp_tables "queue bandwidth" counters -f csv --steps :-1 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Stream,Count,Mean,Std,Min,25%,50%,75%,Max
0,7,1052,23.619771863117872,19.97700649572423,0,3,22,38,76
0,23,126,0.5952380952380952,0.6832694511370614,0,0,1,1,4
0,25,16,4,2.422120283277993,0,2,4,6,8
0,84,8,0.5,0.5345224838248488,0,0,0.5,1,1
0,203,2,0.5,0.7071067811865476,0,0.25,0.5,0.75,1
1,7,1002,24.66566866267465,21.571825498706563,0,3,22.5,42,75
1,23,126,0.5476190476190477,0.5456320057642198,0,0,1,1,2
1,25,16,4,2.422120283277993,0,2,4,6,8
1,84,8,0.5,0.5345224838248488,0,0,0.5,1,1
1,203,2,0.5,0.7071067811865476,0,0.25,0.5,0.75,1

Rank,Name,Count,Mean,Std,Min,25%,50%,75%,Max
0,Memcpy DtoD,4,491.943203923047,409.9546631645537,0.000969227041434456,268.36150969189475,503.76870711535724,727.3504013465096,960.2344322344322
0,Memcpy DtoH,4,0.419658733385181,0.6669063956135413,0.00048828125,0.00048828125,0.13870567908653847,0.5578761312217194,1.400735294117647
0,Memcpy HtoD,12,2.0014418632061566,2.878133805244712,0.0004252152652280217,0.0009717987804878049,0.542528735632184,3.481079628865584,6.830520693099405
0,Memset,5,150.72296732097684,337.0104489909064,0.0014285714285714286,0.0015822784810126582,0.004310344827586207,0.021929824561403508,753.5855855855856
1,Memcpy DtoD,4,543.5663375199958,367.20581216566285,0.0011467889908256881,481.04633239144806,699.6402845777236,762.1602897062714,774.9836341355458
1,Memcpy DtoH,4,0.13258882195702848,0.1525815106137508,0.0004734848484848485,0.0004789481351981352,0.13067516722408026,0.2627850410459106,0.26853146853146853
1,Memcpy HtoD,12,2.12795249171436,2.5723232834905176,0.0006282393591958537,0.0009068977702106019,0.5378531073446328,4.479806644436327,6.706594179724976
1,Memset,5,0.028456954874688946,0.031007556777319156,0.0009765625,0.017241379310344827,0.020618556701030927,0.021551724137931036,0.08189655172413793
END

case_ '--time-series: every point of the series (pandas describe() of these is the row above)'
vp counters -f csv --time-series --table queue_series event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Stream,Time (ns),Queue Length
0,7,1707417525512110000,1
0,7,1707417525512145000,0
0,7,1707417525512182000,1
0,7,1707417525512194000,0
0,7,1707417525512221000,1
0,7,1707417525512235000,0
0,7,1707417525512252000,1
0,7,1707417525512270000,0
0,7,1707417525512362000,1
0,7,1707417525512372000,0
END
vp counters -f csv --time-series --table bandwidth_series event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Name,Time (ns),Bandwidth (GB/s)
0,Memcpy DtoH,1707417525512270000,0.00048828125
0,Memcpy DtoH,1707417525512272000,0
END

case_ '--trace-out: the trace with HTA counter events, the points of the series above'
vp counters -f csv --trace-out "$WORK/wc.json.gz" event_sync_trace.json.gz
expect_status 0
expect_stdout_has "0,7,10,0.5,0.5270462766947299,0,0,0.5,1,1"
# the input's 92 events unchanged, then one counter event per point;
# pandas-free describe() of the queue events gives HTA's row (count 10,
# mean 0.5, min 0, max 1), of the bandwidth events above 0 HTA's DtoH row
gzip -dc "$WORK/wc.json.gz" | python3 -c '
import gzip, json, sys
out = json.load(sys.stdin)
src = json.load(gzip.open(sys.argv[1]))
ev = out["traceEvents"]
assert ev[:92] == src["traceEvents"], "input events changed"
assert {k: v for k, v in out.items() if k != "traceEvents"} == \
    {k: v for k, v in src.items() if k != "traceEvents"}, "top-level members changed"
q = [e["args"]["Queue Length"] for e in ev[92:] if e["name"] == "Queue Length"]
b = [e["args"]["Memcpy BW"] for e in ev[92:] if e["name"] == "Memcpy DtoH"]
assert (len(q), sum(q) / len(q), min(q), max(q)) == (10, 0.5, 0, 1), q
assert [v for v in b if v > 0] == [0.00048828125], b
for e in ev[92:]:
    print(json.dumps(e, sort_keys=True))
' event_sync_trace.json.gz >"$WORK/counters.ev" && pass || fail "augmented trace"
cat >"$WORK/want" <<'END'
{"args": {"Queue Length": 1}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512110}
{"args": {"Queue Length": 0}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512145}
{"args": {"Queue Length": 1}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512182}
{"args": {"Queue Length": 0}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512194}
{"args": {"Queue Length": 1}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512221}
{"args": {"Queue Length": 0}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512235}
{"args": {"Queue Length": 1}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512252}
{"args": {"Queue Length": 0}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512270}
{"args": {"Queue Length": 1}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512362}
{"args": {"Queue Length": 0}, "id": 7, "name": "Queue Length", "ph": "C", "pid": 0, "ts": 1707417525512372}
{"args": {"Memcpy BW": 0.00048828125}, "name": "Memcpy DtoH", "ph": "C", "pid": 0, "ts": 1707417525512270}
{"args": {"Memcpy BW": 0.0}, "name": "Memcpy DtoH", "ph": "C", "pid": 0, "ts": 1707417525512272}
END
cmp -s "$WORK/want" "$WORK/counters.ev" && pass || fail "counter events differ: $(diff "$WORK/want" "$WORK/counters.ev")"
vp counters --trace-out "$WORK/x.json" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 2
expect_stderr_has "--trace-out reads its trace a second time: give one trace"
vp counters --trace-out "$WORK/x.json" - <event_sync_trace.json.gz
expect_status 2
[ ! -e "$WORK/x.json" ] && pass || fail "a refused --trace-out left a file"

case_ '-j 2, --save-part and reduce print the same bytes'
vp_tables "queue bandwidth" counters -j 1 -f csv --steps :-1 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
cp "$OUT_STDOUT" "$WORK/one"
vp_tables "queue bandwidth" counters -j 2 -f csv --steps :-1 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_file "$WORK/one"
vp counters --steps :-1 --save-part "$WORK/c%i.vpart" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
vp_tables "queue bandwidth" reduce -f csv "$WORK/c0.vpart" "$WORK/c1.vpart"
expect_status 0
expect_stdout_file "$WORK/one"

case_ 'no launch, no copy: said so, exit 0'
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","ts":1,"dur":2}]}' >"$WORK/cpu.json"
vp counters "$WORK/cpu.json"
expect_status 0
expect_stdout_has "note: no launch of HTA's runtime calls joined to GPU work"
expect_stdout_has "note: no memcpy or memset in the input"

case_ 'usage and input errors'
vp counters
expect_status 2
expect_stderr_has "vprof: counters: no trace given"
vp counters --time-series=3 event_sync_trace.json.gz
expect_status 2
printf '{"traceEvents":[{"ph":"X",' >"$WORK/bad.json"
vp counters "$WORK/bad.json"
expect_status 3
