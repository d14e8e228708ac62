# vprof memory on every memory-snapshot fixture in ../shared: the numbers
# are those of ../shared/fixtures/real/memsnap/expected.json (reserved,
# allocated, requested, inactive, baseline, peak active with its event and
# time, peak reserved, the top 3 allocations at the peak with their sites).
# The synthetic variants must give their source's numbers.
need_shared fixtures/real/memsnap/expected.json

case_ "t20_flexgen_oom_snapshot.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t20_flexgen_oom_snapshot.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,176,463,11844714496,11840159744,11840159744,0,4554752,2080768,54.3,0

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,1,11840159744,11840159744,-1,,,11840159744,11844714496,0

Device,Size (B),Address,Alloc Event,Site
0,411828224,0x7f5fa8000000,,pytorch_backend.py:190:allocate
0,134217728,0x7f5d08000000,,pytorch_backend.py:190:allocate
0,134217728,0x7f5d10000000,,pytorch_backend.py:190:allocate
END

case_ "t20_flexgen_opt13b.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t20_flexgen_opt13b.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,266,791,6658457600,3872498688,3872498160,0,2785958912,413138944,85.2,528

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,1,3881394672,3881394672,-1,,,3872498160,6658457600,0

Device,Size (B),Address,Alloc Event,Site
0,103022592,0x7f0b92000000,,pytorch_backend.py:195:allocate
0,103022592,0x7f0c9c000000,,pytorch_backend.py:195:allocate
0,33554432,0x7f0b9a000000,,pytorch_backend.py:195:allocate
END

case_ "t21_segment_list.pkl"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t21_segment_list.pkl"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
1,255,2140,3649044480,3353639424,3308174782,0,295405056,31457280,89.4,45464642

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
1,0,3308174782,3308174782,-1,,,3308174782,3649044480,0

Device,Size (B),Address,Alloc Event,Site
1,75890688,0x7f528c000000,,
1,58982400,0x7f5208000000,,
1,58982400,0x7f5212000000,,
END

case_ "t21_llm_cpp_frames.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t21_llm_cpp_frames.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,82,415,2776629248,1875182080,1874370536,0,901447168,501219328,44.4,811544

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,4496,1340706024,2409045992,4487,,,1874370536,2776629248,0

Device,Size (B),Address,Alloc Event,Site
0,500072448,0x7fe910000000,2243,linear.py:114:forward
0,500072448,0x7fe8f2000000,4486,linear.py:114:forward
0,125018112,0x7fe964000000,,
END

case_ "t22_snapshot_events.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t22_snapshot_events.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,10,54,134217728,48760832,48748928,0,85456896,20971520,75.5,11904

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,5803,8771952,108258676,759,1738780410457169,1669665000,48748928,134217728,0

Device,Size (B),Address,Alloc Event,Site
0,8519680,0x7f44f2780000,,
0,8519680,0x7f4478380000,209,
0,7864320,0x7f44f2000000,0,counterfactuals.py:102:generate_counterfactuals
END

case_ "t24_cs336_train_step.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t24_cs336_train_step.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,999,1987,23842521088,16019091968,15568596996,0,7823429120,52428800,99.3,450494972

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,19464,15568596996,22827925508,5701,1754641328430565,50261000,15568596996,23842521088,0

Device,Size (B),Address,Alloc Event,Site
0,51200000,0x7fc816000000,,optimizer.py:975:zero_grad
0,51200000,0x7fc80c000000,,optimizer.py:975:zero_grad
0,51200000,0x7fc93a000000,,adapters.py:888:step
END

case_ "t24_cs336_small_from_start.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,9,20,3781165056,31719936,31719428,0,3749445120,536870912,85.7,508

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0

Device,Size (B),Address,Alloc Event,Site
0,536870912,0x7f20ea000000,16,trace_peak_memory.py:7:custom_softmax
0,536870912,0x7f20c4000000,40,
0,536870912,0x7f2140000000,46,
END

case_ "t27_cs336_medium128_train.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t27_cs336_medium128_train.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,377,918,7235174400,6816891392,6808535044,0,418283008,41943040,90.0,8356348

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,19136,5095321600,7013335044,9966,1783874495960056,105068000,6808535044,7235174400,0

Device,Size (B),Address,Alloc Event,Site
0,40960000,0x8bbc00000,,optimizer.py:73:step
0,40960000,0x8b9400000,,optimizer.py:74:step
0,40960000,0x8b6c00000,,optimizer.py:533:wrapper
END

case_ "t27_cs336_windows_paths.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t27_cs336_windows_paths.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,216,455,14180941824,1377753600,1373919236,0,12803188224,329252864,97.4,3834364

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,5163,1373919236,13923997700,1402,1776479641223438,138070000,1373919236,14180941824,0

Device,Size (B),Address,Alloc Event,Site
0,327680000,0xe21c00000,1393,functional.py:373:einsum
0,327680000,0xdfa800000,1398,nn_utils.py:12:log_softmax
0,327680000,0xe35e00000,1399,nn_utils.py:13:log_softmax
END

case_ "t26_oom_expandable_3dev.pickle"
vp_tables "state peak top_at_peak oom" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t26_oom_expandable_3dev.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,2,544,8541700096,8094645248,8094628652,0,447054848,170372608,61.9,16596
1,8,32,84202749952,403507712,403506116,0,83799242240,27493662720,67.2,1596
2,2,214,21883781120,20230674944,20230660520,0,1653106176,573698048,65.3,14424

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,6445,0,8456473388,6278,1757253257268894,2052990000,8094628652,8541700096,0
1,596,0,84063351764,420,1757253257940591,2724687000,403506116,84202749952,1
2,882,0,21564645800,715,1757253257541146,2325242000,20230660520,21883781120,0

Device,Size (B),Address,Alloc Event,Site
0,621236224,0x611000000,33,module.py:1355:convert
0,162381824,0x6a1949200,5744,models.py:174:update_nodes
0,162381824,0x6b9c6f200,5748,functional.py:1701:relu
1,5308694528,0x32a0888800,157,models.py:174:update_nodes
1,5308694528,0x35b7972800,165,functional.py:1701:relu
1,5308694528,0x347b2ae800,190,models.py:174:update_nodes
2,561070080,0x5f2253e000,158,models.py:174:update_nodes
2,561070080,0x5f75ef0000,166,functional.py:1701:relu
2,561070080,0x5f547dc000,192,models.py:174:update_nodes

Device,Event,Time (us since epoch),Since Start (ns),Requested (B),Device Free (B),Active (B),Reserved (B),Site
1,421,1757253257949855,2733951000,5308694528,95682560,84063351764,84202749952,functional.py:1701:relu
END

case_ "t24_no_trace_minimal.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t24_no_trace_minimal.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,12,116,109051904,90861056,90861056,0,18190848,11534336,36.6,0

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,0,90861056,90861056,-1,,,90861056,109051904,0

Device,Size (B),Address,Alloc Event,Site
0,46881792,0x8018c0000,,
0,2359296,0x804ac0000,,
0,2359296,0x804d00000,,
END

case_ "t25_empty.pickle"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/t25_empty.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs

Device,Size (B),Address,Alloc Event,Site
END

case_ "npu_empty_cache.pkl"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/real/memsnap/npu_empty_cache.pkl"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,34,685,509607936,416417792,408384288,0,93190144,18614784,80.0,8033504

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,8180,94326992,597327488,7498,,,408384288,662700032,0

Device,Size (B),Address,Alloc Event,Site
0,41943040,0x12c047e00000,1,memory_leaks_demo.py:11:train_one_step
0,41943040,0x12c063e00000,2949,memory_leaks_demo.py:11:train_one_step
0,41943040,0x12c067a00000,5565,memory_leaks_demo.py:11:train_one_step
END

case_ "small_python_proto2.pickle (numbers of t24_cs336_small_from_start.pickle)"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/synthetic/memsnap/small_python_proto2.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,9,20,3781165056,31719936,31719428,0,3749445120,536870912,85.7,508

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0

Device,Size (B),Address,Alloc Event,Site
0,536870912,0x7f20ea000000,16,trace_peak_memory.py:7:custom_softmax
0,536870912,0x7f20c4000000,40,
0,536870912,0x7f2140000000,46,
END

case_ "small_python_proto3.pickle (numbers of t24_cs336_small_from_start.pickle)"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/synthetic/memsnap/small_python_proto3.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,9,20,3781165056,31719936,31719428,0,3749445120,536870912,85.7,508

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0

Device,Size (B),Address,Alloc Event,Site
0,536870912,0x7f20ea000000,16,trace_peak_memory.py:7:custom_softmax
0,536870912,0x7f20c4000000,40,
0,536870912,0x7f2140000000,46,
END

case_ "small_python_proto5.pickle (numbers of t24_cs336_small_from_start.pickle)"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/synthetic/memsnap/small_python_proto5.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,9,20,3781165056,31719936,31719428,0,3749445120,536870912,85.7,508

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0

Device,Size (B),Address,Alloc Event,Site
0,536870912,0x7f20ea000000,16,trace_peak_memory.py:7:custom_softmax
0,536870912,0x7f20c4000000,40,
0,536870912,0x7f2140000000,46,
END

case_ "small_cpp_pickler_style_proto2.pickle (numbers of t24_cs336_small_from_start.pickle)"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/synthetic/memsnap/small_cpp_pickler_style_proto2.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,9,20,3781165056,31719936,31719428,0,3749445120,536870912,85.7,508

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0

Device,Size (B),Address,Alloc Event,Site
0,536870912,0x7f20ea000000,16,trace_peak_memory.py:7:custom_softmax
0,536870912,0x7f20c4000000,40,
0,536870912,0x7f2140000000,46,
END

case_ "t20_oom_cpp_pickler_style_proto2.pickle (numbers of t20_flexgen_oom_snapshot.pickle)"
vp_tables "state peak top_at_peak" memory -f csv --top 3 "$SHARED/fixtures/synthetic/memsnap/t20_oom_cpp_pickler_style_proto2.pickle"
expect_status 0
expect_stderr_empty
expect_stdout <<'END'
Device,Segments,Blocks,Reserved (B),Allocated (B),Requested (B),Pending Free (B),Inactive (B),Largest Inactive (B),Fragmentation (%),Rounding Waste (B)
0,176,463,11844714496,11840159744,11840159744,0,4554752,2080768,54.3,0

Device,Trace Entries,Baseline (B),Peak Active (B),Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B),Peak Reserved (B),OOMs
0,1,11840159744,11840159744,-1,,,11840159744,11844714496,0

Device,Size (B),Address,Alloc Event,Site
0,411828224,0x7f5fa8000000,,pytorch_backend.py:190:allocate
0,134217728,0x7f5d08000000,,pytorch_backend.py:190:allocate
0,134217728,0x7f5d10000000,,pytorch_backend.py:190:allocate
END
