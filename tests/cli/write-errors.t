# A write error names the file being written (issue 34): on a full disk
# merge once said "cannot write a.json.gz", an input.  Outputs are written
# whole or not at all: nothing is left under the target's name or a
# temporary one, and an existing target stays as it was.

cd "$WORK"
cp "$DATA/hta/trace_filter_rank-0.json.gz" a.json.gz
cp "$DATA/hta/trace_filter_rank-1.json.gz" b.json.gz
NOSPACE='No space left on device'

case_ '/dev/full (a write that fails in place): the output named'
vp kernels -o /dev/full a.json.gz
expect_status 3
expect_stderr <<END
vprof: cannot write /dev/full: $NOSPACE
END
vp merge -o /dev/full a.json.gz b.json.gz
expect_status 3
expect_stderr <<END
vprof: cannot write /dev/full: $NOSPACE
END

# A small full filesystem: a 64 KiB tmpfs, mounted where root may.
mkdir full
if ! mount -t tmpfs -o size=64k vprof-full full 2>/dev/null; then
    echo "SKIP [$T]: the full-disk cases: cannot mount a tmpfs here (not root, or no mount permission)"
    rmdir full
    return 0
fi
trap 'umount "$WORK/full" 2>/dev/null; rm -rf "$WORK"' EXIT
printf 'old\n' >full/kept.txt

# only_kept: the tmpfs holds kept.txt, unchanged, and nothing else
only_kept() {
    if [ "$(ls -A full)" = kept.txt ] && [ "$(cat full/kept.txt)" = old ]; then pass; else
        fail "full/ holds: $(ls -A full | tr '\n' ' ')"; fi
}

case_ 'merge -o on a full disk: the output named, not an input (-j 1 and -j 2, plain and gzip)'
# which write fails first (the part of a, of b, or the output itself)
# depends on the workers: the line names the output in every case
names_output() {
    local re="^vprof: cannot write $1( \\(the part of [ab]\\.json\\.gz, a temporary file in full\\))?: $NOSPACE\$"
    if [ "$(wc -l <"$OUT_STDERR")" = 1 ] && grep -qE "$re" "$OUT_STDERR"; then pass; else
        fail "stderr: $(cat "$OUT_STDERR")"; fi
}
for j in 1 2; do
    for out in full/m.json full/m.json.gz; do
        vp merge -j $j -o $out a.json.gz b.json.gz
        expect_status 3
        names_output "${out//./\\.}"
        only_kept
    done
done

case_ 'merge -o onto an existing file on a full disk: the old file kept'
vp merge -o full/kept.txt a.json.gz b.json.gz
expect_status 3
expect_stderr <<END
vprof: cannot write full/kept.txt (the part of a.json.gz, a temporary file in full): $NOSPACE
END
only_kept

case_ 'tables, a page, a plot, a trace copy: each names its output'
vp kernels --full-names -o full/kept.txt a.json.gz b.json.gz
expect_status 3
expect_stderr <<END
vprof: cannot write full/kept.txt: $NOSPACE
END
only_kept
vp report -q -o full/r.html a.json.gz b.json.gz
expect_status 3
expect_stderr <<END
vprof: cannot write full/r.html: $NOSPACE
END
only_kept
vp counters -q --trace-out full/c.json a.json.gz
expect_status 3
expect_stderr <<END
vprof: cannot write full/c.json: $NOSPACE
END
only_kept
umount full
