#!/usr/bin/env bats
# GPU tests of the grader on lab 03: every example submission of grading/examples/lab03 gets the
# status and points its EXPECT file states (a hung kernel is killed and the class goes on; a
# variant that computes on the CPU is caught by CUPTI launch counting), kernel times come from
# CUPTI, and --sanitize finds the kernel that writes out of bounds. Skipped without a device.
load ../cli/helpers

setup_file() {
    export G="$KIT_ROOT/grading/grade"
    export GT="$BATS_FILE_TMPDIR"
    local rc=0
    "$L03/lab03-ref" --size 1x1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || return 0
    "$KIT_ROOT/grading/examples/make.sh" 03 "$GT/ex" >/dev/null
    local t0=$SECONDS
    "$G" --lab 03 --submissions "$GT/ex" --out "$GT/out" --quick --timeout 10 --seed 4242 \
        >"$GT/grade.log" 2>&1
    echo $? >"$GT/grade.rc"
    echo $((SECONDS - t0)) >"$GT/grade.s"
}

setup() {
    skip_without_gpu "$L03/lab03-ref"
}

check_example() {
    run "$KIT_ROOT/grading/examples/expect.sh" 03 "$GT/out" "$1"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "the lab 03 examples are graded: exit 0, every example once" {
    [ "$(cat "$GT/grade.rc")" -eq 0 ] || { cat "$GT/grade.log"; false; }
    echo "graded in $(cat "$GT/grade.s") s" >&3
    n=$(find "$KIT_ROOT/grading/examples/lab03" -mindepth 1 -maxdepth 1 -type d | wc -l)
    [ "$(tail -n +2 "$GT/out/grades.csv" | wc -l)" -eq "$n" ]
    grep -q '^sandbox: bwrap' "$GT/out/grading.txt" || grep -q '^sandbox: none' "$GT/out/grading.txt"
}

@test "the reference passed its own hidden cases on the GPU, timed by CUPTI" {
    [ "$(cat "$GT/out/reference/0/state")" = ok ]
    awk -F'\t' '$4 != "cupti" { bad = 1 } END { exit bad }' "$GT/out/reference/0/perf.tsv" ||
        { cat "$GT/out/reference/0/perf.tsv"; false; }
}

@test "example correct: every test, full correctness, kernel times from CUPTI" {
    check_example correct
    grep -q $'\tcupti\t' "$GT/out/students/correct/perf.tsv"
}

@test "example slow: one thread a block, no performance points for v2" {
    check_example slow
}

@test "example wrong-borders: repeated edges instead of zeros are wrong" {
    check_example wrong-borders
}

@test "example oob-write: a kernel without its guard is wrong or crashes" {
    check_example oob-write
}

@test "example infinite-loop: a kernel that never ends is killed, the class goes on" {
    check_example infinite-loop
    grep -q 'not run: it ran past the time limit' "$GT/out/students/infinite-loop/tests.tsv"
}

@test "example compile-error: nvcc's first error is the reason" {
    check_example compile-error
}

@test "example fake-pass: PASS lines and exit 0 gain nothing" {
    check_example fake-pass
}

@test "example reads-solutions: the solutions are not there" {
    check_example reads-solutions
}

@test "example network: no network in the sandbox" {
    check_example network
}

@test "example fork-loop: stopped by the process limit" {
    check_example fork-loop
}

@test "example cpu-instead: a variant that launched no kernel is flagged, no points for it" {
    check_example cpu-instead
    grep -q $'^2\tperf1\tno-kernel' "$GT/out/students/cpu-instead/tests.tsv"
}

@test "--sanitize: compute-sanitizer finds the out-of-bounds kernel, not the reference's" {
    command -v compute-sanitizer >/dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ] ||
        skip "no compute-sanitizer"
    subs="$BATS_TEST_TMPDIR/subs"
    mkdir -p "$subs"
    cp -r "$GT/ex/oob-write" "$GT/ex/correct" "$subs/"
    run "$G" --lab 03 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick --timeout 20 --sanitize
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    grep -q $'^1\tsanitize\tsanitizer-error' "$BATS_TEST_TMPDIR/out/students/oob-write/tests.tsv"
    run grep -q 'sanitizer-error' "$BATS_TEST_TMPDIR/out/students/correct/tests.tsv"
    [ "$status" -ne 0 ]
}
