#!/usr/bin/env bats
# make check, make bench's runs and make presubmit go variant by variant
# (common/student/): a variant not written yet, wrong or crashing is reported
# and the others are still checked and timed; a lab of several parts is
# covered part by part. On the kit's test lab of two parts, in a copy of the
# kit, with a student file written for each test.
load helpers

setup_file() {
    export K="$BATS_FILE_TMPDIR/kit"
    mkdir -p "$K/tests/labs" "$K/grading"
    cp -r "$KIT_ROOT/common" "$K/"
    link_deps "$K"
    cp "$KIT_ROOT/grading/check.c" "$K/grading/"
    cp -r "$KIT_ROOT/tests/labs/99_twopart" "$KIT_ROOT/tests/labs/solutions" "$K/tests/labs/"
    rm -rf "$K/tests/labs/99_twopart/build" "$K/tests/labs/99_twopart/out" "$K"/tests/labs/99_twopart/lab99*
    make -s -C "$K/common" >/dev/null
}

setup() {
    TP="$K/tests/labs/99_twopart"
}

# student FILE BODY_SCALE_V2 BODY_INVERT_V1 BODY_INVERT_V2: a twopart.c
student() {
    cat >"$TP/twopart.c" <<EOF
#include "twopart.h"
int scale_v1(const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = SCALE_A * x[i];
    return KIT_OK;
}
int scale_v2(const double *x, double *y, size_t n)
{
    $1
}
int invert_v1(const unsigned char *in, unsigned char *out, int w, int h)
{
    $2
}
int invert_v2(const unsigned char *in, unsigned char *out, int w, int h)
{
    $3
}
EOF
    make -s -C "$TP" lab99 >/dev/null
}
RIGHT_SCALE=$'for (size_t i = 0; i < n; i++)\n        y[i] = SCALE_A * x[i];\n    return KIT_OK;'
RIGHT_INVERT=$'for (long i = 0; i < (long)w * h; i++)\n        out[i] = 255 - in[i];\n    return KIT_OK;'
SHORT_INVERT=$'for (long i = 0; i < (long)w * h - w; i++)\n        out[i] = 255 - in[i];\n    return KIT_OK;'
TODO_SCALE='(void)x; (void)y; (void)n; return KIT_NOT_IMPLEMENTED;'
TODO_INVERT='(void)in; (void)out; (void)w; (void)h; return KIT_NOT_IMPLEMENTED;'
CRASH_INVERT='(void)in; (void)out; (void)w; (void)h; *(volatile int *)0 = 1; return KIT_OK;'

@test "make check covers every part: right, wrong and unwritten variants each reported, a diff picture per failing case" {
    student "$RIGHT_SCALE" "$SHORT_INVERT" "$TODO_INVERT"
    run make -C "$TP" check
    [ "$status" -ne 0 ]
    [[ "$output" == *"part scale"*"part invert"* ]]
    [[ "$output" == *"scale:v1 loop (given): correct on all 2 inputs it takes"* ]]
    [[ "$output" == *"scale:v2 unrolled: correct on all 2 inputs it takes"* ]]
    [[ "$output" == *"invert:v1 bytes: correct on 0, wrong on 2 of 2 inputs; first: --part invert --size 1x1"* ]]
    [[ "$output" == *"invert:v2 rows: not written yet"* ]]
    # a grey 1x1 result is no picture (one value); 17x13 is, named after its part and case
    [ "$(ls "$TP"/out/check/*-diff.png | wc -l)" -eq 1 ]
    is_png "$TP/out/check/lab99-invert-v1-size-17x13-diff.png"
    grep -q 'width=493 height=377' "$TP/out/check/index.html"
    grep -q '^== lab99 --variant 2 --part invert --size 17x13: not-written' "$TP/out/check/log.txt"
}

@test "make check V=N and V=PART:N check one variant" {
    student "$RIGHT_SCALE" "$SHORT_INVERT" "$TODO_INVERT"
    run make -C "$TP" check V=scale:2
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"scale:v2 unrolled: correct on all 2"* ]]
    [[ "$output" != *"invert"* ]]
    run make -C "$TP" check V=2
    [ "$status" -eq 0 ] # scale's v2 passes; invert's v2 is not written: nothing wrong
    [[ "$output" == *"scale:v2 unrolled"* ]]
    [[ "$output" == *"invert:v2 rows: not written yet"* ]]
    [[ "$output" != *"v1 "* ]]
    run make -C "$TP" check V=invert:3
    [ "$status" -ne 0 ]
    [[ "$output" == *"lab99 has no such variant (its variants: part scale: 1 2; part invert: 1 2)"* ]]
}

@test "a crashing variant does not stop the others: make check checks them, a bench run times them" {
    student "$TODO_SCALE" "$CRASH_INVERT" "$RIGHT_INVERT"
    run make -C "$TP" check
    [ "$status" -ne 0 ]
    [[ "$output" == *"invert:v1 bytes: correct on 0, crashed on 2 of 2 inputs"* ]]
    [[ "$output" == *"invert:v2 rows: correct on all 2 inputs it takes"* ]]
    [[ "$output" == *"scale:v2 unrolled: not written yet"* ]]
    # the bench's way: the whole run dies in v1, v2 is timed on its own
    run "$K/common/student/run-variants.sh" "$TP/lab99" --part invert --size 17x13 --reps 3 --quiet \
        --results "$BATS_TEST_TMPDIR/b.tsv"
    [ "$status" -eq 0 ]
    [[ "$output" == *"timing one variant at a time"* ]]
    [[ "$output" == *"v1 bytes: crashed"* ]]
    [ "$(awk -F'\t' '$2 == 2 && $18 == "pass"' "$BATS_TEST_TMPDIR/b.tsv" | wc -l)" -eq 1 ]
    [ "$(grep -c '^lab	' "$BATS_TEST_TMPDIR/b.tsv")" -eq 1 ]
    # a --variant list (lab 03's bench): again one at a time, the listed ones
    rm -f "$BATS_TEST_TMPDIR/b.tsv"
    run "$K/common/student/run-variants.sh" "$TP/lab99" --part invert --variant 1,2 --size 17x13 \
        --reps 3 --quiet --results "$BATS_TEST_TMPDIR/b.tsv"
    [ "$status" -eq 0 ]
    [[ "$output" == *"timing one variant at a time"* ]]
    [[ "$output" == *"v1 bytes: crashed"* ]]
    [ "$(awk -F'\t' '$2 == 2 && $18 == "pass"' "$BATS_TEST_TMPDIR/b.tsv" | wc -l)" -eq 1 ]
    # one variant asked for alone: its own end, reported
    run "$K/common/student/run-variants.sh" "$TP/lab99" --part invert --variant 1 --size 17x13 --reps 3 --quiet
    [ "$status" -ne 0 ]
}

@test "bench runs: variants not written yet and wrong ones are named, the run goes on" {
    student "$TODO_SCALE" "$SHORT_INVERT" "$TODO_INVERT"
    run "$K/common/student/run-variants.sh" "$TP/lab99" --part invert --size 17x13 --reps 2 --quiet \
        --results "$BATS_TEST_TMPDIR/r.tsv"
    [ "$status" -eq 0 ]
    [[ "$output" == *"(v1: wrong result"* ]]
    [[ "$output" == *"(v2: not written yet, not timed)"* ]]
    run "$K/common/student/run-variants.sh" "$TP/lab99" --part scale --n 100 --reps 2 --quiet \
        --results "$BATS_TEST_TMPDIR/r.tsv"
    [ "$status" -eq 0 ]
    [[ "$output" == *"(v2: not written yet, not timed)"* ]]
    [ "$(awk -F'\t' '$2 == 1 && $18 == "pass" && $21 == "scale"' "$BATS_TEST_TMPDIR/r.tsv" | wc -l)" -eq 1 ]
    # bad usage is not passed over
    run "$K/common/student/run-variants.sh" "$TP/lab99" --part scale --n 0
    [ "$status" -eq 2 ]
}

@test "an untouched lab: make check says nothing is written (exit 4); make test's form says not started (exit 0)" {
    student "$TODO_SCALE" "$TODO_INVERT" "$TODO_INVERT"
    run "$K/common/student/check.sh" --bin "$TP/lab99" --lab 99 --cases "--part scale --n 3; --part invert --size 4x4" --out "$BATS_TEST_TMPDIR/c"
    [ "$status" -eq 4 ]
    [[ "$output" == *"invert:v1 bytes: not written yet"* ]]
    # the given scale v1 does not count as started
    run "$K/common/student/check.sh" --bin "$TP/lab99" --lab 99 --cases "--part scale --n 3; --part invert --size 4x4" --out "$BATS_TEST_TMPDIR/c" --skip-untouched
    [ "$status" -eq 0 ]
    [[ "$output" == "lab99: not started (every variant says not implemented yet): skipped" ]]
}

@test "make presubmit on a lab of two parts: each part's variants judged by the grader's checker" {
    student "$RIGHT_SCALE" "$SHORT_INVERT" "$TODO_INVERT"
    run make -C "$TP" presubmit
    [ "$status" -ne 0 ]
    [[ "$output" == *"build: ok, no warnings"* ]]
    [[ "$output" == *"scale:v1 loop (given): correct on all 2 cases it takes"* ]]
    [[ "$output" == *"scale:v2 unrolled: correct on all 2 cases it takes"* ]]
    [[ "$output" == *"PROBLEM: invert:v1 bytes: correct on 0 of 2 cases, wrong on 2; first: --part invert --size 1x1: 1 of 1 values wrong"* ]]
    [[ "$output" == *"PROBLEM: invert:v2 rows: missing"* ]]
    student "$RIGHT_SCALE" "$RIGHT_INVERT" "$RIGHT_INVERT"
    run make -C "$TP" presubmit
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"nothing the grader would hold against it"* ]]
}

@test "make check REF=1 passes every variant of lab 01 on every input it takes" {
    run make -C "$L01" check REF=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"v1 naive: correct on all 9 inputs it takes"* ]]
    [[ "$output" == *"v3 separable: correct on all 4 inputs it takes (5 it cannot take)"* ]]
}
