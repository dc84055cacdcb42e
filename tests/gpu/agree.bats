#!/usr/bin/env bats
# One description per lab, on the GPU: each GPU lab's reference binary in the
# grader's mode (--dump) passes the checker on every output it wrote (the
# warm-up and every timed repetition, each with its own key). Skipped without
# a device.
load ../cli/helpers

setup_file() {
    make -s -C "$KIT_ROOT/grading" >/dev/null
}

@test "lab 06: the harness's outputs pass the checker" {
    local b="$KIT_ROOT/labs/06_matvec/lab06-ref" rc=0
    "$b" --rows 1 --cols 1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || skip "no CUDA device"
    run agree "$b" "$KIT_ROOT/grading/build/check-06" --rows 333 --cols 1029
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 15 ] # five variants, warm-up + 2 repetitions each
}

@test "lab 03: the harness's outputs pass the checker, 8-bit and double layouts" {
    local b="$KIT_ROOT/labs/03_global_mem/lab03-ref"
    skip_without_gpu "$b"
    run agree "$b" "$KIT_ROOT/grading/build/check-03" --size 67x35 --filter gauss5
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" -eq 24 ] # eight variants, warm-up + 2 repetitions each
    run agree "$b" "$KIT_ROOT/grading/build/check-03" --size 31x9 --filter sharpen3 --block 8x4
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}
