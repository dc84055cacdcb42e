#!/usr/bin/env bats
# GPU tests of lab 04: every variant of both parts against the CPU reference
# at awkward sizes and block shapes, radii larger than a tile, the harness's
# outputs against the grader's checker, the skeleton, the planted bugs
# (a wrong result, a missing __syncthreads()), and compute-sanitizer
# (memcheck and racecheck). Skipped without a device.
load ../cli/helpers
L04="$KIT_ROOT/labs/04_shared_mem"

setup() {
    REF="$L04/lab04-ref"
    skip_without_gpu "$REF"
    export KIT_SYNC_CHECK=1
}

# pass ARGS...: the reference binary passes on them (one timed run)
pass() {
    run "$REF" --reps 1 --seed 42 "$@"
    [ "$status" -eq 0 ] || { echo "$*: exit $status"; echo "$output"; return 1; }
}

@test "rgb: every variant equals the CPU reference at 1x1, 3x3, 17x13, 2x9, 1023x769" {
    for s in 1x1 3x3 17x13 2x9 1023x769; do
        for f in laplace5 gauss5 edge3 sharpen3 "gaussian --radius 1" "gaussian --radius 2"; do
            queue --part rgb --size $s --filter $f
        done
    done
    run_queued "$REF" --reps 1 --seed 42
}

@test "rgb: every variant at the guide's 4992x3744 picture and at 4000x3001" {
    queue --part rgb --size 4992x3744
    queue --part rgb --size 4000x3001 --filter gauss5
    run_queued "$REF" --reps 1 --seed 42
}

@test "rgb v4: every padding gives the same bytes (only the speed differs)" {
    for pad in 0 1 5 20 26 64; do
        queue --part rgb --variant 4 --size 77x45 --pad $pad
        queue --part rgb --variant 4 --size 33x17 --filter edge3 --pad $pad
    done
    run_queued "$REF" --reps 1 --seed 42
}

@test "rgb v5: odd block shapes, warps across rows, one thread a block" {
    for b in 32x8 7x5 1x1 64x2 3x17 128x8 32x32 16x16; do
        for s in 1x1 17x13 161x37; do
            queue --part rgb --variant 5 --size $s --block $b --filter laplace5
        done
    done
    run_queued "$REF" --reps 1 --seed 42
}

@test "rgb v6: every tile, odd blocks, widths around multiples of 16 (fast and byte paths)" {
    for t in 4x4 4x8 8x2 8x4 8x8 16x2 16x4; do
        for b in 32x8 8x4 7x5 1x1 16x16 64x8; do
            queue --part rgb --variant 6 --size 161x37 --tile $t --block $b
            queue --part rgb --variant 6 --size 160x9 --tile $t --block $b --filter edge3
        done
    done
    for w in 1 2 3 4 5 7 8 9 15 16 17 31 32 33 63 64 65 255 256 257 4095 4096; do
        for f in laplace5 sharpen3; do
            queue --part rgb --variant 6 --size ${w}x11 --filter $f
        done
    done
    run_queued "$REF" --reps 1 --seed 42
}

@test "rgb: filters the variants cannot take are refused with exit 2 and one line" {
    for f in "box --radius 1" "gaussian --radius 3"; do
        for v in 1 6; do
            run bash -c "'$REF' --part rgb --variant $v --size 20x20 --filter $f 2>&1"
            [ "$status" -eq 2 ] || { echo "$f v$v: exit $status"; echo "$output"; false; }
            [ "${#lines[@]}" -eq 1 ]
        done
    done
    # without --variant every variant says why it was skipped, nothing fails
    run "$REF" --part rgb --size 20x20 --filter box --reps 1
    [ "$status" -eq 0 ]
    [ "$(grep -c skipped <<<"$output")" -eq 6 ]
}

@test "sep: every variant at 1x1, 3x3, 17x13, 1023x769 and a large plane" {
    for s in 1x1 3x3 17x13 1023x769; do
        for f in "gaussian --radius 3" gauss5 "box --radius 9" "gaussian --radius 32"; do
            queue --part sep --size $s --filter $f
        done
    done
    queue --part sep --size 4096x4096 --radius 32 --pinned
    run_queued "$REF" --reps 1 --seed 42
}

@test "sep: radius larger than a tile (R = 80 on small planes), every variant" {
    for s in 17x13 40x30 100x9 9x100 33x200 200x33; do
        for r in 33 64 80; do
            queue --part sep --size $s --radius $r
        done
    done
    run_queued "$REF" --reps 1 --seed 42
}

@test "sep: odd block shapes and every --per-thread of v4" {
    for b in 32x32 16x16 7x3 32x1 1x1 64x4 3x64; do
        queue --part sep --size 97x61 --radius 7 --block $b
    done
    for n in 4 8 16; do
        for b in 32x8 32x4 16x16 8x2; do
            queue --part sep --variant 4 --size 333x170 --radius 40 --block $b --per-thread $n
            queue --part sep --variant 4 --size 70x300 --radius 80 --block $b --per-thread $n
        done
    done
    run_queued "$REF" --reps 1 --seed 42
}

@test "the harness's outputs pass the grader's checker, warm-up and every repetition" {
    make -s -C "$KIT_ROOT/grading" build/check-04 >/dev/null
    local chk="$KIT_ROOT/grading/build/check-04"
    run agree "$REF" "$chk" --part rgb --size 37x23
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 18 ] # six variants, a warm-up and two repetitions each
    run agree "$REF" "$chk" --part rgb --size 64x16 --filter gauss5 --block 16x16 --tile 4x8
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 18 ]
    run agree "$REF" "$chk" --part sep --size 45x21 --radius 9
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 12 ]
}

@test "the untouched skeleton exits 4 in both parts; its given sep v1 passes" {
    run "$L04/lab04" --part rgb --size 64x64 --reps 1
    [ "$status" -eq 4 ]
    run "$L04/lab04" --part sep --size 64x64 --radius 5 --reps 1
    [ "$status" -eq 4 ]
    [[ "$output" == *"global"*"PASS"* ]]
}

@test "a planted wrong solution is caught in both parts: exit 1, mismatches, a diff picture" {
    make -s -C "$L04" PLANTED=wrong lab04-wrong >/dev/null
    run "$L04/lab04-wrong" --part rgb --size 77x33 --reps 1 --variant 1 --diff-dir "$BATS_TEST_TMPDIR"
    [ "$status" -eq 1 ]
    [[ "$output" == *"wrong"* ]]
    is_png "$(ls "$BATS_TEST_TMPDIR"/lab04-rgb-v1-*-diff.png)"
    run "$L04/lab04-wrong" --part sep --size 77x33 --radius 4 --reps 1 --variant 2
    [ "$status" -eq 1 ]
    # the variants the sed did not touch still pass
    run "$L04/lab04-wrong" --part rgb --size 77x33 --reps 1 --variant 2
    [ "$status" -eq 0 ]
}

@test "a planted missing __syncthreads() is caught: racecheck reports it, or the result is wrong" {
    make -s -C "$L04" PLANTED=race lab04-race >/dev/null
    for args in "--part rgb --size 64x48 --variant 1" "--part sep --size 64x200 --radius 8 --variant 2"; do
        run "$KIT_ROOT/common/scripts/sanitize.sh" "$L04/lab04-race" "$args" racecheck
        [ "$status" -eq 1 ] || { echo "$args: $output"; false; }
    done
    # and the reference, same cases, is clean: the test can fail
    for args in "--part rgb --size 64x48 --variant 1" "--part sep --size 64x200 --radius 8 --variant 2"; do
        run "$KIT_ROOT/common/scripts/sanitize.sh" "$REF" "$args" racecheck
        [ "$status" -eq 0 ] || { echo "$args: $output"; false; }
    done
}

@test "compute-sanitizer memcheck and racecheck: the reference is clean" {
    run make -s -C "$L04" sanitize REF=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"racecheck"*"clean"* ]]
}

@test "--out writes viewable pictures from both parts, planar v6 included" {
    run "$REF" --part rgb --size 300x200 --variant 6 --reps 1 --out "$BATS_TEST_TMPDIR/edges.png"
    [ "$status" -eq 0 ]
    is_png "$BATS_TEST_TMPDIR/edges.png"
    run "$REF" --part sep --size 300x200 --radius 6 --variant 4 --reps 1 --out "$BATS_TEST_TMPDIR/blur.png"
    [ "$status" -eq 0 ]
    is_png "$BATS_TEST_TMPDIR/blur.png"
}

@test "results TSV: both parts, config with block, tile and pinned, the copy ceiling" {
    local r="$BATS_TEST_TMPDIR/r.tsv"
    run "$REF" --part rgb --size 640x480 --reps 3 --results "$r" --quiet
    [ "$status" -eq 0 ]
    run "$REF" --part sep --size 512x512 --radius 8 --reps 3 --pinned --results "$r" --quiet
    [ "$status" -eq 0 ]
    grep -q '^# copy ceiling: ' "$r"
    grep -q 'block=32x4 tile=16x2' "$r"
    grep -q 'block=32x4 per-thread=16 pinned=1' "$r"
    [ "$(awk -F'\t' '!/^#/ && $1 == "04" && $21 == "sep"' "$r" | wc -l)" -eq 4 ]
    # total time (with the copies) is never below kernel time
    awk -F'\t' '!/^#/ && $1 == "04" && $18 == "pass" && $13 < $10 { exit 1 }' "$r"
}
