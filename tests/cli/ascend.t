# Ascend NPU profiles (docs/ascend.md): every command on the real
# torch_npu / msprof outputs copied into tests/data/ascend (SOURCE.md there
# lists them and their figures), on the generated two-rank run
# (scripts/gen-ascend-run), and on empty or half-written directories.
A=$DATA/ascend
R0=$A/msinsight_gpt3_rank0_ascend_pt
OUT0=$R0/ASCEND_PROFILER_OUTPUT
RUN=$A/run2

# ---- kernels ----

case_ "kernels --by core on the rank-0 directory: the per-core totals of SOURCE.md"
vp kernels --by core -f csv "$R0"
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Accelerator Core
56.5,21114692,4,5278673.0,6996441.0,1841,7119969,3518439.7,MIX_AIC
27.4,10238538,4,2559634.5,2360406.5,542459,4975266,1892371.3,HCCL
14.3,5344210,2,2672105.0,2672105.0,83278,5260932,3661154.3,DSA_SQE
1.4,506370,4,126592.5,3889.5,1740,496851,246846.0,AI_CORE
0.4,145022,2,72511.0,72511.0,72161,72861,495.0,AI_CPU
0.1,19494,3,6498.0,6678.0,6118,6698,329.2,MIX_AIV
0.0,2640,2,1320.0,1320.0,1200,1440,169.7,AI_VECTOR_CORE
END
expect_stderr_empty

case_ "kernels: op_summary's header generation gives the same figures (Op Name, OP Type, Task Type, Task Duration)"
vp kernels --by core -f csv "$A/msinsight_op_summary/op_summary_1.csv"
expect_status 0
expect_stdout_has "27.4,10238538,4,2559634.5,2360406.5,542459,4975266,1892371.3,HCCL"
expect_stdout_has "1.4,506370,4,126592.5,3889.5,1740,496851,246846.0,AI_CORE"

case_ "kernels --by type: op types; HCCL rows (N/A in Task ID, Stream ID and the metrics) count"
vp kernels --by type -f csv "$OUT0/kernel_details.csv"
expect_status 0
expect_stdout_has "14.8,5517725,2,2758862.5,2758862.5,542459,4975266,3134467.9,hcom_broadcast_"
expect_stdout_has "0.1,19494,3,6498.0,6678.0,6118,6698,329.2,NonZero"

case_ "kernels --by core,name: the newer 46-column header (OP State, HF32 Eligible), Start Time quoted with a trailing TAB"
vp kernels --by core,name -f csv "$A/msprof_analyze_compute_advice_pipeutil/kernel_details.csv"
expect_status 0
expect_stdout_has ",MIX_AIC,aclnnFlashAttentionScoreGrad_FlashAttentionScoreGrad_FlashAttentionScoreGrad"
expect_stdout_has ",AI_VECTOR_CORE,aclnnAdd_AddAiCore_Add"

case_ "kernels --steps on Step Id: step 2 is all the rows; step 3 none"
vp kernels --by core -f csv --steps 2 "$R0"
expect_status 0
expect_stdout_has "27.4,10238538,4,"
vp kernels --by core --steps 3 "$R0"
expect_status 0
expect_stderr_has "selects none of the steps present (Step Id 2 to 2)"

case_ "kernels on the generated run: trace_view.json tasks by core and rank (profiler_info ranks)"
vp kernels --by rank,core -f csv "$RUN"
expect_status 0
expect_stdout_has ",0,HCCL"
expect_stdout_has ",1,AI_CPU"

case_ "kernels on op_statistic.csv (torch_npu's header, constructed): a row per op type with count, total, avg, min, max; Time (%) is its Ratio(%)"
OS=$A/constructed_op_statistic
vp kernels -f csv "$OS/op_statistic.csv"
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
56.5,21114692,4,5278673.0,,1841,7119969,,FlashAttentionScore
14.8,5517725,2,2758862.5,,542459,4975266,,hcom_broadcast_
14.3,5344210,2,2672105.0,,83278,5260932,,DSAStatelessGenBitMask
8.0,2976666,1,2976666.0,,2976666,2976666,,hcom_allReduce_
4.7,1744146,1,1744146.0,,1744146,1744146,,hcom_allGather_
1.3,496851,1,496851.0,,496851,496851,,ZerosLike
0.4,150820,3,50273.3,,5798,72861,,Cast
0.1,19495,3,6498.3,,6118,6698,,NonZero
0.0,3719,2,1859.5,,1740,1980,,Slice
0.0,2639,2,1319.5,,1200,1440,,0
END
expect_stderr_empty
vp kernels "$OS/op_statistic.csv"
expect_stdout_has "note: rows with op_statistic.csv instances have no Med nor StdDev"

case_ "kernels --by core on op_statistic (msprof's header: Device_id, Model Name): the per-core totals of the same tasks"
vp kernels --by core -f csv "$OS/op_statistic_20240101000000.csv"
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Accelerator Core
56.5,21114692,4,5278673.0,,1841,7119969,,MIX_AIC
27.4,10238537,4,2559634.2,,542459,4975266,,HCCL
14.3,5344210,2,2672105.0,,83278,5260932,,DSA_SQE
1.4,506368,4,126592.0,,1740,496851,,AI_CORE
0.4,145022,2,72511.0,,72161,72861,,AI_CPU
0.1,19495,3,6498.3,,6118,6698,,MIX_AIV
0.0,2639,2,1319.5,,1200,1440,,AI_VECTOR_CORE
END

case_ "kernels on op_statistic: --by type,core, --top folds aggregates, -j 2 equals -j 1, --save-part and reduce"
vp kernels --by type,core -f csv "$OS/op_statistic.csv"
expect_stdout_has "0.4,145022,2,72511.0,,72161,72861,,Cast,AI_CPU"
expect_stdout_has "0.0,5798,1,5798.0,,5798,5798,,Cast,AI_CORE"
vp kernels --top 3 -f csv "$OS/op_statistic.csv"
expect_stdout_has "14.4,5394336,13,414948.9,,1200,2976666,,(others: 7 rows)"
vp kernels -j 1 --by rank,core -f csv "$OS/op_statistic.csv" "$OS/op_statistic_20240101000000.csv"
cp "$OUT_STDOUT" j1.csv
expect_stdout_has "28.3,21114692,4,5278673.0,,1841,7119969,,0,MIX_AIC"
vp kernels -j 2 --by rank,core -f csv "$OS/op_statistic.csv" "$OS/op_statistic_20240101000000.csv"
expect_status 0
if cmp -s j1.csv "$OUT_STDOUT"; then pass; else fail "-j 2 differs from -j 1"; fi
vp kernels --by rank,core --save-part os.vpart "$OS/op_statistic.csv" "$OS/op_statistic_20240101000000.csv"
expect_status 0
vp reduce -f csv os.vpart
expect_status 0
if cmp -s j1.csv "$OUT_STDOUT"; then pass; else fail "reduce differs from -j 1"; fi

case_ "kernels: a rank directory with only op_statistic.csv reads it; --steps keeps none of it, with a warning"
mkdir -p osdir/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT
cp "$OS/op_statistic.csv" osdir/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/
vp kernels --by rank,core -f csv osdir
expect_status 0
expect_stdout_has "56.5,21114692,4,5278673.0,,1841,7119969,,3,MIX_AIC"
vp kernels --steps 1 "$OS/op_statistic.csv"
expect_status 0
expect_stderr_has "op_statistic.csv has no steps, so none of its rows is kept"

# ---- steps and comm: step_trace_time ----

case_ "steps on the rank-0 directory: step_trace_time.csv (older 9-column header) read as is"
vp steps -f csv "$R0"
expect_status 0
expect_stdout <<'END'
Step,Type,Index,Computing (ns),Communication(Not Overlapped) (ns),Overlapped (ns),Communication (ns),Free (ns),Stage (ns),Bubble (ns),Communication(Not Overlapped and Exclude Receive) (ns),Preparing (ns)
2,rank,0,75174575,146614020,6987303,153601324,69909504,291698000,0,146614020,
END

case_ "steps on the cluster output: stage rows are the element-wise maxima of their ranks (checked)"
vp steps "$A/msinsight_cluster_analysis_output"
expect_status 0
expect_stdout_has "note: stage rows: each equals the element-wise maximum of its ranks' rows (checked)"
vp steps -f csv "$A/msinsight_cluster_analysis_output"
expect_stdout_has '2,stage,"(0, 1, 2, 3, 4, 5, 6, 7)",76310940,160813120,7987020,167659240,71919960,304017500,0,160813120,'
expect_stdout_has '2,stage,"(8, 9, 10, 11, 12, 13, 14, 15)",80072450,231698200,7913858,239502120,92698580,203701736,195498280,38360691,'

case_ "steps: a stage row that is not its ranks' maximum is reported"
sed 's/^2,stage,"(0, 1, 2, 3, 4, 5, 6, 7)",76310.94000000008/2,stage,"(0, 1, 2, 3, 4, 5, 6, 7)",1.0/' \
    "$A/msinsight_cluster_analysis_output/cluster_step_trace_time.csv" > bad_cluster.csv
vp steps bad_cluster.csv
expect_status 0
expect_stdout_has "step 2 stage (0, 1, 2, 3, 4, 5, 6, 7): Computing is 1000 ns, but the maximum of its ranks is 76310940 ns"

case_ "steps: the newest header (Device_id, Preparing) and an empty Step cell"
printf 'Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n0,,1.5,2,0.5,2.5,3,6.5,0,2,0.25\n' > new.csv
vp steps -f csv new.csv
expect_status 0
expect_stdout <<'END'
Step,Type,Index,Computing (ns),Communication(Not Overlapped) (ns),Overlapped (ns),Communication (ns),Free (ns),Stage (ns),Bubble (ns),Communication(Not Overlapped and Exclude Receive) (ns),Preparing (ns)
,rank,0,1500,2000,500,2500,3000,6500,0,2000,250
END

case_ "steps on the generated run: step_trace_time from the Overlap Analysis slices equals the generator's"
vp_tables "steps summary step_trace_time" steps -f csv "$RUN"
expect_status 0
tail -n +2 "$RUN/expected_step_trace_time.csv" | while IFS=, read -r rank step rest; do
    grep -qF "$step,rank,$rank,$rest" "$OUT_STDOUT" || echo "missing: $rank $step $rest"
done > missing.txt
if [ -s missing.txt ]; then fail "$(cat missing.txt)"; else pass; fi
expect_stdout_has '1,stage,"(0, 1)",4337326,2768969,1526893,4251994,1179499,8241926,370000,2725101,346467'

# Pipeline stages from profiler_metadata.json's parallel groups
# (msprof-analyze's rule, docs/ascend.md): an 8-rank run, tp 2 x pp 2 x dp 2.
GEN=$(cd "$(dirname "$T")/../../scripts" && pwd)/gen-ascend-run

# The expected stage rows: the element-wise maxima, computed here from the
# generator's own per-rank figures, over ranks lo..hi.
stage_max() { # FILE LO HI INDEX
    awk -F, -v lo="$2" -v hi="$3" -v idx="$4" 'NR > 1 && $1 >= lo && $1 <= hi {
        s = $2; steps[s] = 1
        for (i = 3; i <= NF; i++) if (!((s, i) in m) || $i + 0 > m[s, i]) m[s, i] = $i + 0 }
        END { for (s in steps) { line = s ",stage," idx
              for (i = 3; i <= 11; i++) line = line "," m[s, i]; print line } }' "$1"
}

case_ "steps on a tp 2 x pp 2 run with profiler_metadata.json: 4 pipelines, stage rows (0, 1, 2, 3) and (4, 5, 6, 7), each the maxima of its ranks"
python3 "$GEN" pp8 --ranks 8 --tp 2 --pp 2 --metadata > /dev/null
vp_tables "steps summary step_trace_time" steps -f csv pp8
expect_status 0
{ stage_max pp8/expected_step_trace_time.csv 0 3 '"(0, 1, 2, 3)"'
  stage_max pp8/expected_step_trace_time.csv 4 7 '"(4, 5, 6, 7)"'; } > want.txt
while read -r line; do grep -qxF "$line" "$OUT_STDOUT" || echo "missing: $line"; done < want.txt > missing.txt
if [ -s missing.txt ] || [ "$(wc -l < want.txt)" != 4 ]; then fail "$(cat missing.txt want.txt)"; else pass; fi
if [ "$(grep -c ',stage,' "$OUT_STDOUT")" = 4 ]; then pass; else fail "not 4 stage rows"; fi
vp steps pp8
expect_stdout_has "2 stages of 4 pipelines from"
vp_tables "comm collectives spread stragglers step_trace_time" comm -f csv pp8
expect_status 0
while read -r line; do grep -qxF "$line" "$OUT_STDOUT" || echo "missing: $line"; done < want.txt > missing.txt
if [ -s missing.txt ]; then fail "comm: $(cat missing.txt)"; else pass; fi

case_ "steps on a pp 4 run: every rank its own stage, Index \"(2,)\" as Python prints a one-rank tuple"
python3 "$GEN" pp4 --ranks 4 --pp 4 --metadata --steps 1 > /dev/null
vp_tables "steps summary step_trace_time" steps -f csv pp4
expect_status 0
stage_max pp4/expected_step_trace_time.csv 2 2 '"(2,)"' > want.txt
if grep -qxF "$(cat want.txt)" "$OUT_STDOUT"; then pass; else fail "missing $(cat want.txt)"; fi

case_ "steps: the real rank-0 profiler_metadata.json alone names stage (0, 1, 2, 3); the ranks no group names share Index ()"
python3 "$GEN" real8 --ranks 8 > /dev/null
cp "$A/msinsight_metadata/profiler_metadata.json" real8/worker0_*_ascend_pt/
vp_tables "steps summary step_trace_time" steps -f csv real8
expect_status 0
{ stage_max real8/expected_step_trace_time.csv 0 3 '"(0, 1, 2, 3)"'
  stage_max real8/expected_step_trace_time.csv 4 7 '()'; } > want.txt
while read -r line; do grep -qxF "$line" "$OUT_STDOUT" || echo "missing: $line"; done < want.txt > missing.txt
if [ -s missing.txt ]; then fail "$(cat missing.txt)"; else pass; fi
vp steps real8
expect_stdout_has "Index () holds the ranks no stage group names"

case_ "steps on the generated run without Overlap Analysis: the same figures from the device tasks"
mkdir -p noovl/r0_ascend_pt/ASCEND_PROFILER_OUTPUT noovl/r1_ascend_pt/ASCEND_PROFILER_OUTPUT
for r in 0 1; do
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); ov={e["pid"] for e in d if e.get("name")=="process_name" and e["args"]["name"]=="Overlap Analysis"}; json.dump([e for e in d if e["pid"] not in ov], open(sys.argv[2],"w"))' \
        "$RUN"/worker${r}_*_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json noovl/r${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json
    cp "$RUN"/worker${r}_*_ascend_pt/profiler_info_$r.json noovl/r${r}_ascend_pt/
done
vp_tables "steps summary step_trace_time" steps -f csv noovl
expect_status 0
tail -n +2 "$RUN/expected_step_trace_time.csv" | while IFS=, read -r rank step rest; do
    grep -qF "$step,rank,$rank,$rest" "$OUT_STDOUT" || echo "missing: $rank $step $rest"
done > missing.txt
if [ -s missing.txt ]; then fail "$(cat missing.txt)"; else pass; fi
vp steps noovl
expect_stdout_has "note: from the device tasks and HCCL operations of the trace"

case_ "comm on the generated run: HCCL counted once (Ascend Hardware tasks and Communication ops), per-rank split"
vp_tables "comm collectives spread stragglers step_trace_time" comm -f csv "$RUN"
expect_status 0
expect_stdout_has "Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)"
expect_stdout_has "0,18241926,8668267,8254589,2959491,5295098,4278561,4278561,35.85,29.42"
expect_stdout_has "AllReduce,,2,0,4,"
expect_stdout_has "Recv,,2,0,2,740000,740000,1048576,"

# ---- the advisor trace_view.json (in ../shared only: 635 KB) ----

if [ -e "$SHARED/fixtures/real/ascend/msprof_analyze_advisor_timeline/trace_view.json" ]; then
    TV=$SHARED/fixtures/real/ascend/msprof_analyze_advisor_timeline/trace_view.json
    case_ "advisor trace_view.json: Computing 1788.2505 us, Free 9481.667 us, no communication, one step"
    vp_tables "steps summary step_trace_time" steps -f csv "$TV"
    expect_status 0
    expect_stdout_has "1,rank,0,1788251,0,0,0,9481667,11269917,0,0,2615193"
    vp_tables "comm collectives step_trace_time" comm -f csv "$TV"
    expect_status 0
    expect_stdout_has "0,11269917,1790457,0,0,0,9479460,9479460,,0.00"
    case_ "advisor trace_view.json: kernels from Ascend Hardware (pid told by process_name, no cat)"
    vp kernels --by core -f csv "$TV"
    expect_status 0
    expect_stdout_has ",274,"
    expect_stdout_has ",AI_CPU"
fi

# ---- communication.json / communication_matrix.json ----

case_ "comm on the rank-0 directory: per-transport bandwidth with the large-packet rule"
vp_tables "step_trace_time hccl_ops hccl_bandwidth hccl_links" comm -f csv "$R0"
expect_status 0
expect_stdout_has "0,step2,p2p,RDMA,1,20971520,863815,24.2778,1,1.0000"
expect_stdout_has "0,step2,collective,RDMA,5,131072812,5410613,24.2251,6,0.3333"
expect_stdout_has "0,step2,collective,HCCS,11,1321321036,70173995,18.8292,77,0.0000"
expect_stdout_has "0,step2,collective,hcom_allReduce__459_0,10471851537367425459,"
expect_stdout_has "0,step2,collective,Total Op Info,,151358447,5413852,116636175,115756663,29308420,0.9556,0.9553"

case_ "comm on communication_matrix.json alone: per link"
vp comm -f csv "$OUT0/communication_matrix.json"
expect_status 0
expect_stdout_has "step2,collective,0,1,HCCS,11,188760292,9885190,19.0953"
expect_stdout_has "step2,p2p,0,8,RDMA,1,20971520,863815,24.2778"

case_ "comm on the cluster output: cluster_communication.json per rank"
vp_tables "step_trace_time hccl_ops hccl_bandwidth hccl_links" comm -f csv "$A/msinsight_cluster_analysis_output"
expect_status 0
expect_stdout_has "1,step2,p2p,hcom_send__822_0,13337953553061386822,896580,863820,20,20,32740,0.0000,0.0000"
expect_stdout_has '"(0, 1, 2, 3, 4, 5, 6, 7)"'

# ---- memory ----

case_ "memory on the rank-0 directory: components over time, operators at the peak, modules"
vp_tables "npu_memory operators_at_peak npu_module_mem" memory -f csv "$R0"
expect_status 0
expect_stdout_has "0,NPU:0,PTA,3,4823308800,1695115378721880000,68556500,9084862464,1695115378714622800,61299300,4823308800,9084862464"
expect_stdout_has "0,NPU:0,APP,2,,,,11769610240,1695115378653323500,0,,11769610240"
expect_stdout_has "0,GE,84017152,1695115378736209500,12307000,cann::Graph_95,1,83951616"
expect_stdout_has "0,NPU:0,HCCL,5,,,,855764992,1724670453385978290,0,,855764992"

case_ "memory --timeline on memory_record.csv: empty Total Allocated on APP rows stays empty"
vp memory --timeline -f csv "$OUT0/memory_record.csv"
expect_status 0
expect_stdout_has "0,NPU:0,APP,1695115378653323500,0,,11769610240,"
expect_stdout_has "0,NPU:0,GE,1695115379005537200,352213700,131072,253755392,"

case_ "memory --plot on the rank-0 directory: an SVG with a series per component"
vp memory --plot mem.svg "$R0"
expect_status 0
if grep -q "<svg" mem.svg && grep -q "PTA+GE" mem.svg; then pass; else fail "mem.svg lacks the chart"; fi

case_ "memory: --leaks needs a snapshot"
vp memory --leaks "$R0"
expect_status 2

# ---- merge ----

case_ "merge on the generated run: ranks from profiler_info, flow ids above 2^53 kept"
vp merge -o merged.json "$RUN"
expect_status 0
expect_stderr_has "2 ranks, 564 of 564 events"
if grep -q '"id": "r1:' merged.json; then pass; else fail "flow ids not namespaced"; fi
vp kernels --by rank,core,name -f csv merged.json
expect_status 0
expect_stdout_has ",1,HCCL,hcom_receive__483_2"

# ---- empty and half-written directories: exit 3, naming what is missing ----

case_ "a *_ascend_pt without ASCEND_PROFILER_OUTPUT"
mkdir -p half/x_ascend_pt/FRAMEWORK
vp steps half/x_ascend_pt
expect_status 3
expect_stderr_has "half/x_ascend_pt: no ASCEND_PROFILER_OUTPUT/: the profiler has not parsed this directory yet"

case_ "an empty ASCEND_PROFILER_OUTPUT"
mkdir -p empty/y_ascend_pt/ASCEND_PROFILER_OUTPUT
vp kernels empty/y_ascend_pt
expect_status 3
expect_stderr_has "ASCEND_PROFILER_OUTPUT/ is empty or holds none of trace_view.json, kernel_details.csv"

case_ "a PROF_* directory msprof did not export"
mkdir -p PROF_000001_20260323031749197_X/device_0
vp comm PROF_000001_20260323031749197_X
expect_status 3
expect_stderr_has "no mindstudio_profiler_output/: msprof collected but did not export this directory"

case_ "a directory with no profile"
mkdir -p nothing
vp memory nothing
expect_status 3
expect_stderr_has "nothing: is a directory that holds no trace (*.json, *.json.gz) and no Ascend profile"

case_ "a rank directory lacking what the command needs"
mkdir -p only_mem/z_ascend_pt/ASCEND_PROFILER_OUTPUT
cp "$OUT0/memory_record.csv" only_mem/z_ascend_pt/ASCEND_PROFILER_OUTPUT/
vp kernels only_mem
expect_status 3
expect_stderr_has "z_ascend_pt: neither kernel_details.csv nor trace_view.json found"

case_ "a CSV quote left open"
printf 'Step Id,Name,Type,Accelerator Core,Duration(us)\n1,"abc,Cast,AI_CORE,1.0\n' > open.csv
vp kernels open.csv
expect_status 3
expect_stderr_has "open.csv: line 2: a quoted field is not closed before the end of the file"

# ---- summary, diff, check (docs/summary.md "Ascend") ----

case_ "summary on the generated run: the metrics equal the generator's step_trace_time sums (comm.total = sum of Communication, comm.exposed = sum of Not Overlapped)"
vp_tables "run gpu_time top_kernels findings" summary -f csv "$RUN"
expect_status 0
expect_stdout_has "Ascend NPU,,2,2,9000000.0,9000000.0,9000000.0"
vp summary -f json "$RUN"
python3 - "$OUT_STDOUT" "$RUN/expected_step_trace_time.csv" > sums.txt <<'PY'
import csv, json, sys
m = {r[0]: r[1] for r in json.load(open(sys.argv[1]))["tables"]["metrics"]["rows"]}
rows = list(csv.DictReader(open(sys.argv[2])))
s = lambda k: sum(int(r[k]) for r in rows)
print(m["comm.total"] == s("Communication"), m["comm.exposed"] == s("Communication(Not Overlapped)"),
      round(m["gpu.compute_pct"] * m["gpu.span"] / 100) == s("Computing"),
      "gpus" not in m, "kernels.short_pct" not in m, m["kernels.count"], m["attention.flash"])
PY
if [ "$(cat sums.txt)" = "True True True True True 68 1" ]; then pass; else fail "metrics: $(cat sums.txt)"; fi

case_ "summary on an Ascend run: findings in Ascend's names (HCCL, AI Core, NPU)"
vp summary "$RUN"
expect_stdout_has "1. HCCL communication is exposed: AI Core compute does not hide it [exposed_comm]"
expect_stdout_has "10.3 ms of HCCL communication not overlapped by compute (all ranks): 36.9% of the NPU's"
vp summary --threshold idle=1 "$RUN/worker0_20240101000000_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
expect_status 0
expect_stdout_has "the NPU is idle for much of the run [idle]"
expect_stdout_has "evidence: NPU idle "
if grep -q "launch call" "$OUT_STDOUT"; then fail "names launch calls"; else pass; fi

case_ "summary: AscendCL synchronous calls inside a step count in sync.count, named as such"
python3 - "$RUN"/worker0_*_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json synced.json <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
cann = next(e["pid"] for e in ev if e.get("name") == "process_name" and e["args"]["name"] == "CANN")
step = next(e for e in ev if e.get("name", "").startswith("ProfilerStep#1"))
t = float(step["ts"]) + 100
for n in ("AscendCL@aclrtSynchronizeStream", "AscendCL@aclrtMemcpy", "AscendCL@aclrtMemcpyAsync"):
    ev.append({"name": n, "pid": cann, "tid": 1, "ts": "%.3f" % t, "dur": 5.0, "ph": "X",
               "args": {"Mode": "ACL_RTS"}})
    t += 10
json.dump(ev, open(sys.argv[2], "w"))
PY
vp summary --threshold syncs=2 -f json synced.json
expect_stdout_has '["sync.count",2,"count"],["sync.time",10000,"ns"]'
vp summary --threshold syncs=2 -f csv --table findings synced.json
# the time lost: two 5 us calls in two 9 ms steps (10 us / 18 ms = 0.06 %)
expect_stdout_has "10.0 us blocked in syncs, 0.1% of the steps' wall time: 2 blocking calls (aclrtSynchronizeStream, aclrtSynchronizeDevice, aclrtSynchronizeEvent, synchronous aclrtMemcpy) inside the steps"

case_ "summary: memory peaks from memory_record.csv (PTA, torch_npu's caching allocator) where a rank has one"
mkdir -p memrun
cp -r "$RUN"/worker0_20240101000000_ascend_pt memrun/
cp "$OUT0/memory_record.csv" memrun/worker0_20240101000000_ascend_pt/ASCEND_PROFILER_OUTPUT/
vp summary -f json memrun
expect_stdout_has '["memory.peak_allocated",4823308800,"bytes"]'
vp_tables "run gpu_time top_kernels memory findings" summary -f csv memrun
expect_status 0

case_ "summary -j 2 on two rank directories equals -j 1; --save-part and reduce"
vp_tables "run gpu_time top_kernels findings" summary -j 1 -f csv "$RUN"/worker0_20240101000000_ascend_pt "$RUN"/worker1_20240101000001_ascend_pt
cp "$OUT_STDOUT" s1.csv
vp_tables "run gpu_time top_kernels findings" summary -j 2 -f csv "$RUN"/worker0_20240101000000_ascend_pt "$RUN"/worker1_20240101000001_ascend_pt
if cmp -s s1.csv "$OUT_STDOUT"; then pass; else fail "-j 2 differs"; fi
vp_tables "run gpu_time top_kernels findings" summary -f csv "$RUN"
if cmp -s s1.csv "$OUT_STDOUT"; then pass; else fail "the folder differs from its two ranks"; fi
vp summary --save-part s.vpart "$RUN"
expect_status 0
vp_tables "run gpu_time top_kernels findings" reduce -f csv s.vpart
if cmp -s s1.csv "$OUT_STDOUT"; then pass; else fail "reduce differs"; fi

case_ "diff and check on Ascend run folders"
python3 "$GEN" other --seed 9 > /dev/null
vp_tables "kernels classes metrics" diff -f csv --top 1 "$RUN" other
expect_status 0
expect_stdout_has "5376948,6383558,1006610,18.7,2,2,,hcom_allReduce__483_3"
expect_stdout_has "communication,16402205,17802128,1399923,8.5"
vp check --fail-if 'comm.exposed_pct > 30' "$RUN"
expect_status 1
expect_stdout_has "comm.exposed_pct = 36.89% (> 30.00% is true)"
vp check --expect 'memory.peak_allocated <= 5GiB' memrun
expect_status 0

# summary, check and diff on the rank-0 directory, which has only the CSV
# summaries: tests/cli/ascend-csv-run.t.
