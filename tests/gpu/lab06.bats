#!/usr/bin/env bats
# GPU tests of lab 06 (y = A x in double): every variant against the CPU
# reference at awkward and at the seed's sizes, tile and block options, the
# refusals (too large, unusable shapes), the skeleton, a planted wrong
# solution, compute-sanitizer on the reference and on a planted
# out-of-bounds kernel, the results file. Skipped without a device.
load ../cli/helpers
L06="$KIT_ROOT/labs/06_matvec"

setup() {
    REF="$L06/lab06-ref"
    # helpers' skip_without_gpu probes with --size, which lab 06 does not take
    local rc=0
    "$REF" --rows 1 --cols 1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || skip "no CUDA device"
    export KIT_SYNC_CHECK=1
}

# check ROWSxCOLS [ARGS...]: the reference passes (every variant unless ARGS pick one)
check() {
    local s=$1; shift
    run "$REF" --rows "${s%x*}" --cols "${s#*x}" --reps 1 "$@"
    [ "$status" -eq 0 ] || { echo "$s $*: exit $status"; echo "$output"; return 1; }
}

# qcheck RxC ARGS...: check's case, queued for run_queued (one process)
qcheck() {
    local s=$1; shift
    queue --rows "${s%x*}" --cols "${s#*x}" "$@"
}

@test "every variant equals the CPU reference at odd sizes" {
    for s in 1x1 1x7919 7919x1 513x1025 2x3 37x23 3x2049 7x257 1x2 64x64; do
        qcheck $s --seed 42
    done
    run_queued "$REF" --reps 1
}

@test "every variant passes at the seed's sizes 1000x1000, 3000x5000, 5000x8000, 10000x10000" {
    for s in 1000x1000 3000x5000 5000x8000 10000x10000; do
        check $s
        [[ "$output" == *"0 cublas"*"PASS"* && "$output" == *"4 warp-rows"*"PASS"* ]]
    done
}

@test "v2 and v3 with other tiles: the seed's 512x128, narrow, wide, 1x1, not warp multiples" {
    for t in 512x128 100x7 1024x1 33x200 31x5 1x1 64x512; do
        qcheck 70x1100 --tile $t --variant 2
        qcheck 70x1100 --tile $t --variant 3
    done
    qcheck 37x23 --tile 1x1
    qcheck 1x7919 --tile 1024x3
    qcheck 7919x1 --tile 1x1000
    run_queued "$REF" --reps 1
}

@test "v1 and v4 with other block sizes, pinned buffers, other seeds" {
    for b in 32x1 96x1 1024x1 64x4 128x1; do
        qcheck 333x2050 --block $b
    done
    qcheck 45x1030 --block 7x5 --variant 1
    qcheck 513x1025 --pinned
    for seed in 2 3 99; do qcheck 200x777 --seed $seed; done
    run_queued "$REF" --reps 1
}

@test "v4 at odd and even widths: double2 and scalar paths, one warp or several per row" {
    for n in 1 2 3 31 32 33 63 64 255 256 257 511 512 513 1023 1024 2047 2048 2049 4097 8192; do
        for b in 256x1 32x1 1024x1; do
            qcheck 9x$n --variant 4 --block $b
        done
    done
    run_queued "$REF" --reps 1
}

@test "a variant that cannot take the input, chosen explicitly: exit 2 with one line" {
    run bash -c "'$REF' --rows 64 --cols 64 --variant 4 --block 100x1 2>&1"
    [ "$status" -eq 2 ]
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
    [[ "$output" == *"multiple of 32"* ]]
    run bash -c "'$REF' --rows 70000 --cols 2 --variant 2 --tile 512x1 2>&1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"row tiles"* ]]
    # run as part of all variants, the others still run and pass
    check 64x64 --block 100x1
    [[ "$output" == *"skipped"* ]]
}

@test "a matrix larger than the machine or the GPU: exit 2 with one line, before allocating" {
    run bash -c "'$REF' --rows 200000 --cols 200000 2>&1"
    [ "$status" -eq 2 ]
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
    [[ "$output" == *"memory"* ]]
    # fits the host (8 GiB) but not a GPU with less free than that: refused by the GPU check
    free_mib=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -n1)
    if [ "$free_mib" -lt 8000 ]; then
        run bash -c "'$REF' --rows 32768 --cols 32768 2>&1"
        [ "$status" -eq 2 ]
        [[ "$output" == *"GPU memory"* ]]
    fi
}

@test "the untouched skeleton exits 4 on a GPU, its cuBLAS baseline passing" {
    run "$L06/lab06" --rows 64 --cols 64 --reps 1
    [ "$status" -eq 4 ]
    [[ "$output" == *"0 cublas"*"PASS"* ]]
    [[ "$output" == *"1 naive"*"not implemented"* && "$output" == *"4 warp-rows"*"not implemented"* ]]
}

@test "a planted wrong solution (edge tiles left out) is caught: exit 1 with mismatches" {
    make -s -C "$L06" PLANTED=wrong lab06-wrong >/dev/null
    for v in 2 3; do
        run "$L06/lab06-wrong" --rows 77 --cols 1100 --reps 1 --variant $v
        [ "$status" -eq 1 ] || { echo "v$v: exit $status"; echo "$output"; false; }
        [[ "$output" == *"elements wrong"* ]]
    done
    # what the bug does not touch still passes
    run "$L06/lab06-wrong" --rows 77 --cols 1100 --reps 1 --variant 4
    [ "$status" -eq 0 ]
}

@test "compute-sanitizer memcheck and racecheck: the reference is clean" {
    run make -s -C "$L06" sanitize REF=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"memcheck"*"clean"* && "$output" == *"racecheck"*"clean"* ]]
}

@test "compute-sanitizer catches a planted out-of-bounds kernel" {
    make -s -C "$L06" PLANTED=oob lab06-oob >/dev/null
    run "$KIT_ROOT/common/scripts/sanitize.sh" "$L06/lab06-oob" "--rows 37 --cols 23 --variant 1" memcheck
    [ "$status" -eq 1 ]
    [[ "$output" == *"Invalid __global__"* ]]
}

@test "results TSV: cols x rows, m and n, tile and block per variant, copy ceiling, times" {
    f="$BATS_TEST_TMPDIR/r.tsv"
    run "$REF" --rows 300 --cols 700 --reps 3 --pinned --results "$f" --quiet
    [ "$status" -eq 0 ]
    grep -q '^# gpu: ' "$f"
    grep -q '^# copy ceiling: ' "$f"
    # five passing rows, width = cols and height = rows
    [ "$(awk -F'\t' '!/^#/ && $1 == "06" && $4 == 700 && $5 == 300 && $6 == "m=300 n=700" && $18 == "pass"' "$f" | wc -l)" -eq 5 ]
    grep -q 'op=T lda=n pinned=1' "$f"
    grep -q 'block=512 pinned=1' "$f"
    grep -q 'tile=512x64 block=512 pinned=1' "$f"
    grep -q 'block=256 warps/row=4 pinned=1' "$f"
    # total time is never below kernel time; every variant moved bytes
    awk -F'\t' '!/^#/ && $1 == "06" && ($13 < $10 || !($14 > 0)) { exit 1 }' "$f"
    # errors far inside the tolerance: the reference and the GPU agree to rounding
    awk -F'\t' '!/^#/ && $1 == "06" && $15 > 1e-10 { exit 1 }' "$f"
}
