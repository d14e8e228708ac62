# vprof memory over several traces (docs/scale.md, docs/partials.md): the
# peaks per device over all of them, as one pass over the traces in turn
# (a trace that holds both files' events is the oracle); the same bytes for
# every -j; --save-part and vprof reduce; what stays single-input.
H=$DATA/hta
cd "$WORK" || exit 1
M='"ph":"i","s":"t","cat":"cpu_instant_event"'
A1='{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":100,"dur":50}'
A2='{'$M',"name":"[memory]","pid":1,"tid":1,"ts":110,"args":{"Device Type":1,"Device Id":0,"Bytes":1000,"Total Allocated":1000,"Total Reserved":2097152,"Ev Idx":1}}'
A3='{'$M',"name":"[memory]","pid":1,"tid":1,"ts":120,"args":{"Device Type":1,"Device Id":0,"Bytes":500,"Total Allocated":1500,"Total Reserved":2097152,"Ev Idx":2}}'
A4='{'$M',"name":"[memory]","pid":1,"tid":1,"ts":200,"args":{"Device Type":1,"Device Id":0,"Bytes":-500,"Total Allocated":1000,"Total Reserved":2097152,"Ev Idx":3}}'
A5='{'$M',"name":"[OutOfMemory]","pid":1,"tid":1,"ts":210,"args":{"Device Type":1,"Device Id":0,"Bytes":85899345920,"Total Allocated":1000,"Total Reserved":2097152}}'
A6='{'$M',"name":"[memory]","pid":1,"tid":1,"ts":220,"args":{"Device Type":1}}'
# b: the same peak on cuda:0 as a (1500 B) but earlier: b's event and op win
B1='{"ph":"X","cat":"cpu_op","name":"aten::add","pid":2,"tid":2,"ts":90,"dur":40}'
B2='{'$M',"name":"[memory]","pid":2,"tid":2,"ts":100,"args":{"Device Type":1,"Device Id":0,"Bytes":1500,"Total Allocated":1500,"Total Reserved":4194304,"Ev Idx":1}}'
B3='{'$M',"name":"[memory]","pid":2,"tid":2,"ts":105,"args":{"Device Type":1,"Device Id":1,"Bytes":64,"Total Allocated":64,"Total Reserved":2097152,"Ev Idx":2}}'
B4='{'$M',"name":"[memory]","pid":2,"tid":2,"ts":300,"args":{"Device Type":1,"Device Id":0,"Bytes":-1500,"Total Allocated":0,"Total Reserved":4194304,"Ev Idx":3}}'
B5='{'$M',"name":"[OutOfMemory]","pid":2,"tid":2,"ts":310,"args":{"Device Type":1,"Device Id":1,"Bytes":1073741824,"Total Allocated":64,"Total Reserved":2097152}}'
ev() { local IFS=,; printf '{"traceEvents":[\n%s\n]}\n' "$*"; }
ev "$A1" "$A2" "$A3" "$A4" "$A5" "$A6" >a.json
ev "$B1" "$B2" "$B3" "$B4" "$B5" >b.json
ev "$A1" "$A2" "$A3" "$A4" "$A5" "$A6" "$B1" "$B2" "$B3" "$B4" "$B5" >ab.json
gzip -c b.json >b.json.gz

case_ "two traces and one without [memory] events: peaks over all, earliest tie wins"
vp memory a.json b.json.gz "$H/amd_trace.json.gz"
expect_status 0
expect_stdout <<'END'
== memory ==
Device  Events  Peak Allocated  Peak Since Start  Peak Op    Peak Reserved  Final Allocated  Final Reserved
------  ------  --------------  ----------------  ---------  -------------  ---------------  --------------
cuda:0       5        1.46 KiB           10.0 us  aten::add       4.00 MiB              0 B        4.00 MiB
cuda:1       1            64 B           15.0 us  aten::add       2.00 MiB             64 B        2.00 MiB

== out_of_memory ==
Device  Since Start  Requested  Allocated  Reserved
------  -----------  ---------  ---------  --------
cuda:0       120 us   80.0 GiB     1000 B  2.00 MiB
cuda:1       220 us   1.00 GiB       64 B  2.00 MiB
END
expect_stderr <<'END'
vprof: warning: a.json: 1 [memory] events without Device Type, Device Id, Bytes and the totals were skipped
END

for f in table csv json md tsv; do
    case_ "-f $f: several traces = one trace holding their events in turn"
    vp memory -f $f ab.json
    cp "$OUT_STDOUT" "$WORK/oracle.$f"
    vp memory -f $f a.json b.json
    expect_status 0
    expect_stdout_file "$WORK/oracle.$f"
done

# same_j ARGS...: -j 2 and -j 3 give -j 1's stdout, stderr and status.
same_j() {
    vp "$@" -j 1
    cp "$OUT_STDOUT" "$WORK/j1.out"
    cp "$OUT_STDERR" "$WORK/j1.err"
    local s1=$STATUS
    for j in $WORKER_COUNTS; do
        vp "$@" -j $j
        if [ "$STATUS" = "$s1" ]; then pass; else fail "-j $j: status $STATUS, -j 1: $s1"; fi
        if cmp -s "$WORK/j1.out" "$OUT_STDOUT"; then pass; else
            fail "-j $j: stdout differs from -j 1"; diff "$WORK/j1.out" "$OUT_STDOUT" | head -5 >&2; fi
        if cmp -s "$WORK/j1.err" "$OUT_STDERR"; then pass; else
            fail "-j $j: stderr differs from -j 1"; diff "$WORK/j1.err" "$OUT_STDERR" | head -5 >&2; fi
    done
}
for args in "" "-f csv" "-f json --device 1" "-q -f md"; do
    case_ "memory $args: -j 1 = -j 2 = -j 3"
    # shellcheck disable=SC2086
    same_j memory $args a.json b.json.gz "$H/amd_trace.json.gz" b.json a.json "$H/event_sync_trace.json.gz"
done
case_ "a file that fails among others: the same error for every -j"
head -c 300 a.json >cut.json
same_j memory a.json cut.json b.json
expect_status 3
expect_stderr_has "cut.json"

case_ "--save-part of one trace, reduce = the single-trace report"
vp_tables "memory out_of_memory" memory -f csv a.json
cp "$OUT_STDOUT" "$WORK/a.csv"
cp "$OUT_STDERR" "$WORK/a.err"
vp memory --save-part a.vpart a.json
expect_status 0
expect_stdout <<'END'
END
vp_tables "memory out_of_memory" reduce -f csv a.vpart
expect_status 0
expect_stdout_file "$WORK/a.csv"
case_ "--save-part %i, reduce = memory over the files"
vp memory -f json a.json b.json.gz
cp "$OUT_STDOUT" "$WORK/ab.out"
vp memory --save-part "p%i.vpart" a.json b.json.gz
expect_status 0
vp reduce -f json p0.vpart p1.vpart
expect_status 0
expect_stdout_file "$WORK/ab.out"
case_ "reduce refuses memory partials made with another --device"
vp memory --device 1 --save-part d1.vpart b.json
vp reduce p0.vpart d1.vpart
expect_status 3
expect_stderr <<'END'
vprof: reduce: d1.vpart: made with other options than p0.vpart ('--device=1' against ''): its numbers would not add up
END

case_ "--timeline reads one trace"
vp memory --timeline a.json b.json
expect_status 2
expect_stderr <<'END'
vprof: memory: --timeline and --plot read one trace, not several (nor with --save-part or --mpi)
Try 'vprof help memory'.
END
case_ "--plot with --save-part"
vp memory --plot m.svg --save-part x.vpart a.json
expect_status 2
expect_stderr_has "--timeline and --plot read one trace"
case_ "a snapshot among traces"
vp memory "$DATA/memsnap/t24_no_trace_minimal.pickle" a.json
expect_status 2
expect_stderr <<END
vprof: memory: $DATA/memsnap/t24_no_trace_minimal.pickle is a snapshot: only traces are read several at a time (a snapshot or a memory timeline is read alone)
Try 'vprof help memory'.
END
case_ "snapshot options with several traces"
vp memory --leaks a.json b.json
expect_status 2
expect_stderr <<'END'
vprof: memory: --by site, --stack, --all-frames and --leaks need a snapshot, which is read alone
Try 'vprof help memory'.
END
case_ "standard input among several inputs"
vp memory a.json - <b.json
expect_status 2
expect_stderr <<'END'
vprof: memory: standard input is read alone, not among several inputs
Try 'vprof help memory'.
END
case_ "an Ascend profile among traces"
vp memory a.json "$DATA/ascend"
expect_status 2
expect_stderr_has "is an Ascend profile: only traces are read several at a time"
