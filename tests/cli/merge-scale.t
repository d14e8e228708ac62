# vprof merge -j (docs/merge.md, docs/scale.md): worker processes copy one
# rank each into a part, the parent appends the parts in input order; the
# output is the same bytes for every -j, plain and gzip (a gzip member per
# rank, whatever -j), valid JSON, and `vprof kernels --by rank` on it is
# the same table.
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
H=$DATA/hta
GEN=$(cd "$(dirname "$T")/../../scripts" && pwd)/gen-trace
cd "$WORK" || exit 1
mkdir -p gen
for r in 4 5 6 7; do
    python3 "$GEN" "gen/rank$r.json.gz" --size-mib 0.3 --ranks 8 --rank $r --nccl \
        --steps 3 2>/dev/null || { echo "gen-trace failed"; exit 1; }
done
# Ranks whose rank and clock base come after the events, the bases
# different: a worker's guess of the merged clock is wrong for rank 1 and
# the parent copies it again.
python3 - <<'PY'
import json
def trace(path, rank, base, ts0):
    evs = [{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0,
            "tid": 7, "ts": ts0 + 10, "dur": 5.25, "args": {"device": 0, "stream": 7}},
           {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 4242, "tid": 4242, "ts": ts0},
           {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 0, "tid": 7, "ts": ts0 + 10, "bp": "e"},
           {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python3"}}]
    d = {"schemaVersion": 1, "traceEvents": evs, "distributedInfo": {"rank": rank},
         "deviceProperties": [{"name": "GPU %d" % rank}], "displayTimeUnit": "ms",
         "baseTimeNanoseconds": base}
    with open(path, "w") as f:
        json.dump(d, f, indent=1)
trace("a_rank7.json", 0, 1711964646000000000, 1000.5)
trace("b_rank9.json", 1, 1711964646002000000, 1000.5)
trace("c_rank5.json", 2, 1711964646000000000, 2000.5)
PY
REAL="$H/trace_filter_rank-0.json.gz $H/trace_filter_rank-1.json.gz"
GENS="gen/rank4.json.gz gen/rank5.json.gz gen/rank6.json.gz gen/rank7.json.gz"
SYN="a_rank7.json b_rank9.json c_rank5.json"

# same_bytes NAME ARGS...: merge -o jJ-NAME with -j 1, 2 and 3; the outputs
# must be the same bytes (compressed bytes too for .gz) and JSON.
same_bytes() {
    local name=$1
    shift
    local j
    for j in 1 $WORKER_COUNTS; do
        vp merge -q -j $j -o "j$j-$name" "$@"
        expect_status 0
        expect_same_files "-j 1 and -j $j" "j1-$name" "j$j-$name"
    done
    case $name in
    *.gz)
        if gzip -t "j3-$name"; then pass; else fail "gzip -t refuses the -j 3 output"; fi
        gzip -dc <"j3-$name" >"j3-$name.json";;
    *) cp "j3-$name" "j3-$name.json";;
    esac
    if python3 -m json.tool "j3-$name.json" >/dev/null; then pass; else fail "not JSON"; fi
}

# shellcheck disable=SC2086
{
case_ "real trace_filter ranks, plain: the same bytes for -j 1, 2, 3"
same_bytes real.json $REAL
case_ "real ranks, gzip: the same compressed bytes"
same_bytes real.json.gz $REAL
if gzip -dc j1-real.json.gz | cmp -s - j1-real.json; then pass; else
    fail "gzip output does not decompress to the plain output"; fi
case_ "the plain output equals the one-process merge of before (-j 1 without parts)"
vp merge -q -j 1 -o - $REAL
expect_stdout_file j1-real.json

case_ "generated ranks and real ones, plain and gzip"
same_bytes mix.json $GENS $REAL
same_bytes mix.json.gz $GENS $REAL
case_ "kernels --by rank on the -j 3 merge equals the inputs' table"
vp kernels --by rank -f csv -j 1 $GENS $REAL
cp "$OUT_STDOUT" inputs.csv
vp kernels --by rank -f csv -j 1 j3-mix.json
expect_status 0
expect_stdout_file inputs.csv
vp kernels --by rank -f csv -j 1 j3-mix.json.gz
expect_stdout_file inputs.csv

case_ "clock bases after the events and different: copied again, the same bytes"
same_bytes syn.json $SYN
same_bytes syn.json.gz $SYN
vp merge -v -j 2 -o syn-v.json $SYN
expect_stderr_has "vprof: merge: b_rank9.json: rank or clock base found after the events; copying it again"
expect_stderr_has "b_rank9.json: rank 1 (from distributedInfo.rank); 4 of 4 events written, ts shifted by 2000000 ns"
if cmp -s syn-v.json j1-syn.json; then pass; else fail "-v output differs"; fi
case_ "top-level metadata written by the parent, per rank"
if python3 - j3-syn.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d["deviceProperties"]) == ["0", "1", "2"], d["deviceProperties"]
assert d["distributedInfo"]["2"] == {"rank": 2}
info = d["vprofMergeInfo"]["ranks"]
assert info["1"]["shiftNs"] == 2000000 and info["0"]["shiftNs"] == 0, info
assert d["displayTimeUnit"] == "ms" and d["baseTimeNanoseconds"] == 1711964646000000000
assert d["traceName"] == "vprof merge of a_rank7.json, b_rank9.json, c_rank5.json"
PY
then pass; else fail "metadata"; fi

case_ "--ranks, --align start, --steps, --drop: the same bytes"
same_bytes ranks.json --ranks 5-6 $GENS $REAL
same_bytes start.json.gz --align start $GENS a_rank7.json@8 b_rank9.json@9
same_bytes steps.json --steps 1:2 $GENS
same_bytes drop.json --drop cpu_op,python_function $GENS $REAL
same_bytes coll.json --align collective:4 $GENS

case_ "standard output and standard input among the inputs"
vp merge -q -j 1 -o - $GENS
cp "$OUT_STDOUT" stdout.j1
vp merge -q -j 3 -o - $GENS
expect_stdout_file stdout.j1
"$VPROF" merge -q -j 3 -o - -- gen/rank4.json.gz -@5 gen/rank6.json.gz gen/rank7.json.gz \
    <gen/rank5.json.gz >"$OUT_STDOUT" 2>"$OUT_STDERR"
STATUS=$?
expect_status 0
if python3 -m json.tool "$OUT_STDOUT" >/dev/null; then pass; else fail "not JSON"; fi

case_ "a truncated input: exit 3, nothing written, with any -j"
gzip -dc gen/rank6.json.gz | head -c 100000 >cut.json
for j in 1 3; do
    rm -f out.json
    vp merge -j $j -o out.json gen/rank4.json.gz gen/rank5.json.gz cut.json gen/rank7.json.gz
    expect_status 3
    expect_stderr_has "cut.json"
    if [ ! -e out.json ] && [ -z "$(ls -A . | grep vprof)" ]; then pass; else
        fail "left files behind: $(ls -A)"; fi
done
case_ "--partial: the same bytes"
same_bytes partial.json --partial gen/rank4.json.gz cut.json gen/rank7.json.gz

case_ "two inputs of one rank: the same error with any -j"
cp gen/rank5.json.gz copy-rank5.json.gz
vp merge -j 1 -o dup.json gen/rank4.json.gz gen/rank5.json.gz copy-rank5.json.gz
expect_status 3
cp "$OUT_STDERR" dup.err
vp merge -j 3 -o dup.json gen/rank4.json.gz gen/rank5.json.gz copy-rank5.json.gz
expect_status 3
if cmp -s dup.err "$OUT_STDERR"; then pass; else fail "stderr differs: $(cat "$OUT_STDERR")"; fi
}
