# --mpi (docs/scale.md): mpirun -n 2 over the real trace_filter ranks and
# generated ones prints the bytes one process prints.  Skipped (77) when
# vprof was built without MPI or mpirun is missing.
"$VPROF" --version | grep -q '^mpi: built' || { echo "vprof built without MPI: skipped"; exit 77; }
command -v mpirun >/dev/null || { echo "no mpirun: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
H=$DATA/hta
GEN=$(cd "$(dirname "$T")/../../scripts" && pwd)/gen-trace
mkdir -p "$WORK/gen"
for r in 0 1 2; do
    python3 "$GEN" "$WORK/gen/rank$r.json.gz" --size-mib 0.3 --ranks 3 --rank $r --nccl \
        --steps 3 2>/dev/null || { echo "gen-trace failed"; exit 1; }
done
FILES="$H/trace_filter_rank-0.json.gz $H/trace_filter_rank-1.json.gz $(echo "$WORK"/gen/rank*.json.gz)"
# Open MPI refuses root without these; --oversubscribe: 2 processes on any machine.
MPIRUN="mpirun -n 2"
if mpirun --version 2>/dev/null | grep -qi 'open mpi'; then
    MPIRUN="mpirun -n 2 --oversubscribe --allow-run-as-root --mca btl self,vader"
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
gzip -dc "$WORK/gen/rank2.json.gz" | head -c 50000 >"$WORK/cut-m.json"

# mpi_same ARGS...: mpirun -n 2 vprof ARGS --mpi prints what vprof ARGS prints.
mpi_same() {
    vp "$@"
    cp "$OUT_STDOUT" "$WORK/one.out"
    local s1=$STATUS
    # shellcheck disable=SC2086
    $MPIRUN "$VPROF" "$@" --mpi >"$OUT_STDOUT" 2>"$OUT_STDERR"
    STATUS=$?
    no_double_prefix
    if [ "$STATUS" = "$s1" ]; then pass; else
        fail "mpirun: status $STATUS, one process: $s1"; sed 's/^/  stderr: /' "$OUT_STDERR" >&2; fi
    if [ -s "$WORK/one.out" ] && cmp -s "$WORK/one.out" "$OUT_STDOUT"; then pass; else
        fail "mpirun: stdout differs from one process"; diff "$WORK/one.out" "$OUT_STDOUT" | head -5 >&2; fi
}

# shellcheck disable=SC2086
{
case_ "kernels --by rank,class -f csv under mpirun -n 2"
mpi_same kernels --by rank,class -f csv $FILES
case_ "kernels --steps :-1 -f json under mpirun -n 2"
mpi_same kernels --steps :-1 -f json $FILES
case_ "comm under mpirun -n 2"
mpi_same comm $FILES
case_ "steps --per-rank -f csv under mpirun -n 2"
mpi_same steps --per-rank -f csv $FILES
case_ "summary -f json under mpirun -n 2"
mpi_same summary -f json $FILES
case_ "check with a failing gate under mpirun -n 2: status 1 from rank 0"
mpi_same check --fail-if 'kernels.count < 1000000' $FILES
case_ "one input for two processes"
mpi_same kernels -f csv "$H/trace_filter_rank-0.json.gz"
case_ "a glob each process expands"
vp kernels -f csv $FILES
cp "$OUT_STDOUT" "$WORK/all.out"
$MPIRUN "$VPROF" kernels -f csv --mpi "$H/trace_filter_rank-*.json.gz" "$WORK/gen/rank*.json.gz" \
    >"$OUT_STDOUT" 2>"$OUT_STDERR"
STATUS=$?
expect_status 0
expect_stdout_file "$WORK/all.out"
case_ "--save-part %r under mpirun: a partial per process, reduce = one run"
$MPIRUN "$VPROF" comm --mpi --save-part "$WORK/c%r.vpart" $FILES >"$OUT_STDOUT" 2>"$OUT_STDERR"
STATUS=$?
expect_status 0
vp comm $FILES
cp "$OUT_STDOUT" "$WORK/comm.out"
vp reduce "$WORK/c0.vpart" "$WORK/c1.vpart"
expect_stdout_file "$WORK/comm.out"
case_ "memory over several traces under mpirun -n 2"
for r in 0 1 2; do
    printf '{"traceEvents":[\n{"ph":"i","s":"t","name":"[memory]","pid":%d,"tid":1,"ts":%d,"args":{"Device Type":1,"Device Id":%d,"Bytes":%d,"Total Allocated":%d,"Total Reserved":4194304,"Ev Idx":1}}\n]}\n' \
        $r $((100 - r)) $((r % 2)) $((1000 + r)) $((1000 + r)) >"$WORK/mem$r.json"
done
mpi_same memory -f csv "$WORK/mem0.json" "$WORK/mem1.json" "$WORK/mem2.json" $FILES
case_ "--local on one node: the node's files (a glob, a missing name skipped) as one process"
vp kernels --by rank -f csv $FILES
cp "$OUT_STDOUT" "$WORK/local-one.out"
$MPIRUN "$VPROF" kernels --by rank -f csv --local "$H/trace_filter_rank-*.json.gz" \
    "$WORK/gen/rank*.json.gz" "$WORK/not-on-this-node.json" >"$OUT_STDOUT" 2>"$OUT_STDERR"
STATUS=$?
expect_status 0
expect_stdout_file "$WORK/local-one.out"
case_ "--local when no node has any file: exit 3"
$MPIRUN "$VPROF" comm --local "$WORK/none*.json" >"$OUT_STDOUT" 2>"$OUT_STDERR"
STATUS=$?
if [ "$STATUS" != 0 ]; then pass; else fail "mpirun exited 0"; fi
expect_stderr_has "--local: no node has any of the files named"
case_ "merge --mpi: the bytes of one process, plain and gzip (a member per rank)"
MFILES="$(echo "$WORK"/gen/rank*.json.gz) $H/trace_filter_rank-0.json.gz@3 $H/trace_filter_rank-1.json.gz@4"
# mpi_merge OUT: the one-process merge into one-OUT, mpirun's into mpi-OUT.
mpi_merge() {
    vp merge -q -o "$WORK/one-$1" $MFILES
    expect_status 0
    $MPIRUN "$VPROF" merge -q --mpi -o "$WORK/mpi-$1" $MFILES >"$OUT_STDOUT" 2>"$OUT_STDERR"
    STATUS=$?
    expect_status 0
}
for out in m.json m.json.gz; do
    mpi_merge $out
    expect_same_files "merge and merge --mpi -o $out" "$WORK/one-$out" "$WORK/mpi-$out"
done
case_ "merge --mpi -j 2 with a glob each process expands, three processes"
# mpi3_merge: mpirun -n 3's merge into mpi3.json.gz.
mpi3_merge() {
    ${MPIRUN/-n 2/-n 3} "$VPROF" merge -q --mpi -j 2 -o "$WORK/mpi3.json.gz" "$WORK/gen/rank*.json.gz" \
        "$H/trace_filter_rank-0.json.gz@3" "$H/trace_filter_rank-1.json.gz@4" >"$OUT_STDOUT" 2>"$OUT_STDERR"
    STATUS=$?
    expect_status 0
}
mpi3_merge
expect_same_files "merge and merge --mpi -n 3" "$WORK/one-m.json.gz" "$WORK/mpi3.json.gz"
case_ "merge --mpi with a bad file: the job aborts, nothing written"
$MPIRUN "$VPROF" merge -q --mpi -o "$WORK/bad.json" "$WORK/gen/rank0.json.gz" \
    "$WORK/gen/rank1.json.gz" "$WORK/cut-m.json" >"$OUT_STDOUT" 2>"$OUT_STDERR"
STATUS=$?
if [ "$STATUS" != 0 ]; then pass; else fail "mpirun exited 0"; fi
expect_stderr_has "cut-m.json"
if [ ! -e "$WORK/bad.json" ]; then pass; else fail "bad.json written"; fi
case_ "a bad file: the process names it and the job aborts"
head -c 20000 "$WORK/gen/rank1.json.gz" >"$WORK/cut.json.gz"
$MPIRUN "$VPROF" kernels --mpi "$H/trace_filter_rank-0.json.gz" "$WORK/cut.json.gz" \
    >"$OUT_STDOUT" 2>"$OUT_STDERR"
STATUS=$?
if [ "$STATUS" != 0 ]; then pass; else fail "mpirun exited 0"; fi
expect_stderr_has "cut.json.gz"
expect_stderr_has "MPI process 1 of 2"
}
