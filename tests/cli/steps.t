# vprof steps: whole outputs on real traces, options, formats, bad input.
# --idle with --steps :-1 on trace_filter gives HTA's temporal breakdown
# (idle 321,378 / 328,671 us of 600,058 / 600,674 us) and idle-time
# breakdown per stream exactly (tests/hta/compare_hta_comm.py checks every
# fixture).

# Small synthetic traces for the bad-input cases (tests/data/synthetic/README.md
# says what each holds), copied into the work directory.
cd "$WORK" || exit 1
cp "$DATA"/synthetic/nogpu.json "$DATA"/synthetic/single.json "$DATA"/synthetic/mixed.json . || exit 1

case_ 'per step, table'
cd "$DATA/hta"
vp steps trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
== steps ==
Step  CPU Time  GPU Span  GPU Busy  Compute  Comm Exposed  Memory  GPU Idle  Data Loading  Forward  Backward  Optimizer  Kernels  Short Kernels
----  --------  --------  --------  -------  ------------  ------  --------  ------------  -------  --------  ---------  -------  -------------
 551    607 ms    600 ms    279 ms   106 ms        172 ms  169 us    321 ms          0 ns   157 ms    223 ms     204 ms      577            123
 552    623 ms    616 ms    269 ms   104 ms        165 ms  184 us    347 ms          0 ns   171 ms    217 ms     213 ms      577            127

== summary ==
Statistic  CPU Time  GPU Span  GPU Busy  Compute  Comm Exposed  Memory  GPU Idle  Data Loading  Forward  Backward  Optimizer  Kernels  Short Kernels
---------  --------  --------  --------  -------  ------------  ------  --------  ------------  -------  --------  ---------  -------  -------------
mean         615 ms    608 ms    274 ms   105 ms        168 ms  176 us    334 ms          0 ns   164 ms    220 ms     208 ms      577            125
median       615 ms    608 ms    274 ms   105 ms        168 ms  176 us    334 ms          0 ns   164 ms    220 ms     208 ms      577            125
min          607 ms    600 ms    269 ms   104 ms        165 ms  169 us    321 ms          0 ns   157 ms    217 ms     204 ms      577            123
max          623 ms    616 ms    279 ms   106 ms        172 ms  184 us    347 ms          0 ns   171 ms    223 ms     213 ms      577            127
END
expect_stderr <<'END'
END

case_ 'HTA'"'"'s temporal and idle breakdowns, csv'
cd "$DATA/hta"
vp_tables "temporal idle" steps --idle --steps :-1 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Idle (ns),Compute (ns),Non-Compute (ns),Span (ns),Idle (%),Compute (%),Non-Compute (%)
0,321378000,106252000,172428000,600058000,53.56,17.71,28.74
1,328671000,135548000,136455000,600674000,54.72,22.57,22.72

Rank,Stream,Idle (ns),Host Wait (ns),Kernel Wait (ns),Other (ns),Host Wait (%),Kernel Wait (%),Other (%)
0,7,477550000,213825000,1985000,261740000,44.78,0.42,54.81
0,23,596141000,596037000,70000,34000,99.98,0.01,0.01
0,25,47874000,0,9000,47865000,0.00,0.02,99.98
0,84,148940000,148934000,6000,0,100.00,0.00,0.00
0,203,0,0,0,0,,,
1,7,439707000,156827000,1816000,281064000,35.67,0.41,63.92
1,23,596413000,596313000,100000,0,99.98,0.02,0.00
1,25,53037000,0,9000,53028000,0.00,0.02,99.98
1,84,275107000,251860000,0,23247000,91.55,0.00,8.45
1,203,0,0,0,0,,,
END
expect_stderr <<'END'
END

case_ 'per rank, csv'
cd "$DATA/hta"
vp_tables "steps summary" steps --per-rank -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Step,CPU Time (ns),GPU Span (ns),GPU Busy (ns),Compute (ns),Comm Exposed (ns),Memory (ns),GPU Idle (ns),Data Loading (ns),Forward (ns),Backward (ns),Optimizer (ns),Kernels,Short Kernels
0,551,607312000,600058000,278680000,106252000,172259000,169000,321378000,0,157275000,222754000,204216000,577,123
0,552,622928000,615601000,268976000,104068000,164724000,184000,346625000,0,170805000,216540000,212523000,577,127
1,551,607904000,600674000,272003000,135548000,134336000,2119000,328671000,0,157375000,212467000,214672000,552,124
1,552,630639000,623286000,308047000,136425000,169187000,2435000,315239000,0,168802000,208929000,229848000,552,121

Statistic,CPU Time (ns),GPU Span (ns),GPU Busy (ns),Compute (ns),Comm Exposed (ns),Memory (ns),GPU Idle (ns),Data Loading (ns),Forward (ns),Backward (ns),Optimizer (ns),Kernels,Short Kernels
mean,617195750.0,609904750.0,281926500.0,120573250.0,160126500.0,1226750.0,327978250.0,0.0,163564250.0,215172500.0,215314750.0,564.5,123.8
median,615416000.0,608137500.0,275341500.0,120900000.0,166955500.0,1151500.0,325024500.0,0.0,163088500.0,214503500.0,213597500.0,564.5,123.5
min,607312000.0,600058000.0,268976000.0,104068000.0,134336000.0,169000.0,315239000.0,0.0,157275000.0,208929000.0,204216000.0,552.0,121.0
max,630639000.0,623286000.0,308047000.0,136425000.0,172259000.0,2435000.0,346625000.0,0.0,170805000.0,222754000.0,229848000.0,577.0,127.0
END
expect_stderr <<'END'
END

case_ 'two ranks: a row per rank and step, then the step'"'"'s maxima labelled max (they equal the old merged rows; their columns need not add up); csv prints the steps table and names the other'
cd "$DATA/hta"
vp steps -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Type,Rank,Step,CPU Time (ns),GPU Span (ns),GPU Busy (ns),Compute (ns),Comm Exposed (ns),Memory (ns),GPU Idle (ns),Data Loading (ns),Forward (ns),Backward (ns),Optimizer (ns),Kernels,Short Kernels
rank,0,551,607312000,600058000,278680000,106252000,172259000,169000,321378000,0,157275000,222754000,204216000,577,123
rank,1,551,607904000,600674000,272003000,135548000,134336000,2119000,328671000,0,157375000,212467000,214672000,552,124
max,,551,607904000,600674000,278680000,135548000,172259000,2119000,328671000,0,157375000,222754000,214672000,577,124
rank,0,552,622928000,615601000,268976000,104068000,164724000,184000,346625000,0,170805000,216540000,212523000,577,127
rank,1,552,630639000,623286000,308047000,136425000,169187000,2435000,315239000,0,168802000,208929000,229848000,552,121
max,,552,630639000,623286000,308047000,136425000,169187000,2435000,346625000,0,170805000,216540000,229848000,577,127
END
expect_stderr <<'END'
vprof: steps: csv prints one table, steps; --table NAME prints one of the others: summary
END

case_ 'two ranks: --table summary, the statistics over the max rows'
vp steps -f csv --table summary trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Statistic,CPU Time (ns),GPU Span (ns),GPU Busy (ns),Compute (ns),Comm Exposed (ns),Memory (ns),GPU Idle (ns),Data Loading (ns),Forward (ns),Backward (ns),Optimizer (ns),Kernels,Short Kernels
mean,619271500.0,611980000.0,293363500.0,135986500.0,170723000.0,2277000.0,337648000.0,0.0,164090000.0,219647000.0,222260000.0,577.0,125.5
median,619271500.0,611980000.0,293363500.0,135986500.0,170723000.0,2277000.0,337648000.0,0.0,164090000.0,219647000.0,222260000.0,577.0,125.5
min,607904000.0,600674000.0,278680000.0,135548000.0,169187000.0,2119000.0,328671000.0,0.0,157375000.0,216540000.0,214672000.0,577.0,124.0
max,630639000.0,623286000.0,308047000.0,136425000.0,172259000.0,2435000.0,346625000.0,0.0,170805000.0,222754000.0,229848000.0,577.0,127.0
END
expect_stderr <<'END'
END

case_ 'two ranks, table format: the note says what a max row is'
vp steps trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout_has "note: 2 ranks: a max row holds each column's largest value over the ranks, column by column, so its columns need not add up; the summary is over the max rows (--per-rank: the rank rows alone)"

case_ 'kernel-wait threshold 0: every gap is host wait or other'
cd "$DATA/hta"
vp_tables "temporal idle" steps --idle --kernel-wait 0 -f csv event_sync_trace.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Idle (ns),Compute (ns),Non-Compute (ns),Span (ns),Idle (%),Compute (%),Non-Compute (%)
0,207000,49000,7000,263000,78.71,18.63,2.66

Rank,Stream,Idle (ns),Host Wait (ns),Kernel Wait (ns),Other (ns),Host Wait (%),Kernel Wait (%),Other (%)
0,7,212000,212000,0,0,100.00,0.00,0.00
END
expect_stderr <<'END'
END

case_ 'a step that launches nothing, a kernel outside every step, overlapping kernels, phases'
cd "$WORK"
vp steps mixed.json
expect_status 0
expect_stdout <<'END'
== steps ==
Step  CPU Time  GPU Span  GPU Busy  Compute  Comm Exposed  Memory  GPU Idle  Data Loading  Forward  Backward  Optimizer  Kernels  Short Kernels
----  --------  --------  --------  -------  ------------  ------  --------  ------------  -------  --------  ---------  -------  -------------
   1    100 us   85.0 us   80.0 us  40.0 us       40.0 us    0 ns   5.00 us       9.00 us  41.0 us   20.0 us    15.0 us        4              1
   2   50.0 us      0 ns      0 ns     0 ns          0 ns    0 ns      0 ns          0 ns  50.0 us      0 ns       0 ns        0              0
   3   50.0 us   5.00 us   5.00 us  5.00 us          0 ns    0 ns      0 ns          0 ns  50.0 us      0 ns       0 ns        1              0
note: 1 GPU event was launched outside every step (or by no recorded launch call): in no row
note: 1 step launched no GPU work: its GPU columns are 0

== summary ==
Statistic  CPU Time  GPU Span  GPU Busy  Compute  Comm Exposed  Memory  GPU Idle  Data Loading  Forward  Backward  Optimizer  Kernels  Short Kernels
---------  --------  --------  --------  -------  ------------  ------  --------  ------------  -------  --------  ---------  -------  -------------
mean        66.7 us   30.0 us   28.3 us  15.0 us       13.3 us    0 ns   1.67 us       3.00 us  47.0 us   6.67 us    5.00 us     1.67          0.333
median      50.0 us   5.00 us   5.00 us  5.00 us          0 ns    0 ns      0 ns          0 ns  50.0 us      0 ns       0 ns        1              0
min         50.0 us      0 ns      0 ns     0 ns          0 ns    0 ns      0 ns          0 ns  41.0 us      0 ns       0 ns        0              0
max          100 us   85.0 us   80.0 us  40.0 us       40.0 us    0 ns   5.00 us       9.00 us  50.0 us   20.0 us    15.0 us        4              1
END
expect_stderr <<'END'
END

case_ 'idle breakdown with overlapping kernels on one stream'
cd "$WORK"
vp_tables "temporal idle" steps --idle -f csv mixed.json
expect_status 0
expect_stdout <<'END'
Rank,Idle (ns),Compute (ns),Non-Compute (ns),Span (ns),Idle (%),Compute (%),Non-Compute (%)
0,115000,55000,40000,210000,54.76,26.19,19.05

Rank,Stream,Idle (ns),Host Wait (ns),Kernel Wait (ns),Other (ns),Host Wait (%),Kernel Wait (%),Other (%)
0,7,155000,155000,0,0,100.00,0.00,0.00
0,20,5000,0,5000,0,0.00,100.00,0.00
END
expect_stderr <<'END'
END

case_ '--steps 2:'
cd "$WORK"
vp_tables "steps summary" steps --steps 2: -f csv mixed.json
expect_status 0
expect_stdout <<'END'
Step,CPU Time (ns),GPU Span (ns),GPU Busy (ns),Compute (ns),Comm Exposed (ns),Memory (ns),GPU Idle (ns),Data Loading (ns),Forward (ns),Backward (ns),Optimizer (ns),Kernels,Short Kernels
2,50000,0,0,0,0,0,0,0,50000,0,0,0,0
3,50000,5000,5000,5000,0,0,0,0,50000,0,0,1,0

Statistic,CPU Time (ns),GPU Span (ns),GPU Busy (ns),Compute (ns),Comm Exposed (ns),Memory (ns),GPU Idle (ns),Data Loading (ns),Forward (ns),Backward (ns),Optimizer (ns),Kernels,Short Kernels
mean,50000.0,2500.0,2500.0,2500.0,0.0,0.0,0.0,0.0,50000.0,0.0,0.0,0.5,0.0
median,50000.0,2500.0,2500.0,2500.0,0.0,0.0,0.0,0.0,50000.0,0.0,0.0,0.5,0.0
min,50000.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,50000.0,0.0,0.0,0.0,0.0
max,50000.0,5000.0,5000.0,5000.0,0.0,0.0,0.0,0.0,50000.0,0.0,0.0,1.0,0.0
END
expect_stderr <<'END'
END

case_ 'no ProfilerStep: one row and a note, json'
cd "$WORK"
vp steps -f json single.json
expect_status 0
expect_stdout <<'END'
{"schema":"vprof.steps/1","tables":{"steps":{"columns":[{"name":"Step","type":"int"},{"name":"CPU Time (ns)","type":"ns"},{"name":"GPU Span (ns)","type":"ns"},{"name":"GPU Busy (ns)","type":"ns"},{"name":"Compute (ns)","type":"ns"},{"name":"Comm Exposed (ns)","type":"ns"},{"name":"Memory (ns)","type":"ns"},{"name":"GPU Idle (ns)","type":"ns"},{"name":"Data Loading (ns)","type":"ns"},{"name":"Forward (ns)","type":"ns"},{"name":"Backward (ns)","type":"ns"},{"name":"Optimizer (ns)","type":"ns"},{"name":"Kernels","type":"int"},{"name":"Short Kernels","type":"int"}],"rows":[[null,null,4000,4000,4000,0,0,0,null,null,null,null,1,1]],"notes":["the trace has no ProfilerStep#N annotations: one row for the whole trace, without the CPU columns, which need step windows"]},"summary":{"columns":[{"name":"Statistic","type":"text"},{"name":"CPU Time (ns)","type":"ns"},{"name":"GPU Span (ns)","type":"ns"},{"name":"GPU Busy (ns)","type":"ns"},{"name":"Compute (ns)","type":"ns"},{"name":"Comm Exposed (ns)","type":"ns"},{"name":"Memory (ns)","type":"ns"},{"name":"GPU Idle (ns)","type":"ns"},{"name":"Data Loading (ns)","type":"ns"},{"name":"Forward (ns)","type":"ns"},{"name":"Backward (ns)","type":"ns"},{"name":"Optimizer (ns)","type":"ns"},{"name":"Kernels","type":"ratio"},{"name":"Short Kernels","type":"ratio"}],"rows":[["mean",null,4000,4000,4000,0,0,0,null,null,null,null,1,1],["median",null,4000,4000,4000,0,0,0,null,null,null,null,1,1],["min",null,4000,4000,4000,0,0,0,null,null,null,null,1,1],["max",null,4000,4000,4000,0,0,0,null,null,null,null,1,1]],"notes":[]}}}
END
expect_stderr <<'END'
END

case_ 'no GPU events'
cd "$WORK"
vp steps nogpu.json
expect_status 0
expect_stdout <<'END'
== steps ==
Step  CPU Time  GPU Span  GPU Busy  Compute  Comm Exposed  Memory  GPU Idle  Data Loading  Forward  Backward  Optimizer  Kernels  Short Kernels
----  --------  --------  --------  -------  ------------  ------  --------  ------------  -------  --------  ---------  -------  -------------
   1    100 us      0 ns      0 ns     0 ns          0 ns    0 ns      0 ns          0 ns   100 us      0 ns       0 ns        0              0
note: 1 step launched no GPU work: its GPU columns are 0

== summary ==
Statistic  CPU Time  GPU Span  GPU Busy  Compute  Comm Exposed  Memory  GPU Idle  Data Loading  Forward  Backward  Optimizer  Kernels  Short Kernels
---------  --------  --------  --------  -------  ------------  ------  --------  ------------  -------  --------  ---------  -------  -------------
mean         100 us      0 ns      0 ns     0 ns          0 ns    0 ns      0 ns          0 ns   100 us      0 ns       0 ns        0              0
median       100 us      0 ns      0 ns     0 ns          0 ns    0 ns      0 ns          0 ns   100 us      0 ns       0 ns        0              0
min          100 us      0 ns      0 ns     0 ns          0 ns    0 ns      0 ns          0 ns   100 us      0 ns       0 ns        0              0
max          100 us      0 ns      0 ns     0 ns          0 ns    0 ns      0 ns          0 ns   100 us      0 ns       0 ns        0              0
END
expect_stderr <<'END'
END

case_ 'no GPU events, --idle'
cd "$WORK"
vp_tables "temporal idle" steps --idle -f csv nogpu.json
expect_status 0
expect_stdout <<'END'
Rank,Idle (ns),Compute (ns),Non-Compute (ns),Span (ns),Idle (%),Compute (%),Non-Compute (%)
0,0,0,0,0,,,

Rank,Stream,Idle (ns),Host Wait (ns),Kernel Wait (ns),Other (ns),Host Wait (%),Kernel Wait (%),Other (%)
END
expect_stderr <<'END'
END

case_ '--steps selecting nothing warns'
cd "$WORK"
vp_tables "steps summary" steps --steps 9: -f csv mixed.json
expect_status 0
expect_stdout <<'END'
Step,CPU Time (ns),GPU Span (ns),GPU Busy (ns),Compute (ns),Comm Exposed (ns),Memory (ns),GPU Idle (ns),Data Loading (ns),Forward (ns),Backward (ns),Optimizer (ns),Kernels,Short Kernels

Statistic,CPU Time (ns),GPU Span (ns),GPU Busy (ns),Compute (ns),Comm Exposed (ns),Memory (ns),GPU Idle (ns),Data Loading (ns),Forward (ns),Backward (ns),Optimizer (ns),Kernels,Short Kernels
mean,,,,,,,,,,,,,
median,,,,,,,,,,,,,
min,,,,,,,,,,,,,
max,,,,,,,,,,,,,
END
expect_stderr <<'END'
vprof: warning: mixed.json: --steps selects none of the steps present (ProfilerStep#1 to #3)
END

case_ 'usage: no trace'
cd "$WORK"
vp steps
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: steps: no trace given (a file, or - for standard input)
Try 'vprof help steps'.
END

case_ 'usage: bad --kernel-wait'
cd "$WORK"
vp steps --kernel-wait abc single.json
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: steps: --kernel-wait: expected microseconds (a number >= 0), found 'abc'
Try 'vprof help steps'.
END

case_ 'usage: bad --steps'
cd "$WORK"
vp steps --steps 1:2:3 single.json
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: steps: --steps: expected A:B, A:, :B or N, found '1:2:3'
Try 'vprof help steps'.
END

case_ 'missing file'
cd "$WORK"
vp steps nosuch.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: nosuch.json: cannot open: No such file or directory
END
