#!/usr/bin/env bats
# GPU tests of the grader on labs 04, 05 and 07: each example submission of grading/examples
# (lab04, lab05, lab07) gets the status and points its EXPECT states, graded as an instructor
# would (--quick sizes): the mechanism each step teaches is read from the GPU activity records
# (lab 04's shared memory, lab 05's streams and page-locked copies, lab 07's zero-copy and
# managed memory), so the reference keeps every point and the planted mistakes lose theirs
# (lab 04's: a step's kernel without shared memory; lab 05's: one stream where two are asked,
# pictures decoded once, memory past the budget, through the runtime or through the driver API
# and kept from the warm-up, copies v2 through a pageable buffer of its own; and lab 05's decoding
# before the first GPU call is in its time; lab 07's soa v4 indexing its planes as an array of
# structs).
# Skipped without a device.
load ../cli/helpers

setup_file() {
    export GT="$BATS_FILE_TMPDIR"
    local rc=0
    "$KIT_ROOT/labs/04_shared_mem/lab04-ref" --size 1x1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || return 0
    make -s -C "$KIT_ROOT/grading" >"$GT/make.log" 2>&1 || { cat "$GT/make.log"; return 1; }
    local l t0
    # the reference timed again around every student (perf_ref_every 0, laid over the lab's
    # rubric): the other GPU test files share this GPU, so a reference run 30 s old was timed
    # under another load (reference_kept, below, says what is asserted of the speed points)
    echo "perf_ref_every 0" >"$GT/fresh-ref.rubric"
    for l in 04 07 05; do
        "$KIT_ROOT/grading/examples/make.sh" $l "$GT/ex$l" >/dev/null
        t0=$SECONDS
        "$KIT_ROOT/grading/grade" --lab $l --submissions "$GT/ex$l" --out "$GT/out$l" --quick \
            --timeout 10 --seed 4242 --rubric "$GT/fresh-ref.rubric" >"$GT/grade$l.log" 2>&1
        echo $? >"$GT/grade$l.rc"
        echo $((SECONDS - t0)) >"$GT/grade$l.s"
    done
}

setup() {
    skip_without_gpu "$KIT_ROOT/labs/04_shared_mem/lab04-ref"
}

# examples NN: lab NN's grading exited 0 with every example once, and each meets its EXPECT
examples() {
    [ "$(cat "$GT/grade$1.rc")" -eq 0 ] || { cat "$GT/grade$1.log"; false; }
    echo "lab $1 graded in $(cat "$GT/grade$1.s") s" >&3
    n=$(find "$KIT_ROOT/grading/examples/lab$1" -mindepth 1 -maxdepth 1 -type d | wc -l)
    [ "$(tail -n +2 "$GT/out$1/grades.csv" | wc -l)" -eq "$n" ]
    run "$KIT_ROOT/grading/examples/expect.sh" "$1" "$GT/out$1"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^ok ' <<<"$output")" -eq "$n" ]
    # no check was turned off: the reference's own timed runs show every mechanism the rubric
    # asks (else the grading's notes would say "breaks the ... check")
    [ -s "$GT/out$1/summary.md" ]
    if grep -n "breaks the" "$GT/out$1/summary.md"; then false; fi
}

# variant_points RESULTS: each timed variant's points, its ratio to the reference and every
# pair's times (reference ms, student ms), to see which variant lost and whether it was slower
variant_points() {
    python3 -c 'import json, sys
for v in json.load(open(sys.argv[1]))["variants"]:
    t = v["timing"] or {}
    pairs = " ".join("%.2f/%.2f" % (p.get("ref_ms") or 0, p.get("student_ms") or 0) for p in t.get("pairs", []))
    print(v["variant"], "perf_pts", v["perf_pts"], "ratio", t.get("ratio"), t.get("status"), "pairs", pairs)' "$1"
}

# reference_kept NN: the correct example (the reference) passed every hidden test, and each of
# its timed variants was verified on the GPU's clock with its step's mechanism seen (status ok:
# a mechanism the records miss would be no-mechanism, and its variant's speed points lost). Its
# speed points themselves are shown, not asserted beyond the EXPECT file's range: the other GPU
# test files share this GPU meanwhile (lab 05's correct copy lost 15 of 38 speed points so in
# one run on the H200, every variant ok), so whether identical work gets identical points is
# measured by a benchmark on a GPU of its own (grading/bench/identical.sh), not by this test
reference_kept() {
    p="$GT/out$1/students/correct/perf.tsv"
    [ -s "$p" ]
    run awk -F'\t' '$4 != "gpu" || $5 != "ok"' "$p"
    [ -z "$output" ] || { cat "$p"; false; }
    run python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); p = r["points"]; t = r["tests"]; print(t["passed"] == t["total"], p["total"], p["max"])' \
        "$GT/out$1/students/correct/results.json"
    echo "lab $1's correct example: $output (every test passed, points, of)" >&3
    [[ $output == True* ]] || { variant_points "$GT/out$1/students/correct/results.json"; false; }
}

@test "lab 04 examples meet their EXPECT (no-shared loses sep v2's speed points); the reference's shared memory is seen" {
    examples 04
    reference_kept 04
}

@test "lab 07 examples meet their EXPECT (zero-copy-copies loses its speed points, soa-aos-index soa v4); managed and shared are seen" {
    examples 07
    reference_kept 07
}

@test "lab 05 examples meet their EXPECT (one stream, pictures decoded once, past the budget by the runtime or the driver API, decoding timed, copies through a pageable buffer); streams and page-locked copies are seen" {
    examples 05
    reference_kept 05
}
