#!/usr/bin/env bats
# GPU tests of lab 03: every variant against the CPU reference at awkward
# sizes and block shapes, the filters a variant must refuse, planted wrong
# solutions, compute-sanitizer on the reference and on a planted
# out-of-bounds kernel. Skipped without a device.
#
# Variants: 1 linear-grid, 2 2d-grid, 3 const-filter, 4 unrolled,
# 5 planar-bytes, 6 planar-words (dp4a), 7 separable-f64, 8 channel-threads.
load ../cli/helpers

setup() {
    REF="$L03/lab03-ref"
    skip_without_gpu "$REF"
    export KIT_SYNC_CHECK=1
}

# tsv_col FILE NAME...: the named columns of a results file's rows, tab-separated
tsv_col() {
    local f=$1
    shift
    awk -F'\t' -v want="$*" '
        /^#/ { next }
        !hdr { hdr = 1; for (i = 1; i <= NF; i++) col[$i] = i; n = split(want, w, " "); next }
        { s = ""; for (k = 1; k <= n; k++) s = s (k > 1 ? "\t" : "") $(col[w[k]]); print s }' "$f"
}

@test "every variant equals the CPU reference at 1x1, 3x3, 17x13, 1023x769" {
    for s in 1x1 3x3 17x13 2x9 1023x769; do
        for f in laplace5 gauss5; do
            queue --size $s --filter $f --reps 2 --seed 42
        done
    done
    run_queued "$REF"
}

@test "every variant passes at the course's 4992x3744 picture" {
    run "$REF" --size 4992x3744 --reps 2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run "$REF" --size 4992x3744 --reps 2 --filter gauss5
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"separable-f64"* ]]
}

@test "every variant one by one, so that none is skipped unseen" {
    for v in 1 2 3 4 5 6 8; do
        for f in laplace5 edge3 sharpen3 gauss5; do
            queue --variant $v --filter $f --size 45x31 --reps 2
        done
    done
    for f in gauss5 "box --radius 3" "gaussian --radius 7"; do
        queue --variant 7 --filter $f --size 45x31 --reps 2
    done
    run_queued "$REF"
}

@test "KIT_GPU_WAIT=block (the grader's correctness runs: waits sleep): every variant still passes" {
    KIT_GPU_WAIT=block run "$REF" --size 1023x769 --reps 2 --seed 7
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(grep -c PASS <<<"$output")" -eq 7 ] || { echo "$output"; false; }
}

@test "odd block shapes and pinned buffers, every variant" {
    for args in "--filter edge3 --block 7x5" "--filter sharpen3 --block 32x8" "--block 1x1 --size 45x31" \
                "--block 1024x1" "--block 1x1024" "--block 33x31" "--filter gaussian --radius 3 --pinned" \
                "--filter gauss5 --block 5x3 --pinned"; do
        queue --size 101x67 --reps 2 $args
    done
    run "$REF" --variant 7 --filter gaussian --radius 80 --size 200x170 --block 13x3 --reps 2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run_queued "$REF"
}

@test "linear-grid: pictures whose pixel count is not a multiple of the block's threads" {
    for s in 1x1 7x1 1x7 31x33 97x3 1000x3; do
        for b in 16x16 7x5 1x1 1024x1 3x100; do
            queue --variant 1 --size $s --block $b --reps 2 --filter gauss5
        done
    done
    run_queued "$REF"
}

@test "unrolled and planar-bytes: every radius they have, interleaved and planar" {
    for v in 4 5; do
        for f in "gaussian --radius 1" "gaussian --radius 2" "gaussian --radius 3" \
                 "gaussian --radius 4" edge3 laplace5; do
            for s in 1x1 8x3 61x47; do
                queue --variant $v --size $s --reps 2 --filter $f
            done
        done
    done
    run_queued "$REF"
}

@test "planar-words (dp4a, 8x4 pixels a thread) at every radius it has and widths not multiple of 4" {
    for w in 1 2 3 5 7 8 9 13 15 16 17 20 24 31 33 4095 4096; do
        for f in "gaussian --radius $(( (w % 2) + 1 ))" laplace5; do
            queue --variant 6 --size ${w}x11 --reps 2 --filter $f
        done
    done
    for f in "laplace5" "edge3" "sharpen3" "gauss5" "gaussian --radius 1" "gaussian --radius 2"; do
        queue --variant 6 --size 103x29 --reps 2 --filter $f
    done
    run_queued "$REF"
}

@test "channel-threads: exact at every radius the interleaved variants take, rows of bytes not a multiple of the block" {
    # 3W bytes a row: a multiple of 16 only where W is; 1x1 and 2x9 smaller than the window
    for s in 1x1 2x9 17x13 5x40 33x7 341x5; do
        for f in edge3 sharpen3 laplace5 gauss5 "gaussian --radius 1" "gaussian --radius 2" \
                 "gaussian --radius 3" "gaussian --radius 4"; do
            queue --variant 8 --size $s --reps 2 --filter $f
        done
    done
    # blocks narrower than a pixel's three bytes, one warp across three rows, one thread a row
    for b in 1x1 2x3 7x5 32x8 48x4 1024x1 1x1024 33x31; do
        queue --variant 8 --size 101x67 --reps 2 --filter gauss5 --block $b --seed 5
    done
    queue --variant 8 --size 1023x769 --reps 2 --filter laplace5 --pinned
    run_queued "$REF"
}

@test "a filter one variant refuses: the others still run, and it says why it was skipped" {
    run "$REF" --filter gaussian --radius 3 --size 20x20 --reps 2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"skipped"* ]]
    [[ "$output" == *"8-bit integer weights"* ]]
    [ "$(printf '%s\n' "$output" | grep -c PASS)" -eq 7 ]
}

@test "planar-words with block shapes that split warps across rows, and odd plane widths" {
    for b in 7x5 48x2 1x1 32x8 16x16; do
        for s in 160x37 4992x19 161x7; do
            queue --variant 6 --size $s --block $b --reps 2 --filter laplace5
        done
    done
    run_queued "$REF"
}

@test "a planted wrong solution is caught in every variant it touches: exit 1 with mismatches" {
    make -s -C "$L03" PLANTED=wrong lab03-wrong >/dev/null
    for v in 1 2 3 4 5; do
        d="$BATS_TEST_TMPDIR/v$v"
        mkdir -p "$d"
        run "$L03/lab03-wrong" --size 77x33 --reps 2 --variant $v --diff-dir "$d"
        [ "$status" -eq 1 ] || { echo "v$v: exit $status"; echo "$output"; false; }
        [[ "$output" == *"FAIL"* ]]
        png=$(find "$d" -name '*.png' | head -n 1)
        [ -n "$png" ] || { echo "v$v: no diff picture"; false; }
        is_png "$png"
    done
    # the variants it leaves alone still pass
    run "$L03/lab03-wrong" --size 77x33 --reps 2 --variant 6,8
    [ "$status" -eq 0 ]
}

@test "make filters: every filter at both sizes, each variant that takes it passing, no refused row" {
    run make -s -C "$L03" filters REF=1 OUT="$BATS_TEST_TMPDIR" FILTERS_SIZES="31x17 300x300" FILTERS_REPS=2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    f="$BATS_TEST_TMPDIR/filters.tsv"
    # laplace5, edge3, sharpen3: v1 to v6 and v8; gauss5: all eight; at each size
    [ "$(tsv_col "$f" status | grep -c '^pass$')" -eq 58 ] || { cat "$f"; false; }
    [ "$(tsv_col "$f" status | grep -vc '^pass$')" -eq 0 ]
    [ "$(tsv_col "$f" variant param width | grep -c $'^7\tgauss5\t')" -eq 2 ]
}

@test "compute-sanitizer memcheck: the reference is clean" {
    run make -s -C "$L03" sanitize REF=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"clean"* ]]
}

@test "compute-sanitizer catches a planted out-of-bounds kernel" {
    make -s -C "$L03" PLANTED=oob lab03-oob >/dev/null
    run "$KIT_ROOT/common/scripts/sanitize.sh" "$L03/lab03-oob" "--size 37x23 --variant 2" memcheck
    [ "$status" -eq 1 ]
    [[ "$output" == *"Invalid __global__"* ]]
}

@test "--out writes a viewable sharpened picture" {
    "$REF" --size 300x200 --variant 3 --reps 1 --quiet --save-input "$BATS_TEST_TMPDIR/photo.png"
    run "$REF" --image "$BATS_TEST_TMPDIR/photo.png" --filter sharpen3 --out "$BATS_TEST_TMPDIR/sharp.png" --reps 2
    [ "$status" -eq 0 ]
    is_png "$BATS_TEST_TMPDIR/sharp.png"
}

@test "results TSV: kernel and total time, config with block and pinned, copy ceiling" {
    run "$REF" --size 640x480 --reps 3 --pinned --results "$BATS_TEST_TMPDIR/r.tsv" --quiet
    [ "$status" -eq 0 ]
    grep -q '^# gpu: ' "$BATS_TEST_TMPDIR/r.tsv"
    grep -q '^# copy ceiling: ' "$BATS_TEST_TMPDIR/r.tsv"
    grep -q 'block=16x16 pinned=1' "$BATS_TEST_TMPDIR/r.tsv"
    grep -q 'block=32x8 pinned=1' "$BATS_TEST_TMPDIR/r.tsv"
    # one passing row per 8-bit variant (laplace5 is not separable); total never below kernel
    [ "$(tsv_col "$BATS_TEST_TMPDIR/r.tsv" status | grep -c '^pass$')" -eq 7 ]
    tsv_col "$BATS_TEST_TMPDIR/r.tsv" status kernel_ms total_ms |
        awk -F'\t' '$1 == "pass" && $3 < $2 { bad = 1 } END { exit bad }'
}
