#!/usr/bin/env bats
# Command-line tests of the grader's benchmarks (grading/bench): identical.sh (copies of the
# reference graded again and again, the spread of their points) and scale.sh (a made-up class
# graded once per GPU count, its time against the floor). Each runs on lab 01 in quick mode:
# what is checked is the benchmarks' output and their bad usages, never a time.
load helpers

bats_require_minimum_version 1.5.0

setup_file() {
    make -s -C "$KIT_ROOT/grading" WERROR=1 >"$BATS_FILE_TMPDIR/make.log" 2>&1 ||
        { cat "$BATS_FILE_TMPDIR/make.log"; return 1; }
}

@test "grading/bench/identical.sh: copies of the reference graded twice, the spread per copy and run, bad usage exit 2" {
    b="$KIT_ROOT/grading/bench/identical.sh"
    run "$b" --labs 01 --copies 0
    [ "$status" -eq 2 ]
    run "$b" --labs 42
    [ "$status" -eq 2 ]
    # not a timed test: whether the copies got the same points is the benchmark's to say
    run "$b" --labs 01 --copies 2 --runs 2 --out "$BATS_TEST_TMPDIR/ident" -- --quick
    [ "$status" -eq 0 ] || [ "$status" -eq 1 ] || { echo "$output"; false; }
    [[ "$output" == *"lab 01: 2 copies, 2 runs, 50 points possible"* ]] || { echo "$output"; false; }
    [[ "$output" == *"  run 2: min "* ]]
    [[ "$output" == *"goal (every copy the same points in every run): "* ]]
    [ "$(ls "$BATS_TEST_TMPDIR/ident/lab01/runs/2" | wc -l)" -eq 2 ]
    cmp <(printf '%s\n' "$output" | grep -v '^lab 01 run\|^identical copies') "$BATS_TEST_TMPDIR/ident/spread.txt"
    # stopped in its second run (TERM: a job started with & ignores INT): run 1 kept, the spread printed
    i="$BATS_TEST_TMPDIR/int"
    "$b" --labs 01 --copies 1 --runs 2 --out "$i" -- --quick >"$i.log" 2>&1 &
    # (its second run under way: run 1 kept and run 2's log begun; run 1's file alone can be
    # seen before the benchmark has moved on to run 2)
    for _ in $(seq 1 900); do
        if [[ -s "$i/lab01/runs/1/c001.json" && -e "$i/lab01/runs/grade-2.log" ]]; then break; fi
        sleep 0.1
    done
    kill -TERM $!
    rc=0; wait $! || rc=$?
    [ "$rc" -eq 130 ] || { cat "$i.log"; false; }
    grep -q "interrupted in lab 01's run 2" "$i.log" || { cat "$i.log"; false; }
    grep -q "^lab 01: 1 copies, 2 runs" "$i/spread.txt" || { cat "$i.log"; false; }
}

@test "grading/bench/scale.sh: a class graded, its time, the copies' points and the goals; bad usage exit 2" {
    b="$KIT_ROOT/grading/bench/scale.sh"
    for bad in "--lab 01 --students 0" "--lab 42" "--lab 01 --gpus 2" "--lab"; do
        run "$b" $bad
        [ "$status" -eq 2 ] || { echo "$bad: $status"; false; }
    done
    # a GPU lab is known by its Makefile, lab 05 too (its rubric times on the host's clock)
    if ! nvidia-smi -L >/dev/null 2>&1; then
        run "$b" --lab 05
        [ "$status" -eq 2 ]
        [[ "$output" == *"lab 05 needs a GPU, and none is here"* ]] || { echo "$output"; false; }
    fi
    # not a timed test: whether the goals were met is the benchmark's to say
    run "$b" --lab 01 --students 4 --out "$BATS_TEST_TMPDIR/scale" -- --jobs 2 --quick
    [ "$status" -eq 0 ] || [ "$status" -eq 1 ] || { echo "$output"; false; }
    [[ "$output" == *"lab 01 on "*" cores: 4 graded in "* ]] || { echo "$output"; false; }
    [[ "$output" == *"the reference's 2 copies: "* ]]
    [[ "$output" == *"goals: "*" met"* ]]
    [ -s "$BATS_TEST_TMPDIR/scale/g0/plots/occupancy.txt" ]
    cmp <(printf '%s\n' "$output" | grep -v '^lab 01 on the cores: exit\|^grading at scale') \
        "$BATS_TEST_TMPDIR/scale/scale.txt"
}
