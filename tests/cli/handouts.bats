#!/usr/bin/env bats
# What students read in every lab (handouts, headers, skeletons, messages):
# course words only; facts right; questions asked, not answered; the average
# a figure is said; nothing that exists only in the instructor's copy of the
# kit.
load helpers

LABS_HERE=$(kit_labs)

# the student-facing files of a lab, its sources and scripts in subfolders
# too (lab 04's scripts/ and bench/), build outputs left out
student_files() {
    local l
    for l in $LABS_HERE; do
        find "$KIT_ROOT/labs/$l" \( -name build -o -name out \) -prune -o -type f \
            \( -name '*.md' -o -name '*.[ch]' -o -name '*.cu' -o -name Makefile -o -name '*.gp' \
               -o -name '*.sh' -o -name '*.awk' -o -name '*.py' \) -print
    done
}

# section FILE HEADING: the lines of a markdown section, up to the next heading of its level or higher
section() {
    awk -v h="$2" 'index($0, h) == 1 { on = 1; print; next } on && /^##? / { exit } on' "$1"
}

@test "every lab speaks course words: no 'seed 000', no 'the seed's', no file names of the course material" {
    run grep -nE -i 'seed 00[0-9]|seed'"'"'s|seeds/|\b00[0-4]_[0-9a-f]{6}' $(student_files)
    [ "$status" -eq 1 ] || { echo "$output"; false; }
    for l in $LABS_HERE; do
        b=labs/$l/lab${l%%_*}
        run "$KIT_ROOT/$b" --help
        [ "$status" -eq 0 ] || { echo "$b --help: exit $status"; false; }
        [[ "$output" != *"seed's"* && "$output" != *"seed 00"* ]] || { echo "$b --help: $output"; false; }
    done
    grep -q "Gogoulou" "$KIT_ROOT/labs/06_matvec/README.md"
}

@test "lab 06: the C1060 is a GPU of 2008, and the report's kernel computes y = A^T x" {
    f="$KIT_ROOT/labs/06_matvec/README.md"
    run grep -n '2014 GPU' "$f"
    [ "$status" -eq 1 ]
    grep -q 'Tesla C1060 (2008' "$f"
    run section "$f" '### v2:'
    [[ "$output" == *'the report'"'"'s kernel computes `y = A^T x`'* ]]
    [[ "$output" == *'This lab computes `y = A x`'* ]]
    [[ "$output" != *"coalesced as the report intended"* ]]
}

@test "each handout says which average its figures are, and why: the median; the mean and spread are in the TSV" {
    for l in $LABS_HERE; do
        f="$KIT_ROOT/labs/$l/README.md"
        grep -q 'mean' "$f"
        grep -q 'standard deviation' "$f"
        grep -q 'kernel_ms_median' "$f"
        grep -qE 'the median( not at all|: on a| where)' "$f" || { echo "$l: no reason given"; false; }
    done
}

@test "questions are asked, not answered: lab 01 question 4, lab 02 questions 2 and 4" {
    f1="$KIT_ROOT/labs/01_cpu_conv/README.md"
    # before the questions, nothing says what else than clamping could be done, or the extremes
    run awk '/^## Questions/ { exit } { print }' "$f1"
    [[ "$output" != *"rescale"* && "$output" != *"24*255"* && "$output" != *"two ways"* ]]
    grep -q '^4\. Work out the largest and the smallest sum' "$f1"
    f2="$KIT_ROOT/labs/02_omp_sse/README.md"
    run grep -n '_mm_min_ps(_mm_max_ps\|(the clamp)' "$f2"
    [ "$status" -eq 1 ]
    # before the questions, nothing says why v2 loses to v1, nor which intrinsics clamp
    run awk '/^## Questions/ { exit } { print }' "$f2"
    [[ "$output" != *"fork"* && "$output" != *"barrier"* && "$output" != *"general rule"* ]]
    [[ "$output" != *"_mm_min_ps"* && "$output" != *"_mm_max_ps"* ]]
    # the measured figures stay, in the generated block question 2 points at
    grep -q '^| v2 omp-pixels |' "$f2"
    grep -q '^2\. Compare v2 with v1 in the reference figures below' "$f2"
    grep -q '^4\. How does v3 clamp the four lanes' "$f2"
}

@test "the borders section and the questions of labs 01 and 02 are in the kit's words, not the course guide's order" {
    f1="$KIT_ROOT/labs/01_cpu_conv/README.md"
    run grep -nE 'three usual answers|One addition of a constant you compute once|From the course guide, in our words' \
        "$f1" "$KIT_ROOT/labs/02_omp_sse/README.md"
    [ "$status" -eq 1 ]
    run section "$f1" '### Borders'
    [[ "$output" == *"4996x3748"* ]] # the kit's own numbers
}

@test "handouts and their translations name nothing the student's copy lacks: no lab0N-ref, no REF=1, no REFERENCE.md, no solutions/" {
    for l in $LABS_HERE; do
        run grep -nE 'lab0[0-9]-ref|REF=1|REFERENCE\.md|solutions/' "$KIT_ROOT/labs/$l"/README*.md
        [ "$status" -eq 1 ] || { echo "$l: $output"; false; }
    done
}
