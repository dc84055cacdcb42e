#!/usr/bin/env bats
# The student's tools on a GPU lab, where there is a device: make check goes
# variant by variant on lab 06; make presubmit builds a complete matvec.cu the
# grader's way, runs the public cases in the grader's mode and has the
# checker judge them; a partly written one is told what is missing; make
# bench times the variants written. Skipped without a device.
load ../cli/helpers
L06="$KIT_ROOT/labs/06_matvec"

setup() {
    local rc=0
    "$L06/lab06-ref" --rows 1 --cols 1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || skip "no CUDA device"
}

# a copy of the kit with lab 06 alone, its matvec.cu made from the solution
# with the SOLUTION regions listed in KEEP answered
kit_with() {
    K="$BATS_TEST_TMPDIR/kit"
    mkdir -p "$K/labs" "$K/grading"
    cp -r "$KIT_ROOT/common" "$K/"
    cp "$KIT_ROOT/grading/check.c" "$K/grading/"
    # stb from the kit's local prefix where the machine has none of its own (setup.sh --local)
    [ ! -d "$KIT_ROOT/.deps" ] || ln -s "$KIT_ROOT/.deps" "$K/.deps"
    cp -r "$L06" "$K/labs/"
    rm -rf "$K/labs/06_matvec/build" "$K/labs/06_matvec/out" "$K"/labs/06_matvec/lab06*
    awk -v keep="$1" -f "$KIT_ROOT/tests/cli/partial.awk" "$KIT_ROOT/solutions/06_matvec/matvec.cu" \
        >"$K/labs/06_matvec/matvec.cu"
    make -s -C "$K/labs/06_matvec" lab06 >/dev/null
}

@test "make check REF=1 on lab 06: every variant on every check input" {
    run make -C "$L06" check REF=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"v4 warp-rows: correct on all"* ]]
}

@test "make presubmit on a complete matvec.cu: built, run and judged the grader's way, nothing held against it" {
    n=$(grep -c '>>> SOLUTION' "$KIT_ROOT/solutions/06_matvec/matvec.cu")
    kit_with "$(seq -s, 1 "$n")"
    run make -C "$K/labs/06_matvec" presubmit
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"v2 tiled-atomic: correct on all"* ]]
    [[ "$output" == *"nothing the grader would hold against it"* ]]
}

@test "a skeleton's lab 06: make check says what is not written, presubmit calls it missing, bench times cuBLAS" {
    kit_with ""
    run make -C "$K/labs/06_matvec" check
    [ "$status" -ne 0 ]
    [[ "$output" == *"v0 cublas (given): correct on all"* ]]
    [[ "$output" == *"v4 warp-rows: not written yet"* ]]
    run make -C "$K/labs/06_matvec" presubmit
    [[ "$output" == *"PROBLEM: v1 naive: missing"* ]]
    run make -C "$K/labs/06_matvec" bench BENCH_SIZES=256x256 BENCH_REPS=2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"not written yet, not timed"* ]]
    [ "$(awk -F'\t' '$2 == 0 && $18 == "pass"' "$K/labs/06_matvec/out/bench.tsv" | wc -l)" -eq 1 ]
}
