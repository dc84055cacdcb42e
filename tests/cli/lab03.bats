#!/usr/bin/env bats
# Lab 03 on any machine: usage errors come before the device check, and
# without a GPU every binary exits 77 with one line (the GPU tests proper
# are in tests/gpu/lab03.bats).
load helpers

@test "--help works without a GPU and lists the five variants" {
    run "$L03/lab03-ref" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--pinned"* && "$output" == *"--block WxH"* ]]
    [[ "$output" == *"3 planar-words"* && "$output" == *"5 planar-bytes"* ]]
}

@test "bad usage and bad input give exit 2 with one line, GPU or not" {
    for args in "--bogus" "--variant 6" "--block 64x32" "--filter nope" "--threads 2" \
                "--image /nonexistent.png" "--filter edge3 --radius 4"; do
        run bash -c "'$L03/lab03-ref' $args 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ] || { echo "$args: $output"; false; }
    done
}

@test "without a CUDA device every lab 03 binary exits 77 with one line" {
    if has_gpu; then skip "this machine has a GPU"; fi
    for b in lab03 lab03-ref; do
        run bash -c "'$L03/$b' --size 8x8 2>&1"
        [ "$status" -eq 77 ] || { echo "$b: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
        [[ "$output" == *"no CUDA device"* ]]
    done
}

@test "the committed lab 03 skeleton equals the generated one" {
    run make -s -C "$L03" skeleton-check
    [ "$status" -eq 0 ]
    ! grep -q 'r += c \* p\[0\]' "$L03/conv.cu"
}
