# vprof report: the page's sections, charts and tables on the bundled
# traces, its self-containment and validity (html_check.py: well formed,
# nothing fetched, under 2 MB), its tables equal to the commands' own
# (summary, steps --per-rank, comm, diff), bad input and usage errors.
# tests/browser/report-browser opens the page in headless chromium.
CHECK=$(dirname "$T")/html_check.py
R0=$DATA/hta/trace_filter_rank-0.json.gz
R1=$DATA/hta/trace_filter_rank-1.json.gz
SNAP=$DATA/memsnap/t24_cs336_small_from_start.pickle

# same_tables A.json B.json:NAME[=NAME_IN_B]...: each table NAME of A
# equals table NAME_IN_B (default NAME) of B, columns and rows (diff adds
# a note of its own to its metrics table, in the command, not the view).
# One python3 for all: its start is most of this test's time.
same_tables() {
    if python3 - "$@" <<'P'; then pass; else fail "tables differ"; fi
import json, sys
a = json.load(open(sys.argv[1]))["tables"]
bad = 0
for spec in sys.argv[2:]:
    path, names = spec.split(":")
    mine, theirs = (names.split("=") + [names])[:2]
    b = json.load(open(path))["tables"][theirs]
    x, y = [{k: t[k] for k in ("columns", "rows")} for t in (a[mine], b)]
    if x != y:
        print("  %s: %s\n  vs %s %s: %s" % (mine, json.dumps(x)[:300], path, theirs, json.dumps(y)[:300]),
              file=sys.stderr)
        bad = 1
sys.exit(bad)
P
}

# page FILE ARGS...: vp report -q -o FILE ARGS, which must succeed and
# print nothing; html_check.py's account of FILE is left in $OUT_STDOUT.
page() {
    vp report -q -o "$@"
    expect_status 0
    expect_stdout </dev/null
    python3 "$CHECK" "$1" >"$OUT_STDOUT"
}

# keep FILE ARGS...: vp ARGS, which must succeed, its standard output
# kept in FILE.
keep() {
    vp "${@:2}"
    expect_status 0
    cp "$OUT_STDOUT" "$1"
}

case_ 'two ranks: every section, its charts and tables; valid, self-contained'
page page.html "$R0" "$R1"
[ -f page.html ] && pass || fail "no page.html"
ls -A | grep -c 'page.html.tmp' | grep -qx 0 && pass || fail "a temporary file is left"
expect_stdout <<'END'
sections: overview kernels roofline distributed memory
overview: charts 3, figures 3, findings 1, tables 3
kernels: charts 2, figures 2, tables 2
roofline: charts 1, figures 1, tables 1
distributed: charts 2, figures 2, tables 4
memory: 
rows with a rank: 8
END

case_ 'the page: findings with evidence, step bars with hover titles, sortable tables'
grep -o '<strong>[^<]*</strong>' page.html >"$OUT_STDOUT"
expect_stdout <<'END'
<strong>communication is exposed: compute does not hide it</strong>
<strong>the GPU is idle for much of the run</strong>
<strong>FP32 GEMMs where BF16 or FP16 is expected</strong>
<strong>the ranks do uneven amounts of work</strong>
<strong>the device's peaks are unknown: how close the operators run to their roof is not known</strong>
END
cp page.html "$OUT_STDOUT"
expect_stdout_has 'Evidence: 641 ms of communication not overlapped by compute (all ranks)'
# vprof steps' 106 ms, 172 ms, 169 us, 321 ms for rank 0's step 551
grep -o '<title>Rank 0 · Step 551: [^<]*</title>' page.html >"$OUT_STDOUT"
expect_stdout <<'END'
<title>Rank 0 · Step 551: Compute 106 ms</title>
<title>Rank 0 · Step 551: Comm Exposed 172 ms</title>
<title>Rank 0 · Step 551: Memory 169 us</title>
<title>Rank 0 · Step 551: GPU Idle 321 ms</title>
<title>Rank 0 · Step 551: Forward 157 ms</title>
<title>Rank 0 · Step 551: Backward 223 ms</title>
<title>Rank 0 · Step 551: Optimizer 204 ms</title>
END
grep -c '<table class="sortable"' page.html >"$OUT_STDOUT"
expect_stdout <<'END'
10
END
# time by class per rank: vprof kernels --by rank,class --include
# memcpy,memset,sync's totals (rank 0: 210.320, 396.199, 1.325 ms; rank 1:
# 271.973, 379.053, 16.504 ms), a stacked bar each
sed -n '/id="kernels"/,/id="distributed"/p' page.html | grep -o '<title>Rank [01]: [^<]*</title>' >"$OUT_STDOUT"
expect_stdout <<'END'
<title>Rank 0: Compute 210 ms</title>
<title>Rank 0: Communication 396 ms</title>
<title>Rank 0: Memory 1.32 ms</title>
<title>Rank 1: Compute 272 ms</title>
<title>Rank 1: Communication 379 ms</title>
<title>Rank 1: Memory 16.5 ms</title>
END

case_ '-f json: the tables of summary, steps --per-rank and comm, equal to theirs'
keep report.json report -q -f json "$R0" "$R1"
expect_stdout_has '"schema":"vprof.report/1"'
keep summary.json summary -q --top 20 -f json "$R0" "$R1"
keep steps.json steps -q --per-rank -f json "$R0" "$R1"
keep comm.json comm -q -f json "$R0" "$R1"
same_tables report.json summary.json:run summary.json:gpu_time summary.json:top_kernels \
    summary.json:findings summary.json:metrics steps.json:steps comm.json:comm comm.json:spread \
    comm.json:stragglers
vp report -q -f csv --table kernel_classes "$R0" "$R1"
expect_stdout <<'END'
Rank,Compute (ns),Communication (ns),Memory (ns),Sync (ns),Total (ns)
0,210320000,396199000,1325000,0,607844000
1,271973000,379053000,16504000,0,667530000
END
vp kernels -q -f csv --by rank,class --include memcpy,memset,sync "$R0" "$R1"
expect_stdout_has '396199000,10,'
expect_stdout_has '16504000,'
# with --steps, the kernels of step 551 (kernels --steps 551:552's totals)
vp report -q -f csv --table kernel_classes --steps 551:552 "$R0" "$R1"
expect_stdout <<'END'
Rank,Compute (ns),Communication (ns),Memory (ns),Sync (ns),Total (ns)
0,106252000,195327000,662000,0,302241000
1,135548000,168027000,2667000,0,306242000
END

# synthetic/roofline.json (an H100; tests/cli/roofline.t works out every
# figure): the Roofline section, its chart log-log over 0.1-1000 FLOP/Byte
# (x: 70 + (log10 I + 1) / 4 x 800) and 0.1-1000 TFLOP/s, a point per row
# with FLOPs and bytes (addmm: 682.6 FLOP/Byte -> x 836.8; 343.6 TFLOP/s ->
# y 107.5; its area by time: r = 3 + 15 sqrt(100/200 us)), the roofs of
# the BF16 tensor peak and the non-tensor one at 3.35 TB/s with their
# ridge points; the table is vprof roofline's, from the same function.
case_ 'the roofline: the chart (log-log, roofs, ridge, points by time) and vprof roofline'"'"'s table'
RL="$DATA/synthetic/roofline.json"
page rl.html "$RL"
expect_stdout <<'END'
sections: overview kernels roofline memory
overview: charts 3, figures 3, findings 1, tables 3
kernels: charts 2, figures 2, tables 2
roofline: charts 1, figures 1, tables 1
memory: 
rows with a rank: 1
END
sed -n '/<section id="roofline">/,/<\/section>/p' rl.html |
    grep -o '<circle class="op"[^>]*><title>[^<]*</title>\|<text[^>]*fill="#555"[^>]*>[^<]*</text>' >"$OUT_STDOUT"
expect_stdout <<'END'
<text x="866.0" y="74.5" fill="#555" text-anchor="end">989 TFLOP/s, 3.35 TB/s; ridge 295.2 FLOP/Byte</text>
<text x="866.0" y="194.3" fill="#555" text-anchor="end">67 TFLOP/s, 3.35 TB/s; ridge 20 FLOP/Byte</text>
<circle class="op" cx="144.3" cy="385.3" r="10.5" fill="#ff7f0e" fill-opacity="0.6" stroke="#ff7f0e"><title>aten::add [[8, 1024, 4096], [1, 1024, 4096], []]: 0.6711 TFLOP/s, 0.2353 FLOP/Byte, 85.1% of its roofline, 50.0 us in 1 call</title>
<circle class="op" cx="289.4" cy="321.7" r="11.2" fill="#ff7f0e" fill-opacity="0.6" stroke="#ff7f0e"><title>aten::layer_norm [[8, 1024, 4096], [], [4096], [4096], [], []]: 2.797 TFLOP/s, 1.25 FLOP/Byte, 66.8% of its roofline, 60.0 us in 1 call</title>
<circle class="op" cx="836.8" cy="107.5" r="13.6" fill="#1f77b4" fill-opacity="0.6" stroke="#1f77b4"><title>aten::addmm [[4096], [1024, 4096], [4096, 4096], [], []]: 343.6 TFLOP/s, 682.6 FLOP/Byte, 34.7% of its roofline, 100 us in 1 call</title>
<circle class="op" cx="811.9" cy="138.4" r="18.0" fill="#d62728" fill-opacity="0.6" stroke="#d62728"><title>aten::_scaled_dot_product_flash_attention [[2, 16, 2048, 128], [2, 16, 2048, 128], [2, 16, 2048, 128], [], [], [], []]: 171.8 TFLOP/s, 512 FLOP/Byte, 17.4% of its roofline, 200 us in 1 call</title>
END
keep rl-report.csv report -q -f csv --table roofline "$RL"
keep rl-roofline.csv roofline -q -f csv "$RL"
expect_same_files 'the report'"'"'s roofline table is vprof roofline'"'"'s' rl-report.csv rl-roofline.csv

case_ '--baseline: the Baseline section, diff metrics and kernels as a diverging chart'
page cmp.html --baseline "$R1" "$R0"
expect_stdout <<'END'
sections: overview kernels roofline memory baseline
overview: charts 3, figures 3, findings 1, tables 3
kernels: charts 2, figures 2, tables 2
roofline: charts 1, figures 1, tables 1
memory: 
baseline: charts 1, figures 1, tables 3
rows with a rank: 1
END
# vprof diff's kernels: -33.8 ms the largest gain (green), +17.1 ms the
# NCCL loss (red); 10 of the 20 (--top) each way
sed -n '/id="baseline"/,$p' cmp.html | grep -o 'fill="#[0-9a-f]*"><title>' | sort | uniq -c >"$OUT_STDOUT"
expect_stdout <<'END'
     10 fill="#2ca02c"><title>
     10 fill="#d62728"><title>
END
sed -n '/id="baseline"/,$p' cmp.html >"$OUT_STDOUT"
expect_stdout_has 'fill="#d62728"><title>ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*) 17.1 ms</title>'
expect_stdout_has 'fill="#2ca02c"><title>void split_embedding_codegen_forward_unweighted_kernel&lt;c10::Half'
keep rb.json report -q -f json --baseline "$R1" "$R0"
keep diff.json diff -q -f json "$R1" "$R0"
same_tables rb.json diff.json:baseline_metrics=metrics diff.json:baseline_runs=runs

case_ 'a memory snapshot: the memory page, the chart of memory --plot inlined'
page mem.html "$SNAP"
expect_stdout <<'END'
sections: memory
memory: charts 1, figures 1, tables 3
rows with a rank: 0
END
cp mem.html "$OUT_STDOUT"
expect_stdout_has '<h3>The largest live allocations at the peak</h3>'
keep memory.json memory -q -f json --top 20 "$SNAP"
keep mr.json report -q -f json "$SNAP"
same_tables mr.json memory.json:peak memory.json:top_at_peak memory.json:state

case_ "[memory] events: the first trace's timeline (memory --plot) and its table; a file without kernels has no class row"
cat >mem.json <<'J'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":7,"tid":8,"ts":100.5,"dur":2},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":7,"tid":8,"ts":99,"dur":10},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":8,"ts":100,"args":{"Device Type":1,"Device Id":0,"Addr":1,"Bytes":1024,"Total Allocated":5120,"Total Reserved":20971520,"Ev Idx":1}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":8,"ts":101.5,"args":{"Device Type":1,"Device Id":0,"Addr":2,"Bytes":4096,"Total Allocated":9216,"Total Reserved":20971520,"Ev Idx":2}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":8,"ts":120,"args":{"Device Type":1,"Device Id":0,"Addr":2,"Bytes":-4096,"Total Allocated":5120,"Total Reserved":41943040,"Ev Idx":3}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[OutOfMemory]","pid":7,"tid":8,"ts":140,"args":{"Device Type":1,"Device Id":0,"Bytes":85899345920,"Total Allocated":5120,"Total Reserved":41943040}}
]}
J
page m.html mem.json "$R0"
# rows with a rank: both files are rank 0; steps 3 (mem.json's empty row,
# R0's two steps), comm 2, kernel_classes 1 (mem.json has no kernel: no
# row of zeros, a note naming it)
expect_stdout <<'END'
sections: overview kernels roofline distributed memory
overview: charts 3, figures 3, findings 1, tables 3
kernels: charts 2, figures 2, tables 2
roofline: charts 1, figures 1, tables 1
distributed: charts 2, figures 2, tables 4
memory: charts 1, figures 1, tables 3
rows with a rank: 6
END
grep -o '<p class="note">[^<]*no GPU kernels[^<]*</p>' m.html >"$OUT_STDOUT"
expect_stdout <<'END'
<p class="note">mem.json: no GPU kernels, so no row</p>
END
# Peak Op: the innermost cpu_op of the peak's thread at its time, which
# vprof memory finds with a second reading of the trace; the report reads
# each trace once (its cost stays within 1.2x summary's), so leaves it empty
vp report -q -f csv --table memory_events mem.json "$R0"
expect_stdout <<'END'
Device,Events,Peak Allocated (B),Peak ts (ns),Peak Since Start (ns),Peak Op,Peak Reserved (B),Final Allocated (B),Final Reserved (B)
cuda:0,3,9216,101500,2500,,41943040,5120,41943040
END
vp memory -q -f csv --table memory mem.json
expect_stdout <<'END'
Device,Events,Peak Allocated (B),Peak ts (ns),Peak Since Start (ns),Peak Op,Peak Reserved (B),Final Allocated (B),Final Reserved (B)
cuda:0,3,9216,101500,2500,aten::empty,41943040,5120,41943040
END
vp report -q -f csv --table memory_events - <mem.json
expect_stdout <<'END'
Device,Events,Peak Allocated (B),Peak ts (ns),Peak Since Start (ns),Peak Op,Peak Reserved (B),Final Allocated (B),Final Reserved (B)
cuda:0,3,9216,101500,2500,,41943040,5120,41943040
END
# nothing to judge: no row of zeros but vprof kernels' note on the same input
vp report -q -f json --table kernel_classes mem.json
expect_status 0
expect_stdout_has '"rows":[],"notes":["no GPU kernels in the input"]'
vp kernels -q -f json mem.json
expect_stdout_has '"rows":[],"notes":["no GPU kernels in the input"]'
vp report -q -f md --table kernel_classes --steps 551:552 "$R0" mem.json
expect_stdout_has '- note: mem.json: no GPU kernels (with --steps), so no row'
expect_stdout_has '| 0 | 106 ms | 195 ms | 662 us | 0 ns | 302 ms |' 

case_ "[memory] events: the report's peaks are summary's (one reading of each event gives both)"
# peaks SUMMARY.json REPORT.json: summary's memory row, the report's, and
# the peaks of each GPU in the report's memory_events
peaks() {
    python3 - "$@" <<'P' >"$OUT_STDOUT"
import json, sys
s, r = (json.load(open(f))["tables"] for f in sys.argv[1:3])
print("summary", *s["memory"]["rows"][0])
print("report", *r["memory"]["rows"][0])
for row in r["memory_events"]["rows"]:
    if row[0] != "cpu":
        print(row[0], row[2], row[6])
P
}
keep ms.json summary -q -f json mem.json
keep mr.json report -q -f json mem.json
peaks ms.json mr.json
expect_stdout <<'END'
summary 9216 41943040
report 9216 41943040
cuda:0 9216 41943040
END

case_ 'an Ascend profile: the Operator page (op type, core type), the HCCL tables and the Memory page'
A=$DATA/ascend/msinsight_gpt3_rank0_ascend_pt
page asc.html "$A"
expect_stdout <<'END'
sections: overview kernels operators distributed memory
overview: charts 2, figures 2, findings 1, tables 3
kernels: charts 2, figures 2, tables 2
operators: charts 2, figures 2, tables 3
distributed: tables 3
memory: charts 1, figures 1, tables 4
rows with a rank: 63
END
grep -o '<h3>[^<]*(communication[^<]*</h3>' asc.html >"$OUT_STDOUT"
expect_stdout <<'END'
<h3>HCCL operations (communication.json)</h3>
<h3>Bandwidth per transport (communication.json)</h3>
<h3>Links (communication_matrix.json)</h3>
END
# vprof kernels --by core --include memcpy,memset,sync's totals and instances
vp report -q -f csv --table op_cores "$A"
expect_stdout <<'END'
Accelerator Core,Time (%),Total Time (ns),Instances
MIX_AIC,56.5,21114692,4
HCCL,27.4,10238538,4
DSA_SQE,14.3,5344210,2
AI_CORE,1.4,506370,4
AI_CPU,0.4,145022,2
MIX_AIV,0.1,19494,3
AI_VECTOR_CORE,0.0,2640,2
END
vp kernels -q -f csv --by core --include memcpy,memset,sync "$A"
expect_stdout_has '56.5,21114692,4,'
expect_stdout_has ',2640,2,'
vp report -q -f csv --table op_types "$A"
expect_stdout_has 'FlashAttentionScore,56.5,21114692,4'
expect_stdout_has 'hcom_broadcast_,14.8,5517725,2'
keep ar.json report -q -f json "$A"
keep am.json memory -q -f json "$A"
same_tables ar.json am.json:npu_memory am.json:operators_at_peak am.json:npu_module_mem
# the Distributed section: vprof comm DIR's tables of communication.json
# and communication_matrix.json, read by the same function (one rank, no
# trace: no per-rank comm table)
vp comm -q -f json "$A"
cp "$OUT_STDOUT" ac.json
same_tables ar.json ac.json:hccl_ops ac.json:hccl_bandwidth ac.json:hccl_links
vp report -q -f csv --table hccl_bandwidth "$A"
expect_stdout <<'END'
Rank,Step,Kind,Transport,Ops,Transit Size (B),Transit Time (ns),Bandwidth (GB/s),Packets,Large Packet Ratio
0,step2,p2p,RDMA,1,20971520,863815,24.2778,1,1.0000
0,step2,collective,RDMA,5,131072812,5410613,24.2251,6,0.3333
0,step2,collective,HCCS,11,1321321036,70173995,18.8292,77,0.0000
0,step2,collective,SDMA,11,1321321036,70173995,18.8292,,
END
cp "$OUT_STDOUT" hb.csv
vp comm -q -f csv --table hccl_bandwidth "$A"
expect_stdout_file hb.csv
vp report -q -f csv --table hccl_links "$A"
expect_stdout_has 'step2,collective,0,1,RDMA,1,131072000,5372143,24.3985'
cp "$OUT_STDOUT" hl.csv
vp comm -q -f csv --table hccl_links "$A"
expect_stdout_file hl.csv
vp report -q -f csv --table comm "$A"
expect_status 2
# step_trace_time read from its CSV (no trace_view.json): vprof steps'
# row, a stacked bar of Computing, Communication(Not Overlapped), Free
vp report -q -f csv --table step_trace_time "$A"
expect_stdout <<'END'
Step,Type,Index,Computing (ns),Communication(Not Overlapped) (ns),Overlapped (ns),Communication (ns),Free (ns),Stage (ns),Bubble (ns),Communication(Not Overlapped and Exclude Receive) (ns),Preparing (ns)
2,rank,0,75174575,146614020,6987303,153601324,69909504,291698000,0,146614020,
END
cp "$OUT_STDOUT" stt.csv
vp steps -q -f csv --table step_trace_time "$A"
expect_stdout_file stt.csv
grep -o '<title>Step 2 · rank · 0: [^<]*</title>' asc.html >"$OUT_STDOUT"
expect_stdout <<'END'
<title>Step 2 · rank · 0: Computing 75.2 ms</title>
<title>Step 2 · rank · 0: Communication(Not Overlapped) 147 ms</title>
<title>Step 2 · rank · 0: Free 69.9 ms</title>
END
# kernel time by class from kernel_details.csv (Accelerator Core HCCL:
# communication; MIX_AIC, AI_CORE, DSA_SQE, AI_CPU ...: compute), read
# once for the classes and the Operator page: kernels --by rank,class's
vp report -q -f csv --table kernel_classes "$A"
expect_stdout <<'END'
Rank,Compute (ns),Communication (ns),Memory (ns),Sync (ns),Total (ns)
0,27132428,10238538,0,0,37370966
END
vp kernels -q -f csv --by rank,class --include memcpy,memset,sync "$A"
expect_stdout_has '27132428,17,'
expect_stdout_has '10238538,4,'

case_ 'an Ascend run of traces: step_trace_time, steps and kernel classes ride on the one reading'
R2=$DATA/ascend/run2
# without memory files: no Memory page, no error
page r2.html "$R2"
expect_stdout <<'END'
sections: overview kernels operators distributed memory
overview: charts 4, figures 4, findings 1, tables 4
kernels: charts 2, figures 2, tables 2
operators: charts 2, figures 2, tables 3
distributed: charts 2, figures 2, tables 4
memory: 
rows with a rank: 8
END
# step_trace_time from the traces' Overlap Analysis slices, with the stage
# rows: vprof steps DIR's (and the generator's expected_step_trace_time.csv)
vp report -q -f csv --table step_trace_time "$R2"
expect_stdout_has '1,rank,1,4276538,2768969,1414294,4183263,1091026,7766533,370000,2398969,346467'
expect_stdout_has '2,stage,"(0, 1)",4741885,2569997,1691526,4002595,1337502,8238440,370000,2569997,338905'
cp "$OUT_STDOUT" stt2.csv
vp steps -q -f csv --table step_trace_time "$R2"
expect_stdout_file stt2.csv
# kernels' classes from the traces' Ascend Hardware tasks
vp report -q -f csv --table kernel_classes "$R2"
expect_stdout <<'END'
Rank,Compute (ns),Communication (ns),Memory (ns),Sync (ns),Total (ns)
0,8668267,8254589,0,0,16922856
1,9018423,8147616,0,0,17166039
END
vp kernels -q -f csv --by rank,class --include memcpy,memset,sync "$R2"
expect_stdout_has '9018423,28,'
expect_stdout_has '8254589,6,'
vp report -q -f json "$R2"
cp "$OUT_STDOUT" r2.json
vp steps -q --per-rank -f json "$R2"
cp "$OUT_STDOUT" s2.json
# the operators from the same reading: kernels --by type,core's table
vp kernels -q -f json --by type,core --include memcpy,memset,sync --top 20 "$R2"
cp "$OUT_STDOUT" k2.json
same_tables r2.json s2.json:steps s2.json:step_trace_time k2.json:op_statistics=kernels
# the Distributed section: vprof comm DIR's tables from the traces' HCCL
# tasks, on the same reading (vp_comm_observe rides it)
vp comm -q -f json "$R2"
cp "$OUT_STDOUT" c2.json
same_tables r2.json c2.json:comm c2.json:collectives c2.json:spread c2.json:stragglers
# Computing + Comm Exposed + Free = Span: 8668267 + 5295098 + 4278561 = 18241926
vp report -q -f csv --table comm "$R2"
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,18241926,8668267,8254589,2959491,5295098,4278561,4278561,35.85,29.42
1,18136533,9018423,8147616,3105820,5041796,4076314,4076314,38.12,28.01
END
# algbw = bytes / time (33554432 B / 11222205 ns = 2.99 GB/s); busbw on 2
# ranks: all-reduce x 2(n-1)/n = 1, all-gather x (n-1)/n = 1/2
vp report -q -f csv --table collectives "$R2"
expect_stdout <<'END'
Collective,Group,Size,Stream,Count,Total Time (ns),Exposed (ns),Bytes (B),Algbw (GB/s),Busbw (GB/s)
AllReduce,,2,0,4,11222205,5156894,33554432,2.99,2.99
AllGather,,2,0,4,3840000,3840000,16777216,4.37,2.18
Recv,,2,0,2,740000,740000,1048576,1.42,1.42
Send,,2,0,2,600000,600000,1048576,1.75,1.75
END
cp "$OUT_STDOUT" coll2.csv
vp comm -q -f csv --table collectives "$R2"
expect_stdout_file coll2.csv
vp report -q -f csv --table stragglers "$R2"
expect_stdout <<'END'
Step,Collectives,Straggler,Its Wait (ns),Max Wait (ns),Waiting Rank
1,3,1,190000,258731,0
2,3,1,190000,228242,0
END

case_ 'standard input: read once, as summary reads it'
keep stdin.json report -q -f json --table run - <"$R0"
keep stdin-summary.json summary -q -f json --table run - <"$R0"
same_tables stdin.json stdin-summary.json:run

case_ 'bad input: exit 3 naming the file, no page left'
printf '{"traceEvents": [{"ph": "X", "name": ' >bad.json
vp report -o bad.html bad.json
expect_status 3
expect_stderr_has 'bad.json'
ls -A | grep -c '^bad.html' >"$OUT_STDOUT"
expect_stdout <<'END'
0
END

case_ 'a damaged communication.json: exit 3 naming it and the offset, no page left'
mkdir -p hb/ASCEND_PROFILER_OUTPUT
cp "$DATA/ascend/msinsight_gpt3_rank0_ascend_pt/profiler_info_0.json" hb/
cp "$DATA/ascend/msinsight_gpt3_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv" hb/ASCEND_PROFILER_OUTPUT/
head -c 500 "$DATA/ascend/msinsight_gpt3_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json" \
    >hb/ASCEND_PROFILER_OUTPUT/communication.json
vp report -o hb.html hb
expect_status 3
expect_stderr_has 'hb/ASCEND_PROFILER_OUTPUT/communication.json: invalid JSON near byte 494'
ls -A | grep -c '^hb.html' >"$OUT_STDOUT"
expect_stdout <<'END'
0
END

case_ 'an output that cannot be written: exit 3, nothing left'
cat >one.json <<'J'
[{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 8, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 4, "args": {"stream": 7, "correlation": 1}}]
J
vp report -q -o nodir/page.html one.json
expect_status 3
expect_stderr_has 'cannot write nodir/page.html'

case_ 'usage errors'
vp report
expect_status 2
expect_stderr_has 'no trace given'
vp report -f table "$R0"
expect_status 2
expect_stderr_has '-f table'
vp report --table steps "$R0"
expect_status 2
expect_stderr_has '--table'

case_ "--help names every table --table list knows (the code's own list), in its order"
vp report --table list
expect_status 0
awk '{print $1}' "$OUT_STDOUT" >known.txt
vp report --help
sed -n '/--table NAME/,/each holds)/p' "$OUT_STDOUT" |
    sed 's/.*json\/md://; s/or list (what//; s/each holds)//' | tr ',' '\n' | tr -d ' ' |
    grep -v '^$' >help.txt
if [ -s known.txt ] && diff known.txt help.txt >&2; then pass; else fail "--help's --table names differ from --table list's"; fi

case_ "msprof-analyze's cluster_analysis_output alone: refused as summary refuses it, saying what it holds and what reads it"
C=$DATA/ascend/msinsight_cluster_analysis_output
vp report -o cl.html "$C"
expect_status 3
expect_stderr_has "msinsight_cluster_analysis_output: no rank directory, only msprof-analyze's cluster files (cluster_step_trace_time.csv, cluster_communication.json, cluster_communication_matrix.json): a run's metrics need each rank's trace_view.json, DB export or kernel_details.csv (give the directory that holds the *_ascend_pt ranks); vprof steps and vprof comm read the cluster files"
cp "$OUT_STDERR" cl.err
ls -A | grep -c '^cl.html' >"$OUT_STDOUT"
expect_stdout <<'END'
0
END
vp summary "$C"
expect_status 3
if cmp -s cl.err "$OUT_STDERR"; then pass; else fail "summary's message differs from report's"; fi
vp steps -q -f csv "$C"
expect_status 0
expect_stdout_has '2,stage,"(0, 1, 2, 3, 4, 5, 6, 7)",'
