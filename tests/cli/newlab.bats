#!/usr/bin/env bats
# make new-lab NN=.. NAME=..: a new lab laid out in one command, in a copy of
# the kit (build outputs left out): it builds warning-free, its skeleton says
# not implemented (exit 4), its reference passes, and the kit's own tests that
# go over every lab (handouts, answers, figures, rubrics, grade.sh) find it.
load helpers

setup_file() {
    K="$BATS_FILE_TMPDIR/kit"
    mkdir -p "$K"
    tar -C "$KIT_ROOT" --exclude=./.git --exclude=build --exclude=out --exclude=./tests/log \
        -cf - Makefile common labs solutions grading tests/cli docs | tar -C "$K" -xf -
    export K
    link_deps "$K"
    make -s -C "$K" new-lab NN=42 NAME=scale_up >"$BATS_FILE_TMPDIR/new.log" 2>&1
    echo $? >"$BATS_FILE_TMPDIR/new.rc"
    # the kit's libraries and grader's programs where the copy's sources are the kit's (helpers.bash):
    # the new lab's build compiles its own files, the grader's build of its programs check-42 only
    seed_kit_copy "$K"
    make -s -C "$K/labs/42_scale_up" WERROR=1 >"$BATS_FILE_TMPDIR/build.log" 2>&1
    echo $? >"$BATS_FILE_TMPDIR/build.rc"
}

new_lab_ok() {
    [ "$(cat "$BATS_FILE_TMPDIR/new.rc")" -eq 0 ] || { cat "$BATS_FILE_TMPDIR/new.log"; return 1; }
}

@test "make new-lab lays out the lab, its solution, rubric, grading example and test, and the glossary links it" {
    new_lab_ok
    local L="$K/labs/42_scale_up" S="$K/solutions/42_scale_up" f
    for f in "$L/Makefile" "$L/spec.c" "$L/main.c" "$L/ref.c" "$L/scale_up.h" "$L/scale_up.c" \
        "$L/README.md" "$L/grade.sh" "$S/scale_up.c" "$S/NOTES.md" "$K/grading/rubrics/lab42.rubric" \
        "$K/grading/examples/lab42/correct/EXPECT" "$K/tests/cli/lab42.bats"; do
        [ -f "$f" ] || { echo "missing: ${f#"$K"/}"; return 1; }
    done
    grep -qF '/* >>> SOLUTION */' "$S/scale_up.c"
    run grep -F 'SOLUTION' "$L/scale_up.c"
    [ "$status" -eq 1 ] # the skeleton holds no answer
    grep -q '^## Questions' "$L/README.md"
    grep -q '^## Reference figures' "$L/README.md"
    grep -qx '<!-- figures begin -->' "$L/README.md"
    grep -qx '<!-- figures end -->' "$L/README.md"
    for h in '## Answers' '### Q1' '## Departures from the course guide' '## Common mistakes'; do
        grep -qx "$h" "$S/NOTES.md" || { echo "NOTES.md: no $h"; return 1; }
    done
    cmp "$L/grade.sh" "$KIT_ROOT/labs/01_cpu_conv/grade.sh"
    make -s -C "$L" skeleton-check
    # the glossary links the new lab's handout, and is its sources' rendering
    grep -qF '(../labs/42_scale_up/README.md)' "$K/docs/glossary.md"
    python3 "$K/common/scripts/glossary.py" render --check
}

@test "the new lab builds warning-free; its skeleton exits 4, its reference passes" {
    new_lab_ok
    [ "$(cat "$BATS_FILE_TMPDIR/build.rc")" -eq 0 ] || { tail -n 30 "$BATS_FILE_TMPDIR/build.log"; false; }
    run "$K/labs/42_scale_up/lab42" --n 100 --reps 1
    [ "$status" -eq 4 ]
    [[ "$output" == *"not implemented"* ]]
    run "$K/labs/42_scale_up/lab42-ref" --n 1000 --reps 2
    [ "$status" -eq 0 ]
    [[ "$output" == *"PASS"* ]]
    run make -s -C "$K/labs/42_scale_up" check REF=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # what make demo and make figures run in every lab
    run make -s -C "$K/labs/42_scale_up" demo OUT="$BATS_TEST_TMPDIR/demo"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -s "$BATS_TEST_TMPDIR/demo/bench.tsv" ]
}

@test "the kit's tests of every lab find the new one and pass: its own test, handouts, figures, answers" {
    new_lab_ok
    [[ " $(kit_labs "$K" | tr '\n' ' ') " == *" 42_scale_up "* ]]
    run bats "$K/tests/cli/lab42.bats"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run bats -f "course words|which average|name nothing" "$K/tests/cli/handouts.bats"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run bats -f "one figures block" "$K/tests/cli/figures.bats"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # the answer keys' test, on a kit of the new lab alone (it checks every lab)
    local A="$BATS_TEST_TMPDIR/alone"
    mkdir -p "$A/labs" "$A/solutions" "$A/tests"
    cp -r "$K/tests/cli" "$A/tests/"
    cp -r "$K/labs/42_scale_up" "$A/labs/"
    cp -r "$K/solutions/42_scale_up" "$A/solutions/"
    run bats "$A/tests/cli/answers.bats"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "the grader finds the new lab: its rubric draws hidden cases, its grade.sh runs the grader, its correct example gets its EXPECT" {
    new_lab_ok
    run "$K/grading/grade" --lab 42 --print-cases --seed 7
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(printf '%s\n' "$output" | grep -c '^case')" -ge 3 ]
    run "$K/labs/42_scale_up/grade.sh" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--submissions DIR"* ]]
    run "$K/grading/examples/make.sh" 42 "$BATS_TEST_TMPDIR/ex"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    cmp <(sed -e '/\/\* >>> SOLUTION \*\//d' -e '/\/\* <<< SOLUTION \*\//d' -e '/\/\* >>> STUDENT/,/<<< STUDENT \*\//d' \
        "$K/solutions/42_scale_up/scale_up.c") "$BATS_TEST_TMPDIR/ex/correct/scale_up.c"
    # the correct example gets what its EXPECT says
    run "$K/grading/grade" --lab 42 --submissions "$BATS_TEST_TMPDIR/ex" --out "$BATS_TEST_TMPDIR/g" --quick
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run "$K/grading/examples/expect.sh" 42 "$BATS_TEST_TMPDIR/g"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"ok correct"* ]]
}

@test "make new-lab refuses, one line and exit 2: a lab number taken, a bad number or name, no name" {
    new_lab_ok
    run make -s -C "$K" new-lab NN=42 NAME=other
    [ "$status" -ne 0 ]
    [[ "$output" == *"there is a lab 42 already"* ]]
    for args in "NN=4 NAME=x" "NN=43 NAME=Bad" "NN=43 NAME=9x" "NN=43 NAME=main" "NN=43"; do
        run "$K/common/scripts/new-lab.sh" $(printf '%s\n' $args | sed 's/^[A-Z]*=//')
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
        [[ "$output" == "new-lab: "* ]]
    done
    [ ! -e "$K/labs/43_x" ] && [ ! -e "$K/labs/43_Bad" ]
}
