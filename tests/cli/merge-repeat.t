# vprof merge's gzip output is the same bytes run after run (docs/merge.md):
# ISA-L's deflate once chose a stream's hash slots by the address of its
# state, which ASLR moves from run to run, and about one member in 4,000
# came out 1-3 bytes longer (src/io/sink.c, ISAL_PRIME).  Eight small ranks,
# a member each (about 1 in 1,000 of these was hit); the same merge 200
# times, 100 with -j 1 and 100 with -j 2 (under valgrind 3 each, for
# memory errors only): one digest.
cd "$WORK" || exit 1
for r in 0 1 2 3 4 5 6 7; do
    {
        printf '{"schemaVersion": 1, "distributedInfo": {"rank": %d}, "traceEvents": [\n' $r
        for i in 0 1 2; do
            printf '{"ph": "X", "cat": "kernel", "name": "k%d_r%d", "pid": 0, "tid": 7, "ts": %d, "dur": 5, "args": {"stream": 7}},\n' \
                $i $r $((1000 + 10 * i))
        done
        printf '{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python3"}}]}\n'
    } >"r$r.json"
done
RANKS="r0.json r1.json r2.json r3.json r4.json r5.json r6.json r7.json"
if [ "${VPROF_VALGRIND:-}" = 1 ]; then RUNS=3; else RUNS=100; fi

# shellcheck disable=SC2086
for j in 1 2; do
    case_ "merge -j $j -o m.json.gz of the same inputs $RUNS times: one digest"
    vp merge -q -j $j -o "first-j$j.json.gz" $RANKS
    expect_status 0
    differ=0
    for _ in $(seq 2 $RUNS); do
        if [ "${VPROF_VALGRIND:-}" = 1 ]; then
            vp merge -q -j $j -o again.json.gz $RANKS
        else
            "$VPROF" merge -q -j $j -o again.json.gz $RANKS
        fi
        cmp -s "first-j$j.json.gz" again.json.gz || { differ=$((differ + 1)); cp again.json.gz "differs-j$j.json.gz"; }
    done
    if [ $differ = 0 ]; then pass; else
        fail "$differ of $RUNS merges wrote other bytes: $(what_differs "first-j$j.json.gz" "differs-j$j.json.gz")"; fi
done
case_ "-j 1 and -j 2: the same bytes"
expect_same_files "-j 1 and -j 2" first-j1.json.gz first-j2.json.gz
