#!/usr/bin/env bats
# GPU tests of lab 07: every variant of every part against the CPU reference
# at awkward sizes, every v5 tile, managed memory, the refusal of a managed
# size beyond the GPU's memory, the skeleton, the planted bugs (a wrong
# result, a missing barrier that racecheck must see), compute-sanitizer on
# the reference. Skipped without a device.
load ../cli/helpers

L07="$KIT_ROOT/labs/07_zerocopy_soa"

setup() {
    REF="$L07/lab07-ref"
    local rc=0
    "$REF" --part sum --n 1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || skip "no CUDA device"
    export KIT_SYNC_CHECK=1
}

# pass ARGS...: the reference passes on this case (every variant it takes)
pass() {
    run "$REF" --reps 2 --seed 7 "$@"
    [ "$status" -eq 0 ] || { echo "$*: exit $status"; echo "$output"; return 1; }
    [[ "$output" == *"PASS"* ]] || { echo "$*: nothing passed"; echo "$output"; return 1; }
}

@test "sum: every variant at 1, 7919, 1000003 and 2^22 elements, pageable and pinned" {
    for n in 1 31 7919 1000003 4194304; do
        queue --part sum --n $n
        queue --part sum --n $n --pinned
    done
    run_queued "$REF" --reps 2 --seed 7
}

@test "sum: the variants' rows say span total; total is never below kernel" {
    run "$REF" --part sum --n 100000 --reps 3 --results "$BATS_TEST_TMPDIR/s.tsv" --quiet
    [ "$status" -eq 0 ]
    grep -q '^# copy ceiling: ' "$BATS_TEST_TMPDIR/s.tsv"
    awk -F'\t' '!/^#/ && !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        !/^#/ { n++; if ($c["span"] != "total" || $c["status"] != "pass" || $c["total_ms_median"] + 0 < $c["kernel_ms_median"] + 0) bad = 1 }
        END { exit bad || n != 4 }' "$BATS_TEST_TMPDIR/s.tsv"
}

@test "sum: a managed size beyond the GPU's memory is refused with one line, before any work" {
    # 2^34 floats: 64 GiB a vector, three managed vectors
    run bash -c "'$REF' --part sum --variant 3 --n 17179869184 2>&1"
    [ "$status" -eq 2 ] || { echo "exit $status: $output"; false; }
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"GPU memory"* ]]
    run bash -c "'$REF' --part sum --n 17179869184 --quiet 2>&1"
    [ "$status" -eq 2 ]
}

@test "soa: every variant at 1x1, 1x7919, 33x31, 8191x8193, every plane, max 0 and 254" {
    queue --part soa --size 1x1
    queue --part soa --size 1x7919 --plane r --max 0
    queue --part soa --size 7919x1 --plane b --max 254
    queue --part soa --size 33x31 --plane g --max 17
    queue --part soa --size 8191x8193 --plane r
    run_queued "$REF" --reps 2 --seed 7
}

@test "transpose: every variant at 1x1, 1x7919, 7919x1, 33x31, 8191x8193" {
    for s in 1x1 2x3 1x7919 7919x1 33x31 8191x8193; do
        queue --part transpose --size $s
    done
    run_queued "$REF" --reps 2 --seed 7
}

@test "transpose: other tiles for v1 to v4, at sizes that are not multiples of them" {
    for t in 16x16 8x8 1x1; do
        queue --part transpose --size 45x77 --tile $t
    done
    for t in 7x5 32x8 64x16 1024x1; do
        queue --part transpose --size 45x77 --tile $t --variant 1
        queue --part transpose --size 45x77 --tile $t --variant 2
    done
    run_queued "$REF" --reps 2 --seed 7
}

@test "transpose: v5 with every tile, on its fast path, its edges and odd sizes" {
    for t in 64x64 128x32 32x128 128x64 64x128 64x32 32x64; do
        for s in 256x512 260x132 1024x1024 1028x516 33x31 1x4096 4096x4; do
            queue --part transpose --variant 5 --tile $t --size $s
        done
    done
    run_queued "$REF" --reps 2 --seed 7
}

@test "transpose --managed runs v1 and v3 on managed memory and skips the others" {
    run "$REF" --part transpose --size 1023x1025 --managed --reps 2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"1 naive-rows"*"PASS"* ]]
    [[ "$output" == *"3 smem-tile"*"PASS"* ]]
    [[ "$output" == *"2 naive-cols"*"skipped"* ]]
    [[ "$output" == *"5 smem-vec4"*"skipped"* ]]
    pass --part transpose --size 1x7919 --managed
    pass --part transpose --size 8192x8192 --managed --variant 3
}

@test "the untouched skeleton exits 4 in every part, its given variants pass" {
    for args in "--part sum --n 1000" "--part soa --size 64x48" "--part transpose --size 64x48"; do
        run "$L07/lab07" --reps 1 $args
        [ "$status" -eq 4 ] || { echo "$args: exit $status"; echo "$output"; false; }
        [[ "$output" == *"not implemented"* ]]
        [[ "$output" == *"PASS"* ]] # the given variants
    done
}

@test "a planted wrong solution is caught: exit 1 with mismatches" {
    make -s -C "$L07" PLANTED=wrong lab07-wrong >/dev/null
    run "$L07/lab07-wrong" --part transpose --size 77x33 --reps 1 --variant 4 --diff-dir "$BATS_TEST_TMPDIR"
    [ "$status" -eq 1 ]
    [[ "$output" == *"elements wrong"* ]]
    # the other variants of the planted build still pass
    run "$L07/lab07-wrong" --part transpose --size 77x33 --reps 1 --variant 3
    [ "$status" -eq 0 ]
}

@test "a planted missing __syncthreads is caught by racecheck" {
    make -s -C "$L07" PLANTED=nosync lab07-nosync >/dev/null
    run "$KIT_ROOT/common/scripts/sanitize.sh" "$L07/lab07-nosync" "--part transpose --size 64x64 --variant 3" racecheck
    [ "$status" -ne 77 ] || skip "no compute-sanitizer"
    [ "$status" -eq 1 ] || { echo "$output"; false; }
    [[ "$output" == *"Race reported"* ]] || { echo "$output"; false; }
}

@test "compute-sanitizer: the reference is clean (memcheck everywhere, racecheck on the tiles)" {
    run make -s -C "$L07" sanitize REF=1
    [ "$status" -ne 77 ] || skip "no compute-sanitizer"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"racecheck"*"clean"* ]]
    [[ "$output" != *"FAILED"* ]]
}

@test "results TSV: kernel span for soa and transpose, config with the tile, copy ceiling" {
    f="$BATS_TEST_TMPDIR/t.tsv"
    run "$REF" --part transpose --size 640x480 --reps 3 --results "$f" --quiet
    [ "$status" -eq 0 ]
    run "$REF" --part soa --size 640x480 --reps 3 --results "$f" --quiet
    [ "$status" -eq 0 ]
    grep -q '^# copy ceiling: ' "$f"
    grep -q 'tile=64x64 threads=32x8 managed=0' "$f"
    grep -q 'tile=32x32 threads=32x32 managed=0' "$f"
    awk -F'\t' '!/^#/ && !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        !/^#/ { n++; if ($c["span"] != "kernel" || $c["status"] != "pass") bad = 1 }
        END { exit bad || n != 9 }' "$f"
}

@test "--save-input and --out write the matrix and its transpose as pictures" {
    run "$REF" --part transpose --size 300x200 --variant 5 --reps 1 --quiet \
        --save-input "$BATS_TEST_TMPDIR/in.png" --out "$BATS_TEST_TMPDIR/t.png"
    [ "$status" -eq 0 ]
    is_png "$BATS_TEST_TMPDIR/in.png"
    is_png "$BATS_TEST_TMPDIR/t.png"
}

@test "grader's mode: every part's dumped outputs pass the checker, warm-up and every repetition" {
    make -s -C "$KIT_ROOT/grading" build/check-07 >/dev/null
    local chk="$KIT_ROOT/grading/build/check-07"
    run agree "$REF" "$chk" --part sum --n 7919
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 12 ] # four variants, warm-up + 2 repetitions each
    run agree "$REF" "$chk" --part soa --size 33x31 --plane r --max 99
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 12 ]
    run agree "$REF" "$chk" --part transpose --size 33x31
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 15 ]
    run agree "$REF" "$chk" --part transpose --size 260x132 --managed
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 6 ] # --managed: v1 and v3
}
