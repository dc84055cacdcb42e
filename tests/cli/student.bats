#!/usr/bin/env bats
# What students get: make dist-student's tarball, unpacked into an empty
# folder under a path with a space, used as a student would: its README and
# Makefile, make, make test, make check, make bench, make plot, make
# presubmit (every command the handout of every lab names: handout-commands-*.bats).
# Then releases of some labs only, and the proof that no release carries an answer.
load helpers

setup_file() {
    student_copy
}

setup() {
    L1="$ST/labs/01_cpu_conv"
    PARTIAL="$BATS_TEST_DIRNAME/partial.awk"
    # what a test changes in the student's copy is put back, pass or fail
    cp "$L1/conv.c" "$BATS_TEST_TMPDIR/conv.c.orig"
    cp "$L1/conv.h" "$BATS_TEST_TMPDIR/conv.h.orig"
}

teardown() {
    cp "$BATS_TEST_TMPDIR/conv.c.orig" "$L1/conv.c"
    cp "$BATS_TEST_TMPDIR/conv.h.orig" "$L1/conv.h"
}

# a lab-01 conv.c with v1 right, v2 wrong at the first float of every chunk
# of a row, v3 not written
partial_lab01() {
    awk -v keep=1,2 -f "$PARTIAL" "$KIT_ROOT/solutions/01_cpu_conv/conv.c" |
        sed 's/d\[k0 + k\] = clamp255(acc\[k\]);/d[k0 + k] = clamp255(acc[k]) + (k == 0);/' >"$1"
    grep -q '(k == 0)' "$1"
}

# the lines of every solution's answers (SOLUTION regions, 24 characters or
# more, no comments) that neither a skeleton generated from it, nor common/,
# nor a lab's own glue (a .c or .cu file that is no student's) has
answer_lines() {
    local f
    for f in "$KIT_ROOT"/solutions/*/*; do
        awk '{ t = $0; gsub(/^[ \t]+|[ \t\r]+$/, "", t) }
             t == "/* >>> SOLUTION */" { on = 1; next } t == "/* <<< SOLUTION */" { on = 0; next }
             on && length(t) >= 24 && t !~ /^(\/\/|\/\*|\*)/ { print t }' "$f"
    done | sort -u >"$1.all"
    {
        for f in "$KIT_ROOT"/solutions/*/*; do awk -f "$KIT_ROOT/common/scripts/mkskel.awk" "$f"; done
        cat "$KIT_ROOT"/common/*.[ch] "$KIT_ROOT"/common/*.cu
        for f in "$KIT_ROOT"/labs/*/*.c "$KIT_ROOT"/labs/*/*.cu; do
            [ -e "$KIT_ROOT/solutions/$(basename "$(dirname "$f")")/$(basename "$f")" ] || cat "$f"
        done
    } | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | sort -u >"$1.kit"
    comm -23 "$1.all" "$1.kit" >"$1"
}

# no_answers DIR: no solution marker and no answer line in any file of DIR
no_answers() {
    run grep -rlF -e '>>> SOLUTION' -e '<<< SOLUTION' "$1"
    [ "$status" -eq 1 ] || { echo "solution markers in: $output"; return 1; }
    answer_lines "$BATS_TEST_TMPDIR/answers"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/answers")" -gt 100 ] # the check has something to look for
    local hits
    hits=$(find "$1" -type f -exec sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' {} + |
        grep -cxF -f "$BATS_TEST_TMPDIR/answers" || true)
    [ "$hits" -eq 0 ] || { echo "$hits answer lines inside"; return 1; }
}

@test "the tarball: the student's README and Makefile, the glossary, every lab with its ref.c, no solutions, tests, rubrics, examples or grader" {
    run tar -tzf "$TARBALL"
    [ "$status" -eq 0 ]
    list=$output
    for f in README.md Makefile common/ref.c common/lab.mk common/student/check.sh common/student/presubmit.sh \
             common/student/kit.sha256 grading/check.c grading/metrics docs/glossary.md; do
        grep -qx "cuda-lab-kit-student/$f" <<<"$list" || { echo "missing $f"; false; }
    done
    for d in "$KIT_ROOT"/labs/[0-9]*/; do
        n=$(basename "$d")
        grep -qx "cuda-lab-kit-student/labs/$n/ref.c" <<<"$list" || { echo "no ref.c in $n"; false; }
        grep -qx "cuda-lab-kit-student/labs/$n/README.md" <<<"$list"
    done
    run grep -E '/(solutions|tests|rubrics|examples|kitgrade)/|grading/grade$|/grade\.sh$|grade-lab\.sh$|new-lab\.sh$|/newlab/|mkskel\.awk|\.rubric$|/build/|/out/|\.o$|lab[0-9][0-9](-ref)?$' <<<"$list"
    [ "$status" -eq 1 ] || { echo "$output"; false; }
    # the student's README and Makefile, not the instructor's
    grep -q 'make presubmit' "$ST/README.md"
    grep -q 'labs/01_cpu_conv/`' "$ST/README.md"
    run grep -E 'make demo|dist-student|grading/grade|How an instructor' "$ST/README.md" "$ST/Makefile"
    [ "$status" -eq 1 ]
}

@test "make builds every lab under a path with a space, with no reference binary" {
    [ "$(cat "$BATS_FILE_TMPDIR/build.rc")" -eq 0 ] || { tail -n 30 "$BATS_FILE_TMPDIR/build.log"; false; }
    for d in "$ST"/labs/[0-9]*/; do
        n=$(basename "$d")
        [ -x "$d/lab${n%%_*}" ] || { echo "no lab${n%%_*}"; false; }
        [ ! -e "$d/lab${n%%_*}-ref" ]
    done
}

@test "make test checks the labs a student started: untouched ones and GPU labs without a device are skipped with a line" {
    run make -C "$ST" test
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"lab01: not started"* ]]
    [[ "$output" == *"lab02: not started"* ]]
    if ! has_gpu; then [[ "$output" == *"lab06: no CUDA device here: not checked"* ]]; fi
    # a started lab with a wrong variant fails make test
    cp "$L1/conv.c" "$BATS_TEST_TMPDIR/conv.c"
    partial_lab01 "$L1/conv.c"
    # (lab 01 alone this time: the other labs' checks were made above, and on a GPU machine
    # they are a minute of GPU work)
    run make -C "$ST" test LABS=labs/01_cpu_conv
    cp "$BATS_TEST_TMPDIR/conv.c" "$L1/conv.c"
    [ "$status" -ne 0 ]
    [[ "$output" == *"v2 loop-order: correct on 0, wrong on 9 of 9 inputs"* ]]
    [[ "$output" == *"make test: failed in labs/01_cpu_conv"* ]]
}

@test "make check goes variant by variant; each failing case has its own diff picture in out/check, enlarged in index.html" {
    cp "$L1/conv.c" "$BATS_TEST_TMPDIR/conv.c"
    partial_lab01 "$L1/conv.c"
    run make -C "$L1" check
    [ "$status" -ne 0 ]
    [[ "$output" == *"v1 naive: correct on all 9 inputs it takes"* ]]
    [[ "$output" == *"v2 loop-order: correct on 0, wrong on 9 of 9 inputs; first: --size 1x1"* ]]
    [[ "$output" == *"v3 separable: not written yet"* ]]
    [[ "$output" == *"out/check/index.html"* ]]
    # one picture per failing case, named after the case
    [ "$(ls "$L1"/out/check/lab01-v2-*-diff.png | wc -l)" -eq 9 ]
    is_png "$L1/out/check/lab01-v2-size-64x48_filter-edge3-diff.png"
    is_png "$L1/out/check/lab01-v2-size-64x48_filter-sharpen3-diff.png"
    run cmp -s "$L1/out/check/lab01-v2-size-64x48_filter-edge3-diff.png" "$L1/out/check/lab01-v2-size-64x48_filter-sharpen3-diff.png"
    [ "$status" -ne 0 ]
    # a 3x3 picture is shown 160 times larger, a 1023x769 one as it is
    grep -q 'src="lab01-v2-size-3x3-diff.png" width=480 height=480' "$L1/out/check/index.html"
    grep -q 'src="lab01-v2-size-1023x769-diff.png" width=1023 height=769' "$L1/out/check/index.html"
    [ "$(ls "$L1"/out/check/ | grep -c 'lab01-v1-')" -eq 0 ]
    run make -C "$L1" check V=1
    [ "$status" -eq 0 ]
    [[ "$output" != *"v2"* ]]
    run make -C "$L1" check V=9
    [ "$status" -ne 0 ]
    [[ "$output" == *"V=9: lab01 has no such variant (its variants: 1 2 3)"* ]]
    cp "$BATS_TEST_TMPDIR/conv.c" "$L1/conv.c"
}

@test "make bench and make plot with a partly written lab 01: what passes is timed and drawn, the panel comes from the student's build" {
    command -v gnuplot >/dev/null || skip "gnuplot is not installed"
    cp "$L1/conv.c" "$BATS_TEST_TMPDIR/conv.c"
    partial_lab01 "$L1/conv.c"
    run make -C "$L1" bench BENCH_SIZES="64x48 96x64" BENCH_REPS=3
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"(v2: wrong result"* ]]
    [[ "$output" == *"(v3: not written yet"* ]]
    [ "$(awk -F'\t' '$2 == 1 && $18 == "pass"' "$L1/out/bench.tsv" | wc -l)" -eq 4 ]
    run make -C "$L1" plot
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    is_png "$L1/out/time.png"
    is_png "$L1/out/panel.png"
    grep -qx 'out=output (v1)' "$L1/out/panel.txt"
    grep -qx 'diff=diff: your v2, wrong' "$L1/out/panel.txt"
    # everything right: two pictures in the panel, no planted build needed
    awk -v keep=1,2,3 -f "$PARTIAL" "$KIT_ROOT/solutions/01_cpu_conv/conv.c" >"$L1/conv.c"
    run make -C "$L1" plot
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"no diff picture"* ]]
    grep -qx 'out=output (v2)' "$L1/out/panel.txt"
    [ ! -e "$L1/out/diff.png" ]
    cp "$BATS_TEST_TMPDIR/conv.c" "$L1/conv.c"
}

@test "make presubmit says what the grader will see: a missing variant, a wrong result, warnings as errors, a forbidden symbol, a changed kit file" {
    cp "$L1/conv.c" "$BATS_TEST_TMPDIR/conv.c"
    cp "$L1/conv.h" "$BATS_TEST_TMPDIR/conv.h"
    partial_lab01 "$L1/conv.c"
    run make -C "$L1" presubmit
    [ "$status" -ne 0 ]
    [[ "$output" == *"build: ok, no warnings"* ]]
    [[ "$output" == *"v1 naive: correct on all 9 cases"* ]]
    [[ "$output" == *"PROBLEM: v2 loop-order: correct on 0 of 9 cases, wrong on 9"* ]]
    [[ "$output" == *"PROBLEM: v3 separable: missing"* ]]
    [[ "$output" == *"2 problem(s)"* ]]
    # a warning: fine for make, an error for the grader
    printf 'static int helper_left_over(void) { return 0; }\n' >>"$L1/conv.c"
    make -s -C "$L1" >/dev/null 2>&1
    run make -C "$L1" presubmit
    [[ "$output" == *"compile only with warnings"*"-Werror"* ]]
    [[ "$output" == *"helper_left_over"* ]]
    # the kit's own functions and main are off limits; and a kit file changed: the grader uses
    # its own (two findings of one run: each is its own check of presubmit.sh, and each
    # line is asserted, as when each had a run of its own)
    awk -v keep=1,2,3 -f "$PARTIAL" "$KIT_ROOT/solutions/01_cpu_conv/conv.c" >"$L1/conv.c"
    printf 'int kit_my_timer(void) { return 1; }\n' >>"$L1/conv.c"
    echo "/* my note */" >>"$L1/conv.h"
    run make -C "$L1" presubmit
    [[ "$output" == *"forbidden: conv.c defines kit_my_timer"* ]]
    [[ "$output" == *"you changed files of the kit: labs/01_cpu_conv/conv.h"* ]]
    awk -v keep=1,2,3 -f "$PARTIAL" "$KIT_ROOT/solutions/01_cpu_conv/conv.c" >"$L1/conv.c"
    cp "$BATS_TEST_TMPDIR/conv.h" "$L1/conv.h"
    # all right: nothing to hold against it
    run make -C "$L1" presubmit
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"lab01 presubmit: nothing the grader would hold against it"* ]]
    cp "$BATS_TEST_TMPDIR/conv.c" "$L1/conv.c"
}

@test "make presubmit in a GPU lab builds the grader's way and, without a device, says the runs need one" {
    if has_gpu; then skip "this machine has a GPU: the runs are made"; fi
    run make -C "$ST/labs/06_matvec" presubmit
    [[ "$output" == *"build: ok, no warnings"* ]]
    [[ "$output" == *"no CUDA device here"* ]]
}

@test "REF=1 in the student's copy says plainly that there is no reference solution" {
    run make -C "$L1" bench REF=1
    [ "$status" -ne 0 ]
    [[ "$output" == *"REF=1 runs the reference solution, which this copy of the kit does not have"* ]]
}

@test "the whole release carries no answer: no solution marker, no line of any solution's answer" {
    d="$BATS_TEST_TMPDIR/all"
    mkdir -p "$d"
    tar -xzf "$TARBALL" -C "$d"
    no_answers "$d"
}

@test "make dist-student LABS=01,02: those labs only, and no later lab's answer or any solution region" {
    run make -s -C "$KIT_ROOT" dist-student LABS=01,02
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    tb="$KIT_ROOT/out/cuda-lab-kit-student-01-02.tar.gz"
    run tar -tzf "$tb"
    [ "$(grep -o '^cuda-lab-kit-student/labs/[^/]*/' <<<"$output" | sort -u | tr '\n' ' ')" = \
      "cuda-lab-kit-student/labs/01_cpu_conv/ cuda-lab-kit-student/labs/02_omp_sse/ " ]
    d="$BATS_TEST_TMPDIR/rel"
    mkdir -p "$d"
    tar -xzf "$tb" -C "$d"
    grep -q 'labs/02_omp_sse/`' "$d/cuda-lab-kit-student/README.md"
    run grep -c 'labs/0[3-9]' "$d/cuda-lab-kit-student/README.md"
    [ "$output" -eq 0 ]
    no_answers "$d"
    run make -s -C "$KIT_ROOT" dist-student LABS=01,09
    [ "$status" -ne 0 ]
    [[ "$output" == *"there is no lab 09"* ]]
}

@test "dist-student refuses a release that would carry a line of an answer (and works without git)" {
    k="$BATS_TEST_TMPDIR/kit"
    mkdir -p "$k/grading"
    # the kit without its build outputs (which other test files may be writing now)
    tar -C "$KIT_ROOT" --exclude=build --exclude=out -cf - common labs solutions | tar -C "$k" -xf -
    cp "$KIT_ROOT/grading/check.c" "$k/grading/"
    run "$k/common/scripts/dist-student.sh" 01,02
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    line=$(awk '/>>> SOLUTION/ { on = 1; next } /<<< SOLUTION/ { on = 0 } on && length($0) > 40' \
        "$KIT_ROOT/solutions/01_cpu_conv/conv.c" | head -n 1)
    printf '%s\n' "$line" >>"$k/labs/02_omp_sse/conv.h"
    rm -f "$k/out/cuda-lab-kit-student-01-02.tar.gz"
    run "$k/common/scripts/dist-student.sh" 01,02
    [ "$status" -eq 1 ]
    [[ "$output" == *"line(s) of the solutions' answers would be inside; nothing written"* ]]
    [ ! -e "$k/out/cuda-lab-kit-student-01-02.tar.gz" ]
}
