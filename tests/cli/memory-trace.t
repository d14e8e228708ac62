# vprof memory on traces: Kineto [memory]/[OutOfMemory] events and
# export_memory_timeline output.  df_index_resolver's peaks are the ones
# reference/memsnap.md 8.1 gives: 6,629,508,096 B allocated and
# 12,782,141,440 B reserved on cuda:1.

case_ '[memory] events: peaks, the op at the peak, OOM, a broken event'
cd "$WORK"
printf '{"traceEvents":[\n{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":7,"tid":8,"ts":99,"dur":10},\n{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":7,"tid":8,"ts":95,"dur":30},\n{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":8,"ts":100,"args":{"Device Type":1,"Device Id":0,"Addr":1,"Bytes":1024,"Total Allocated":5120,"Total Reserved":20971520,"Ev Idx":1}},\n{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":8,"ts":101.5,"args":{"Device Type":1,"Device Id":0,"Addr":2,"Bytes":4096,"Total Allocated":9216,"Total Reserved":20971520,"Ev Idx":2}},\n{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":8,"ts":120,"args":{"Device Type":1,"Device Id":0,"Addr":2,"Bytes":-4096,"Total Allocated":5120,"Total Reserved":41943040,"Ev Idx":3}},\n{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":8,"ts":130,"args":{"Device Type":0,"Device Id":-1,"Addr":3,"Bytes":64,"Total Allocated":64,"Total Reserved":0}},\n{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[OutOfMemory]","pid":7,"tid":8,"ts":140,"args":{"Device Type":1,"Device Id":0,"Bytes":85899345920,"Total Allocated":5120,"Total Reserved":41943040}},\n{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":7,"tid":8,"ts":150,"args":{"Device Type":1,"Device Id":0}}\n]}' > mem.json
vp memory mem.json
expect_status 0
expect_stdout <<'END'
== memory ==
Device  Events  Peak Allocated  Peak Since Start  Peak Op      Peak Reserved  Final Allocated  Final Reserved
------  ------  --------------  ----------------  -----------  -------------  ---------------  --------------
cpu          1            64 B           35.0 us  -                      0 B             64 B             0 B
cuda:0       3        9.00 KiB           6.50 us  aten::empty       40.0 MiB         5.00 KiB        40.0 MiB

== out_of_memory ==
Device  Since Start  Requested  Allocated  Reserved
------  -----------  ---------  ---------  --------
cuda:0      45.0 us   80.0 GiB   5.00 KiB  40.0 MiB
END
expect_stderr <<'END'
vprof: warning: mem.json: 1 [memory] events without Device Type, Device Id, Bytes and the totals were skipped
END

case_ 'csv, exact bytes and ns'
cd "$WORK"
vp_tables "memory out_of_memory" memory -f csv mem.json
expect_status 0
expect_stdout <<'END'
Device,Events,Peak Allocated (B),Peak ts (ns),Peak Since Start (ns),Peak Op,Peak Reserved (B),Final Allocated (B),Final Reserved (B)
cpu,1,64,130000,35000,,0,64,0
cuda:0,3,9216,101500,6500,aten::empty,41943040,5120,41943040

Device,ts (ns),Since Start (ns),Requested (B),Allocated (B),Reserved (B)
cuda:0,140000,45000,85899345920,5120,41943040
END
expect_stderr <<'END'
vprof: warning: mem.json: 1 [memory] events without Device Type, Device Id, Bytes and the totals were skipped
END

case_ 'timeline of one device'
cd "$WORK"
vp memory --timeline --device 0 -f csv mem.json
expect_status 0
expect_stdout <<'END'
Device,ts (ns),Since Start (ns),Bytes (B),Allocated (B),Reserved (B)
cuda:0,100000,5000,1024,5120,20971520
cuda:0,101500,6500,4096,9216,20971520
cuda:0,120000,25000,-4096,5120,41943040
END
expect_stderr <<'END'
vprof: warning: mem.json: 1 [memory] events without Device Type, Device Id, Bytes and the totals were skipped
END

case_ 'standard input, gzip'
cd "$WORK"
gzip -c mem.json > mem.json.gz
vp_tables "memory out_of_memory" memory -f csv - <mem.json.gz
expect_status 0
expect_stdout <<'END'
Device,Events,Peak Allocated (B),Peak ts (ns),Peak Since Start (ns),Peak Op,Peak Reserved (B),Final Allocated (B),Final Reserved (B)
cpu,1,64,130000,35000,,0,64,0
cuda:0,3,9216,101500,6500,aten::empty,41943040,5120,41943040

Device,ts (ns),Since Start (ns),Requested (B),Allocated (B),Reserved (B)
cuda:0,140000,45000,85899345920,5120,41943040
END
expect_stderr <<'END'
vprof: warning: standard input: 1 [memory] events without Device Type, Device Id, Bytes and the totals were skipped
END

case_ 'stacks need a snapshot'
cd "$WORK"
vp memory --by site mem.json
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: memory: --by site, --stack, --all-frames and --leaks need a snapshot: mem.json is a trace, which has no stacks
Try 'vprof help memory'.
END

case_ 'export_memory_timeline raw form'
cd "$WORK"
printf '[[-1, 1, 1000, 0], [-1, 1, 500, 1], [10, 2, 300, 4], [20, 2, 200, 4], [20, 3, -100, 5], [20, 3, 100, 5], [30, 4, -300, 4], [40, 2, 50, 3], [50, 4, -200, 4]]' > mt.raw.json
vp memory -f csv mt.raw.json
expect_status 0
expect_stdout <<'END'
Category,At Peak (B),Category Peak (B)
parameter,1000,1000
optimizer state,500,500
input,0,0
temporary,0,50
activation,500,500
gradient,0,0
autograd detail,0,0
unknown,0,0
total,2000,
END
expect_stderr <<'END'
END

case_ 'export_memory_timeline raw form, table'
cd "$WORK"
vp memory mt.raw.json
expect_status 0
expect_stdout <<'END'
Category          At Peak  Category Peak
---------------  --------  -------------
parameter          1000 B         1000 B
optimizer state     500 B          500 B
input                 0 B            0 B
temporary             0 B           50 B
activation          500 B          500 B
gradient              0 B            0 B
autograd detail       0 B            0 B
unknown               0 B            0 B
total            1.95 KiB              -
note: peak at ts 20 ns (point 4 of 9, from the raw [t_ns, action, bytes, category] list)
END
expect_stderr <<'END'
END

case_ 'export_memory_timeline raw form, timeline'
cd "$WORK"
vp memory --timeline -f csv mt.raw.json
expect_status 0
expect_stdout <<'END'
ts (ns),Total (B)
-1,1000
-1,1500
10,1800
20,2000
20,1900
20,2000
30,1700
40,1750
50,1550
END
expect_stderr <<'END'
END

case_ 'export_memory_timeline [times, sizes] form, gzip'
cd "$WORK"
printf '[[0.0, 0.01, 0.02, 0.03], [[0, 1000, 500, 0, 0, 300, 0, 0, 0], [0, 1000, 500, 0, 0, 500, 0, 0, 0], [0, 1000, 500, 0, 0, 200, 0, 0, 0], [0, 1000, 500, 0, 50, 0, 0, 0, 0]]]' | gzip -c > mt.json.gz
vp memory -f csv mt.json.gz
expect_status 0
expect_stdout <<'END'
Category,At Peak (B),Category Peak (B)
parameter,1000,1000
optimizer state,500,500
input,0,0
temporary,0,50
activation,500,500
gradient,0,0
autograd detail,0,0
unknown,0,0
total,2000,
END
expect_stderr <<'END'
END

case_ 'memory timeline: a category out of range'
cd "$WORK"
printf '[[1, 2, 3, 9]]' > bad.raw.json
vp memory bad.raw.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: bad.raw.json: byte 13: a category outside 0..7
END

case_ 'memory timeline: cut short'
cd "$WORK"
printf '[[1, 2, 3, 0], [4, 5' > cut.raw.json
vp memory cut.raw.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: cut.raw.json: byte 19: expected a number
END

case_ 'memory timeline: sizes and times differ'
cd "$WORK"
printf '[[1.0, 2.0], [[0,1,2,3,4,5,6,7,8]]]' > odd.json
vp memory odd.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: odd.json: byte 34: fewer sizes than times
END

case_ 'trace cut inside an event'
cd "$WORK"
head -c 200 mem.json > cut.json
vp memory cut.json
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: cut.json: byte 180 (line 4, column 1): the input ends at byte 200, inside the event that starts here (a truncated file? events read: 2; --partial uses them)
END

case_ "--plot draws allocated and reserved per device"
cd "$WORK"
vp_tables "memory out_of_memory" memory -q --plot m.svg -f csv mem.json
expect_status 0
if [ "$(grep -c '<polyline' m.svg)" = 4 ] && grep -q 'peak 9.00 KiB allocated (cuda:0)' m.svg &&
   grep -q 'cpu allocated, - - reserved' m.svg && tail -1 m.svg | grep -q '^</svg>$'
then pass; else fail "m.svg is not the expected chart"; fi

case_ "df_index_resolver: 28,010 [memory] events"
need_shared fixtures/real/hta/tests/data/df_index_resolver/df_index_resolver.json.gz
vp memory -f csv "$SHARED/fixtures/real/hta/tests/data/df_index_resolver/df_index_resolver.json.gz"
expect_status 0
expect_stdout <<'END'
Device,Events,Peak Allocated (B),Peak ts (ns),Peak Since Start (ns),Peak Op,Peak Reserved (B),Final Allocated (B),Final Reserved (B)
cpu,1240,8,1669783687405327000,53083000,CompiledFunction,0,0,0
cuda:1,26770,6629508096,1669783687579130000,226886000,aten::empty,12782141440,4096614400,12782141440
END

case_ "df_index_resolver: the report's peaks are summary's and vprof memory's"
# Not under valgrind (a minute there): report.t's [memory] case takes the
# same paths on a small trace.
if [ "${VPROF_VALGRIND:-}" != 1 ]; then
    DF=$SHARED/fixtures/real/hta/tests/data/df_index_resolver/df_index_resolver.json.gz
    vp summary -q -f json "$DF"
    expect_status 0
    cp "$OUT_STDOUT" ms.json
    vp report -q -f json "$DF"
    expect_status 0
    cp "$OUT_STDOUT" mr.json
    python3 - ms.json mr.json <<'P' >"$OUT_STDOUT"
import json, sys
s, r = (json.load(open(f))["tables"] for f in sys.argv[1:3])
print("summary", *s["memory"]["rows"][0])
print("report", *r["memory"]["rows"][0])
for row in r["memory_events"]["rows"]:
    print(row[0], row[1], row[2], row[6])
P
    expect_stdout <<'END'
summary 6629508096 12782141440
report 6629508096 12782141440
cpu 1240 8 0
cuda:1 26770 6629508096 12782141440
END
fi
