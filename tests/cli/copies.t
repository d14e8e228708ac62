# vprof copies: nsys cuda_gpu_mem_time_sum and cuda_gpu_mem_size_sum per
# kind, bytes from args.bytes.  Expected outputs are computed by
# evsum_check.py from the traces alone.
CHECK=$(cd "$(dirname "$T")" && pwd)/evsum_check.py

case_ 'csv: time and size per kind'
cd "$DATA/hta"
vp_tables "copy_time copy_size" copies -f csv trace_filter_rank-0.json.gz
expect_status 0
expect_stdout <<'END'
Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation
66.2,877000,24,36541.7,6000.0,1000,149000,51989.1,HtoD
30.5,404000,8,50500.0,17500.0,4000,125000,53928.5,DtoD
2.1,28000,10,2800.0,2000.0,1000,10000,2820.6,memset
1.2,16000,8,2000.0,2000.0,2000,2000,0.0,DtoH

Total (B),Count,Avg (B),Med (B),Min (B),Max (B),StdDev (B),Bandwidth (GB/s),Operation
4866112,24,202754.7,1024.0,4,786432,326908.8,5.549,HtoD
209194904,8,26149363.0,8413184.0,4,78465024,34599131.1,517.809,DtoD
8030732,10,803073.2,28.0,4,8030208,2539356.3,286.812,memset
6115,8,764.4,44.0,1,3048,1237.2,0.382,DtoH
END
expect_stderr <<'END'
END
python3 "$CHECK" copies trace_filter_rank-0.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"

case_ 'two ranks and ROCm, as computed independently'
vp_tables "copy_time copy_size" copies -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
python3 "$CHECK" copies trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
vp_tables "copy_time copy_size" copies -f csv amd_trace.json.gz
python3 "$CHECK" copies amd_trace.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"

case_ 'copies and kernels agree on the memory events: 100 events, 17,829,000 ns'
vp kernels --include memcpy,memset --by class -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
awk -F, '$9 == "memory" { n += $3; t += $2 } END { print n, t }' "$OUT_STDOUT" >"$WORK/k"
vp_tables "copy_time copy_size" copies -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
awk -F, '/^$/ { exit } NR > 1 { n += $3; t += $2 } END { print n, t }' "$OUT_STDOUT" >"$WORK/c"
if [ "$(cat "$WORK/k")" = "100 17829000" ] && [ "$(cat "$WORK/c")" = "100 17829000" ]; then pass; else
    fail "kernels $(cat "$WORK/k"), copies $(cat "$WORK/c"), expected 100 17829000"; fi

case_ 'table and json'
vp copies trace_filter_rank-0.json.gz
expect_status 0
expect_stdout_has "66.2%      877 us     24  36.5 us  6.00 us  1.00 us   149 us  52.0 us  HtoD"
expect_stdout_has "note: bytes from args.bytes; Bandwidth = Total bytes / Total Time"
vp copies -f json trace_filter_rank-0.json.gz
expect_stdout_has '"schema":"vprof.copies/1"'
expect_stdout_has '"copy_size":{"columns":[{"name":"Total (B)","type":"bytes"}'

case_ '-j 2 and reduce print the same bytes'
vp_tables "copy_time copy_size" copies -j 1 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
cp "$OUT_STDOUT" "$WORK/one"
vp_tables "copy_time copy_size" copies -j 2 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_stdout_file "$WORK/one"
vp copies --save-part "$WORK/p.vpart" trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
vp_tables "copy_time copy_size" reduce -f csv "$WORK/p.vpart"
expect_stdout_file "$WORK/one"

case_ 'a copy without bytes: no bandwidth, said so'
printf '{"traceEvents":[{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","ts":1,"dur":2,"args":{"bytes":4000}},{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","ts":5,"dur":2}]}' >"$WORK/nb.json"
vp_tables "copy_time copy_size" copies -f csv "$WORK/nb.json"
expect_status 0
expect_stdout_has "100.0,4000,2,2000.0,2000.0,2000,2000,0.0,HtoD"
expect_stdout_has "4000,1,4000.0,4000.0,4000,4000,0.0,,HtoD"
vp copies "$WORK/nb.json"
expect_stdout_has "empty where some instances have no bytes or no time"

case_ 'nothing to count, usage'
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2}]}' >"$WORK/k.json"
vp copies "$WORK/k.json"
expect_status 0
expect_stdout_has "note: no memcpy or memset events (gpu_memcpy, gpu_memset) in the input"
vp copies
expect_status 2

case_ '--steps (by the launching call, as kernels) and --by rank, as computed independently'
cd "$DATA/hta"
vp_tables "copy_time copy_size" copies --steps 551 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
expect_status 0
python3 "$CHECK" copies --steps 551 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
vp_tables "copy_time copy_size" copies --by rank -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
python3 "$CHECK" copies --by-rank trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz >"$WORK/want"
expect_stdout_file "$WORK/want"
vp kernels --include memcpy,memset --by class --steps 551 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
awk -F, '$9 == "memory" { n += $3 } END { print n }' "$OUT_STDOUT" >"$WORK/k"
vp copies --table copy_time --steps 551 -f csv trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz
awk -F, 'NR > 1 { n += $3 } END { print n }' "$OUT_STDOUT" >"$WORK/c"
if cmp -s "$WORK/k" "$WORK/c"; then pass; else fail "kernels and copies keep other copies of step 551: $(cat "$WORK/k") vs $(cat "$WORK/c")"; fi
