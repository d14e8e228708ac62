# An output never overwrites an input (issue 34): every option that names
# an output is compared with every input by device and inode, and a match
# is a usage error (exit 2) naming both, before anything is written.
# Each case checks that the input's bytes are the same after the refused
# run (cksum before and after), the status, and the message.

cd "$WORK"
cp "$DATA/hta/trace_filter_rank-0.json.gz" t.json.gz
cp "$DATA/hta/trace_filter_rank-1.json.gz" r1.json.gz
cp "$DATA/models/llama-3-8b.json" model.json
cp "$DATA/memsnap/t24_no_trace_minimal.pickle" snap.pickle
ln -s t.json.gz sym.json.gz
ln t.json.gz hard.json.gz
mkdir d && cp r1.json.gz d/rank1.json.gz

# refused INPUT MESSAGE ARGS...: vp ARGS must exit 2 with MESSAGE (the
# first line of stderr) and leave INPUT's bytes as they were.
refused() {
    local input=$1 msg=$2 before
    shift 2
    before=$(cksum <"$input")
    vp "$@"
    expect_status 2
    if [ "$(head -1 "$OUT_STDERR")" = "$msg" ]; then pass; else
        fail "message: $(head -1 "$OUT_STDERR"), expected: $msg"; fi
    if [ "$(cksum <"$input")" = "$before" ]; then pass; else fail "$input was changed"; fi
    if ls -a | grep -q '\.vprof-'; then fail "a temporary file was left"; else pass; fi
}
TAIL='writing it would destroy the input; nothing written'

case_ 'kernels -o the input: refused, the trace kept'
refused t.json.gz "vprof: kernels: -o t.json.gz is the input t.json.gz: $TAIL" \
    kernels -o t.json.gz t.json.gz

case_ 'kernels -o ./x against x'
refused t.json.gz "vprof: kernels: -o ./t.json.gz is the input t.json.gz: $TAIL" \
    kernels -o ./t.json.gz t.json.gz

case_ 'kernels -o a symbolic link to the input'
refused t.json.gz "vprof: kernels: -o sym.json.gz is the input t.json.gz: $TAIL" \
    kernels -o sym.json.gz t.json.gz

case_ 'kernels -o a hard link of the input'
refused t.json.gz "vprof: kernels: -o hard.json.gz is the input t.json.gz: $TAIL" \
    kernels -o hard.json.gz t.json.gz

case_ 'kernels -o a file of a directory input'
refused d/rank1.json.gz "vprof: kernels: -o d/rank1.json.gz is the input d/rank1.json.gz: $TAIL" \
    kernels -o d/rank1.json.gz t.json.gz d

case_ 'kernels --save-part onto the input (with %i: the file of input 0)'
cp t.json.gz 0.vpart
refused 0.vpart "vprof: kernels: --save-part 0.vpart is the input 0.vpart: $TAIL" \
    kernels --save-part %i.vpart 0.vpart
rm 0.vpart

case_ 'merge -o an input (the second of two)'
refused r1.json.gz "vprof: merge: -o r1.json.gz is the input r1.json.gz: $TAIL" \
    merge -o r1.json.gz t.json.gz r1.json.gz

case_ 'merge -o a hard link of an input'
refused t.json.gz "vprof: merge: -o hard.json.gz is the input t.json.gz: $TAIL" \
    merge -o hard.json.gz t.json.gz r1.json.gz

case_ 'critical-path --trace-out the input through a symbolic link'
refused t.json.gz "vprof: critical-path: --trace-out sym.json.gz is the input t.json.gz: $TAIL" \
    critical-path --trace-out sym.json.gz t.json.gz

case_ 'critical-path -o (its --trace-out) the input'
refused t.json.gz "vprof: critical-path: -o ./t.json.gz is the input t.json.gz: $TAIL" \
    critical-path -o ./t.json.gz t.json.gz

case_ 'counters --trace-out the input'
refused t.json.gz "vprof: counters: --trace-out hard.json.gz is the input t.json.gz: $TAIL" \
    counters --trace-out hard.json.gz t.json.gz

case_ 'sequences --trace-out the input'
refused t.json.gz "vprof: sequences: --trace-out t.json.gz is the input t.json.gz: $TAIL" \
    sequences --op forward --trace-out t.json.gz t.json.gz

case_ 'report -o (the page) the input'
refused t.json.gz "vprof: report: -o sym.json.gz is the input t.json.gz: $TAIL" \
    report -o sym.json.gz t.json.gz

case_ 'report -o the --baseline run'
refused r1.json.gz "vprof: report: -o r1.json.gz is the input --baseline r1.json.gz: $TAIL" \
    report -o r1.json.gz --baseline r1.json.gz t.json.gz

case_ 'memory --plot and -o onto the snapshot'
refused snap.pickle "vprof: memory: --plot snap.pickle is the input snap.pickle: $TAIL" \
    memory --plot snap.pickle snap.pickle
refused snap.pickle "vprof: memory: -o ./snap.pickle is the input snap.pickle: $TAIL" \
    memory -o ./snap.pickle snap.pickle

case_ 'mfu -o onto the --model config'
refused model.json "vprof: mfu: -o model.json is the input --model model.json: $TAIL" \
    mfu --model model.json --seq-len 8192 --global-batch 4 -o model.json

case_ 'summary --model and -o the same file'
refused model.json "vprof: summary: -o model.json is the input --model model.json: $TAIL" \
    summary --model model.json -o model.json t.json.gz

case_ 'check --baseline and -o the same file'
vp summary -f json -o base.json t.json.gz
refused base.json "vprof: check: -o base.json is the input --baseline base.json: $TAIL" \
    check --baseline base.json -o base.json t.json.gz

case_ 'reduce -o and --save-part onto a partial result'
vp kernels --save-part p.vpart t.json.gz
expect_status 0
refused p.vpart "vprof: kernels: -o p.vpart is the input p.vpart: $TAIL" reduce -o p.vpart p.vpart
refused p.vpart "vprof: kernels: --save-part p.vpart is the input p.vpart: $TAIL" \
    reduce --save-part p.vpart p.vpart

case_ 'an output that is not an input is written (and a new one cannot collide)'
vp kernels -f csv -o k.csv t.json.gz
expect_status 0
if head -1 k.csv | grep -q '^Time (%),'; then pass; else fail "k.csv: $(head -1 k.csv)"; fi
vp kernels -f csv -o k.csv t.json.gz   # replacing an earlier output is fine
expect_status 0
