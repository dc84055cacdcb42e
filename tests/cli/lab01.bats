#!/usr/bin/env bats
# Command-line tests of lab 01 (CPU convolution): the harness contract on a
# lab binary: exit codes, bad input, --help, TSV columns, poisoned outputs.
load helpers

setup() {
    REF="$L01/lab01-ref"
    SKEL="$L01/lab01"
    TMP="$BATS_TEST_TMPDIR"
}

@test "--help lists the options, the variants and the exit codes" {
    run "$REF" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--variant N|all"* ]]
    [[ "$output" == *"--image PATH"* ]]
    [[ "$output" == *"1 naive"* && "$output" == *"2 loop-order"* && "$output" == *"3 separable"* ]]
    [[ "$output" == *"77 no CUDA device"* ]]
}

@test "reference passes at 1x1 (smaller than the filter)" {
    run "$REF" --size 1x1 --reps 1
    [ "$status" -eq 0 ]
    [[ "$output" == *"PASS"* ]]
}

@test "reference passes at 3x3, 2x7 and 17x13 with every filter" {
    for f in laplace5 edge3 sharpen3 gauss5; do
        for s in 3x3 2x7 17x13; do
            run "$REF" --size $s --filter $f --reps 1 --quiet
            [ "$status" -eq 0 ] || { echo "$f $s: exit $status: $output"; false; }
        done
    done
    run "$REF" --size 17x13 --filter box --radius 9 --reps 1 --quiet
    [ "$status" -eq 0 ]
    run "$REF" --size 5x3 --filter gaussian --radius 7 --reps 1 --quiet
    [ "$status" -eq 0 ]
}

@test "reference passes at 1023x769 on random seeds, v3 on gauss5 too" {
    run "$REF" --size 1023x769 --seed 12345 --reps 1
    [ "$status" -eq 0 ]
    run "$REF" --size 1023x769 --seed 777 --filter gauss5 --reps 1
    [ "$status" -eq 0 ]
    [[ "$output" == *"3 separable"*"PASS"* ]]
}

@test "reference passes on the seed's 4992x3744 picture size" {
    # every variant in one process: the picture and the checker's answer made once (28 CPU-s
    # one process a variant, 18 in one); the size is what is checked, so a 3x3 window (box of
    # radius 1, separable for v3) does, at a third of gauss5's taps
    run "$REF" --size 4992x3744 --reps 1 --variant 1,2,3 --filter box --radius 1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(grep -c 'PASS' <<<"$output")" -eq 3 ] || { echo "$output"; false; }
}

@test "the untouched skeleton reports not implemented: exit 4" {
    run "$SKEL" --size 16x16 --reps 1
    [ "$status" -eq 4 ]
    [[ "$output" == *"not implemented"* ]]
    run "$SKEL" --size 16x16 --reps 1 --variant 2
    [ "$status" -eq 4 ]
}

@test "a planted wrong solution is caught: exit 1, mismatches listed, diff picture written" {
    make -s -C "$L01" PLANTED=wrong lab01-wrong >/dev/null
    run "$L01/lab01-wrong" --size 33x21 --reps 1 --variant 1 --diff-dir "$TMP"
    [ "$status" -eq 1 ]
    [[ "$output" == *"FAIL"* ]]
    [[ "$output" == *"132 of 2772 elements wrong"* ]]
    [[ "$output" == *"unwritten"* ]]
    is_png "$TMP/lab01-v1-33x21-diff.png"
}

@test "bad usage: one line on stderr and exit 2" {
    for args in "--bogus" "--variant 4" "--variant x" "--size 0x5" "--size 10" \
                "--reps 0" "--filter nope" "--radius 3" "--filter laplace5 --radius 3" \
                "--size 10x10 --image x.png" "extra" "--seed -1" "--threads 2" \
                "--variant 1,1" "--variant 1," "--variant ,2" "--variant 1,,2" "--variant 1,4"; do
        run bash -c "'$REF' $args 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ] || { echo "$args: $output"; false; }
    done
}

@test "v3 chosen explicitly with a filter that is not separable: exit 2, nothing run" {
    run "$REF" --variant 3 --size 8x8
    [ "$status" -eq 2 ]
    [[ "$output" == *"not separable"* ]]
}

@test "missing, corrupt and truncated images: one clear line, exit 2, nothing written" {
    run "$REF" --image "$TMP/none.png" --out "$TMP/o.png"
    [ "$status" -eq 2 ]
    [[ "$output" == *"none.png"* ]]
    echo "not a picture" > "$TMP/bad.png"
    run "$REF" --image "$TMP/bad.png" --out "$TMP/o.png"
    [ "$status" -eq 2 ]
    "$REF" --size 64x64 --variant 2 --reps 1 --quiet --save-input "$TMP/good.png"
    head -c 100 "$TMP/good.png" > "$TMP/trunc.png"
    run "$REF" --image "$TMP/trunc.png" --out "$TMP/o.png"
    [ "$status" -eq 2 ]
    [ ! -e "$TMP/o.png" ]
}

@test "--image reads a picture and --out writes a viewable PNG" {
    "$REF" --size 97x61 --seed 5 --variant 2 --reps 1 --quiet --save-input "$TMP/in.png"
    is_png "$TMP/in.png"
    run "$REF" --image "$TMP/in.png" --out "$TMP/edges.png" --reps 1
    [ "$status" -eq 0 ]
    is_png "$TMP/edges.png"
    [[ "$output" == *"input 97x61"* ]]
}

@test "unwritable --out or --results: exit 2 before anything runs" {
    run "$REF" --size 8x8 --out /nonexistent/dir/o.png
    [ "$status" -eq 2 ]
    run "$REF" --size 8x8 --results /nonexistent/dir/r.tsv
    [ "$status" -eq 2 ]
}

@test "different seeds give different pictures, the same seed the same" {
    "$REF" --size 50x40 --seed 1 --variant 2 --reps 1 --quiet --save-input "$TMP/a.png"
    "$REF" --size 50x40 --seed 1 --variant 2 --reps 1 --quiet --save-input "$TMP/b.png"
    "$REF" --size 50x40 --seed 2 --variant 2 --reps 1 --quiet --save-input "$TMP/c.png"
    cmp -s "$TMP/a.png" "$TMP/b.png"
    run cmp -s "$TMP/a.png" "$TMP/c.png"
    [ "$status" -ne 0 ]
}

@test "--results writes provenance, the header once, and one row per variant" {
    "$REF" --size 20x10 --reps 3 --results "$TMP/r.tsv" --quiet
    "$REF" --size 30x10 --filter gauss5 --reps 3 --results "$TMP/r.tsv" --quiet
    grep -q '^# date: ' "$TMP/r.tsv"
    grep -q '^# host: ' "$TMP/r.tsv"
    [ "$(grep -c '^lab	variant	name	width	height	param	reps	kernel_ms	kernel_ms_std	kernel_ms_median	total_ms	total_ms_std	total_ms_median	gbps	max_abs_err	max_rel_err	mismatches	status	threads	config	part	span$' "$TMP/r.tsv")" -eq 1 ]
    [ "$(grep -vc '^#' "$TMP/r.tsv")" -eq 7 ]   # header + 3 + 3
    # every row has 22 columns; the skipped v3 row says unsupported
    awk -F'\t' '!/^#/ && NF != 22 { exit 1 }' "$TMP/r.tsv"
    grep -q '^01	3	separable	20	10	laplace5	3	.*unsupported' "$TMP/r.tsv"
    grep -q '^01	3	separable	30	10	gauss5	3	.*pass' "$TMP/r.tsv"
    echo "something else" > "$TMP/other.tsv"
    run "$REF" --size 8x8 --results "$TMP/other.tsv"
    [ "$status" -eq 2 ]
}

@test "--variant 3,1 runs those two in order, one row each, in dump mode too" {
    "$REF" --variant 3,1 --size 20x10 --filter gauss5 --reps 2 --results "$TMP/r.tsv" --quiet
    [ "$(grep -v '^#' "$TMP/r.tsv" | cut -f2 | tr '\n' ' ')" = "variant 1 3 " ]
    mkdir "$TMP/d"
    run "$REF" --variant 2,3 --size 9x7 --reps 2 --dump "$TMP/d" --quiet
    [ "$status" -eq 0 ]
    [ ! -e "$TMP/d/v1.txt" ]
    grep -q '^status ok' "$TMP/d/v2.txt"
    [ -s "$TMP/d/v2.r2.bin" ]
    grep -q '^status unsupported' "$TMP/d/v3.txt"   # laplace5 is not separable
}

@test "out of memory is a runtime error: exit 3 with one line" {
    run bash -c "ulimit -v 150000; '$REF' --size 4992x3744 --reps 1 2>&1 >/dev/null"
    [ "$status" -eq 3 ]
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
}

@test "the committed skeleton equals the one generated from the solution" {
    run make -s -C "$L01" skeleton-check
    [ "$status" -eq 0 ]
    # and the generator really strips: the skeleton has no solution code
    run grep -q 'clamp255(sum)' "$L01/conv.c"
    [ "$status" -ne 0 ]
    grep -q 'clamp255(sum)' "$KIT_ROOT/solutions/01_cpu_conv/conv.c"
}

@test "--results that is not a regular file is written, never read; a 1x1 result is a picture" {
    run timeout 20 "$REF" --size 3x3 --variant 1 --reps 1 --quiet --results /dev/null
    [ "$status" -eq 0 ]
    # reading /dev/zero for a header would never end
    run timeout 20 "$REF" --size 3x3 --variant 1 --reps 1 --quiet --results /dev/zero
    [ "$status" -eq 0 ]
    mkfifo "$TMP/fifo"
    cat "$TMP/fifo" >"$TMP/from-fifo" &
    run timeout 20 "$REF" --size 3x3 --variant 1 --reps 1 --quiet --results "$TMP/fifo"
    wait
    [ "$status" -eq 0 ]
    grep -q '^lab	' "$TMP/from-fifo"
    run "$REF" --size 1x1 --variant 1 --reps 1 --out "$TMP/one.png"
    [ "$status" -eq 0 ]
    is_png "$TMP/one.png"
}
