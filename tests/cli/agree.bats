#!/usr/bin/env bats
# One description per lab: the harness and the grader's checker make inputs and
# references from the same spec.c/ref.c, so a lab's reference binary, run in the
# grader's mode (--dump), must pass the checker on every output it wrote, the
# warm-up's and every timed repetition's (each with its own key). A graded
# build links no reference at all. The test lab of two parts proves --part.
load helpers
TP="$KIT_ROOT/tests/labs/99_twopart"

setup_file() {
    make -s -C "$KIT_ROOT/grading" EXTRA_LABS="$KIT_ROOT/tests/labs/99_twopart" >/dev/null
    make -s -C "$KIT_ROOT/tests/labs/99_twopart" >/dev/null
}

@test "lab 01: the harness's outputs pass the checker, warm-up and every repetition" {
    run agree "$L01/lab01-ref" "$KIT_ROOT/grading/build/check-01" --size 23x17 --filter gauss5
    [ "$status" -eq 0 ]
    [ "$output" -eq 9 ] # three variants, warm-up + 2 repetitions each
    run agree "$L01/lab01-ref" "$KIT_ROOT/grading/build/check-01" --size 5x4 --filter edge3
    [ "$status" -eq 0 ]
    [ "$output" -eq 6 ] # v3 takes separable filters only
}

@test "lab 02: the harness's outputs pass the checker" {
    run agree "$KIT_ROOT/labs/02_omp_sse/lab02-ref" "$KIT_ROOT/grading/build/check-02" --size 37x11 --threads 2
    [ "$status" -eq 0 ]
    [ "$output" -eq 18 ]
}

@test "the test lab's two parts agree with the checker, each with its own input" {
    run agree "$TP/lab99-ref" "$KIT_ROOT/grading/build/check-99" --part scale --n 1001
    [ "$status" -eq 0 ]
    [ "$output" -eq 6 ]
    run agree "$TP/lab99-ref" "$KIT_ROOT/grading/build/check-99" --part invert --size 9x5
    [ "$status" -eq 0 ]
    [ "$output" -eq 6 ]
}

@test "a wrong output, or one of another repetition, fails the checker" {
    local d="$BATS_TEST_TMPDIR/w" chk="$KIT_ROOT/grading/build/check-99"
    mkdir -p "$d"
    "$TP/lab99-ref" --part invert --size 9x5 --dump "$d" --reps 2 --quiet --seed 3
    key1=$(awk '$1 == "rep" && $2 == 1 { print $3 }' "$d/v1.txt")
    key2=$(awk '$1 == "rep" && $2 == 2 { print $3 }' "$d/v1.txt")
    run "$chk" compare --part invert --variant 1 --key "$key2" -- --size 9x5 --seed 3 <"$d/v1.r2.bin"
    [ "$status" -eq 0 ]
    [ "$output" = pass ]
    run "$chk" compare --part invert --variant 1 --key "$key1" -- --size 9x5 --seed 3 <"$d/v1.r2.bin"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == fail* ]]
    run "$chk" compare --part invert --variant 1 -- --size 9x5 --seed 4 <"$d/v1.bin"
    [ "$status" -eq 1 ]
    head -c 44 "$d/v1.bin" >"$d/short.bin"
    run "$chk" compare --part invert --variant 1 -- --size 9x5 --seed 3 <"$d/short.bin"
    [ "$status" -eq 1 ]
    [ "$output" = "bad the output has 44 bytes, expected 45" ]
    cat "$d/v1.bin" "$d/v1.bin" >"$d/long.bin"
    run "$chk" compare --part invert --variant 1 -- --size 9x5 --seed 3 <"$d/long.bin"
    [ "$status" -eq 1 ]
    [[ "$output" == "bad the output has more than"* ]]
    run "$chk" compare --part invert --variant 2 -- --size 7x5 --seed 3 <"$d/v1.bin"
    [ "$status" -eq 1 ]
    [[ "$output" == "bad variant 2 does not take this case"* ]]
}

@test "--part: each part takes its own options and variants; the lab's help lists both" {
    run "$TP/lab99-ref" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"part scale"* && "$output" == *"part invert"* && "$output" == *"--n N"* ]]
    run "$TP/lab99-ref" --part scale --size 3x3
    [ "$status" -eq 2 ]
    run "$TP/lab99-ref" --part invert --n 3
    [ "$status" -eq 2 ]
    run "$TP/lab99-ref" --part nope
    [ "$status" -eq 2 ]
    [[ "$output" == *"no part 'nope'"* ]]
    run "$TP/lab99-ref" --part invert --size 7x5 --variant 2
    [ "$status" -eq 2 ]
    [[ "$output" == *"7 pixels wide"* ]]
    run "$TP/lab99" --part scale --reps 1
    [ "$status" -eq 4 ] # v1 is given, v2 not written yet
    [[ "$output" == *"1 loop               PASS"* ]]
    run make -s -C "$TP" skeleton-check
    [ "$status" -eq 0 ]
}

@test "the checker describes the lab and a case: spans, ceilings, bytes, n/a with a reason" {
    run "$KIT_ROOT/grading/build/check-99" describe --part invert -- --size 7x5
    [ "$status" -eq 0 ]
    python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [p["name"] for p in d["parts"]] == ["scale", "invert"]
assert d["parts"][0]["variants"][0]["given"] is True
assert d["parts"][1]["variants"][0]["span"] == "host"
c = d["case"]
assert c["part"] == "invert" and c["width"] == 7
assert c["variants"][0]["bytes"] == 70 and c["variants"][0]["type"] == "u8"
assert c["variants"][1]["supported"] is False and "7 pixels" in c["variants"][1]["why"]
' "$output"
    run "$KIT_ROOT/grading/build/check-01" describe -- --size 3x3 --filter nope
    [ "$status" -eq 1 ]
    [[ "$output" == *"\"error\""* ]]
}

@test "a graded build links no reference: nm finds none; it refuses to run without --dump" {
    local o="$BATS_TEST_TMPDIR/graded" src="$BATS_TEST_TMPDIR/src"
    mkdir -p "$o" "$src"
    cp "$KIT_ROOT/solutions/01_cpu_conv/conv.c" "$src/"
    make -s -C "$L01" GRADED=1 O="$o" SRC="$src" lab01 >/dev/null
    [ -x "$o/lab01" ]
    run bash -c "nm --defined-only '$o/lab01' | grep -cE 'kit_ref_|kit_lab_ref|corr2d'"
    [ "$output" -eq 0 ]
    # the local build has them: the test can fail
    run bash -c "nm --defined-only '$L01/lab01-ref' | grep -cE 'kit_ref_|kit_lab_ref'"
    [ "$output" -gt 0 ]
    run "$o/lab01" --size 8x8
    [ "$status" -eq 2 ]
    [[ "$output" == *"no CPU reference"* ]]
    # in the grader's mode it runs, and its outputs pass the checker
    run agree "$o/lab01" "$KIT_ROOT/grading/build/check-01" --size 8x8 --filter gauss5
    [ "$status" -eq 0 ]
    [ "$output" -eq 9 ]
}

@test "the checker reads a case's arguments as the harness does: --seed=N, --part, refusals" {
    local d="$BATS_TEST_TMPDIR/s" chk="$KIT_ROOT/grading/build/check-99"
    mkdir -p "$d"
    "$TP/lab99-ref" --part invert --size 9x5 --seed=5 --dump "$d" --reps 1 --quiet
    run "$chk" compare --part invert --variant 1 -- --size 9x5 --seed=5 <"$d/v1.bin"
    [ "$status" -eq 0 ]
    [ "$output" = pass ]
    # the part named among the case's arguments, as the harness takes it
    run "$chk" compare --variant 1 -- --part invert --size 9x5 --seed 5 <"$d/v1.bin"
    [ "$status" -eq 0 ]
    [ "$output" = pass ]
    run "$chk" compare --part invert --variant 1 -- --size 9x5 --seed=6 <"$d/v1.bin"
    [ "$status" -eq 1 ]
    # what the harness refuses, the checker refuses, for the same reason
    local c01="$KIT_ROOT/grading/build/check-01" args reason
    for args in "--seed banana" "--size 3x3 --image $d/none.png" "--device 0" "--seed"; do
        # shellcheck disable=SC2086
        run "$L01/lab01-ref" --reps 1 --size 4x4 $args
        [ "$status" -eq 2 ]
        reason=${output#lab01-ref: }
        reason=${reason% (try --help)}
        # shellcheck disable=SC2086
        run "$c01" compare --variant 1 -- --size 4x4 $args </dev/null
        [ "$status" -eq 2 ]
        [[ "$output" == *"$reason"* ]]
    done
    # the checker's own options are read strictly too
    for args in "--variant 1x" "--variant 1 --key -1" "--variant 1 --key 0x5" \
                "--variant 1 --atol abc" "--variant 1 --rtol -1"; do
        # shellcheck disable=SC2086
        run "$chk" compare --part invert $args -- --size 9x5 --seed 5 <"$d/v1.bin"
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
    done
}

@test "a graded build keeps global only the skeleton's entry points: a student's clock_gettime cannot fake the time" {
    local o="$BATS_TEST_TMPDIR/graded" src="$BATS_TEST_TMPDIR/src" e="$BATS_TEST_TMPDIR/entry.txt"
    mkdir -p "$o" "$src"
    make -s -C "$L01" entry-list ENTRY_OUT="$e" >/dev/null
    [ "$(cat "$e")" = "$(printf 'conv_v1\nconv_v2\nconv_v3')" ]
    # the solution, with a clock that always says 0 (and a global helper of its own)
    { cat "$KIT_ROOT/solutions/01_cpu_conv/conv.c"
      printf '%s\n' '#include <time.h>' \
          'int clock_gettime(clockid_t c, struct timespec *t) { (void)c; t->tv_sec = 0; t->tv_nsec = 0; return 0; }' \
          'int my_helper(void) { return 1; }'; } >"$src/conv.c"
    make -s -C "$L01" GRADED=1 O="$o" SRC="$src" ENTRY="$e" lab01 >/dev/null
    run bash -c "nm '$o/build/skel/conv.c.o' | grep -E ' (clock_gettime|my_helper|conv_v1)$'"
    [[ "$output" == *" t clock_gettime"* && "$output" == *" t my_helper"* && "$output" == *" T conv_v1"* ]]
    # the harness's clock is the C library's: the launch windows are real times
    mkdir -p "$BATS_TEST_TMPDIR/d"
    "$o/lab01" --size 64x48 --dump "$BATS_TEST_TMPDIR/d" --reps 2 --quiet --variant 1
    awk '$1 == "rep" && !($4 > 1000000000) { exit 1 }' "$BATS_TEST_TMPDIR/d/v1.txt"
    # without ENTRY the student's clock wins (the test can fail)
    rm -rf "$o"; mkdir -p "$o" "$BATS_TEST_TMPDIR/d2"
    make -s -C "$L01" GRADED=1 O="$o" SRC="$src" lab01 >/dev/null
    "$o/lab01" --size 64x48 --dump "$BATS_TEST_TMPDIR/d2" --reps 2 --quiet --variant 1
    run awk '$1 == "rep" && $4 > 1000000000 { n++ } END { print n + 0 }' "$BATS_TEST_TMPDIR/d2/v1.txt"
    [ "$output" -eq 0 ]
}
