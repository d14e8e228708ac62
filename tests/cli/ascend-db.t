# Ascend SQLite exports (docs/ascend.md "DB exports"): msprof_*.db,
# ascend_pytorch_profiler_N.db and analysis.db in kernels, steps and comm.
# The real msprof_0.db (tests/data/ascend/SOURCE.md) and the generated run
# written both as trace_view.json and as a DB (scripts/gen-ascend-run
# --db), whose figures must be the same either way.
A=$DATA/ascend
DB=$A/msinsight_msprof_db/msprof_0.db
GEN=$(cd "$(dirname "$T")/../../scripts" && pwd)/gen-ascend-run

if ! "$VPROF" --version | grep -q 'sqlite: built'; then
    case_ "built without SQLite: a DB is refused with a clear message, exit 3"
    vp kernels "$DB"
    expect_status 3
    expect_stderr_has "msprof_0.db: an SQLite export, but this vprof was built without SQLite"
    vp steps "$DB"
    expect_status 3
    expect_stderr_has "built without SQLite"
    return 0 2>/dev/null || exit 0
fi

# ---- the real msprof_0.db ----

# Independently, with python3's sqlite3:
#   SELECT o.value, count(*), sum(t.endNs - t.startNs), min(..), max(..)
#   FROM COMPUTE_TASK_INFO ci JOIN TASK t USING (globalTaskId)
#   JOIN STRING_IDS o ON o.id = ci.opType GROUP BY o.value
# gives ZerosLike 1/612092, Range 1/16620, Less 2/12300 (2000..10300),
# Tril 1/9040, OnesLike 2/6140, Cast 2/4320, MemSet 1/1740, Equal 1/1620;
# every taskType is AI_VECTOR_CORE; COMMUNICATION_OP is empty.
case_ "kernels --by core,type on msprof_0.db: COMPUTE_TASK_INFO x TASK with their STRING_IDS"
vp kernels --by core,type -f csv "$DB"
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Accelerator Core,Type
92.2,612092,1,612092.0,612092.0,612092,612092,0.0,AI_VECTOR_CORE,ZerosLike
2.5,16620,1,16620.0,16620.0,16620,16620,0.0,AI_VECTOR_CORE,Range
1.9,12300,2,6150.0,6150.0,2000,10300,5869.0,AI_VECTOR_CORE,Less
1.4,9040,1,9040.0,9040.0,9040,9040,0.0,AI_VECTOR_CORE,Tril
0.9,6140,2,3070.0,3070.0,2060,4080,1428.4,AI_VECTOR_CORE,OnesLike
0.7,4320,2,2160.0,2160.0,1900,2420,367.7,AI_VECTOR_CORE,Cast
0.3,1740,1,1740.0,1740.0,1740,1740,0.0,AI_VECTOR_CORE,MemSet
0.2,1620,1,1620.0,1620.0,1620,1620,0.0,AI_VECTOR_CORE,Equal
END
expect_stderr_empty

case_ "kernels: names from STRING_IDS (Cast twice under two names)"
vp kernels -f csv "$DB"
expect_status 0
expect_stdout_has "0.4,2420,1,2420.0,2420.0,2420,2420,0.0,aclnnCast_CastAiCore_Cast"
expect_stdout_has "0.3,1900,1,1900.0,1900.0,1900,1900,0.0,aclnnLtScalar_CastAiCore_Cast"

# Independently: the union of the 11 compute tasks is 663872 ns; the 24
# TASK rows span 1698220811392354694..1698220811533883302 = 141528608 ns;
# Free = 141528608 - 663872 = 140864736.  MindStudio Insight's own
# OVERLAP_ANALYSIS table in the file sums to the same: type 0 (Computing)
# 663872, type 3 (Free) 140864736.
case_ "steps on msprof_0.db: step_trace_time with msprof's definitions (Insight's OVERLAP_ANALYSIS figures)"
vp steps -f csv "$DB"
expect_status 0
expect_stdout <<'END'
Step,Type,Index,Computing (ns),Communication(Not Overlapped) (ns),Overlapped (ns),Communication (ns),Free (ns),Stage (ns),Bubble (ns),Communication(Not Overlapped and Exclude Receive) (ns),Preparing (ns)
,rank,0,663872,0,0,0,140864736,141528608,0,0,
END

case_ "comm on msprof_0.db: the same step_trace_time table, and where it came from"
vp comm "$DB"
expect_status 0
expect_stdout_has "note: from the DB's TASK, COMPUTE_TASK_INFO and COMMUNICATION_OP tables"

# ---- the generated run, as trace_view.json and as DBs ----

python3 "$GEN" gen --db >/dev/null
mkdir -p dbonly/w0_ascend_pt/ASCEND_PROFILER_OUTPUT dbonly/w1_ascend_pt/ASCEND_PROFILER_OUTPUT
for r in 0 1; do
    cp gen/worker${r}_*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_$r.db \
        dbonly/w${r}_ascend_pt/ASCEND_PROFILER_OUTPUT/
    cp gen/worker${r}_*/profiler_info_$r.json dbonly/w${r}_ascend_pt/
done

case_ "steps: the DB-only run (export_type=db) gives the trace's step_trace_time, the generator's figures"
vp_tables "steps summary step_trace_time" steps -f csv gen
expect_status 0
grep -A9 '^Step,Type,Index' "$OUT_STDOUT" >trace.csv
vp steps -f csv dbonly
expect_status 0
expect_stdout_file trace.csv
expect_stdout_has "1,rank,1,4276538,2768969,1414294,4183263,1091026,7766533,370000,2398969,346467"
expect_stdout_has '2,stage,"(0, 1)",4741885,2569997,1691526,4002595,1337502,8238440,370000,2569997,338905'

case_ "comm: the same step_trace_time from the DBs given one by one"
vp comm -f csv gen/worker0_*/ASCEND_PROFILER_OUTPUT/*.db gen/worker1_*/ASCEND_PROFILER_OUTPUT/*.db
expect_status 0
expect_stdout_has "1,rank,0,4337326,2725101,1526893,4251994,1179499,8241926,0,2725101,258074"
expect_stdout_has "2,rank,1,4741885,2272827,1691526,3964353,1129383,7774095,370000,1902827,338905"

case_ "kernels: the DB-only run gives the trace's per rank, core and name figures"
vp kernels --by rank,core,name -f csv gen
expect_status 0
sort "$OUT_STDOUT" >trace-kernels.csv
vp kernels --by rank,core,name -f csv dbonly
expect_status 0
sort "$OUT_STDOUT" >db-kernels.csv
if cmp -s trace-kernels.csv db-kernels.csv; then pass; else fail "kernels differ"; diff trace-kernels.csv db-kernels.csv >&2; fi
expect_stdout_has ",0,HCCL,hcom_allReduce__483_0"

case_ "kernels --by type from the DB: op types (COMPUTE_TASK_INFO.opType, COMMUNICATION_OP.opType)"
vp kernels --by type -f csv dbonly
expect_status 0
expect_stdout_has ",MatMulV3"
expect_stdout_has ",hcom_allReduce_"

case_ "kernels --steps on a DB: STEP_TIME windows"
vp kernels --by core -f csv --steps 2 dbonly/w0_ascend_pt
expect_status 0
expect_stdout_has ",AI_CORE"
vp kernels --by core --steps 9 dbonly/w0_ascend_pt
expect_status 0
expect_stderr_has "selects none of the steps present (Step Id 1 to 2)"

case_ "summary: the DB-only run gives the trace run's metrics, byte for byte (op names from STRING_IDS)"
vp summary -f json gen
expect_status 0
cp "$OUT_STDOUT" trace-summary.json
vp summary -f json dbonly
expect_status 0
expect_stdout_file trace-summary.json
expect_stdout_has '5339366,16,"compute","aclnnMatmul_MatMulV3Common_MatMulV3"]'
expect_stdout_has '["comm.total",16402205,"ns"]'
vp summary -f json -j 2 dbonly/w0_ascend_pt dbonly/w1_ascend_pt
expect_status 0
expect_stdout_file trace-summary.json
vp summary --save-part dbonly.vpart dbonly
expect_status 0
vp reduce -f json dbonly.vpart
expect_stdout_file trace-summary.json

case_ "diff of the trace run and the DB-only run: no kernel changed; check --baseline with --tolerance 0 passes"
vp_tables "kernels classes metrics" diff -f csv gen dbonly
expect_status 0
grep -E ',(aclnn|hcom)' "$OUT_STDOUT" > kdiff.csv
if [ "$(wc -l < kdiff.csv)" -ge 12 ] && awk -F, '$3 != 0 { bad = 1 } END { exit bad }' kdiff.csv; then pass; else fail "a kernel delta is not 0: $(cat kdiff.csv)"; fi
vp check --baseline trace-summary.json --tolerance 0 dbonly
expect_status 0
vp check --expect 'comm.total == 16402205ns' --expect 'comm.exposed == 10336894ns' dbonly
expect_status 0

case_ "summary on the real msprof_0.db alone: its 11 AI_VECTOR_CORE tasks, no steps"
vp_tables "run gpu_time top_kernels findings" summary -f csv "$DB"
expect_status 0
expect_stdout_has "92.2,612092,1,compute,aclnnInplaceZero_ZerosLikeAiCore_ZerosLike"
expect_stdout_has "Ascend NPU,,1,0,,,"
expect_stdout_has "141528608,0.67,0.47,0.00,0.00,99.33,"

# ---- analysis.db, and what is not an msprof DB ----

python3 - <<'PY'
import sqlite3
c = sqlite3.connect("analysis.db")
c.execute("CREATE TABLE StepTraceTime (deviceId INTEGER, step TEXT, computing REAL, "
          "communication_not_overlapped REAL, overlapped REAL, communication REAL, free REAL, "
          "stage REAL, bubble REAL, communication_not_overlapped_and_exclude_receive REAL, "
          "preparing REAL)")
c.execute("INSERT INTO StepTraceTime VALUES (0, '2', 75174.57464453117, 14300.1, 6987.303, "
          "21287.403, 202223.423, 291698.098, 0, 14300.1, 12.5)")
c.commit()
c = sqlite3.connect("other.db")
c.execute("CREATE TABLE things (a INTEGER)")
c.commit()
PY
printf 'SQLite format 3\000this is not a database at all, only its magic........' >broken.db
head -c 4096 /dev/zero >>broken.db

case_ "steps on analysis.db: StepTraceTime's µs as ns, exactly"
vp steps -f csv analysis.db
expect_status 0
expect_stdout_has "2,rank,0,75174575,14300100,6987303,21287403,202223423,291698098,0,14300100,12500"
vp steps analysis.db
expect_status 0
expect_stdout_has "note: read from analysis.db's StepTraceTime"

case_ "kernels on analysis.db: it has no tasks, said so, exit 3"
vp kernels analysis.db
expect_status 3
expect_stderr_has "analysis.db: an analysis.db (communication and step_trace_time only), so it has no device tasks (no table TASK)"

case_ "summary on analysis.db: no device tasks, exit 3"
vp summary analysis.db
expect_status 3
expect_stderr_has "analysis.db: an analysis.db (communication and step_trace_time only), so it has no device tasks"

case_ "a database that is not an msprof one: the file and the tables looked for, exit 3"
vp steps other.db
expect_status 3
expect_stderr_has "other.db: an SQLite database, but not an msprof or torch_npu export: no table TASK with STRING_IDS"
vp kernels other.db
expect_status 3
expect_stderr_has "not an msprof or torch_npu export"

case_ "a file with SQLite's magic that is not a database: exit 3 with SQLite's reason"
vp kernels broken.db
expect_status 3
expect_stderr_has "broken.db: SQLite:"

case_ "the DB is opened read-only and immutable: a read-only copy reads, and is left unchanged"
cp "$DB" ro.db
chmod 444 ro.db
sum1=$(cksum <ro.db)
vp kernels -q ro.db
expect_status 0
[ "$sum1" = "$(cksum <ro.db)" ] && pass || fail "the DB changed"
[ ! -e ro.db-journal ] && [ ! -e ro.db-wal ] && pass || fail "a journal or WAL was written"
