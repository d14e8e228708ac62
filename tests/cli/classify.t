# Kernel classes by evidence (docs/classification.md): the rule table's
# name families, args and launching ops, the overrides, a multi-rank run
# with no communication found, and shares over one window (issue 32).
# comm_evidence.json: tests/data/synthetic/README.md says what each kernel
# is; its figures are worked out there by hand: COMM = [300,350) [500,560)
# [700,750) [820,870) us = 210 us, COMP = [460,480) [600,900) = 320 us,
# overlap 100 us, so 110 us exposed inside the one 1,000 us step: 11.00 %.
# The same rules on real traces: tests/cli/classify-wild.t.

cd "$WORK" || exit 1
cp "$DATA"/synthetic/comm_evidence.json . || exit 1

case_ 'every kind of evidence: launching op, nested op, args, name, the name exception'
cd "$WORK"
vp comm comm_evidence.json
expect_status 0
expect_stdout <<'END'
== comm ==
Rank    Span  Computing  Communication  Overlapped  Comm Exposed    Free    Idle  Overlap  Exposed/Step
----  ------  ---------  -------------  ----------  ------------  ------  ------  -------  ------------
   0  600 us     320 us         210 us      100 us        110 us  170 us  170 us    47.6%         11.0%
note: Overlap = Overlapped / Communication (HTA's comp_comm_overlap_pctg); Comm Exposed = Communication(Not Overlapped); Exposed/Step: the Comm Exposed inside the steps' windows, over their wall time

== collectives ==
Collective  Group  Size  Stream  Count  Total Time  Exposed  Bytes  Algbw (GB/s)  Busbw (GB/s)
----------  -----  ----  ------  -----  ----------  -------  -----  ------------  ------------
Other       -         -       7      3      160 us   110 us      -             -             -
AllToAll    -         -       7      1     50.0 us     0 ns      -             -             -
note: 4 kernels carry no message size (In/Out msg nelems and dtype, on the kernel or its record_param_comms): Bytes and bandwidths count the others
note: Count and times are summed over ranks; Exposed: the part of each kernel not hidden by compute kernels; Busbw = Algbw x nccl-tests factor (docs/comm.md)
END
expect_stderr <<'END'
END

case_ '--compute-kernels before the rules, --comm-kernels over them, csv'
cd "$WORK"
vp comm -f csv --table comm --compute-kernels unknown_lib comm_evidence.json
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,600000,380000,150000,100000,50000,170000,170000,66.67,5.00
END
expect_stderr <<'END'
END
vp comm -f csv --table comm --comm-kernels gemm comm_evidence.json
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,600000,30000,410000,10000,400000,170000,170000,2.44,40.00
END
expect_stderr <<'END'
END

case_ 'kernels --by class: the same evidence as comm, launching op included (210 us, 150 us without unknown_lib)'
cd "$WORK"
vp kernels --by name,class -f csv comm_evidence.json
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Class,Name
55.6,300000,1,300000.0,300000.0,300000,300000,0.0,compute,gemm_kernel
11.1,60000,1,60000.0,60000.0,60000,60000,0.0,communication,unknown_lib_kernel
9.3,50000,1,50000.0,50000.0,50000,50000,0.0,communication,my_custom_ar_kernel
9.3,50000,1,50000.0,50000.0,50000,50000,0.0,communication,mystery_kernel
9.3,50000,1,50000.0,50000.0,50000,50000,0.0,communication,"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*)"
3.7,20000,1,20000.0,20000.0,20000,20000,0.0,compute,copy_kernel
1.9,10000,1,10000.0,10000.0,10000,10000,0.0,compute,"void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*)"
END
for opt in "" "--compute-kernels unknown_lib"; do
    vp comm -f csv --table comm $opt comm_evidence.json
    comm_time=$(awk -F, 'NR == 2 { print $4 }' "$OUT_STDOUT")
    vp kernels --by rank,class -f csv $opt comm_evidence.json
    expect_status 0
    kernels_time=$(awk -F, '$10 == "communication" { print $2 }' "$OUT_STDOUT")
    want=210000
    [ -z "$opt" ] || want=150000
    if [ "$comm_time" = $want ] && [ "$kernels_time" = $want ]; then pass; else
        fail "$opt: comm $comm_time ns, kernels --by rank,class $kernels_time ns of communication, expected $want both"; fi
done

case_ 'merge --align collective matches the kernels comm calls collectives, launching op included'
cd "$WORK"
# rank 1: the same trace on a clock 2 ms ahead (baseTimeNanoseconds)
sed 's/^{"schemaVersion":1,/{"schemaVersion":1,"baseTimeNanoseconds":0,/' comm_evidence.json >r0.json
sed 's/"rank":0,/"rank":1,/; s/^{"schemaVersion":1,/{"schemaVersion":1,"baseTimeNanoseconds":2000000,/' \
    comm_evidence.json >r1.json
vp merge -o merged.json --align collective r0.json r1.json
expect_status 0
expect_stderr <<'END'
vprof: merge: 2 ranks, 42 of 42 events to merged.json; time: shifted to align collective kernels (--align collective)
vprof: merge: rank 0: shifted by +0.000 us (4 collectives matched)
vprof: merge: rank 1: shifted by -2000.000 us (4 collectives matched)
END
# the name and args evidence overridden: the two kernels launched by
# vllm::all_reduce and c10d::allreduce_ still align the ranks
vp merge -o merged.json --align collective --compute-kernels 'dispatch|mystery' r0.json r1.json
expect_status 0
expect_stderr <<'END'
vprof: merge: 2 ranks, 42 of 42 events to merged.json; time: shifted to align collective kernels (--align collective)
vprof: merge: rank 0: shifted by +0.000 us (2 collectives matched)
vprof: merge: rank 1: shifted by -2000.000 us (2 collectives matched)
END

case_ 'a bad regex is a usage error naming the option'
cd "$WORK"
vp comm --comm-kernels '(' comm_evidence.json
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: comm: --comm-kernels: bad regular expression '(': Unmatched ( or \(
Try 'vprof help comm'.
END

case_ 'world_size 2 and nothing placed: comm says so, a gate on comm.* fails, summary names the kernels'
cd "$WORK"
vp comm --table comm --compute-kernels 'kernel|dispatch' comm_evidence.json
expect_status 0
expect_stdout <<'END'
Rank    Span  Computing  Communication  Overlapped  Comm Exposed    Free    Idle  Overlap  Exposed/Step
----  ------  ---------  -------------  ----------  ------------  ------  ------  -------  ------------
   0  600 us     430 us           0 ns        0 ns          0 ns  170 us  170 us        -             -
note: rank 0: distributedInfo says world_size 2, but no kernel is communication by the rules of docs/classification.md: its communication is of a kind they do not know, and every communication figure here is unknown, not 0 (--comm-kernels REGEX names the kernels of a library the rules do not know)
note: Overlap = Overlapped / Communication (HTA's comp_comm_overlap_pctg); Comm Exposed = Communication(Not Overlapped); Exposed/Step: the Comm Exposed inside the steps' windows, over their wall time
END
expect_stderr <<'END'
END
vp check --compute-kernels 'kernel|dispatch' --fail-if 'comm.exposed_pct > 50' -f csv comm_evidence.json
expect_status 1
expect_stdout <<'END'
Gate,Kind,Result,Detail
comm.exposed_pct > 50,fail-if,FAIL,"comm.exposed_pct is not available in the run: distributedInfo says world_size 2, but no kernel is communication by the rules of docs/classification.md: the run's communication is of a kind they do not know (--comm-kernels REGEX names the kernels of a library the rules do not know)"
END
expect_stderr <<'END'
vprof: check: gate failed: comm.exposed_pct > 50: comm.exposed_pct is not available in the run: distributedInfo says world_size 2, but no kernel is communication by the rules of docs/classification.md: the run's communication is of a kind they do not know (--comm-kernels REGEX names the kernels of a library the rules do not know)
END
vp summary -f csv --table findings --compute-kernels 'kernel|dispatch' comm_evidence.json
expect_status 0
expect_stdout <<'END'
Rule,Finding,Evidence,Suggestion
no_comm,"no communication found in a run of 2 ranks: its exposed communication is unknown, not 0","distributedInfo says world_size 2; no kernel is communication by name, args or launching op; the longest it could not place: gemm_kernel (300 us), unknown_lib_kernel (60.0 us), my_custom_ar_kernel (50.0 us)",name the communication kernels (a library the rules of docs/classification.md do not know) to count them as communication
idle,the GPU is idle for much of the run,GPU idle 28.3% of its span; 0 blocking syncs in the steps; 0.0% of the kernels ran shorter than their launch call,"the CPU does not keep the GPU fed: cut launch overhead (CUDA graphs, torch.compile), syncs and data-loading stalls"
no_shapes,no Input Dims: how close the operators run to their roof is not known,no operator of the 1 trace file has Input Dims: the FLOPs and bytes of the operators' 540 us of GPU time are unknown,record with record_shapes=True (torch.profiler.profile) to see how close each operator runs to its roof (vprof roofline)
END
expect_stderr <<'END'
END

case_ 'steps says so too'
cd "$WORK"
vp steps --table steps --compute-kernels 'kernel|dispatch' comm_evidence.json
expect_status 0
expect_stdout <<'END'
Step  CPU Time  GPU Span  GPU Busy  Compute  Comm Exposed  Memory  GPU Idle  Data Loading  Forward  Backward  Optimizer  Kernels  Short Kernels
----  --------  --------  --------  -------  ------------  ------  --------  ------------  -------  --------  ---------  -------  -------------
   1   1.00 ms    600 us    430 us   430 us          0 ns    0 ns    170 us          0 ns  1.00 ms      0 ns       0 ns        7              0
note: 1 trace of a run of several ranks (distributedInfo world_size) has no kernel that is communication by the rules of docs/classification.md: its Comm Exposed is unknown, not 0 (--comm-kernels REGEX names the kernels of a library the rules do not know)
END
expect_stderr <<'END'
END
