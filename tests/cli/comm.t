# vprof comm: whole outputs on real traces, options, formats, bad input.
# trace_filter with --steps :-1: Overlap 11.81 % and 20.05 %, HTA's
# comp_comm_overlap_pctg (hta_oracle); without --steps 14.95 % and 19.93 %
# (HTA with include_last_profiler_step=True).  tests/hta/compare_hta_comm.py
# checks every fixture.

# Small synthetic traces for the bad-input cases (tests/data/synthetic/README.md
# says what each holds), copied into the work directory.
cd "$WORK" || exit 1
cp "$DATA"/synthetic/nogpu.json "$DATA"/synthetic/single.json "$DATA"/synthetic/mixed.json . || exit 1

case_ 'HTA overlap with the last step dropped, csv'
cd "$DATA/hta"
vp_tables "comm collectives spread stragglers" comm --steps :-1 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,600058000,106252000,195327000,23068000,172259000,321547000,321378000,11.81,28.36
1,600674000,135548000,168027000,33691000,134336000,330790000,328671000,20.05,22.10

Collective,Group,Size,Stream,Count,Total Time (ns),Exposed (ns),Bytes (B),Algbw (GB/s),Busbw (GB/s)
SendRecv,,,84,8,278114000,221355000,,,
SendRecv,,,203,2,85240000,85240000,,,

Metric,Min (ns),Median (ns),Max (ns),Min Rank,Max Rank
Span,600058000,600366000.0,600674000,0,1
Computing,106252000,120900000.0,135548000,0,1
Communication,168027000,181677000.0,195327000,1,0
Overlapped,23068000,28379500.0,33691000,0,1
Comm Exposed,134336000,153297500.0,172259000,1,0
Free,321547000,326168500.0,330790000,0,1
Idle,321378000,325024500.0,328671000,0,1

Step,Collectives,Straggler,Its Wait (ns),Max Wait (ns),Waiting Rank
551,5,1,27503000,54803000,0
END
expect_stderr <<'END'
END

case_ 'all steps kept, table'
cd "$DATA/hta"
vp comm trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
== comm ==
Rank    Span  Computing  Communication  Overlapped  Comm Exposed    Free    Idle  Overlap  Exposed/Step
----  ------  ---------  -------------  ----------  ------------  ------  ------  -------  ------------
   0  1.22 s     210 ms         396 ms     59.2 ms        337 ms  676 ms  675 ms    14.9%         27.4%
   1  1.23 s     272 ms         379 ms     75.5 ms        304 ms  656 ms  651 ms    19.9%         24.5%
note: Overlap = Overlapped / Communication (HTA's comp_comm_overlap_pctg); Comm Exposed = Communication(Not Overlapped); Exposed/Step: the Comm Exposed inside the steps' windows, over their wall time

== collectives ==
Collective  Group  Size  Stream  Count  Total Time  Exposed  Bytes  Algbw (GB/s)  Busbw (GB/s)
----------  -----  ----  ------  -----  ----------  -------  -----  ------------  ------------
SendRecv    -         -      84     16      564 ms   429 ms      -             -             -
SendRecv    -         -     203      4      211 ms   211 ms      -             -             -
note: 20 kernels carry no message size (In/Out msg nelems and dtype, on the kernel or its record_param_comms): Bytes and bandwidths count the others
note: Count and times are summed over ranks; Exposed: the part of each kernel not hidden by compute kernels; Busbw = Algbw x nccl-tests factor (docs/comm.md)

== spread ==
Metric             Min   Median      Max  Min Rank  Max Rank
-------------  -------  -------  -------  --------  --------
Span            1.22 s   1.23 s   1.23 s         0         1
Computing       210 ms   241 ms   272 ms         0         1
Communication   379 ms   388 ms   396 ms         1         0
Overlapped     59.2 ms  67.4 ms  75.5 ms         0         1
Comm Exposed    304 ms   320 ms   337 ms         1         0
Free            656 ms   666 ms   676 ms         1         0
Idle            651 ms   663 ms   675 ms         1         0
note: slowest rank: 1 (it waited least in the collectives of the 2 steps of table stragglers: the others wait for it, which shows as their Comm Exposed; rank 0 waited most)

== stragglers ==
Step  Collectives  Straggler  Its Wait  Max Wait  Waiting Rank
----  -----------  ---------  --------  --------  ------------
 551            5          1   27.5 ms   54.8 ms             0
 552            5          0   68.5 ms   78.7 ms             1
END
expect_stderr <<'END'
END

case_ 'one rank, markdown'
cd "$DATA/hta"
vp comm -f md trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
### comm

| Rank | Span | Computing | Communication | Overlapped | Comm Exposed | Free | Idle | Overlap | Exposed/Step |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| 0 | 1.22 s | 210 ms | 396 ms | 59.2 ms | 337 ms | 676 ms | 675 ms | 14.9% | 27.4% |

- note: Overlap = Overlapped / Communication (HTA's comp\_comm\_overlap\_pctg); Comm Exposed = Communication(Not Overlapped); Exposed/Step: the Comm Exposed inside the steps' windows, over their wall time

### collectives

| Collective | Group | Size | Stream | Count | Total Time | Exposed | Bytes | Algbw (GB/s) | Busbw (GB/s) |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| SendRecv | - | - | 84 | 8 | 290 ms | 231 ms | - | - | - |
| SendRecv | - | - | 203 | 2 | 106 ms | 106 ms | - | - | - |

- note: 10 kernels carry no message size (In/Out msg nelems and dtype, on the kernel or its record\_param\_comms): Bytes and bandwidths count the others
- note: Count and times are summed over ranks; Exposed: the part of each kernel not hidden by compute kernels; Busbw = Algbw x nccl-tests factor (docs/comm.md)
END
expect_stderr <<'END'
END

case_ 'collectives from kernel args and record_param_comms, overlapping kernels, a kernel before the first step'
cd "$WORK"
vp comm mixed.json
expect_status 0
expect_stdout <<'END'
== comm ==
Rank    Span  Computing  Communication  Overlapped  Comm Exposed    Free    Idle  Overlap  Exposed/Step
----  ------  ---------  -------------  ----------  ------------  ------  ------  -------  ------------
   0  210 us    55.0 us        50.0 us     10.0 us       40.0 us  115 us  115 us    20.0%         20.0%
note: Overlap = Overlapped / Communication (HTA's comp_comm_overlap_pctg); Comm Exposed = Communication(Not Overlapped); Exposed/Step: the Comm Exposed inside the steps' windows, over their wall time

== collectives ==
Collective  Group  Size  Stream  Count  Total Time  Exposed     Bytes  Algbw (GB/s)  Busbw (GB/s)
----------  -----  ----  ------  -----  ----------  -------  --------  ------------  ------------
AllToAll    1         2      20      1     40.0 us  30.0 us  3.91 KiB           0.1          0.05
AllReduce   0         4      20      1     10.0 us  10.0 us  4.88 KiB           0.5          0.75
note: Count and times are summed over ranks; Exposed: the part of each kernel not hidden by compute kernels; Busbw = Algbw x nccl-tests factor (docs/comm.md)
END
expect_stderr <<'END'
END

case_ '--steps 1 keeps step 1'"'"'s work only, csv'
cd "$WORK"
vp_tables "comm collectives" comm --steps 1 -f csv mixed.json
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,85000,40000,50000,10000,40000,5000,5000,20.00,30.00

Collective,Group,Size,Stream,Count,Total Time (ns),Exposed (ns),Bytes (B),Algbw (GB/s),Busbw (GB/s)
AllToAll,1,2,20,1,40000,30000,4000,0.10,0.05
AllReduce,0,4,20,1,10000,10000,5000,0.50,0.75
END
expect_stderr <<'END'
END

case_ 'no GPU events: zeros and a note, no NaN'
cd "$WORK"
vp comm nogpu.json
expect_status 0
expect_stdout <<'END'
== comm ==
Rank  Span  Computing  Communication  Overlapped  Comm Exposed  Free  Idle  Overlap  Exposed/Step
----  ----  ---------  -------------  ----------  ------------  ----  ----  -------  ------------
   0  0 ns       0 ns           0 ns        0 ns          0 ns  0 ns  0 ns        -          0.0%
note: rank 0: no GPU work in the trace: every time is 0 and the percentages are empty
note: Overlap = Overlapped / Communication (HTA's comp_comm_overlap_pctg); Comm Exposed = Communication(Not Overlapped); Exposed/Step: the Comm Exposed inside the steps' windows, over their wall time

== collectives ==
Collective  Group  Size  Stream  Count  Total Time  Exposed  Bytes  Algbw (GB/s)  Busbw (GB/s)
----------  -----  ----  ------  -----  ----------  -------  -----  ------------  ------------
note: no communication kernels in the input (the rules: docs/classification.md)
note: Count and times are summed over ranks; Exposed: the part of each kernel not hidden by compute kernels; Busbw = Algbw x nccl-tests factor (docs/comm.md)
END
expect_stderr <<'END'
END

case_ 'no communication, a single kernel, json'
cd "$WORK"
vp comm -f json single.json
expect_status 0
expect_stdout <<'END'
{"schema":"vprof.comm/1","tables":{"comm":{"columns":[{"name":"Rank","type":"int"},{"name":"Span (ns)","type":"ns"},{"name":"Computing (ns)","type":"ns"},{"name":"Communication (ns)","type":"ns"},{"name":"Overlapped (ns)","type":"ns"},{"name":"Comm Exposed (ns)","type":"ns"},{"name":"Free (ns)","type":"ns"},{"name":"Idle (ns)","type":"ns"},{"name":"Overlap (%)","type":"percent"},{"name":"Exposed/Step (%)","type":"percent"}],"rows":[[0,4000,4000,0,0,0,0,0,null,0]],"notes":["rank 0: no communication kernels, so Overlap is empty (HTA prints NaN)","Overlap = Overlapped / Communication (HTA's comp_comm_overlap_pctg); Comm Exposed = Communication(Not Overlapped); Exposed/Step: Comm Exposed over the GPU span"]},"collectives":{"columns":[{"name":"Collective","type":"text"},{"name":"Group","type":"text"},{"name":"Size","type":"int"},{"name":"Stream","type":"int"},{"name":"Count","type":"int"},{"name":"Total Time (ns)","type":"ns"},{"name":"Exposed (ns)","type":"ns"},{"name":"Bytes (B)","type":"bytes"},{"name":"Algbw (GB/s)","type":"ratio"},{"name":"Busbw (GB/s)","type":"ratio"}],"rows":[],"notes":["no communication kernels in the input (the rules: docs/classification.md)","Count and times are summed over ranks; Exposed: the part of each kernel not hidden by compute kernels; Busbw = Algbw x nccl-tests factor (docs/comm.md)"]}}}
END
expect_stderr <<'END'
END

case_ '--steps on a trace without steps warns'
cd "$WORK"
vp_tables "comm collectives" comm --steps :-1 -f tsv single.json
expect_status 0
expect_stdout <<'END'
Rank	Span (ns)	Computing (ns)	Communication (ns)	Overlapped (ns)	Comm Exposed (ns)	Free (ns)	Idle (ns)	Overlap (%)	Exposed/Step (%)
0	0	0	0	0	0	0	0		

Collective	Group	Size	Stream	Count	Total Time (ns)	Exposed (ns)	Bytes (B)	Algbw (GB/s)	Busbw (GB/s)
END
expect_stderr <<'END'
vprof: warning: single.json: --steps: the trace has no ProfilerStep#N annotations, so no GPU work is kept
END

case_ '--top 1'
cd "$WORK"
vp_tables "comm collectives" comm --top 1 -f csv mixed.json
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,210000,55000,50000,10000,40000,115000,115000,20.00,20.00

Collective,Group,Size,Stream,Count,Total Time (ns),Exposed (ns),Bytes (B),Algbw (GB/s),Busbw (GB/s)
AllToAll,1,2,20,1,40000,30000,4000,0.10,0.05
END
expect_stderr <<'END'
END

case_ 'overlaps: HTA'"'"'s kernel-type table per rank, asked by name'
# Summed over the ranks these are HTA's (peers.md 1.5, hta_oracle's
# kernel_type_breakdown.csv): 185023, 305584, 56747, 2288, 18, 1011, 12 us.
cd "$DATA/hta"
vp comm --table overlaps --steps :-1 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Kernel Type,Time (ns),Share (%),Instant Only
0,COMPUTATION,83182000,29.85,0
0,COMMUNICATION,171780000,61.64,0
0,COMPUTATION overlapping COMMUNICATION,23056000,8.27,0
0,MEMORY,169000,0.06,0
0,COMPUTATION overlapping MEMORY,2000,0.00,0
0,COMMUNICATION overlapping MEMORY,479000,0.17,0
0,COMPUTATION overlapping COMMUNICATION overlapping MEMORY,12000,0.00,0
1,COMPUTATION,101841000,37.44,0
1,COMMUNICATION,133804000,49.19,0
1,COMPUTATION overlapping COMMUNICATION,33691000,12.39,0
1,MEMORY,2119000,0.78,0
1,COMPUTATION overlapping MEMORY,16000,0.01,0
1,COMMUNICATION overlapping MEMORY,532000,0.20,0
END
expect_stderr <<'END'
END

case_ 'VPROF_HTA_TIMES=1: HTA'"'"'s rounded times (amd_trace: HTA'"'"'s 96 and 35 us, exact 110.881 and 38.161)'
cd "$DATA/hta"
VPROF_HTA_TIMES=1 vp comm --table overlaps --steps :-1 -f csv amd_trace.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Kernel Type,Time (ns),Share (%),Instant Only
0,COMPUTATION,96000,73.28,0
0,MEMORY,35000,26.72,0
END
expect_stderr <<'END'
END
vp comm --table overlaps --steps :-1 -f csv amd_trace.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Kernel Type,Time (ns),Share (%),Instant Only
0,COMPUTATION,110881,74.40,0
0,MEMORY,38161,25.60,0
END
expect_stderr <<'END'
END

case_ 'same rank twice warns'
cd "$DATA/hta"
cp trace_filter_rank-0.json.gz "$WORK/copy-rank0.json.gz"
vp_tables "comm collectives spread stragglers" comm -f csv --steps 551 trace_filter_rank-0.json.gz "$WORK/copy-rank0.json.gz"
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,600058000,106252000,195327000,23068000,172259000,321547000,321378000,11.81,28.36
0,600058000,106252000,195327000,23068000,172259000,321547000,321378000,11.81,28.36

Collective,Group,Size,Stream,Count,Total Time (ns),Exposed (ns),Bytes (B),Algbw (GB/s),Busbw (GB/s)
SendRecv,,,84,8,305662000,259526000,,,
SendRecv,,,203,2,84992000,84992000,,,

Metric,Min (ns),Median (ns),Max (ns),Min Rank,Max Rank
Span,600058000,600058000.0,600058000,0,0
Computing,106252000,106252000.0,106252000,0,0
Communication,195327000,195327000.0,195327000,0,0
Overlapped,23068000,23068000.0,23068000,0,0
Comm Exposed,172259000,172259000.0,172259000,0,0
Free,321547000,321547000.0,321547000,0,0
Idle,321378000,321378000.0,321378000,0,0

Step,Collectives,Straggler,Its Wait (ns),Max Wait (ns),Waiting Rank
551,5,0,0,0,0
END
expect_stderr <<END
vprof: warning: trace_filter_rank-0.json.gz and $WORK/copy-rank0.json.gz both are rank 0
END

case_ 'usage: no trace'
cd "$WORK"
vp comm
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: comm: no trace given (a file, or - for standard input)
Try 'vprof help comm'.
END

case_ 'usage: bad --steps'
cd "$WORK"
vp comm --steps a:b single.json
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: comm: --steps: expected A:B, A:, :B or N, found 'a:b'
Try 'vprof help comm'.
END

# --top is common to every command (DESIGN.md): 0 = all rows, as memory
# always had it; a negative count is the usage error.
case_ 'usage: bad --top'
cd "$WORK"
vp comm --top -1 single.json
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: comm: --top: expected a count (0 = all), found '-1'
Try 'vprof help comm'.
END

case_ 'usage: unknown option'
cd "$WORK"
vp comm --frobnicate single.json
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: comm: unrecognized option '--frobnicate'
Try 'vprof help comm'.
END

case_ 'missing file'
cd "$WORK"
vp comm nosuch.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: nosuch.json: cannot open: No such file or directory
END
