# vprof memory (issue 17, item 9): a snapshot's times as people read them,
# since the snapshot's start (its earliest trace entry with a time_us, on
# any device), while csv/tsv/json keep the recorded epoch microseconds under
# a name that says so; and --leaks, which never lists what was allocated
# before the trace or in its warm-up (the first quarter of the recorded
# time).  The figures were checked apart from vprof with Python's pickle
# module: t24_cs336_small_from_start starts at time_us 1772688692031317,
# its peak entry (52) is at 1772688692983308, 951991 us later; its warm-up
# ends at 1772688692273857, after which 7 allocations of 25427972 bytes
# are never freed (the 10 allocations of 31719428 bytes alive at the end
# include the 2 MiB ones made at 2 us, 1.31 ms and 1.33 ms, the warm-up).

case_ "table: Peak Since Start, no epoch column"
vp memory --top 1 "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout <<'END'
== state ==
Device  Segments  Blocks  Reserved  Allocated  Requested  Pending Free  Inactive  Largest Inactive  Fragmentation  Rounding Waste
------  --------  ------  --------  ---------  ---------  ------------  --------  ----------------  -------------  --------------
     0         9      20  3.52 GiB   30.3 MiB   30.3 MiB           0 B  3.49 GiB           512 MiB          85.7%           508 B

== peak ==
Device  Trace Entries  Baseline  Peak Active  Peak Event  Peak Since Start  Final Active  Peak Reserved  OOMs
------  -------------  --------  -----------  ----------  ----------------  ------------  -------------  ----
     0             97       0 B     3.03 GiB          52            952 ms      30.3 MiB       3.52 GiB     0

== top_at_peak ==
Device     Size  Address         Alloc Event  Site
------  -------  --------------  -----------  -------------------------------------
     0  512 MiB  0x7f20ea000000           16  trace_peak_memory.py:7:custom_softmax
END
expect_stderr_empty

case_ "md: the same columns"
vp memory --top 1 -f md "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout <<'END'
### state

| Device | Segments | Blocks | Reserved | Allocated | Requested | Pending Free | Inactive | Largest Inactive | Fragmentation | Rounding Waste |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| 0 | 9 | 20 | 3.52 GiB | 30.3 MiB | 30.3 MiB | 0 B | 3.49 GiB | 512 MiB | 85.7% | 508 B |

### peak

| Device | Trace Entries | Baseline | Peak Active | Peak Event | Peak Since Start | Final Active | Peak Reserved | OOMs |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| 0 | 97 | 0 B | 3.03 GiB | 52 | 952 ms | 30.3 MiB | 3.52 GiB | 0 |

### top_at_peak

| Device | Size | Address | Alloc Event | Site |
| ---: | ---: | --- | ---: | --- |
| 0 | 512 MiB | 0x7f20ea000000 | 16 | trace\_peak\_memory.py:7:custom\_softmax |
END

case_ "csv: the epoch value named as such, and the time since the start in ns"
vp memory --top 1 -f csv --table peak "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout_has "Peak Event,Peak Time (us since epoch),Peak Since Start (ns),Final Active (B)"
expect_stdout_has "0,97,0,3249143816,52,1772688692983308,951991000,31719428,3781165056,0"

case_ "--timeline -f md: Since Start, the first entry at 0"
vp memory --timeline -f md "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout_has "| Device | Event | Since Start | Action | Size | Active | Reserved |"
expect_stdout_has "| 0 | 0 | 0 ns | segment\_alloc | 20.0 MiB | 0 B | 20.0 MiB |"
expect_stdout_has "| 0 | 2 | 1.31 ms | alloc | 2.00 MiB | 4.00 MiB | 20.0 MiB |"

case_ "--leaks: the warm-up's allocations are not leaks (7 of 25427972 bytes)"
vp memory --leaks --top 0 -f csv --table leaks "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
# (the einsum and main allocations, made early and kept, are state)
expect_stdout_has "Device,Bytes (B),Allocations,Site
0,6291456,3,"

case_ "--leaks: an optimizer's state made in the first step and kept is not a leak"
# adam_state.pickle (constructed, tests/data/memsnap/SOURCE.md): Adam's
# exp_avg/exp_avg_sq (8 x 4 MiB) come after the warm-up but never grow;
# the loss kept every step (512 B a step) does. Listed before: both.
vp memory --leaks --top 0 -f csv --table leaks "$DATA/memsnap/adam_state.pickle"
expect_status 0
expect_stdout <<'END'
Device,Bytes (B),Allocations,Site
0,1024,2,train.py:55:log_loss
END

case_ "--leaks: the rule in the table's note"
vp memory --leaks --top 0 "$DATA/memsnap/t24_cs336_small_from_start.pickle"
expect_status 0
expect_stdout_has "note: allocated after the first quarter of the recorded time and still alive at its end, by code that still adds such memory in the second half of the entries after it (the baseline, the warm-up and state made once, like an optimizer's, are never leaks)"

# Ascend (the bundled msinsight_gpt3 rank 0): each file's times from its own
# earliest row.  memory_record.csv starts at 1695115378653323.5 us; PTA's
# allocated peak row is 1695115378721880 us, 68.5565 ms later.
# operator_memory.csv starts at cann::Graph_70's allocation,
# 1695115378723902.5 us; GE's peak row 1695115378736209.5 us, 12.307 ms later.
case_ "Ascend npu_memory and operators_at_peak: since each file's start"
vp memory --top 2 "$DATA/ascend/msinsight_gpt3_rank0_ascend_pt"
expect_status 0
expect_stdout_has "$(cat <<'END'
== npu_memory ==
Rank  Device  Component  Points  Peak Allocated  Peak Allocated Since Start  Peak Reserved  Peak Reserved Since Start  Final Allocated  Final Reserved
----  ------  ---------  ------  --------------  --------------------------  -------------  -------------------------  ---------------  --------------
   0  NPU:0   APP             2               -                           -       11.0 GiB                       0 ns                -        11.0 GiB
   0  NPU:0   PTA             3        4.49 GiB                     68.6 ms       8.46 GiB                    61.3 ms         4.49 GiB        8.46 GiB
   0  NPU:0   PTA+GE          3        4.49 GiB                     68.6 ms       8.46 GiB                    61.3 ms         4.49 GiB        8.46 GiB
   0  NPU:0   GE              3         256 KiB                      326 ms        242 MiB                     326 ms          128 KiB         242 MiB
note: memory_record.csv: PTA = torch_npu's caching allocator, GE = the graph engine, PTA+GE = both, APP = the whole process (reserved only); the earliest row wins a tie
END
)"
expect_stdout_has "$(cat <<'END'
== operators_at_peak ==
Rank  Component  Peak Allocated  Peak Since Start  Operator        Blocks      Size
----  ---------  --------------  ----------------  --------------  ------  --------
   0  GE               80.1 MiB           12.3 ms  cann::Graph_95       1  80.1 MiB
note: operator_memory.csv: each allocator's peak is its row with the highest Allocation Total Allocated; the blocks alive then (allocated by then, released after), summed per operator; aten:: = PTA, cann:: = GE
END
)"

case_ "Ascend csv: the recorded ns since the epoch kept, named"
vp memory --top 2 -f csv "$DATA/ascend/msinsight_gpt3_rank0_ascend_pt"
expect_status 0
expect_stdout_has "Rank,Device,Component,Points,Peak Allocated (B),Peak Allocated Time (ns since epoch),Peak Allocated Since Start (ns),Peak Reserved (B),Peak Reserved Time (ns since epoch),Peak Reserved Since Start (ns),Final Allocated (B),Final Reserved (B)
0,NPU:0,APP,2,,,,11769610240,1695115378653323500,0,,11769610240
0,NPU:0,PTA,3,4823308800,1695115378721880000,68556500,9084862464,1695115378714622800,61299300,4823308800,9084862464"

need_shared fixtures/real/memsnap/expected.json

# Three devices, one origin: the snapshot's earliest entry, 1757253255215904
# (device 0's); device 1's OOM at 1757253257949855 is 2.733951 s later.
case_ "t26_oom_expandable_3dev: peak and oom times since the start"
vp memory --top 1 "$SHARED/fixtures/real/memsnap/t26_oom_expandable_3dev.pickle"
expect_status 0
expect_stdout_has "$(cat <<'END'
== peak ==
Device  Trace Entries  Baseline  Peak Active  Peak Event  Peak Since Start  Final Active  Peak Reserved  OOMs
------  -------------  --------  -----------  ----------  ----------------  ------------  -------------  ----
     0          6,445       0 B     7.88 GiB       6,278            2.05 s      7.54 GiB       7.96 GiB     0
     1            596       0 B     78.3 GiB         420            2.72 s       385 MiB       78.4 GiB     1
     2            882       0 B     20.1 GiB         715            2.33 s      18.8 GiB       20.4 GiB     0
END
)"
expect_stdout_has "$(cat <<'END'
== oom ==
Device  Event  Since Start  Requested  Device Free    Active  Reserved  Site
------  -----  -----------  ---------  -----------  --------  --------  -----------------------
     1    421       2.73 s   4.94 GiB     91.2 MiB  78.3 GiB  78.4 GiB  functional.py:1701:relu
END
)"

case_ "t26_oom_expandable_3dev: json keeps both, the epoch one named"
vp memory -f json "$SHARED/fixtures/real/memsnap/t26_oom_expandable_3dev.pickle"
expect_status 0
expect_stdout_has '{"name":"Time (us since epoch)","type":"int"},{"name":"Since Start (ns)","type":"ns"}'
expect_stdout_has '[1,421,1757253257949855,2733951000,5308694528,95682560,84063351764,84202749952,"functional.py:1701:relu"]'

# Per device: warm-up ends at 255729780 (device 0), 256861651 (1),
# 256892437 (2); after it 496 / 13 / 175 allocations are never freed, of
# 516 / 24 / 186 alive at the end; of those, 185 / 0 / 144 come from code
# that still adds never-freed memory in the second half of the entries
# after the warm-up (the rest is state made once: not leaks).
case_ "t26_oom_expandable_3dev --leaks: per device after its warm-up"
vp memory --leaks --top 0 -f csv --table leaks "$SHARED/fixtures/real/memsnap/t26_oom_expandable_3dev.pickle"
expect_status 0
# device, allocations, bytes summed over the leaks table's sites (the last
# table; columns 2 and 3 come before the site, which may be quoted)
sums=$(awk -F, '/^Device,Bytes \(B\),Allocations,Site$/ { on = 1; next }
    on && NF { n[$1] += $3; b[$1] += $2 }
    END { for (d in n) printf "%s %d %.0f\n", d, n[d], b[d] }' "$OUT_STDOUT" | sort)
if [ "$sums" = "0 185 5451336236
2 144 19888026000" ]; then pass; else fail "leaks per device: $sums"; fi
