#!/usr/bin/env bash
# The GPU checks of `vprof record` (issue 8), in one call on a machine with
# an NVIDIA GPU, the CUDA toolkit and (for parts 3-4) PyTorch:
#
#   1. builds vprof and libvprof-cupti.so, and a small CUDA program whose
#      kernels (names, grids, blocks, counts), memcpys and memsets are known;
#   2. runs it under `vprof record` (all, cudaProfilerApi, nvtx:NAME, --nvtx)
#      and asserts exact counts, names, grids, bytes, flows and metadata;
#   3. runs a small bf16 transformer training loop with no profiler, under
#      vprof record and under torch.profiler (separate processes): kernel
#      instance counts per name equal, total kernel time within 5 %, and
#      vprof's overhead at most torch.profiler's and at most 5 %;
#   4. writes test fixtures: a torch.profiler trace (record_shapes,
#      profile_memory, with_stack) and a CUDA memory snapshot.
#
#   scripts/gpu-check.sh [OUT]      (OUT defaults to $OUT, else gpu-check-out)
#
# Everything it writes (traces, fixtures, the table, the log) is under OUT.
# Exit status 0 when every check passed; each check prints PASS or FAIL.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUTDIR=${1:-${OUT:-gpu-check-out}}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
W=$OUTDIR/work
mkdir -p "$W" "$OUTDIR/traces" "$OUTDIR/fixtures"
export PATH=/usr/local/cuda/bin:$PATH
FAILED=0
check() {  # name, command...: runs it, prints PASS/FAIL
    local name=$1; shift
    if "$@"; then echo "PASS $name"; else echo "FAIL $name"; FAILED=1; fi
}

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
nvcc --version | tail -1

echo "== 1. build"
B=$ROOT/build-gpu
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DVPROF_TESTS=OFF >"$W/cmake.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" >>"$W/cmake.log" 2>&1
check "build vprof and libvprof-cupti.so" test -x "$B/vprof" -a -f "$B/libvprof-cupti.so"
"$B/vprof" --version | grep -q 'cupti: built' && echo "PASS --version says cupti: built" ||
    { echo "FAIL --version"; FAILED=1; }
VPROF=$B/vprof

cat >"$W/known.cu" <<'CU'
// Kernels, copies and sets whose counts, shapes and sizes the check knows.
#include <csignal>
#include <cstdio>
#include <unistd.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>
__global__ void vp_fill(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = 1.0f; }
__global__ void vp_scale(float *p, float a) { p[(blockIdx.y * gridDim.x + blockIdx.x) * 256 + threadIdx.y * 32 + threadIdx.x] *= a; }
template <typename T, int K> __global__ void vp_tmpl(T *p) { p[threadIdx.x] += (T)K; }
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
int main(int argc, char **argv) {
    int ranged = argc > 1 && argv[1][0] == 'r';  // the profiler-API range holds only the vp_scale launches
    int term = argc > 1 && argv[1][0] == 't';    // SIGTERM after the vp_fill launches
    const size_t N = 1 << 18, MB = 1 << 20;
    float *d, *h = (float *)malloc(MB), *hp;
    CK(cudaMalloc(&d, 8 * MB));
    CK(cudaMallocHost(&hp, MB));
    for (int i = 0; i < 10; i++) vp_fill<<<64, 128>>>(d, (int)N);          // 10 x grid [64,1,1] block [128,1,1]
    if (term) { CK(cudaDeviceSynchronize()); raise(SIGTERM); sleep(5); return 9; }
    if (ranged) CK(cudaProfilerStart());
    nvtxRangePushA("vp_scale_range");
    for (int i = 0; i < 5; i++) vp_scale<<<dim3(8, 4, 1), dim3(32, 8, 1)>>>(d, 2.0f);  // 5 x [8,4,1] [32,8,1]
    CK(cudaDeviceSynchronize());
    nvtxRangePop();
    if (ranged) CK(cudaProfilerStop());
    for (int i = 0; i < 3; i++) vp_tmpl<float, 3><<<1, 32>>>(d);           // 3 x [1,1,1] [32,1,1]
    CK(cudaMemcpy(d, h, MB, cudaMemcpyHostToDevice));                       // 2 x HtoD pageable 1 MiB
    CK(cudaMemcpy(d + N, h, MB, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(hp, d, MB, cudaMemcpyDeviceToHost));                      // 1 x DtoH pinned 1 MiB
    CK(cudaMemset(d, 0, 4096));                                             // 1 x memset 4096 B
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d));
    CK(cudaFreeHost(hp));
    free(h);
    printf("known: done\n");
    return 0;
}
CU
nvcc -O2 -o "$W/known" "$W/known.cu" >"$W/nvcc.log" 2>&1
check "build the known CUDA program" test -x "$W/known"

cat >"$W/assert_trace.py" <<'PY'
# Asserts what a vprof trace of known.cu must hold. argv: mode trace...
import gzip, json, sys, collections
mode, paths = sys.argv[1], sys.argv[2:]
assert len(paths) == 1, f"expected one trace, got {paths}"
d = json.load(gzip.open(paths[0]))
ev = d["traceEvents"]
def cat(c): return [e for e in ev if e.get("cat") == c and e.get("ph") == "X"]
k = collections.Counter(e["name"] for e in cat("kernel"))
want = {"all": {"vp_fill(float*, int)": 10, "vp_scale(float*, float)": 5, "void vp_tmpl<float, 3>(float*)": 3},
        "range": {"vp_scale(float*, float)": 5}, "nvtx": {"vp_scale(float*, float)": 5}}[mode]
errs = []
if dict(k) != want: errs.append(f"kernels {dict(k)} != {want}")
shapes = {"vp_fill(float*, int)": ([64, 1, 1], [128, 1, 1]), "vp_scale(float*, float)": ([8, 4, 1], [32, 8, 1]),
          "void vp_tmpl<float, 3>(float*)": ([1, 1, 1], [32, 1, 1])}
for e in cat("kernel"):
    g, b = shapes.get(e["name"], (None, None))
    if (e["args"]["grid"], e["args"]["block"]) != (g, b): errs.append(f"shape of {e['name']}: {e['args']}")
    if e["dur"] <= 0: errs.append(f"dur {e['dur']} of {e['name']}")
if mode == "all":
    mc = sorted((e["name"], e["args"]["bytes"]) for e in cat("gpu_memcpy"))
    want_mc = sorted([("Memcpy HtoD (Pageable -> Device)", 1 << 20)] * 2 + [("Memcpy DtoH (Device -> Pinned)", 1 << 20)])
    if mc != want_mc: errs.append(f"memcpys {mc} != {want_mc}")
    ms = [(e["name"], e["args"]["bytes"]) for e in cat("gpu_memset")]
    if ms != [("Memset (Device)", 4096)]: errs.append(f"memsets {ms}")
    rt = collections.Counter(e["name"] for e in cat("cuda_runtime"))
    if rt["cudaLaunchKernel"] != 18: errs.append(f"cudaLaunchKernel x{rt['cudaLaunchKernel']}, not 18")
    # every GPU record's flow end has its start on a launching API call
    s = {e["id"] for e in ev if e.get("ph") == "s" and e.get("cat") == "ac2g"}
    f = {e["id"] for e in ev if e.get("ph") == "f" and e.get("cat") == "ac2g"}
    if not f or f - s: errs.append(f"{len(f - s)} of {len(f)} flow ends without a start")
    if not d.get("deviceProperties"): errs.append("no deviceProperties")
    if not any("blocks per SM" in e["args"] for e in cat("kernel")): errs.append("no 'blocks per SM' (device record late?)")
    names = [e for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"]
    if not any(e["args"]["name"].startswith("stream ") for e in names): errs.append("no stream thread_name")
    if not any(e["args"]["name"].startswith("thread ") for e in names): errs.append("no host thread_name")
    if sum(1 for e in cat("cuda_sync")) < 1: errs.append("no cuda_sync (cudaDeviceSynchronize)")
if mode == "nvtx-ranges":
    pass
r = d.get("vprofRecord", {})
if r.get("droppedRecords", 1) != 0: errs.append(f"dropped {r.get('droppedRecords')}")
print(f"{mode}: {sum(k.values())} kernels, {len(ev)} events, vprofRecord {r}")
for x in errs: print("  " + x)
sys.exit(1 if errs else 0)
PY

echo "== 2. known program under vprof record"
run_known() {  # mode, vprof options...
    local mode=$1; shift
    rm -rf "$W/t-$mode"
    "$VPROF" record -o "$W/t-$mode" "$@" -- "$W/known" ${KNOWN_ARG:-} >"$W/$mode.out" 2>"$W/$mode.err"
    local rc=$?
    cat "$W/$mode.err"
    cp "$W"/t-"$mode"/*.json.gz "$OUTDIR/traces/" 2>/dev/null
    [ $rc = 0 ] && python3 "$W/assert_trace.py" "${ASSERT_MODE:-$mode}" "$W"/t-"$mode"/*.json.gz
}
check "known: all kinds, exact counts, shapes, bytes, flows" run_known all
KNOWN_ARG=ranged ASSERT_MODE=range check "known: --capture-range cudaProfilerApi" \
    run_known range --capture-range cudaProfilerApi
ASSERT_MODE=nvtx check "known: --capture-range nvtx:vp_scale_range" run_known nvtx --capture-range nvtx:vp_scale_range
check "known: --nvtx records the range as user_annotation" bash -c "
    '$VPROF' record -q -o '$W/t-nvtxr' --nvtx -- '$W/known' >/dev/null &&
    python3 -c \"import gzip,json,sys; d=json.load(gzip.open(sys.argv[1])); \
n=[e for e in d['traceEvents'] if e.get('cat')=='user_annotation' and e['name']=='vp_scale_range']; \
print('nvtx ranges:', len(n)); sys.exit(len(n)!=1)\" '$W'/t-nvtxr/*.json.gz"
check "known: vprof kernels reads the trace" bash -c "'$VPROF' kernels '$W'/t-all/*.json.gz | tee '$W/kernels.txt' | grep -q vp_fill"
check "known: SIGTERM mid-run still writes a valid trace" bash -c "
    '$VPROF' record -q -o '$W/t-term' -- '$W/known' term; [ \$? = 143 ] &&
    python3 -c 'import gzip,json,sys; d=json.load(gzip.open(sys.argv[1])); \
n=sum(1 for e in d[\"traceEvents\"] if e.get(\"cat\")==\"kernel\"); print(\"kernels after SIGTERM:\", n); sys.exit(n!=10)' '$W'/t-term/*.json.gz"

echo "== 3. PyTorch: vprof vs torch.profiler"
if ! python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    echo "FAIL PyTorch with CUDA is not available: parts 3 and 4 not run"
    FAILED=1
else
cat >"$W/loop.py" <<'PY'
# A few transformer layers, bf16, a fixed number of steps. argv: mode out
import sys, time, torch, torch.nn as nn
mode, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True)
model = nn.TransformerEncoder(layer, num_layers=4).cuda().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(8, 512, 1024, device="cuda", dtype=torch.bfloat16)
def step():
    opt.zero_grad(set_to_none=True)
    model(x).float().pow(2).mean().backward()
    opt.step()
for _ in range(5): step()  # warm-up: allocator, cuBLAS heuristics
torch.cuda.synchronize()
steps = 30
def timed():
    t = time.perf_counter()
    for _ in range(steps): step()
    torch.cuda.synchronize()
    return time.perf_counter() - t
if mode == "vprof-range":  # vprof --capture-range cudaProfilerApi: the timed steps only
    torch.cuda.cudart().cudaProfilerStart()
    wall = timed()
    torch.cuda.cudart().cudaProfilerStop()
elif mode == "torch":
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        wall = timed()
    p.export_chrome_trace(out)
elif mode == "fixture":
    from torch.profiler import profile, ProfilerActivity
    steps = 3
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 profile_memory=True, with_stack=True) as p:
        wall = timed()
    p.export_chrome_trace(out)
elif mode == "snapshot":
    steps = 2
    torch.cuda.memory._record_memory_history(max_entries=20000)
    wall = timed()
    torch.cuda.memory._dump_snapshot(out)
    torch.cuda.memory._record_memory_history(enabled=None)
else:
    wall = timed()
print(f"WALL {mode} {wall:.6f}")
PY
    walls() { grep -h '^WALL' "$@" | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    for i in 1 2 3; do
        python3 "$W/loop.py" none - >"$W/none.$i" 2>&1
        "$VPROF" record -q -o "$W/t-torch-vprof.$i" -- python3 "$W/loop.py" none - >"$W/vprof.$i" 2>&1
        python3 "$W/loop.py" torch "$W/torch.$i.json" >"$W/torch.$i" 2>&1
    done
    sed -i 's/^WALL none/WALL vprof/' "$W"/vprof.?
    T_NONE=$(walls "$W"/none.?); T_VPROF=$(walls "$W"/vprof.?); T_TORCH=$(walls "$W"/torch.?)
    cp "$W"/t-torch-vprof.1/*.json.gz "$OUTDIR/traces/" 2>/dev/null
    gzip -c "$W/torch.1.json" >"$OUTDIR/traces/torch_profiler_loop.json.gz"
    cat >"$W/compare.py" <<'PY'
import gzip, json, sys, collections
def kernels(p):
    d = json.load(gzip.open(p) if p.endswith(".gz") else open(p))
    c, t = collections.Counter(), 0
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel" and e.get("ph") == "X":
            c[e["name"]] += 1; t += float(e["dur"])
    return c, t
vc, vt = kernels(sys.argv[1]); tc, tt = kernels(sys.argv[2])
t_none, t_vprof, t_torch = map(float, sys.argv[3:6])
print(f"{'':28}{'vprof':>14}{'torch.profiler':>16}")
print(f"{'kernel names':28}{len(vc):>14}{len(tc):>16}")
print(f"{'kernel instances':28}{sum(vc.values()):>14}{sum(tc.values()):>16}")
print(f"{'total kernel time (ms)':28}{vt/1e3:>14.3f}{tt/1e3:>16.3f}")
print(f"{'loop wall (s), none {:.3f}'.format(t_none):28}{t_vprof:>14.3f}{t_torch:>16.3f}")
ov, ot = t_vprof / t_none - 1, t_torch / t_none - 1
print(f"{'overhead vs no profiler':28}{ov*100:>13.1f}%{ot*100:>15.1f}%")
errs = []
if vc != tc:
    diff = {n: (vc[n], tc[n]) for n in set(vc) | set(tc) if vc[n] != tc[n]}
    errs.append(f"instance counts differ for {len(diff)} names, e.g. {list(diff.items())[:3]}")
if abs(vt - tt) > 0.05 * tt: errs.append(f"total kernel time differs by {100*(vt-tt)/tt:.1f}%")
if ov > ot + 0.005: errs.append(f"vprof overhead {ov*100:.1f}% above torch.profiler's {ot*100:.1f}%")
if ov > 0.05: errs.append(f"vprof overhead {ov*100:.1f}% above 5%")
for e in errs: print("  " + e)
sys.exit(1 if errs else 0)
PY
    # vprof records the whole process (warm-up included); torch.profiler only
    # the timed steps: compare a vprof trace of the timed steps alone.
    "$VPROF" record -q -o "$W/t-torch-range" --capture-range cudaProfilerApi -- \
        python3 "$W/loop.py" vprof-range - >"$W/range.out" 2>&1
    check "torch: counts equal, kernel time within 5 %, overhead <= torch.profiler and <= 5 %" \
        python3 "$W/compare.py" "$(ls "$W"/t-torch-range/*.json.gz | head -1)" "$W/torch.1.json" \
        "$T_NONE" "$T_VPROF" "$T_TORCH" | tee "$OUTDIR/table.txt"

    echo "== 4. fixtures"
    python3 "$W/loop.py" fixture "$W/torch_profiler_fixture.json" >/dev/null 2>&1 &&
        gzip -9 -c "$W/torch_profiler_fixture.json" >"$OUTDIR/fixtures/torch_profiler_shapes_memory_stack.json.gz"
    python3 "$W/loop.py" snapshot "$OUTDIR/fixtures/memory_snapshot.pickle" >/dev/null 2>&1
    python3 - "$OUTDIR/fixtures" >"$OUTDIR/fixtures/SOURCE.md" <<'PY'
import sys, os, torch, subprocess
d = sys.argv[1]
gpu = torch.cuda.get_device_name(0)
print("# Fixtures from scripts/gpu-check.sh\n")
print(f"Produced on {gpu}, torch {torch.__version__}, CUDA {torch.version.cuda}, by scripts/gpu-check.sh")
print("(loop.py: 4 nn.TransformerEncoderLayer, d_model 1024, 16 heads, ffn 4096, bf16, batch 8 x 512, AdamW).\n")
for f in sorted(os.listdir(d)):
    if f != "SOURCE.md":
        print(f"- `{f}`: {os.path.getsize(os.path.join(d, f))} bytes")
print("\n- torch_profiler_shapes_memory_stack.json.gz: torch.profiler with record_shapes=True, profile_memory=True,")
print("  with_stack=True, CPU+CUDA activities, 3 steps after 5 warm-up steps; export_chrome_trace, gzip -9.")
print("- memory_snapshot.pickle: torch.cuda.memory._record_memory_history(max_entries=20000), 2 steps after")
print("  5 warm-up steps, torch.cuda.memory._dump_snapshot.")
PY
    for f in "$OUTDIR"/fixtures/*; do
        sz=$(stat -c %s "$f"); echo "fixture $(basename "$f"): $sz bytes"
        [ "$sz" -le $((8 << 20)) ] || { echo "FAIL fixture $(basename "$f") is over 8 MiB"; FAILED=1; }
    done
fi

echo
[ -f "$OUTDIR/table.txt" ] && cat "$OUTDIR/table.txt"
if [ $FAILED = 0 ]; then echo "gpu-check: all checks passed"; else echo "gpu-check: some checks FAILED"; fi
exit $FAILED
