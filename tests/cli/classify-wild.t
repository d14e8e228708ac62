# Kernel classes by evidence on real traces (docs/classification.md, issue
# 32): vLLM's multimem all-reduce on a B200 and a ROCm run of 8 ranks.
# Their figures equal an independent script's over the raw JSON (interval
# unions of the kernels by the rules' names, the steps' windows). The
# traces are fetched public data in ../shared/fixtures/wild
# (tests/wild/SOURCE.md): without them this file skips.

need_wild tracelens-b200-eager-ws8.json.gz
need_wild tracelens-mi300-resnet-actckpt-ws8.json.gz

case_ 'vLLM TP8 on B200: multimem_all_reduce_kernel is communication (it was compute: 22.0 us of NCCL alone)'
cd "$WILD"
vp comm -f csv --table comm tracelens-b200-eager-ws8.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,84487178,8652137,2141501,0,2141501,73693540,72890696,0.00,2.53
END
expect_stderr <<'END'
END
vp kernels --by class -f csv tracelens-b200-eager-ws8.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Class
80.3,8721415,694,12566.9,5839.5,1984,104032,21272.1,compute
19.7,2141501,74,28939.2,26512.0,21953,223200,22934.6,communication
END
expect_stderr <<'END'
END

case_ 'ROCm, 8 ranks: Exposed/Step over the steps'"'"' windows, 66.11 % (it was 114.4 %: the whole trace'"'"'s exposed time over the steps'"'"')'
cd "$WILD"
vp comm -f csv --table comm tracelens-mi300-resnet-actckpt-ws8.json.gz
expect_status 0
expect_stdout <<'END'
Rank,Span (ns),Computing (ns),Communication (ns),Overlapped (ns),Comm Exposed (ns),Free (ns),Idle (ns),Overlap (%),Exposed/Step (%)
0,86567708,25739303,71516523,15891299,55625224,5203181,2565652,22.22,66.11
END
expect_stderr <<'END'
END
vp check --fail-if 'comm.exposed_step_pct >= 100' -f csv tracelens-mi300-resnet-actckpt-ws8.json.gz
expect_status 0
expect_stdout <<'END'
Gate,Kind,Result,Detail
comm.exposed_step_pct >= 100,fail-if,pass,comm.exposed_step_pct = 66.11% (>= 100.00% is false)
END
expect_stderr <<'END'
END

