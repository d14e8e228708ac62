# Ascend summary inputs in partial results (docs/partials.md, docs/scale.md):
# comm and steps on step_trace_time.csv, communication*.json, DB exports,
# rank directories and run folders give the same bytes with -j 1, -j 2,
# --save-part (one file per input, or one per process) + vprof reduce.
# Stage grouping from communication_group.json's comm_group_parallel_info.
A=$DATA/ascend
R0=$A/msinsight_gpt3_rank0_ascend_pt
OUT0=$R0/ASCEND_PROFILER_OUTPUT
RUN=$A/run2
GEN=$(cd "$(dirname "$T")/../../scripts" && pwd)/gen-ascend-run
cd "$WORK" || exit 1

# same_bytes CMD OPTIONS... -- OPERANDS...: the output of -j 1 is the
# reference; -j 2, --save-part %i + reduce and --save-part + reduce must
# equal it byte for byte.
same_bytes() {
    local cmd=$1; shift
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    rm -rf sb && mkdir sb
    vp "$cmd" "${opts[@]}" -j 1 "$@"
    expect_status 0
    cp "$OUT_STDOUT" sb/ref
    vp "$cmd" "${opts[@]}" -j 2 "$@"
    expect_status 0
    if cmp -s "$OUT_STDOUT" sb/ref; then pass; else fail "-j 2 differs: $(diff sb/ref "$OUT_STDOUT" | head -5)"; fi
    vp "$cmd" "${opts[@]}" --save-part 'sb/%i.vpart' "$@"
    expect_status 0
    expect_stdout_empty
    local parts=() i=0
    for _ in "$@"; do parts+=("sb/$i.vpart"); i=$((i + 1)); done
    vp reduce "${opts[@]}" "${parts[@]}"
    expect_status 0
    if cmp -s "$OUT_STDOUT" sb/ref; then pass; else fail "--save-part %i + reduce differs: $(diff sb/ref "$OUT_STDOUT" | head -5)"; fi
    vp "$cmd" "${opts[@]}" -j 2 --save-part sb/all.vpart "$@"
    expect_status 0
    vp reduce "${opts[@]}" sb/all.vpart
    expect_status 0
    if cmp -s "$OUT_STDOUT" sb/ref; then pass; else fail "--save-part + reduce differs: $(diff sb/ref "$OUT_STDOUT" | head -5)"; fi
}

expect_stdout_empty() {
    if [ -s "$OUT_STDOUT" ]; then fail "stdout not empty"; else pass; fi
}

case_ "steps on the generated run's rank directories: -j 1 = -j 2 = --save-part + reduce"
same_bytes steps -f csv --table step_trace_time -- "$RUN"/worker0_* "$RUN"/worker1_*
expect_stdout_has '1,stage,"(0, 1)",4337326,2768969,1526893,4251994,1179499,8241926,370000,2725101,346467'

case_ "steps: the run folder as one operand gives the bytes of its rank directories as two"
vp steps -f csv --table step_trace_time "$RUN"
if cmp -s "$OUT_STDOUT" sb/ref; then pass; else fail "$(diff sb/ref "$OUT_STDOUT" | head -5)"; fi

case_ "comm on the generated run's rank directories, json: -j 1 = -j 2 = --save-part + reduce"
same_bytes comm -f json -- "$RUN"/worker0_* "$RUN"/worker1_*
vp comm -f json "$RUN"
if cmp -s "$OUT_STDOUT" sb/ref; then pass; else fail "run folder differs"; fi

case_ "comm on the rank-0 directory (step_trace_time.csv, communication.json, communication_matrix.json)"
same_bytes comm -f csv --table hccl_bandwidth -- "$R0"
expect_stdout_has "Rank,Step,Kind,Transport,Ops,Transit Size (B),Transit Time (ns),Bandwidth (GB/s),Packets,Large Packet Ratio"
expect_stdout_has "0,step2,collective,RDMA,5,131072812,5410613,24.2251,6,0.3333"

case_ "comm on the rank-0 summary files as three operands (each file its position as the rank)"
same_bytes comm -f md -- "$OUT0/step_trace_time.csv" "$OUT0/communication.json" "$OUT0/communication_matrix.json"
expect_stdout_has 'read from step\_trace\_time.csv'
expect_stdout_has '| 1 | step2 | collective | hcom\_broadcast\_\_483\_0 |'

case_ "steps on step_trace_time.csv and the generated run together (a trace source and a CSV)"
same_bytes steps -f csv -- "$OUT0/step_trace_time.csv" "$RUN"

case_ "comm and steps on msprof-analyze's cluster_analysis_output (stage rows checked)"
same_bytes comm -f md -- "$A/msinsight_cluster_analysis_output"
expect_stdout_has "each equals the element-wise maximum of its ranks' rows (checked)"
same_bytes steps -f md -- "$A/msinsight_cluster_analysis_output"

if "$VPROF" --version | grep -q 'sqlite: built'; then
case_ "steps and comm on an SQLite export: the DB's note travels in the partial"
same_bytes steps -f md -- "$A/msinsight_msprof_db/msprof_0.db"
expect_stdout_has "from the DB's TASK, COMPUTE\\_TASK\\_INFO and COMMUNICATION\\_OP tables"
same_bytes comm -f csv -- "$A/msinsight_msprof_db/msprof_0.db" "$OUT0/communication.json"
fi

# ---- parallel groups in partials, and from communication_group.json ----

python3 "$GEN" pp8 --ranks 8 --tp 2 --pp 2 --metadata > /dev/null

case_ "steps on a tp 2 x pp 2 run: the metadata's groups travel in partials (8 rank operands = the run folder)"
vp steps -f csv --table step_trace_time pp8
expect_status 0
cp "$OUT_STDOUT" pp8.csv
if [ "$(grep -c ',stage,' pp8.csv)" = 4 ]; then pass; else fail "not 4 stage rows"; fi
same_bytes steps -f csv --table step_trace_time -- pp8/*_ascend_pt
if cmp -s sb/ref pp8.csv; then pass; else fail "$(diff pp8.csv sb/ref | head -5)"; fi

# communication_group.json as msprof-analyze writes it since
# comm_group_parallel_info: type (collective / p2p), rank_set, group_name
# (the hash), group_id, pg_name; built here from the run's metadata
# (pp groups carried point-to-point traffic, the others collectives).
mkcommgroup() { # RUN_DIR
    python3 - "$1" <<'EOF'
import glob, json, os, sys
run = sys.argv[1]
groups = {}
for f in sorted(glob.glob(os.path.join(run, "*_ascend_pt", "profiler_metadata.json"))):
    groups.update(json.load(open(f))["parallel_group_info"])
info = [{"type": "p2p" if g["group_name"].startswith("pp") else "collective",
         "rank_set": g["global_ranks"], "group_name": h, "group_id": "id" + h,
         "pg_name": g["group_name"]} for h, g in sorted(groups.items())]
for f in glob.glob(os.path.join(run, "*_ascend_pt", "profiler_metadata.json")):
    os.remove(f)
out = os.path.join(run, "cluster_analysis_output")
os.makedirs(out, exist_ok=True)
coll = [sorted(g["rank_set"]) for g in info if g["type"] == "collective"]
p2p = [sorted(g["rank_set"]) for g in info if g["type"] == "p2p"]
json.dump({"collective": coll, "p2p": p2p, "comm_group_parallel_info": info},
          open(os.path.join(out, "communication_group.json"), "w"))
EOF
}

case_ "steps without profiler_metadata.json: stages from cluster_analysis_output/communication_group.json, the same rows"
python3 "$GEN" cg8 --ranks 8 --tp 2 --pp 2 --metadata > /dev/null
mkcommgroup cg8
vp steps -f csv --table step_trace_time cg8
expect_status 0
if cmp -s "$OUT_STDOUT" pp8.csv; then pass; else fail "$(diff pp8.csv "$OUT_STDOUT" | head -5)"; fi
vp steps cg8
expect_stdout_has "2 stages of 4 pipelines from communication_group.json's comm_group_parallel_info"
vp_tables "comm collectives spread stragglers step_trace_time" comm -f csv cg8
expect_status 0
grep ',stage,' "$OUT_STDOUT" > got.txt
grep ',stage,' pp8.csv > want.txt
if cmp -s got.txt want.txt; then pass; else fail "comm stage rows: $(diff want.txt got.txt | head -5)"; fi
same_bytes comm -f csv -- cg8

case_ "communication_group.json: a collective group named pp is never a pipeline; a p2p group not named pp is no group"
python3 "$GEN" cx8 --ranks 8 --tp 2 --pp 2 --metadata > /dev/null
mkcommgroup cx8
python3 - cx8/cluster_analysis_output/communication_group.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["comm_group_parallel_info"].append({"type": "collective", "rank_set": [0, 4], "group_name": "x1",
                                      "group_id": "x1", "pg_name": "pp_extra"})
d["comm_group_parallel_info"].append({"type": "p2p", "rank_set": [0, 1], "group_name": "x2",
                                      "group_id": "x2", "pg_name": "ep"})
json.dump(d, open(sys.argv[1], "w"))
EOF
vp steps -f csv --table step_trace_time cx8
expect_status 0
grep ',stage,' "$OUT_STDOUT" > got.txt
if cmp -s got.txt want.txt; then pass; else fail "$(diff want.txt got.txt | head -5)"; fi

case_ "communication_group.json of the older form (collective and p2p lists only): all ranks one stage, as before"
python3 "$GEN" old8 --ranks 8 --tp 2 --pp 2 --metadata > /dev/null
rm old8/*_ascend_pt/profiler_metadata.json
mkdir old8/cluster_analysis_output
cp "$A/msinsight_cluster_analysis_output/communication_group.json" old8/cluster_analysis_output/
vp steps -f csv --table step_trace_time old8
expect_status 0
expect_stdout_has ',stage,"(0, 1, 2, 3, 4, 5, 6, 7)",'

case_ "communication_group.json that is not JSON: exit 3 naming it"
python3 "$GEN" bad8 --ranks 2 > /dev/null
mkdir bad8/cluster_analysis_output
echo '{"comm_group_parallel_info": [' > bad8/cluster_analysis_output/communication_group.json
vp steps bad8
expect_status 3
expect_stderr_has "communication_group.json: not a JSON object"

case_ "a damaged partial of Ascend files is refused"
vp comm --save-part dmg.vpart "$OUT0/communication.json"
expect_status 0
head -c -3 dmg.vpart > dmg2.vpart
vp reduce dmg2.vpart
expect_status 3
