#!/usr/bin/env bats
# GPU tests of lab 03: every variant against the CPU reference at awkward
# sizes, the skeleton, a planted wrong solution, compute-sanitizer on the
# reference and on a planted out-of-bounds kernel. Skipped without a device.
load ../cli/helpers

setup() {
    REF="$L03/lab03-ref"
    skip_without_gpu "$REF"
    export KIT_SYNC_CHECK=1
}

@test "every variant equals the CPU reference at 1x1, 3x3, 17x13, 1023x769" {
    for s in 1x1 3x3 17x13 1023x769; do
        for f in laplace5 gauss5; do
            run "$REF" --size $s --filter $f --reps 1 --seed 42
            [ "$status" -eq 0 ] || { echo "$s $f: exit $status"; echo "$output"; false; }
        done
    done
}

@test "every variant passes at the seed's 4992x3744 picture" {
    run "$REF" --size 4992x3744 --reps 1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run "$REF" --size 4992x3744 --reps 1 --filter gauss5 --variant 4
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "every filter, odd block shapes, pinned buffers" {
    for args in "--filter edge3 --block 7x5" "--filter sharpen3 --block 32x8" \
                "--filter gaussian --radius 4 --block 1x1 --size 45x31" "--filter gaussian --radius 3 --pinned" \
                "--filter gaussian --radius 80 --variant 4 --size 200x170"; do
        run "$REF" --size 101x67 --reps 1 $args
        [ "$status" -eq 0 ] || { echo "$args: exit $status"; echo "$output"; false; }
    done
}

@test "v3 (8x4 pixels a thread, words) at every radius it has and at widths not multiple of 4" {
    for w in 1 2 3 5 7 8 9 13 15 16 17 20 24 31 33 4095 4096; do
        for f in "gaussian --radius $(( (w % 2) + 1 ))" laplace5; do
            run "$REF" --variant 3 --size ${w}x11 --reps 1 --filter $f
            [ "$status" -eq 0 ] || { echo "width $w $f: exit $status"; echo "$output"; false; }
        done
    done
    for f in "laplace5" "edge3" "sharpen3" "gauss5" "gaussian --radius 1" "gaussian --radius 2"; do
        run "$REF" --variant 3 --size 103x29 --reps 1 --filter $f
        [ "$status" -eq 0 ] || { echo "$f: exit $status"; echo "$output"; false; }
    done
}

@test "v3 refuses filters without 8-bit integer weights: exit 2 with one line" {
    for f in "gaussian --radius 3" "gaussian --radius 4" "box --radius 1"; do
        run bash -c "'$REF' --variant 3 --filter $f --size 20x20 2>&1"
        [ "$status" -eq 2 ] || { echo "$f: exit $status"; echo "$output"; false; }
        [ "${#lines[@]}" -eq 1 ] || { echo "$output"; false; }
    done
    run bash -c "'$REF' --variant 3 --filter gaussian --radius 3 --size 20x20 2>&1"
    [[ "$output" == *"8-bit integer weights"* ]]
    # without --variant the others still run, and v3 says why it was skipped
    run "$REF" --filter gaussian --radius 3 --size 20x20 --reps 1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"skipped"* ]]
}

@test "v3 with block shapes that split warps across rows, and odd plane widths" {
    for b in 7x5 48x2 1x1 32x8 16x16; do
        for s in 160x37 4992x19 161x7; do
            run "$REF" --variant 3 --size $s --block $b --reps 1 --filter laplace5
            [ "$status" -eq 0 ] || { echo "$b $s: exit $status"; echo "$output"; false; }
        done
    done
}

@test "filters whose float sums are not exact are refused by the 8-bit variants: exit 2" {
    run bash -c "'$REF' --variant 2 --filter box --radius 2 --size 20x20 2>&1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"not exact"* ]]
    run "$REF" --variant 4 --filter box --radius 5 --size 40x20 --reps 1
    [ "$status" -eq 0 ]
}

@test "a radius beyond what a variant supports: exit 2 with one line" {
    run bash -c "'$REF' --variant 1 --filter gaussian --radius 9 --size 20x20 2>&1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"radius 9"* ]]
    run "$REF" --variant 4 --size 20x20
    [ "$status" -eq 2 ]
}

@test "the untouched skeleton exits 4 on a GPU" {
    run "$L03/lab03" --size 64x64 --reps 1
    [ "$status" -eq 4 ]
}

@test "a planted wrong solution is caught: exit 1 with mismatches" {
    make -s -C "$L03" PLANTED=wrong lab03-wrong >/dev/null
    run "$L03/lab03-wrong" --size 77x33 --reps 1 --variant 1 --diff-dir "$BATS_TEST_TMPDIR"
    [ "$status" -eq 1 ]
    [[ "$output" == *"elements wrong"* ]]
    is_png "$BATS_TEST_TMPDIR/lab03-v1-diff.png"
}

@test "compute-sanitizer memcheck: the reference is clean" {
    run make -s -C "$L03" sanitize REF=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"clean"* ]]
}

@test "compute-sanitizer catches a planted out-of-bounds kernel" {
    make -s -C "$L03" PLANTED=oob lab03-oob >/dev/null
    run "$KIT_ROOT/common/scripts/sanitize.sh" "$L03/lab03-oob" "--size 37x23 --variant 1" memcheck
    [ "$status" -eq 1 ]
    [[ "$output" == *"Invalid __global__"* ]]
}

@test "--out writes a viewable sharpened picture" {
    "$REF" --size 300x200 --variant 2 --reps 1 --quiet --save-input "$BATS_TEST_TMPDIR/photo.png"
    run "$REF" --image "$BATS_TEST_TMPDIR/photo.png" --filter sharpen3 --out "$BATS_TEST_TMPDIR/sharp.png" --reps 1
    [ "$status" -eq 0 ]
    is_png "$BATS_TEST_TMPDIR/sharp.png"
}

@test "results TSV: kernel and total time, config with block and pinned, copy ceiling" {
    run "$REF" --size 640x480 --reps 3 --pinned --results "$BATS_TEST_TMPDIR/r.tsv" --quiet
    [ "$status" -eq 0 ]
    grep -q '^# gpu: ' "$BATS_TEST_TMPDIR/r.tsv"
    grep -q '^# copy ceiling: ' "$BATS_TEST_TMPDIR/r.tsv"
    grep -q 'block=16x16 pinned=1' "$BATS_TEST_TMPDIR/r.tsv"
    # total time is never below kernel time
    awk -F'\t' '!/^#/ && $1 == "03" && $18 == "pass" && $13 < $10 { exit 1 }' "$BATS_TEST_TMPDIR/r.tsv"
}
