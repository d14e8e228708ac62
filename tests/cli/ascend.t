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
vp steps -f csv "$RUN"
expect_status 0
tail -n +2 "$RUN/expected_step_trace_time.csv" | while IFS=, read -r rank step rest; do
    grep -qF "$step,rank,$rank,$rest" "$OUT_STDOUT" || echo "missing: $rank $step $rest"
done > missing.txt
if [ -s missing.txt ]; then fail "$(cat missing.txt)"; else pass; fi
expect_stdout_has '1,stage,"(0, 1)",4337326,2768969,1526893,4251994,1179499,8241926,370000,2725101,346467'

case_ "steps on the generated run without Overlap Analysis: the same figures from the device tasks"
mkdir -p noovl/r0_ascend_pt/ASCEND_PROFILER_OUTPUT noovl/r1_ascend_pt/ASCEND_PROFILER_OUTPUT
for r in 0 1; do
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); ov={e["pid"] for e in d if e.get("name")=="process_name" and e["args"]["name"]=="Overlap Analysis"}; json.dump([e for e in d if e["pid"] not in ov], open(sys.argv[2],"w"))' \
        "$RUN"/worker${r}_*_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json noovl/r${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json
    cp "$RUN"/worker${r}_*_ascend_pt/profiler_info_$r.json noovl/r${r}_ascend_pt/
done
vp steps -f csv noovl
expect_status 0
tail -n +2 "$RUN/expected_step_trace_time.csv" | while IFS=, read -r rank step rest; do
    grep -qF "$step,rank,$rank,$rest" "$OUT_STDOUT" || echo "missing: $rank $step $rest"
done > missing.txt
if [ -s missing.txt ]; then fail "$(cat missing.txt)"; else pass; fi
vp steps noovl
expect_stdout_has "note: from the device tasks and HCCL operations of the trace"

case_ "comm on the generated run: HCCL counted once (Ascend Hardware tasks and Communication ops), per-rank split"
vp comm -f csv "$RUN"
expect_status 0
expect_stdout_has "Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)"
expect_stdout_has "0,18241926,8668267,8254589,2959491,5295098,4278561,4278561,35.85,29.42"
expect_stdout_has "AllReduce,,2,0,4,"
expect_stdout_has "Recv,,2,0,2,740000,740000,1048576,"

# ---- the advisor trace_view.json (in ../shared only: 635 KB) ----

if [ -e "$SHARED/fixtures/real/ascend/msprof_analyze_advisor_timeline/trace_view.json" ]; then
    TV=$SHARED/fixtures/real/ascend/msprof_analyze_advisor_timeline/trace_view.json
    case_ "advisor trace_view.json: Computing 1788.2505 us, Free 9481.667 us, no communication, one step"
    vp steps -f csv "$TV"
    expect_status 0
    expect_stdout_has "1,rank,0,1788251,0,0,0,9481667,11269917,0,0,2615193"
    vp comm -f csv "$TV"
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
vp comm -f csv "$R0"
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
vp comm -f csv "$A/msinsight_cluster_analysis_output"
expect_status 0
expect_stdout_has "1,step2,p2p,hcom_send__822_0,13337953553061386822,896580,863820,20,20,32740,0.0000,0.0000"
expect_stdout_has '"(0, 1, 2, 3, 4, 5, 6, 7)"'

# ---- memory ----

case_ "memory on the rank-0 directory: components over time, operators at the peak, modules"
vp memory -f csv "$R0"
expect_status 0
expect_stdout_has "0,NPU:0,PTA,3,4823308800,1695115378721880000,9084862464,1695115378714622800,4823308800,9084862464"
expect_stdout_has "0,NPU:0,APP,2,,,11769610240,1695115378653323500,,11769610240"
expect_stdout_has "0,GE,84017152,1695115378736209500,cann::Graph_95,1,83951616"
expect_stdout_has "0,NPU:0,HCCL,5,,,855764992,1724670453385978290,,855764992"

case_ "memory --timeline on memory_record.csv: empty Total Allocated on APP rows stays empty"
vp memory --timeline -f csv "$OUT0/memory_record.csv"
expect_status 0
expect_stdout_has "0,NPU:0,APP,1695115378653323500,,11769610240,"
expect_stdout_has "0,NPU:0,GE,1695115379005537200,131072,253755392,"

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
vp kernels --by rank,core -f csv merged.json
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
expect_stderr_has "nothing: is a directory, not a trace file, and holds no Ascend profile"

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
