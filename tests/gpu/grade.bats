#!/usr/bin/env bats
# GPU tests of the grader on labs 03 and 06: every example submission of grading/examples/lab03
# and lab06 gets the status and points its EXPECT file states (a kernel that never ends is
# killed and the class goes on; a variant that computes on the CPU, launches a token kernel,
# copies inside its launcher or replays a kept result is caught by its GPU activity records and
# its checked repetitions; GPU memory past the limit is stopped), the reference solutions get
# every point, kernel times come from CUPTI, and --sanitize finds the kernel that writes out of
# bounds. Skipped without a device.
load ../cli/helpers

L06="$KIT_ROOT/labs/06_matvec"

setup_file() {
    export G="$KIT_ROOT/grading/grade"
    export GT="$BATS_FILE_TMPDIR"
    local rc=0
    "$L03/lab03-ref" --size 1x1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || return 0
    make -s -C "$KIT_ROOT/grading" >"$GT/make.log" 2>&1 || { cat "$GT/make.log"; return 1; }
    for l in 03 06; do
        "$KIT_ROOT/grading/examples/make.sh" $l "$GT/ex$l" >/dev/null
    done
    local t0=$SECONDS
    "$G" --lab 03 --submissions "$GT/ex03" --out "$GT/out03" --quick --timeout 10 --seed 4242 \
        >"$GT/grade03.log" 2>&1
    echo $? >"$GT/grade03.rc"
    echo $((SECONDS - t0)) >"$GT/grade03.s"
    t0=$SECONDS
    "$G" --lab 06 --submissions "$GT/ex06" --out "$GT/out06" --quick --seed 4242 \
        --rubric "$KIT_ROOT/grading/examples/lab06/rubric" >"$GT/grade06.log" 2>&1
    echo $? >"$GT/grade06.rc"
    echo $((SECONDS - t0)) >"$GT/grade06.s"
}

setup() {
    skip_without_gpu "$L03/lab03-ref"
}

check_example() {
    run "$KIT_ROOT/grading/examples/expect.sh" "$2" "$GT/out$2" "$1"
    echo "$output"
    [ "$status" -eq 0 ]
}

# json OUT ID EXPR: a value of a student's results.json (EXPR in Python, the record is r)
json() {
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1], encoding="utf-8")); print(eval(sys.argv[2]))' \
        "$1/students/$2/results.json" "$3"
}

@test "the lab 03 and lab 06 examples are graded: exit 0, every example once" {
    for l in 03 06; do
        [ "$(cat "$GT/grade$l.rc")" -eq 0 ] || { cat "$GT/grade$l.log"; false; }
        echo "lab $l graded in $(cat "$GT/grade$l.s") s" >&3
        n=$(find "$KIT_ROOT/grading/examples/lab$l" -mindepth 1 -maxdepth 1 -type d | wc -l)
        [ "$(tail -n +2 "$GT/out$l/grades.csv" | wc -l)" -eq "$n" ]
        grep -qE '^sandbox: (bwrap|none)' "$GT/out$l/grading.txt"
        grep -qE '^ceilings: .*device-copy [0-9.]+ GB/s' "$GT/out$l/grading.txt"
    done
}

@test "the reference passed its own hidden cases on the GPU; the correct examples get every point, timed by CUPTI" {
    for l in 03 06; do
        t="$GT/out$l/reference/tests.tsv"
        [ -s "$t" ]
        run awk -F'\t' '$3 != "pass" && $3 != "n/a"' "$t"
        [ -z "$output" ] || { echo "$output"; false; }
        # every timed variant of the correct example: verified, GPU clock, pairs with the reference
        p="$GT/out$l/students/correct/perf.tsv"
        [ -s "$p" ]
        run awk -F'\t' '$4 != "gpu" || $5 != "ok"' "$p"
        [ -z "$output" ] || { cat "$p"; false; }
        [ "$(json "$GT/out$l" correct 'r["points"]["total"] == r["points"]["max"]')" = True ] ||
            { json "$GT/out$l" correct 'r["variants"]'; false; }
    done
}

@test "lab 03 example correct: every test, full correctness, kernel times from CUPTI" {
    check_example correct 03
}

@test "lab 03 example slow: one thread a block, no performance points for its slow variant" {
    check_example slow 03
}

@test "lab 03 example wrong-borders: repeated edges instead of zeros are wrong" {
    check_example wrong-borders 03
}

@test "lab 03 example oob-write: a kernel without its guard is wrong or crashes" {
    check_example oob-write 03
}

@test "lab 03 example infinite-loop: a kernel that never ends is killed, the class goes on" {
    check_example infinite-loop 03
    grep -q 'not run: it ran past the time limit' "$GT/out03/students/infinite-loop/tests.tsv"
}

@test "lab 03 examples compile-error, fake-pass, reads-solutions, network, fork-loop" {
    for e in compile-error fake-pass reads-solutions network fork-loop; do
        check_example $e 03
    done
}

@test "lab 03 example cpu-instead: a variant that launched no kernel is flagged, no points for it" {
    check_example cpu-instead 03
    grep -q $'\tno-kernel: ' "$GT/out03/students/cpu-instead/perf.tsv"
}

@test "lab 06 examples correct, wrong, not-implemented, fake-pass, compile-error" {
    for e in correct wrong not-implemented fake-pass compile-error; do
        check_example $e 06
    done
}

@test "lab 06 example token-kernel: one empty kernel around a host computation gets no speed" {
    check_example token-kernel 06
}

@test "lab 06 example replay: a y kept from the first input is caught on fresh content" {
    check_example replay 06
}

@test "lab 06 example copies-in-launcher: a copy inside a kernel-span launcher is seen" {
    check_example copies-in-launcher 06
    # where the activity records carry copies, the copy is named
    if [ -f "$KIT_ROOT/common/cupti_trace.c" ]; then
        [ "$(json "$GT/out06" copies-in-launcher 'r["variants"][3]["timing"]["status"]')" = copies-in-launcher ]
    fi
}

@test "lab 06 examples endless-kernel and gpu-memory-hog: stopped at their limits, the next student unaffected" {
    check_example endless-kernel 06
    check_example gpu-memory-hog 06
}

@test "--sanitize: compute-sanitizer finds the out-of-bounds kernel, not the reference's" {
    command -v compute-sanitizer >/dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ] ||
        skip "no compute-sanitizer"
    subs="$BATS_TEST_TMPDIR/subs"
    mkdir -p "$subs"
    cp -r "$GT/ex03/oob-write" "$GT/ex03/correct" "$subs/"
    run "$G" --lab 03 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick --timeout 20 --sanitize
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    grep -q $'\tsanitize\tsanitizer-error' "$BATS_TEST_TMPDIR/out/students/oob-write/tests.tsv"
    run grep -q 'sanitizer-error' "$BATS_TEST_TMPDIR/out/students/correct/tests.tsv"
    [ "$status" -ne 0 ]
}
