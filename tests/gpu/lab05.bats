#!/usr/bin/env bats
# GPU tests of lab 05: the device query against the harness's own reading,
# copies both ways from pageable and pinned memory at awkward sizes, every
# variant of strip and batch against the CPU reference at awkward sizes and
# budgets (strip boundaries, one-row strips, a radius taller than a strip),
# the budget respected by the harness's own account, the GPU activity records
# of each variant on the streams it should use, the skeleton, planted bugs,
# compute-sanitizer, the injection library. Skipped without a device.
load ../cli/helpers
L05="$KIT_ROOT/labs/05_streams_tiles"

setup() {
    REF="$L05/lab05-ref"
    local rc=0
    "$REF" --part strip --size 1x1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || skip "no CUDA device"
    export KIT_SYNC_CHECK=1
}

# planted DIR: lab05 built in DIR from the solution's device.cu with two bugs
# (the peak without its factor 2; copies v2's h_src from malloc) and the
# skeleton's strip.cu and batch.cu
planted() {
    mkdir -p "$1"
    cp "$L05/strip.cu" "$L05/batch.cu" "$1/"
    sed -e 's|d->peak_gbps = 2.0 \* |d->peak_gbps = |' \
        -e '/^int copies_v2_alloc(/,/^}/ s|CUDA_CHECK(cudaMallocHost((void \*\*)&j->h_src, j->bytes));|j->h_src = (unsigned char *)malloc(j->bytes);|' \
        "$KIT_ROOT/solutions/05_streams_tiles/device.cu" >"$1/device.cu"
    [ "$(diff "$KIT_ROOT/solutions/05_streams_tiles/device.cu" "$1/device.cu" | grep -c '^>')" -eq 2 ] ||
        { echo "the planted bugs no longer fit device.cu"; return 1; }
    make -s -C "$L05" O="$1" SRC="$1" "$1/lab05" >/dev/null
}

@test "device: the reading equals the harness's, the peak is 2 x clock x bus, --facts writes the GPU's figures" {
    run "$REF" --part device --reps 2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    passes 1
    [[ "$output" == *"multiprocessors"*"warp size"*"memory clock, kHz"*"memory bus, bits"*"peak bandwidth, GB/s"* ]]
    [[ "$output" != *"<- differs"* ]]
    local table="$output"
    # the table's own numbers: peak = 2 x clock (kHz) x bus (bits) / 8, in GB/s
    awk '/memory clock, kHz/ { c = $NF } /memory bus, bits/ { b = $NF } /peak bandwidth, GB\/s/ { p = $NF }
         END { e = 2 * c * 1e3 * b / 8 / 1e9; exit !(c > 0 && b > 0 && p > 0 && p - e < 0.1 && e - p < 0.1) }' <<<"$output" ||
        { echo "$output"; false; }
    [[ "$output" == *"device-to-device copy "*" GB/s (read + written): "*"% of the peak"* ]]
    # no --part: the device query is the first part
    run "$REF" --reps 1 --quiet
    [ "$status" -eq 0 ]
    run "$REF" --part device --reps 1 --quiet --facts "$BATS_TEST_TMPDIR/d.tsv"
    [ "$status" -eq 0 ]
    [ "$(head -n 1 "$BATS_TEST_TMPDIR/d.tsv")" = $'quantity\tvalue' ]
    for q in 'compute capability' 'multiprocessors' 'warp size (threads)' 'shared memory per block (KiB)' \
        'registers per block' 'memory clock (MHz)' 'memory bus (bits)' 'peak memory bandwidth' \
        'device-to-device copy' 'copy / peak (%)'; do
        grep -q "^$q" "$BATS_TEST_TMPDIR/d.tsv" || { cat "$BATS_TEST_TMPDIR/d.tsv"; false; }
    done
    # the copy ceiling is below the peak; the facts are the table's (32 threads a warp)
    awk -F'\t' '/^copy \/ peak/ { exit !($2 > 0 && $2 < 100) }' "$BATS_TEST_TMPDIR/d.tsv"
    [ "$(awk -F'\t' '/^warp size/ { print $2 }' "$BATS_TEST_TMPDIR/d.tsv")" = 32 ]
    [ "$(awk -F'\t' '/^multiprocessors/ { print $2 }' "$BATS_TEST_TMPDIR/d.tsv")" = \
      "$(awk '/multiprocessors/ { print $NF }' <<<"$table")" ]
}

@test "copies: both variants, both directions, awkward sizes: the bytes that come back are the bytes sent" {
    local b d
    for b in 1 7 4097 65536 1000001 3M; do
        for d in h2d d2h; do queue --part copies --bytes $b --dir $d --reps 2 --seed 5; done
    done
    run_queued "$REF"
    [ "$(grep -c ' PASS ' <<<"$output")" -eq 24 ] || { echo "$output"; false; }
    # one TSV row per variant and direction, its direction and memory in config
    run "$REF" --part copies --bytes 4M --dir d2h --reps 2 --quiet --results "$BATS_TEST_TMPDIR/r.tsv"
    [ "$status" -eq 0 ]
    run "$REF" --part copies --bytes 4M --dir h2d --reps 2 --quiet --results "$BATS_TEST_TMPDIR/r.tsv"
    [ "$status" -eq 0 ]
    run awk -F'\t' '$1 == "lab" { for (i = 1; i <= NF; i++) c[$i] = i; next } /^#/ { next }
        { print $c["variant"], $c["config"], $c["status"], ($c["gbps"] > 0) }' "$BATS_TEST_TMPDIR/r.tsv"
    [ "${lines[0]}" = "1 dir=d2h pinned=0 pass 1" ]
    [ "${lines[1]}" = "2 dir=d2h pinned=1 pass 1" ]
    [ "${lines[2]}" = "1 dir=h2d pinned=0 pass 1" ]
    [ "${lines[3]}" = "2 dir=h2d pinned=1 pass 1" ]
    # make copies: the figures' two tables
    run make -s -C "$L05" copies REF=1 OUT="$BATS_TEST_TMPDIR/o" COPIES_SIZES="1M 3M" COPIES_REPS=2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(wc -l <"$BATS_TEST_TMPDIR/o/copies.tsv")" -eq 5 ]
    run grep -c $'\t-' "$BATS_TEST_TMPDIR/o/copies.tsv"
    [ "$output" -eq 0 ]
    grep -q '^peak memory bandwidth' "$BATS_TEST_TMPDIR/o/device.tsv"
}

@test "device and copies: the skeleton exits 4; a wrong peak fails, pageable v2 buffers are refused" {
    run "$L05/lab05" --part device --reps 1
    [ "$status" -eq 4 ]
    [[ "$output" != *"the GPU's"* ]]
    run "$L05/lab05" --part copies --bytes 4097 --reps 1
    [ "$status" -eq 4 ]
    planted "$BATS_TEST_TMPDIR/p"
    run "$BATS_TEST_TMPDIR/p/lab05" --part device --reps 1
    [ "$status" -eq 1 ] || { echo "$output"; false; }
    [[ "$output" == *"peak bandwidth, GB/s"*"<- differs"* ]]
    [ "$(grep -c '<- differs' <<<"$output")" -eq 1 ]
    run "$BATS_TEST_TMPDIR/p/lab05" --part copies --bytes 4097 --variant 1 --reps 1
    [ "$status" -eq 0 ]
    run bash -c "'$BATS_TEST_TMPDIR/p/lab05' --part copies --bytes 4097 --variant 2 --reps 1 2>&1"
    [ "$status" -eq 3 ]
    [[ "$output" == *"copies v2's host buffers are pageable"* ]]
}

# passes N: the output of the last run has N PASS lines
passes() {
    [ "$(grep -c ' PASS ' <<<"$output")" -eq "$1" ] || { echo "$output"; false; }
}

@test "strip: every variant equals the CPU reference at awkward sizes, radii and budgets" {
    local cases=(
        "--size 1x1 --radius 1"
        "--size 7x3 --radius 5"
        "--size 2x300 --radius 80 --tile 2"
        "--size 333x77 --radius 8 --tile 2000 --gpu-mem 1"
        "--size 100x61 --radius 40 --tile 100 --gpu-mem 1 --filter box"
        "--size 513x257 --radius 3 --tile 513 --gpu-mem 3 --streams 7"
        "--size 640x479 --radius 80 --gpu-mem 12 --streams 5 --filter box"
        "--size 1000x999 --radius 17 --tile 38000 --filter box --pinned"
        "--size 4096x4096 --radius 32 --gpu-mem 300 --tile 409600 --streams 4")
    for args in "${cases[@]}"; do
        run "$REF" --part strip --reps 2 --seed 7 $args
        [ "$status" -eq 0 ] || { echo "$args: exit $status"; echo "$output"; false; }
        passes 5 || { echo "$args"; false; }
    done
}

@test "strip: strips of one row, strips shorter than the radius, a last strip cut short" {
    # 61 one-row strips, radius 40: every strip's halo is 80 rows of others
    run "$REF" --part strip --size 100x61 --radius 40 --tile 100 --gpu-mem 1 --reps 1 --variant 3
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"61 strips of 1 rows, 1 buffer set"* ]]
    # 97 rows in strips of 10: the last one has 7
    run "$REF" --part strip --size 50x97 --radius 6 --tile 500 --reps 1 --variant 5 --streams 3
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"10 strips of 10 rows, 3 buffer sets"* ]]
    # more streams than strips: as many sets as strips
    run "$REF" --part strip --size 40x20 --radius 2 --tile 400 --reps 1 --variant 5 --streams 16
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"2 strips of 10 rows, 2 buffer sets"* ]]
}

@test "strip: the budget is respected: every peak within --gpu-mem, v1 skipped when it cannot fit" {
    run "$REF" --part strip --size 2048x1000 --radius 32 --gpu-mem 16 --reps 2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"1 whole"*"skipped"*"past the --gpu-mem budget of 16.0 MiB"* ]]
    passes 4
    [ "$(grep -c 'device memory  peak' <<<"$output")" -eq 4 ]
    # every peak is above zero (the buffers are counted) and within the budget
    awk '/device memory  peak/ { n++; if ($4 <= 0 || $4 > 16.0 || $8 != 16.0) bad = 1 } END { exit bad || n != 4 }' <<<"$output" ||
        { echo "$output"; false; }
    # asked explicitly, v1 is refused before any work
    run bash -c "'$REF' --part strip --size 2048x1000 --gpu-mem 16 --variant 1 2>&1"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
}

@test "strip: a solution that ignores the budget fails at its first allocation past it" {
    make -s -C "$L05" PLANTED=budget lab05-budget >/dev/null
    run bash -c "'$L05/lab05-budget' --part strip --size 2048x1000 --radius 32 --gpu-mem 16 --variant 3 --reps 1 2>&1"
    [ "$status" -eq 3 ] || { echo "$output"; false; }
    [[ "$output" == *"strip v3 asked for 15.6 MiB of device memory while holding 15.6 MiB: past the --gpu-mem budget of 16.0 MiB"* ]] ||
        { echo "$output"; false; }
    # with room for the whole picture the same code passes: the budget, not the code, failed it
    run "$L05/lab05-budget" --part strip --size 2048x1000 --radius 32 --gpu-mem 64 --variant 3 --reps 1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "batch: every variant equals the CPU reference exactly" {
    local cases=(
        "--size 1x1 --count 3"
        "--size 33x17 --count 70 --group 8 --streams 3 --loaders 3"
        "--size 97x61 --count 9 --filter gauss5 --group 4 --pinned"
        "--size 45x31 --count 5 --group 64 --filter sharpen3 --loaders 1"
        "--size 640x480 --count 130 --filter laplace5 --group 64 --loaders 2 --streams 2")
    for args in "${cases[@]}"; do
        run "$REF" --part batch --reps 2 --seed 11 $args
        [ "$status" -eq 0 ] || { echo "$args: exit $status"; echo "$output"; false; }
        passes 5 || { echo "$args"; false; }
    done
}

@test "batch v5 decodes a folder of pictures; decoding alone is measured in the same run" {
    make -s -C "$L05" build/mkpictures >/dev/null
    d="$BATS_TEST_TMPDIR/pics"
    "$L05/build/mkpictures" "$d" 40 64x48 >/dev/null
    run "$REF" --part batch --images "$d" --group 8 --loaders 3 --reps 2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    passes 5
    [[ "$output" == *"decoding alone"*"on 3 threads (groups of 8); v5's runs take"* ]]
    # the same pictures generated in memory give the same results (--out of both)
    "$REF" --part batch --images "$d" --variant 5 --reps 1 --quiet --out "$BATS_TEST_TMPDIR/files.png"
    "$REF" --part batch --size 64x48 --count 40 --variant 5 --reps 1 --quiet --out "$BATS_TEST_TMPDIR/mem.png"
    # compared pixel by pixel (two encodings of the same pixels need not be byte-equal)
    python3 -c 'import PIL' 2>/dev/null || skip "no Python imaging library to compare the pictures"
    python3 -c '
import sys
from PIL import Image
a, b = (Image.open(f) for f in sys.argv[1:3])
assert a.size == b.size and a.mode == b.mode, (a.size, b.size, a.mode, b.mode)
assert list(a.getdata()) == list(b.getdata()), "the pictures differ"
' "$BATS_TEST_TMPDIR/files.png" "$BATS_TEST_TMPDIR/mem.png"
}

@test "batch v5 decodes each run's own pictures: the reference passes every repetition, decode-once fails at the first timed one" {
    # the reference, five timed repetitions each on fresh content: generated pictures, then files
    run "$REF" --part batch --size 37x23 --count 11 --group 4 --loaders 2 --variant 5 --reps 5
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    passes 1
    make -s -C "$L05" build/mkpictures >/dev/null
    "$L05/build/mkpictures" "$BATS_TEST_TMPDIR/pics" 6 21x13 >/dev/null
    run "$REF" --part batch --images "$BATS_TEST_TMPDIR/pics" --group 4 --variant 5 --reps 5
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    passes 1
    # the planted example decode-once (grading/examples/lab05): v5 keeps the pictures of its
    # first call, the warm-up, which are wrong for the first timed repetition's content
    "$KIT_ROOT/grading/examples/make.sh" 05 "$BATS_TEST_TMPDIR/ex" >/dev/null
    d="$BATS_TEST_TMPDIR/ex/decode-once"
    make -s -C "$L05" O="$d" SRC="$d" "$d/lab05" >/dev/null
    run "$d/lab05" --part batch --size 37x23 --count 11 --group 4 --variant 5 --reps 3
    [ "$status" -eq 1 ] || { echo "$output"; false; }
    [[ "$output" == *"FAIL (timed run)"* ]] || { echo "$output"; false; }
    run "$d/lab05" --part batch --size 37x23 --count 11 --group 4 --variant 4 --reps 3
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    passes 1
}

# streams F TYPE: the distinct streams of the records of type K or C in F
streams() { awk -F'\t' -v t="$2" '$1 == t { print $4 }' "$1" | sort -u | wc -l; }
# count F TYPE [KIND]
count() { awk -F'\t' -v t="$2" -v k="${3:-}" '$1 == t && (k == "" || $6 == k) { n++ } END { print n + 0 }' "$1"; }
# bytes F KIND: bytes copied of that kind
bytes() { awk -F'\t' -v k="$2" '$1 == "C" && $6 == k { n += $5 } END { printf "%d\n", n }' "$1"; }

@test "strip: each variant's records show its kernels and copies on the streams it should use" {
    T="$BATS_TEST_TMPDIR/tl"
    # 1024x512, radius 16, 4 MiB: strips of 32 rows (16 strips) for every variant, v5 on 4 streams
    run "$REF" --part strip --size 1024x512 --radius 16 --gpu-mem 4 --tile 32768 --streams 4 --reps 2 --timeline "$T"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(grep -c 'engines  span' <<<"$output")" -eq 4 ]
    for v in 2 3 4 5; do
        f="$T/strip-v$v.tsv"
        [ "$(head -n1 "$f")" = "# kitcupti 3" ]
        [[ "$(tail -n1 "$f")" == "# end kernels="* ]]
        # two kernels per strip; every output row copied back exactly once
        [ "$(count "$f" K)" -eq 32 ] || { echo "v$v: $(count "$f" K) kernels"; false; }
        [ "$(bytes "$f" DtoH)" -eq $((1024 * 512 * 8)) ]
        # each input row at least once, halo rows again
        [ "$(bytes "$f" HtoD)" -gt $((1024 * 512 * 8)) ]
    done
    [ "$(streams "$T/strip-v2.tsv" K)" -eq 1 ]
    [ "$(streams "$T/strip-v3.tsv" K)" -eq 1 ]
    [ "$(streams "$T/strip-v3.tsv" C)" -eq 1 ]
    [ "$(streams "$T/strip-v4.tsv" K)" -eq 2 ]
    [ "$(streams "$T/strip-v4.tsv" C)" -eq 2 ]
    [ "$(streams "$T/strip-v5.tsv" K)" -eq 4 ]
    [ "$(streams "$T/strip-v5.tsv" C)" -eq 4 ]
    # v3 runs on a stream of its own, not on v2's default stream
    s2=$(awk -F'\t' '$1 == "K" { print $4; exit }' "$T/strip-v2.tsv")
    s3=$(awk -F'\t' '$1 == "K" { print $4; exit }' "$T/strip-v3.tsv")
    [ "$s2" != "$s3" ]
    # one row per variant in engines.tsv, with the run's peak inside the budget
    [ "$(awk -F'\t' 'NR > 1 && $1 == "strip"' "$T/engines.tsv" | wc -l)" -eq 4 ]
    awk -F'\t' 'NR > 1 && ($18 <= 0 || $18 > 4.0) { bad = 1 } END { exit bad }' "$T/engines.tsv"
    # v1 on its own with room for the whole picture: the picture each way once, two kernels
    run "$REF" --part strip --size 1024x512 --radius 16 --variant 1 --reps 1 --timeline "$T"
    [ "$status" -eq 0 ]
    [ "$(count "$T/strip-v1.tsv" K)" -eq 2 ]
    [ "$(bytes "$T/strip-v1.tsv" HtoD)" -eq $((1024 * 512 * 8)) ]
    [ "$(bytes "$T/strip-v1.tsv" DtoH)" -eq $((1024 * 512 * 8)) ]
}

@test "batch: each variant's records show its launches, copies and streams" {
    T="$BATS_TEST_TMPDIR/tl"
    run "$REF" --part batch --size 64x48 --count 40 --group 8 --streams 3 --reps 2 --timeline "$T"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(count "$T/batch-v1.tsv" K)" -eq 40 ]
    [ "$(count "$T/batch-v2.tsv" K)" -eq 40 ]
    [ "$(count "$T/batch-v3.tsv" K)" -eq 5 ]
    [ "$(count "$T/batch-v4.tsv" K)" -eq 5 ]
    [ "$(count "$T/batch-v5.tsv" K)" -eq 5 ]
    [ "$(streams "$T/batch-v1.tsv" K)" -eq 1 ]
    [ "$(streams "$T/batch-v3.tsv" K)" -eq 1 ]
    [ "$(streams "$T/batch-v4.tsv" K)" -eq 3 ]
    [ "$(streams "$T/batch-v5.tsv" K)" -eq 2 ]
    for v in 1 2 3 4 5; do
        [ "$(bytes "$T/batch-v$v.tsv" DtoH)" -eq $((64 * 48 * 3 * 40)) ]
        [ "$(bytes "$T/batch-v$v.tsv" HtoD)" -ge $((64 * 48 * 3 * 40)) ]
    done
}

@test "--timeline needs the records: with --no-trace it is refused" {
    run bash -c "'$REF' --part batch --count 2 --no-trace --timeline '$BATS_TEST_TMPDIR/x' 2>&1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--no-trace"* ]]
    run "$REF" --part batch --count 2 --size 8x8 --no-trace --reps 1
    [ "$status" -eq 0 ]
    [[ "$output" != *"engines  span"* ]]
}

@test "the untouched skeleton exits 4; its given variants pass" {
    run "$L05/lab05" --part strip --size 64x64 --reps 1
    [ "$status" -eq 4 ]
    run "$L05/lab05" --part batch --size 16x16 --count 4 --reps 1
    [ "$status" -eq 4 ]
    run "$L05/lab05" --part strip --size 64x40 --radius 9 --gpu-mem 1 --tile 640 --variant 1 --reps 1
    [ "$status" -eq 0 ]
    run "$L05/lab05" --part strip --size 64x40 --radius 9 --gpu-mem 1 --tile 640 --variant 2 --reps 1
    [ "$status" -eq 0 ]
    run "$L05/lab05" --part batch --size 16x16 --count 4 --variant 1 --reps 1
    [ "$status" -eq 0 ]
}

@test "a planted wrong solution is caught: exit 1 with mismatches" {
    make -s -C "$L05" PLANTED=wrong lab05-wrong >/dev/null
    run "$L05/lab05-wrong" --part strip --size 77x50 --radius 4 --tile 770 --variant 3 --reps 1 --diff-dir "$BATS_TEST_TMPDIR"
    [ "$status" -eq 1 ]
    [[ "$output" == *"elements wrong"* ]]
    is_png "$BATS_TEST_TMPDIR/lab05-strip-v3-77x50-diff.png"
    # one strip is the whole picture: nothing to get wrong there
    run "$L05/lab05-wrong" --part strip --size 77x50 --radius 4 --variant 3 --reps 1 --tile 100000
    [ "$status" -eq 0 ]
    run "$L05/lab05-wrong" --part batch --size 33x17 --count 9 --group 4 --variant 3 --reps 1 --diff-dir "$BATS_TEST_TMPDIR"
    [ "$status" -eq 1 ]
    run "$L05/lab05-wrong" --part batch --size 33x17 --count 9 --group 4 --variant 2 --reps 1
    [ "$status" -eq 0 ]
}

@test "compute-sanitizer memcheck: the reference is clean" {
    run make -s -C "$L05" sanitize REF=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"clean"* ]]
}

@test "compute-sanitizer catches the planted out-of-bounds kernels" {
    make -s -C "$L05" PLANTED=oob lab05-oob >/dev/null
    run "$KIT_ROOT/common/scripts/sanitize.sh" "$L05/lab05-oob" "--part strip --size 37x23 --radius 2 --variant 1 --no-trace" memcheck
    [ "$status" -eq 1 ]
    [[ "$output" == *"Invalid __global__"* ]]
    run "$KIT_ROOT/common/scripts/sanitize.sh" "$L05/lab05-oob" "--part batch --size 37x23 --count 2 --variant 1 --no-trace" memcheck
    [ "$status" -eq 1 ]
    [[ "$output" == *"Invalid __global__"* ]]
}

@test "the injection library records kernels, copies and device memory of a whole program (kitcupti 3, 1)" {
    lib="$KIT_ROOT/common/build/libkitcupti.so"
    [ -f "$lib" ] || skip "no libkitcupti.so (no CUPTI in this toolkit)"
    f="$BATS_TEST_TMPDIR/rec.tsv"
    run env CUDA_INJECTION64_PATH="$lib" KIT_CUPTI_OUT="$f" "$REF" --part batch --size 32x32 --count 6 --group 3 --variant 3 --reps 1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # the in-process records step aside for the injected library
    [[ "$output" == *"an injected library"* ]]
    [ "$(head -n1 "$f")" = "# kitcupti 3" ]
    [ "$(grep -c '^# calib ' "$f")" -eq 2 ]
    [[ "$(tail -n1 "$f")" == "# end kernels="*" copies="*" memory="*" dropped=0" ]]
    # warm-up and one timed run: 2 launches of 3 pictures each, at least
    [ "$(awk -F'\t' '$1 == "K" && $7 == "batch_kernel"' "$f" | wc -l)" -ge 4 ]
    [ "$(count "$f" C HtoD)" -ge 4 ]
    [ "$(count "$f" C DtoH)" -ge 4 ]
    # every record line is well-formed: 8 fields, end after start
    awk -F'\t' '!/^#/ && (NF != 8 || $3 < $2) { bad = 1 } END { exit bad }' "$f"
    # the harness's buffers are pageable without --pinned: every host copy says so
    [ "$(awk -F'\t' '$1 == "C" && $6 == "HtoD" && $8 != "pageable>device"' "$f" | wc -l)" -eq 0 ]
    [ "$(awk -F'\t' '$1 == "C" && $6 == "DtoH" && $8 != "device>pageable"' "$f" | wc -l)" -eq 0 ]
    # v3's device buffers: taken and given back, device memory, at least 2 x 3 pictures
    [ "$(awk -F'\t' '$1 == "M" && $6 == "device" && $7 == "alloc" && $5 >= 3 * 32 * 32 * 3' "$f" | wc -l)" -ge 2 ]
    [ "$(awk -F'\t' '$1 == "M" && $7 == "free"' "$f" | wc -l)" -ge 2 ]
    # a kernel's shared memory per block, STATIC+DYNAMIC
    awk -F'\t' '$1 == "K" && $8 !~ /^[0-9]+\+[0-9]+$/ { bad = 1 } END { exit bad }' "$f"
    # v4 with --pinned: its copies read and write page-locked memory
    run env CUDA_INJECTION64_PATH="$lib" KIT_CUPTI_OUT="$f" "$REF" --part batch --size 32x32 --count 6 --group 3 --variant 4 --streams 2 --reps 1 --pinned --quiet
    [ "$status" -eq 0 ]
    [ "$(awk -F'\t' '$1 == "C" && $6 == "HtoD" && $8 == "pinned>device"' "$f" | wc -l)" -ge 2 ]
    # the older format for older readers: kernels only, four fields
    run env CUDA_INJECTION64_PATH="$lib" KIT_CUPTI_OUT="$f" KIT_CUPTI_FORMAT=1 "$REF" --part batch --size 32x32 --count 6 --group 3 --variant 3 --reps 1 --quiet
    [ "$status" -eq 0 ]
    [ "$(head -n1 "$f")" = "# kitcupti 1" ]
    awk -F'\t' '!/^#/ && NF != 4 { bad = 1 } END { exit bad }' "$f"
    grep -q $'^batch_kernel\t' "$f"
    # to an inherited descriptor
    run bash -c "exec 9>'$BATS_TEST_TMPDIR/fd.tsv'; CUDA_INJECTION64_PATH='$lib' KIT_CUPTI_FD=9 '$REF' --part batch --size 8x8 --count 2 --variant 1 --reps 1 --quiet"
    [ "$status" -eq 0 ]
    grep -q '^# end kernels=' "$BATS_TEST_TMPDIR/fd.tsv"
}

@test "the harness's outputs pass the grader's checker, both parts, every repetition" {
    make -s -C "$KIT_ROOT/grading" build/check-05 >/dev/null
    local chk="$KIT_ROOT/grading/build/check-05"
    run agree "$REF" "$chk" --part strip --size 67x45 --radius 5 --tile 335 --gpu-mem 1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 15 ] # five variants, warm-up + 2 repetitions each
    run agree "$REF" "$chk" --part batch --size 23x17 --count 7 --group 3 --loaders 2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 15 ]
    run agree "$REF" "$chk" --part device --device 0
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 3 ]
    run agree "$REF" "$chk" --part copies --bytes 70001 --dir d2h
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 6 ]
}

@test "make check passes with the solution" {
    run make -s -C "$L05" check REF=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "--out writes the batch's results as one picture" {
    run "$REF" --part batch --size 80x60 --count 4 --variant 4 --pinned --reps 1 --out "$BATS_TEST_TMPDIR/b.png"
    [ "$status" -eq 0 ]
    is_png "$BATS_TEST_TMPDIR/b.png"
}
