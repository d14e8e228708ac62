# -j N, --save-part and vprof reduce (docs/scale.md, docs/partials.md):
# every multi-file command prints the same bytes, standard error included,
# for every number of workers, and a reduce of saved partial results prints
# what the command prints over the files themselves.
H=$DATA/hta
GEN=$(cd "$(dirname "$T")/../../scripts" && pwd)/gen-trace
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
mkdir -p "$WORK/gen" "$WORK/base" "$WORK/new"
for r in 0 1 2 3 4; do
    python3 "$GEN" "$WORK/gen/rank$r.json.gz" --size-mib 0.4 --ranks 5 --rank $r --nccl \
        --steps 3 2>/dev/null || { echo "gen-trace failed"; exit 1; }
done
cp "$WORK"/gen/rank[0-2].json.gz "$WORK/base/"
cp "$WORK"/gen/rank[2-4].json.gz "$WORK/new/"
# The real ranks, two traces without any rank (positions), generated ranks.
FILES="$H/trace_filter_rank-0.json.gz $H/trace_filter_rank-1.json.gz $H/amd_trace.json.gz
$H/event_sync_trace.json.gz $(echo "$WORK"/gen/rank*.json.gz)"

# same_j ARGS...: -j 2 and -j 3 give -j 1's stdout, stderr and status.
same_j() {
    vp "$@" -j 1
    cp "$OUT_STDOUT" "$WORK/j1.out"
    cp "$OUT_STDERR" "$WORK/j1.err"
    local s1=$STATUS
    if [ "$s1" = 0 ] && [ ! -s "$WORK/j1.out" ]; then fail "-j 1 printed nothing"; fi
    for j in $WORKER_COUNTS; do
        vp "$@" -j $j
        if [ "$STATUS" = "$s1" ]; then pass; else fail "-j $j: status $STATUS, -j 1: $s1"; fi
        if cmp -s "$WORK/j1.out" "$OUT_STDOUT"; then pass; else
            fail "-j $j: stdout differs from -j 1"; diff "$WORK/j1.out" "$OUT_STDOUT" | head -5 >&2; fi
        if cmp -s "$WORK/j1.err" "$OUT_STDERR"; then pass; else
            fail "-j $j: stderr differs from -j 1"; diff "$WORK/j1.err" "$OUT_STDERR" | head -5 >&2; fi
    done
}

for args in "" "--by rank,class" "--by rank,stream,device -f csv" "--steps :-1 --top 5 -f json" \
            "--sort med -f md" "--by class -f tsv" "--filter ^nccl --by rank -v"; do
    case_ "kernels $args: -j 1 = -j 2 = -j 3"
    # shellcheck disable=SC2086
    same_j kernels $args $FILES
done
for args in "" "-f csv" "--steps :-1 -f json" "--top 2 -f md" "-v -f tsv"; do
    case_ "comm $args: -j 1 = -j 2 = -j 3"
    # shellcheck disable=SC2086
    same_j comm $args $FILES
done
for args in "" "--per-rank -f csv" "--idle -f json" "--steps 1: -f md"; do
    case_ "steps $args: -j 1 = -j 2 = -j 3"
    # shellcheck disable=SC2086
    same_j steps $args $FILES
done
for args in "" "-f json" "-f md" "--steps :-1 --top 3 -f csv"; do
    case_ "summary $args: -j 1 = -j 2 = -j 3"
    # shellcheck disable=SC2086
    same_j summary $args $FILES
done
case_ "check with a failing gate: -j 1 = -j 2 = -j 3 (status 1)"
same_j check --fail-if 'step.median > 1ms' -f junit $FILES
case_ "diff of two directories of ranks: -j 1 = -j 2 = -j 3"
same_j diff -f csv "$WORK/base" "$WORK/new"
case_ "diff --by rank: -j 1 = -j 2 = -j 3"
same_j diff --by rank "$WORK/base" "$WORK/new"

# A file that fails in the middle: the same messages, in input order, and
# the files after it are not reported.
head -c 20000 "$WORK/gen/rank1.json.gz" >"$WORK/cut.json.gz"
echo '{"traceEvents": [' >"$WORK/open.json"
case_ "a truncated file among others: the same error for every -j"
same_j kernels "$H/amd_trace.json.gz" "$WORK/cut.json.gz" "$WORK/gen/rank2.json.gz" "$WORK/nope.json"
expect_status 3
expect_stderr_has "cut.json.gz"
case_ "--partial warnings in input order"
same_j comm --partial "$WORK/open.json" "$WORK/cut.json.gz" "$WORK/gen/rank2.json.gz"

case_ "-j 0 is a usage error"
vp kernels -j 0 "$H/amd_trace.json.gz"
expect_status 2
expect_stderr <<'END'
vprof: kernels: -j: expected a number of jobs from 1 to 4096, found '0'
Try 'vprof help kernels'.
END
case_ "mfu has no -j"
vp mfu -j 2 "$H/amd_trace.json.gz"
expect_status 2
expect_stderr_has "invalid option -- 'j'"

# ---- --save-part and vprof reduce ----
mkdir -p "$WORK/p" "$WORK/q"
vp kernels --by rank,class -f csv $FILES
cp "$OUT_STDOUT" "$WORK/direct.csv"
case_ "kernels --save-part with %i: one partial per file, nothing printed"
vp kernels --by rank,class --save-part "$WORK/p/%i.vpart" $FILES
expect_status 0
expect_stdout <<'END'
END
if [ -f "$WORK/p/0.vpart" ] && [ -f "$WORK/p/8.vpart" ]; then pass; else fail "no p/0.vpart .. p/8.vpart"; fi
case_ "reduce of the per-file partials = kernels over the files"
vp reduce -f csv "$WORK"/p/[0-8].vpart
expect_status 0
expect_stdout_file "$WORK/direct.csv"
case_ "reduce has no -j: it reads the partials in operand order"
vp reduce -f csv -j 2 "$WORK"/p/[0-8].vpart
expect_status 2

# A job array: each task its share of the files; with ranks from the
# files (distributedInfo, names) the --by rank table is the same.
RANKED="$H/trace_filter_rank-0.json.gz $H/trace_filter_rank-1.json.gz $(echo "$WORK"/gen/rank*.json.gz)"
vp kernels --by rank -f json $RANKED
cp "$OUT_STDOUT" "$WORK/direct.json"
set -- $RANKED
case_ "job array: three tasks, --save-part each, reduce = one run"
vp kernels --by rank --save-part "$WORK/q/task0.vpart" "$1" "$2"
expect_status 0
vp kernels --by rank --save-part "$WORK/q/task1.vpart" "$3" "$4" "$5"
vp kernels --by rank --save-part "$WORK/q/task2.vpart" "$6" "$7"
vp reduce -f json "$WORK"/q/task0.vpart "$WORK"/q/task1.vpart "$WORK"/q/task2.vpart
expect_status 0
expect_stdout_file "$WORK/direct.json"
case_ "reduce --save-part (a reduction tree), then reduce"
vp reduce --save-part "$WORK/q/t01.vpart" "$WORK"/q/task0.vpart "$WORK"/q/task1.vpart
expect_status 0
vp reduce -f json "$WORK"/q/t01.vpart "$WORK"/q/task2.vpart
expect_stdout_file "$WORK/direct.json"
case_ "reduce --top: presentation options apply to the reduce"
vp kernels --by rank --top 4 -f md $RANKED
cp "$OUT_STDOUT" "$WORK/top4.md"
vp reduce --top 4 -f md "$WORK"/q/task0.vpart "$WORK"/q/task1.vpart "$WORK"/q/task2.vpart
expect_stdout_file "$WORK/top4.md"

for cmd in comm steps summary; do
    case_ "$cmd --save-part per task, reduce = $cmd over the files"
    vp $cmd -f json $FILES
    cp "$OUT_STDOUT" "$WORK/$cmd.json"
    vp $cmd --save-part "$WORK/q/$cmd-a.vpart" $(echo $FILES | cut -d' ' -f1-4)
    expect_status 0
    vp $cmd --save-part "$WORK/q/$cmd-b.vpart" $(echo $FILES | cut -d' ' -f5-)
    vp reduce -f json "$WORK/q/$cmd-a.vpart" "$WORK/q/$cmd-b.vpart"
    expect_status 0
    expect_stdout_file "$WORK/$cmd.json"
done
case_ "check --save-part, reduce: the gate fails the same way"
vp check --fail-if 'kernels.count < 1000000' $FILES
cp "$OUT_STDOUT" "$WORK/check.out"
vp check --fail-if 'kernels.count < 1000000' --save-part "$WORK/q/check.vpart" $FILES
expect_status 0
vp reduce "$WORK/q/check.vpart"
expect_status 1
expect_stdout_file "$WORK/check.out"

case_ "reduce refuses partials made with other options"
vp kernels --save-part "$WORK/q/plain.vpart" "$1"
vp reduce "$WORK/q/task0.vpart" "$WORK/q/plain.vpart"
expect_status 3
expect_stderr <<END
vprof: reduce: $WORK/q/plain.vpart: made with other options than $WORK/q/task0.vpart ('' against '--by=rank'): its numbers would not add up
END
case_ "reduce refuses a partial of another command"
vp reduce "$WORK/q/task0.vpart" "$WORK/q/comm-a.vpart"
expect_status 3
expect_stderr <<END
vprof: reduce: $WORK/q/comm-a.vpart: a partial result of vprof comm, not of vprof kernels
END
case_ "reduce: a partial of a command that makes none (the analyses' table, vprof/analyses.h)"
printf 'VPART\r\n\032\001\003mfu\001\000\001\000' >"$WORK/q/mfu.vpart"
vp reduce "$WORK/q/mfu.vpart"
expect_status 3
expect_stderr <<END
vprof: reduce: $WORK/q/mfu.vpart: made by 'mfu', which makes no partial results
END
case_ "reduce: a partial of a command this vprof lacks"
printf 'VPART\r\n\032\001\003zzz\001\000\001\000' >"$WORK/q/zzz.vpart"
vp reduce "$WORK/q/zzz.vpart"
expect_status 3
expect_stderr <<END
vprof: reduce: $WORK/q/zzz.vpart: made by 'zzz', which this vprof does not have
END
case_ "reduce: a truncated partial"
head -c 300 "$WORK/q/task1.vpart" >"$WORK/q/cut.vpart"
vp reduce "$WORK/q/task0.vpart" "$WORK/q/cut.vpart"
expect_status 3
expect_stderr <<END
vprof: $WORK/q/cut.vpart: damaged or truncated partial result (300 bytes)
END
case_ "reduce: not a partial"
vp reduce "$H/SOURCE.md"
expect_status 3
expect_stderr <<END
vprof: $H/SOURCE.md: not a vprof partial result (no VPART header)
END
case_ "reduce: no operand"
vp reduce
expect_status 2
expect_stderr <<'END'
vprof: reduce: no partial result given (files written by --save-part)
Try 'vprof help reduce'.
END
case_ "--save-part of an Ascend directory: a partial, and reduce prints what steps does (tests/cli/ascend-scale.t)"
vp_tables "steps summary step_trace_time" steps -f csv "$DATA/ascend/run2"
cp "$OUT_STDOUT" "$WORK/q/asc.csv"
vp steps --save-part "$WORK/q/x.vpart" "$DATA/ascend/run2"
expect_status 0
vp_tables "steps summary step_trace_time" reduce -f csv "$WORK/q/x.vpart"
expect_status 0
if cmp -s "$OUT_STDOUT" "$WORK/q/asc.csv"; then pass; else fail "reduce differs from steps"; fi
