# vprof memory: options and output formats on the small snapshots in
# tests/data/memsnap (see SOURCE.md there), and bad input: refused
# opcodes, corrupt and truncated pickles, pickles that are not snapshots.

case_ "default table output, a snapshot without trace"
vp memory "$DATA/memsnap/t24_no_trace_minimal.pickle"
expect_status 0
expect_stdout <<'END'
== state ==
Device  Segments  Blocks  Reserved  Allocated  Requested  Pending Free  Inactive  Largest Inactive  Fragmentation  Rounding Waste
------  --------  ------  --------  ---------  ---------  ------------  --------  ----------------  -------------  --------------
     0        12     116   104 MiB   86.7 MiB   86.7 MiB           0 B  17.3 MiB          11.0 MiB          36.6%             0 B

== peak ==
Device  Trace Entries  Baseline  Peak Active  Peak Event  Peak Since Start  Final Active  Peak Reserved  OOMs
------  -------------  --------  -----------  ----------  ----------------  ------------  -------------  ----
     0              0  86.7 MiB     86.7 MiB          -1                 -      86.7 MiB        104 MiB     0
note: Peak Event -1: the peak is the state before the first trace event

== top_at_peak ==
Device      Size  Address      Alloc Event  Site
------  --------  -----------  -----------  ----
     0  44.7 MiB  0x8018c0000            -  -
     0  2.25 MiB  0x804ac0000            -  -
     0  2.25 MiB  0x804d00000            -  -
     0  2.25 MiB  0x804f40000            -  -
     0  2.25 MiB  0x805180000            -  -
     0  2.25 MiB  0x8053c0000            -  -
     0  2.25 MiB  0x805600000            -  -
     0  2.25 MiB  0x805840000            -  -
     0  2.25 MiB  0x805a80000            -  -
     0  2.25 MiB  0x8068c0000            -  -
note: no Alloc Event: allocated before the trace started
END
expect_stderr_empty

case_ "--by site --top 3 --leaks"
vp_tables "state peak sites_at_peak leaks" memory -f csv --by site --top 3 --leaks "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,9,20,3781165056,31719936,31719428,0,3749445120,536870912,85.7,508

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0

Device,Bytes (B),Allocations,Site
0,2694971392,7,
0,536870912,1,trace_peak_memory.py:7:custom_softmax
0,10616832,2,functional.py:407:einsum

Device,Bytes (B),Allocations,Site
0,6291456,3,
END
expect_stderr_empty

case_ "--stack 2: two Python frames per site"
vp_tables "state peak top_at_peak" memory -f csv --top 2 --stack 2 "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,9,20,3781165056,31719936,31719428,0,3749445120,536870912,85.7,508

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0

Device,Size (B),Address,Alloc Event,Site
0,536870912,0x7f20ea000000,16,trace_peak_memory.py:7:custom_softmax < trace_peak_memory.py:19:custom_scaled_dot_product_attention
0,536870912,0x7f20c4000000,40,
END
expect_stderr_empty

case_ "--all-frames: C++ frames count, the allocator's own do not"
vp_tables "state peak top_at_peak" memory -f tsv --top 1 --all-frames "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout <<'END'
Device	Segments	Blocks	Reserved (B)	Allocated (B)	Requested (B)	Pending Free (B)	Inactive (B)	Largest Inactive (B)	Fragmentation (%)	Rounding Waste (B)
0	9	20	3781165056	31719936	31719428	0	3749445120	536870912	85.7	508

Device	Trace Entries	Baseline (B)	Peak Active (B)	Peak Event	Peak Time (us since epoch)	Peak Since Start (ns)	Final Active (B)	Peak Reserved (B)	OOMs
0	97	0	3249143816	52	1772688692983308	951991000	31719428	3781165056	0

Device	Size (B)	Address	Alloc Event	Site
0	536870912	0x7f20ea000000	16	??:0:at::TensorBase at::detail::_empty_generic<long>(c10::ArrayRef<long>, c10::Allocator*, c10::DispatchKeySet, c10::ScalarType, std::optional<c10::MemoryFormat>)
END
expect_stderr_empty

case_ "--timeline -f csv"
vp memory --timeline -f csv "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout <<'END'
Device,Event,Time (us since epoch),Since Start (ns),Action,Size (B),Active (B),Reserved (B)
0,-1,,,start,,0,0
0,0,1772688692031317,0,segment_alloc,20971520,0,20971520
0,1,1772688692031319,2000,alloc,2097152,2097152,20971520
0,2,1772688692032623,1306000,alloc,2097152,4194304,20971520
0,3,1772688692032650,1333000,alloc,2097152,6291456,20971520
0,4,1772688692837906,806589000,segment_alloc,536870912,6291456,557842432
0,5,1772688692837907,806590000,alloc,536870912,543162368,557842432
0,6,1772688692852137,820820000,alloc,8519680,551682048,557842432
0,7,1772688692916358,885041000,segment_alloc,536870912,551682048,1094713344
0,8,1772688692916358,885041000,alloc,536870912,1088552960,1094713344
0,9,1772688692925903,894586000,free_requested,536870912,1088552960,1094713344
0,10,1772688692925904,894587000,free_completed,536870912,551682048,1094713344
0,11,1772688692926142,894825000,segment_alloc,2097152,551682048,1096810496
0,12,1772688692926142,894825000,alloc,131072,551813120,1096810496
0,13,1772688692926151,894834000,alloc,262144,552075264,1096810496
0,14,1772688692935174,903857000,alloc,536870912,1088946176,1096810496
0,15,1772688692943566,912249000,segment_alloc,536870912,1088946176,1633681408
0,16,1772688692943566,912249000,alloc,536870912,1625817088,1633681408
0,17,1772688692955903,924586000,free_requested,536870912,1625817088,1633681408
0,18,1772688692955904,924587000,free_completed,536870912,1088946176,1633681408
0,19,1772688692956019,924702000,alloc,131072,1089077248,1633681408
0,20,1772688692962513,931196000,alloc,536870912,1625948160,1633681408
0,21,1772688692962571,931254000,free_requested,131072,1625948160,1633681408
0,22,1772688692962571,931254000,free_completed,131072,1625817088,1633681408
0,23,1772688692962740,931423000,alloc,2097152,1627914240,1633681408
0,24,1772688692962939,931622000,free_requested,536870912,1627914240,1633681408
0,25,1772688692962939,931622000,free_completed,536870912,1091043328,1633681408
0,26,1772688692963146,931829000,alloc,4,1091043332,1633681408
0,27,1772688692963179,931862000,alloc,256,1091043588,1633681408
0,28,1772688692963182,931865000,alloc,4,1091043592,1633681408
0,29,1772688692963200,931883000,free_requested,4,1091043592,1633681408
0,30,1772688692963200,931883000,free_completed,4,1091043588,1633681408
0,31,1772688692963202,931885000,free_requested,256,1091043588,1633681408
0,32,1772688692963202,931885000,free_completed,256,1091043332,1633681408
0,33,1772688692963364,932047000,alloc,4,1091043336,1633681408
0,34,1772688692967312,935995000,alloc,2097152,1093140488,1633681408
0,35,1772688692967358,936041000,alloc,2097152,1095237640,1633681408
0,36,1772688692974409,943092000,alloc,8519680,1103757320,1633681408
0,37,1772688692974655,943338000,free_requested,2097152,1103757320,1633681408
0,38,1772688692974655,943338000,free_completed,2097152,1101660168,1633681408
0,39,1772688692974836,943519000,segment_alloc,536870912,1101660168,2170552320
0,40,1772688692974837,943520000,alloc,536870912,1638531080,2170552320
0,41,1772688692974851,943534000,alloc,2097152,1640628232,2170552320
0,42,1772688692974894,943577000,free_requested,2097152,1640628232,2170552320
0,43,1772688692974894,943577000,free_completed,2097152,1638531080,2170552320
0,44,1772688692974930,943613000,free_requested,536870912,1638531080,2170552320
0,45,1772688692974931,943614000,free_completed,536870912,1101660168,2170552320
0,46,1772688692975051,943734000,alloc,536870912,1638531080,2170552320
0,47,1772688692975206,943889000,segment_alloc,536870912,1638531080,2707423232
0,48,1772688692975207,943890000,alloc,536870912,2175401992,2707423232
0,49,1772688692975346,944029000,segment_alloc,536870912,2175401992,3244294144
0,50,1772688692975346,944029000,alloc,536870912,2712272904,3244294144
0,51,1772688692983307,951990000,segment_alloc,536870912,2712272904,3781165056
0,52,1772688692983308,951991000,alloc,536870912,3249143816,3781165056
0,53,1772688692988554,957237000,free_requested,536870912,3249143816,3781165056
0,54,1772688692988555,957238000,free_completed,536870912,2712272904,3781165056
0,55,1772688692988558,957241000,free_requested,536870912,2712272904,3781165056
0,56,1772688692988558,957241000,free_completed,536870912,2175401992,3781165056
0,57,1772688692988560,957243000,free_requested,536870912,2175401992,3781165056
0,58,1772688692988560,957243000,free_completed,536870912,1638531080,3781165056
0,59,1772688692988580,957263000,alloc,536870912,2175401992,3781165056
0,60,1772688692988612,957295000,alloc,131072,2175533064,3781165056
0,61,1772688692988631,957314000,free_requested,536870912,2175533064,3781165056
0,62,1772688692988632,957315000,free_completed,536870912,1638662152,3781165056
0,63,1772688692988638,957321000,free_requested,536870912,1638662152,3781165056
0,64,1772688692988638,957321000,free_completed,536870912,1101791240,3781165056
0,65,1772688692988650,957333000,free_requested,131072,1101791240,3781165056
0,66,1772688692988650,957333000,free_completed,131072,1101660168,3781165056
0,67,1772688692988714,957397000,free_requested,131072,1101660168,3781165056
0,68,1772688692988714,957397000,free_completed,131072,1101529096,3781165056
0,69,1772688692988730,957413000,alloc,536870912,1638400008,3781165056
0,70,1772688692988739,957422000,free_requested,536870912,1638400008,3781165056
0,71,1772688692988739,957422000,free_completed,536870912,1101529096,3781165056
0,72,1772688692988754,957437000,free_requested,536870912,1101529096,3781165056
0,73,1772688692988754,957437000,free_completed,536870912,564658184,3781165056
0,74,1772688692988767,957450000,alloc,536870912,1101529096,3781165056
0,75,1772688692988778,957461000,alloc,131072,1101660168,3781165056
0,76,1772688692988786,957469000,free_requested,536870912,1101660168,3781165056
0,77,1772688692988786,957469000,free_completed,536870912,564789256,3781165056
0,78,1772688692988837,957520000,alloc,536870912,1101660168,3781165056
0,79,1772688693001122,969805000,free_requested,131072,1101660168,3781165056
0,80,1772688693001122,969805000,free_completed,131072,1101529096,3781165056
0,81,1772688693001131,969814000,free_requested,262144,1101529096,3781165056
0,82,1772688693001132,969815000,free_completed,262144,1101266952,3781165056
0,83,1772688693001169,969852000,free_requested,536870912,1101266952,3781165056
0,84,1772688693001169,969852000,free_completed,536870912,564396040,3781165056
0,85,1772688693001186,969869000,alloc,536870912,1101266952,3781165056
0,86,1772688693001199,969882000,free_requested,536870912,1101266952,3781165056
0,87,1772688693001199,969882000,free_completed,536870912,564396040,3781165056
0,88,1772688693001239,969922000,alloc,2097152,566493192,3781165056
0,89,1772688693001295,969978000,alloc,2097152,568590344,3781165056
0,90,1772688693001307,969990000,free_requested,536870912,568590344,3781165056
0,91,1772688693001307,969990000,free_completed,536870912,31719432,3781165056
0,92,1772688693001382,970065000,alloc,2097152,33816584,3781165056
0,93,1772688693001405,970088000,free_requested,2097152,33816584,3781165056
0,94,1772688693001405,970088000,free_completed,2097152,31719432,3781165056
0,95,1772688693001478,970161000,free_requested,4,31719432,3781165056
0,96,1772688693001479,970162000,free_completed,4,31719428,3781165056
END
expect_stderr_empty

case_ "json schema and typed values"
vp memory -f json --top 1 "$DATA/memsnap/t24_no_trace_minimal.pickle"
expect_status 0
expect_stdout <<'END'
{"schema":"vprof.memory/2","tables":{"state":{"columns":[{"name":"Device","type":"int"},{"name":"Segments","type":"int"},{"name":"Blocks","type":"int"},{"name":"Reserved (B)","type":"bytes"},{"name":"Allocated (B)","type":"bytes"},{"name":"Requested (B)","type":"bytes"},{"name":"Pending Free (B)","type":"bytes"},{"name":"Inactive (B)","type":"bytes"},{"name":"Largest Inactive (B)","type":"bytes"},{"name":"Fragmentation (%)","type":"percent"},{"name":"Rounding Waste (B)","type":"bytes"}],"rows":[[0,12,116,109051904,90861056,90861056,0,18190848,11534336,36.59264262996425,0]],"notes":[]},"peak":{"columns":[{"name":"Device","type":"int"},{"name":"Trace Entries","type":"int"},{"name":"Baseline (B)","type":"bytes"},{"name":"Peak Active (B)","type":"bytes"},{"name":"Peak Event","type":"int"},{"name":"Peak Time (us since epoch)","type":"int"},{"name":"Peak Since Start (ns)","type":"ns"},{"name":"Final Active (B)","type":"bytes"},{"name":"Peak Reserved (B)","type":"bytes"},{"name":"OOMs","type":"int"}],"rows":[[0,0,90861056,90861056,-1,null,null,90861056,109051904,0]],"notes":["Peak Event -1: the peak is the state before the first trace event"]},"top_at_peak":{"columns":[{"name":"Device","type":"int"},{"name":"Size (B)","type":"bytes"},{"name":"Address","type":"text"},{"name":"Alloc Event","type":"int"},{"name":"Site","type":"text"}],"rows":[[0,46881792,"0x8018c0000",null,null]],"notes":["no Alloc Event: allocated before the trace started"]}}}
END
expect_stderr_empty

case_ "snapshot on standard input"
vp_tables "state peak top_at_peak" memory -f csv --top 1 - <"$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,9,20,3781165056,31719936,31719428,0,3749445120,536870912,85.7,508

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0

Device,Size (B),Address,Alloc Event,Site
0,536870912,0x7f20ea000000,16,trace_peak_memory.py:7:custom_softmax
END
expect_stderr_empty

case_ "--device selects one device"
vp memory -f md --top 1 --device 0 "$DATA/memsnap/t24_no_trace_minimal.pickle"
expect_status 0
expect_stdout <<'END'
### state

| Device | Segments | Blocks | Reserved | Allocated | Requested | Pending Free | Inactive | Largest Inactive | Fragmentation | Rounding Waste |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| 0 | 12 | 116 | 104 MiB | 86.7 MiB | 86.7 MiB | 0 B | 17.3 MiB | 11.0 MiB | 36.6% | 0 B |

### peak

| Device | Trace Entries | Baseline | Peak Active | Peak Event | Peak Since Start | Final Active | Peak Reserved | OOMs |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| 0 | 0 | 86.7 MiB | 86.7 MiB | -1 | - | 86.7 MiB | 104 MiB | 0 |

- note: Peak Event -1: the peak is the state before the first trace event

### top_at_peak

| Device | Size | Address | Alloc Event | Site |
| ---: | ---: | --- | ---: | --- |
| 0 | 44.7 MiB | 0x8018c0000 | - | - |

- note: no Alloc Event: allocated before the trace started
END
expect_stderr_empty

case_ "GLOBAL refused (what pickle.dumps(os.system) starts with)"
printf '\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.' > global.pkl
vp memory global.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: global.pkl: byte 2: pickle opcode GLOBAL refused: snapshots never need it, and running it could execute code
END

case_ "REDUCE refused"
printf '\x80\x04N)R.' > reduce.pkl
vp memory reduce.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: reduce.pkl: byte 4: pickle opcode REDUCE refused: snapshots never need it, and running it could execute code
END

case_ "STACK_GLOBAL refused"
printf '\x80\x04\x8c\x02os\x8c\x06system\x93.' > sg.pkl
vp memory sg.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: sg.pkl: byte 14: pickle opcode STACK_GLOBAL refused: snapshots never need it, and running it could execute code
END

case_ "BUILD refused"
printf '\x80\x04}}b.' > build.pkl
vp memory build.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: build.pkl: byte 4: pickle opcode BUILD refused: snapshots never need it, and running it could execute code
END

case_ "memo index out of range"
printf '\x80\x04]\x94h\x05.' > memo.pkl
vp memory memo.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: memo.pkl: byte 4: memo index 5 out of range (1 entries)
END

case_ "length prefix past the end"
printf '\x80\x02X\x00\x00\x01\x00abc.' > long.pkl
vp memory long.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: long.pkl: byte 2: BINUNICODE length 65536 runs past the end of the input (4 bytes left)
END

case_ "truncated snapshot"
head -c 4000 "$DATA/memsnap/t24_no_trace_minimal.pickle" > trunc.pkl
vp memory trunc.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: trunc.pkl: byte 2: truncated pickle: FRAME of 5288 bytes, 3989 left
END

case_ "truncated inside the last frame"
head -c 5290 "$DATA/memsnap/t24_no_trace_minimal.pickle" > trunc2.pkl
vp memory trunc2.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: trunc2.pkl: byte 2: truncated pickle: FRAME of 5288 bytes, 5279 left
END

case_ "valid pickle, not a snapshot"
printf '\x80\x04K*.' > int.pkl
vp memory int.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: int.pkl: not a memory snapshot: top level is an int
END

case_ "valid pickle, a dict without snapshot keys"
printf '\x80\x04}\x94\x8c\x01a\x94K\x01s.' > dict.pkl
vp memory dict.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: dict.pkl: not a memory snapshot: top level is a dict without 'segments' or 'device_traces'
END

case_ "not a pickle: read as a trace, which has no [memory] events"
printf '{"traceEvents":[]}' > trace.json
vp memory trace.json
expect_status 0
expect_stdout <<'END'
Device  Events  Peak Allocated  Peak Since Start  Peak Op  Peak Reserved  Final Allocated  Final Reserved
------  ------  --------------  ----------------  -------  -------------  ---------------  --------------
note: no [memory] events: record with torch.profiler.profile(profile_memory=True)
END
expect_stderr <<'END'
END

case_ "not a pickle and not JSON"
printf 'hello' > junk.bin
vp memory junk.bin
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: junk.bin: byte 0 (line 1, column 1): expected a trace: '{' (object form) or '[' (array form), found 'h'
END

case_ "empty file"
: > empty.pkl
vp memory empty.pkl
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: empty.pkl: empty input: expected a memory snapshot (a pickle) or a trace
END

case_ "missing file"
vp memory nonexistent.pickle
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: nonexistent.pickle: cannot open: No such file or directory
END

case_ "--plot to an unwritable place"
vp memory --plot /nonexistent/dir/m.svg "$DATA/memsnap/t24_no_trace_minimal.pickle"
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: cannot write /nonexistent/dir/m.svg: No such file or directory
END

case_ "usage: no file"
vp memory
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: memory: no input given (a snapshot, a trace or a memory timeline)
Try 'vprof help memory'.
END

case_ "usage: two files, --timeline (several traces: tests/cli/memory-scale.t)"
vp memory --timeline a b
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: memory: --timeline and --plot read one trace, not several (nor with --save-part or --mpi)
Try 'vprof help memory'.
END

case_ "usage: bad --top"
vp memory --top -1 a
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: memory: --top: expected a count (0 = all), found '-1'
Try 'vprof help memory'.
END

case_ "usage: bad --by"
vp memory --by stream a
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: memory: --by takes 'tensor' or 'site', not 'stream'
Try 'vprof help memory'.
END

case_ "usage: bad --stack"
vp memory --stack 0 a
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: memory: --stack needs a frame count from 1 to 1000, not '0'
Try 'vprof help memory'.
END

case_ "usage: a device that is not there"
cp "$DATA/memsnap/t24_no_trace_minimal.pickle" small.pkl
vp memory --device 7 small.pkl
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: memory: small.pkl has no device 7 (it has 1 device with data)
END

case_ "--plot writes a self-contained SVG, peak marked, and still prints the tables"
vp_tables "state peak top_at_peak" memory -q --plot m.svg -f csv --top 1 "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stderr_empty
if head -2 m.svg | grep -q '<svg xmlns="http://www.w3.org/2000/svg"' && [ "$(grep -c '<polyline' m.svg)" = 2 ] &&
   grep -q 'peak 3.03 GiB (device 0, event 52)' m.svg && ! grep -q '<script' m.svg && tail -1 m.svg | grep -q '^</svg>$'
then pass; else fail "m.svg is not the expected chart"; fi
expect_stdout_has "0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0"
