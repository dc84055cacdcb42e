#!/usr/bin/env bats
# Command-line tests of lab 02 (OpenMP and SIMD convolution): every variant
# equals the reference at awkward widths on one thread and on several, the
# SIMD instruction set is chosen and refused correctly, the TSV records
# threads and ISA, and the skeleton, the planted bug and bad usage give the
# contract's exit codes.
load helpers

L02="$KIT_ROOT/labs/02_omp_sse"

setup() {
    REF="$L02/lab02-ref"
    SKEL="$L02/lab02"
    TMP="$BATS_TEST_TMPDIR"
}

# cpu_has FLAG: /proc/cpuinfo lists FLAG for this CPU
cpu_has() { grep -qw "$1" /proc/cpuinfo; }

# all_exact FILE: every data row passed with max_abs_err 0 (column 15)
all_exact() {
    awk -F'\t' '!/^#/ && $1 != "lab" { n++; if ($18 != "pass" || $15 != 0) { print "row not exact: " $0; bad = 1 } }
                END { exit bad || n == 0 }' "$1"
}

@test "--help lists --threads, --isa and the six variants from 0" {
    run "$REF" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--threads N"* && "$output" == *"--isa sse|avx2|avx512"* ]]
    [[ "$output" == *"variant to run, 0..5"* ]]
    for v in "0 scalar" "1 omp-rows" "2 omp-pixels" "3 sse" "4 sse-omp" "5 wide-omp"; do
        [[ "$output" == *"$v"* ]] || { echo "missing $v"; false; }
    done
}

@test "every variant equals the reference exactly at widths 13, 29, 37, 1021, 1 and 3 threads" {
    for t in 1 3; do
        for s in 1x1 3x3 13x7 29x9 37x11 1021x19; do
            run "$REF" --size $s --threads $t --reps 1 --quiet --results "$TMP/r.tsv"
            [ "$status" -eq 0 ] || { echo "$s --threads $t: exit $status: $output"; false; }
        done
    done
    [ "$(grep -vc '^#' "$TMP/r.tsv")" -eq $((1 + 2 * 6 * 6)) ]
    all_exact "$TMP/r.tsv"
}

@test "v5 equals the reference with every instruction set this CPU runs" {
    isas="sse"
    cpu_has avx2 && cpu_has fma && isas="$isas avx2"
    cpu_has avx512f && isas="$isas avx512"
    for isa in $isas; do
        for s in 1x1 2x3 13x7 29x9 37x11 61x5 1021x9; do
            run "$REF" --variant 5 --isa $isa --size $s --threads 3 --reps 1 --quiet --results "$TMP/$isa.tsv"
            [ "$status" -eq 0 ] || { echo "$isa $s: exit $status: $output"; false; }
        done
        all_exact "$TMP/$isa.tsv"
        grep -q "isa=$isa threads=3" "$TMP/$isa.tsv"
    done
}

@test "the other exact filters are exact too; box and gaussian within the tolerance" {
    for f in edge3 sharpen3 gauss5; do
        run "$REF" --size 37x13 --filter $f --threads 2 --reps 1 --quiet --results "$TMP/$f.tsv"
        [ "$status" -eq 0 ] || { echo "$f: exit $status: $output"; false; }
        all_exact "$TMP/$f.tsv"
    done
    run "$REF" --size 45x17 --filter box --radius 4 --threads 2 --reps 1 --quiet
    [ "$status" -eq 0 ]
    run "$REF" --size 29x11 --filter gaussian --radius 6 --threads 3 --reps 1 --quiet
    [ "$status" -eq 0 ]
}

@test "a forced instruction set this CPU lacks: exit 2 with one line" {
    lacking=""
    cpu_has avx512f || lacking=avx512
    { cpu_has avx2 && cpu_has fma; } || lacking=avx2
    [ -n "$lacking" ] || skip "this CPU runs SSE, AVX2+FMA and AVX-512F"
    for v in 5 all; do
        run bash -c "'$REF' --isa $lacking --variant $v --size 8x8 2>&1 >/dev/null"
        [ "$status" -eq 2 ]
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
        [[ "$output" == *"does not support"* ]]
    done
}

@test "LAB02_CPU_HIDE: forced hidden ISA exits 2 before running; the default falls back" {
    for v in 5 all 0; do
        run bash -c "LAB02_CPU_HIDE=avx512 '$REF' --isa avx512 --variant $v --size 8x8 2>&1"
        [ "$status" -eq 2 ] || { echo "--variant $v: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
        [[ "$output" == *"--isa avx512: this CPU does not support AVX-512F"* ]]
    done
    run bash -c "LAB02_CPU_HIDE=avx2,avx512 '$REF' --isa avx2 --variant 5 --size 8x8 2>&1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"AVX2"* ]]
    # the default picks the widest left: avx2 when it is there, else sse
    want=sse
    cpu_has avx2 && cpu_has fma && want=avx2
    LAB02_CPU_HIDE=avx512 "$REF" --variant 5 --size 37x5 --threads 2 --reps 1 --quiet --results "$TMP/h.tsv"
    grep -q "isa=$want threads=2" "$TMP/h.tsv"
    LAB02_CPU_HIDE=avx2,avx512 "$REF" --variant 5 --size 37x5 --threads 2 --reps 1 --quiet --results "$TMP/h2.tsv"
    grep -q "isa=sse threads=2" "$TMP/h2.tsv"
    all_exact "$TMP/h.tsv"
    all_exact "$TMP/h2.tsv"
}

@test "--isa sse works on every x86 CPU, for v5 and for all variants" {
    run "$REF" --isa sse --size 29x9 --threads 2 --reps 1 --results "$TMP/s.tsv"
    [ "$status" -eq 0 ]
    grep -q '^02	5	wide-omp	.*pass	2	isa=sse threads=2	-	host$' "$TMP/s.tsv"
}

@test "the TSV records each variant's threads and ISA; OMP_NUM_THREADS is the default" {
    "$REF" --size 17x13 --threads 3 --reps 2 --quiet --results "$TMP/t.tsv"
    awk -F'\t' '!/^#/ && NF != 22 { exit 1 }' "$TMP/t.tsv"
    grep -q '^02	0	scalar	.*pass	1	isa=scalar threads=1	-	host$' "$TMP/t.tsv"
    grep -q '^02	1	omp-rows	.*pass	3	isa=scalar threads=3	-	host$' "$TMP/t.tsv"
    grep -q '^02	2	omp-pixels	.*pass	3	isa=scalar threads=3	-	host$' "$TMP/t.tsv"
    grep -q '^02	3	sse	.*pass	1	isa=sse threads=1	-	host$' "$TMP/t.tsv"
    grep -q '^02	4	sse-omp	.*pass	3	isa=sse threads=3	-	host$' "$TMP/t.tsv"
    grep -Eq '^02	5	wide-omp	.*pass	3	isa=(sse|avx2|avx512) threads=3	-	host$' "$TMP/t.tsv"
    # a single-thread variant alone: 1 thread in the row and in the provenance
    "$REF" --size 17x13 --variant 3 --threads 5 --reps 1 --quiet --results "$TMP/one.tsv"
    grep -q '^# threads: 1$' "$TMP/one.tsv"
    grep -q '^02	3	sse	.*pass	1	isa=sse threads=1	-	host$' "$TMP/one.tsv"
    OMP_NUM_THREADS=2 "$REF" --size 17x13 --variant 1 --reps 1 --quiet --results "$TMP/env.tsv"
    grep -q '^02	1	omp-rows	.*pass	2	isa=scalar threads=2	-	host$' "$TMP/env.tsv"
}

@test "--cases: a case without --threads gets the default, whatever an earlier case set" {
    printf -- '--threads\t1\t--variant\t1\t--size\t8x8\n--variant\t1\t--size\t8x8\t--results\t%s\n' \
        "$TMP/c.tsv" >"$TMP/cases"
    OMP_NUM_THREADS=3 "$REF" --reps 1 --quiet --cases "$TMP/cases"
    grep -q '^02	1	omp-rows	.*pass	3	isa=scalar threads=3	-	host$' "$TMP/c.tsv"
}

@test "the untouched skeleton reports not implemented: exit 4" {
    run "$SKEL" --size 16x16 --reps 1
    [ "$status" -eq 4 ]
    [ "$(grep -c 'not implemented' <<<"$output")" -eq 6 ]
    run "$SKEL" --size 16x16 --reps 1 --variant 5
    [ "$status" -eq 4 ]
}

@test "a planted wrong tail in v5 is caught at a width not a multiple of 4: exit 1" {
    make -s -C "$L02" PLANTED=wrong lab02-wrong >/dev/null
    PL="$L02/lab02-wrong"
    # the bug is in the wide tails only: the other variants still pass
    run "$PL" --size 37x11 --variant 4 --threads 2 --reps 1 --quiet
    [ "$status" -eq 0 ]
    # widths that are a multiple of 32 pixels have no tail: the bug hides
    run "$PL" --size 64x8 --variant 5 --threads 2 --reps 1 --quiet
    [ "$status" -eq 0 ]
    isas=""
    cpu_has avx2 && cpu_has fma && isas="avx2"
    cpu_has avx512f && isas="$isas avx512"
    [ -n "$isas" ] || skip "the planted bug is in the AVX2/AVX-512 code, which this CPU cannot run"
    for isa in $isas; do
        run "$PL" --size 37x11 --variant 5 --isa $isa --threads 2 --reps 1 --diff-dir "$TMP"
        [ "$status" -eq 1 ] || { echo "$isa: exit $status"; false; }
        [[ "$output" == *"FAIL"* && "$output" == *"unwritten"* ]]
        is_png "$TMP/lab02-v5-37x11-diff.png"
    done
}

@test "bad usage: one line on stderr and exit 2" {
    for args in "--threads 0" "--threads -2" "--threads x" "--threads" "--isa avx" "--isa" \
                "--variant 6" "--variant -1" "--size 0x5" "--filter nope"; do
        run bash -c "'$REF' $args 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ] || { echo "$args: $output"; false; }
    done
}

@test "out of memory is a runtime error: exit 3 with one line" {
    run bash -c "ulimit -v 300000; '$REF' --size 4992x3744 --reps 1 --threads 1 2>&1 >/dev/null"
    [ "$status" -eq 3 ]
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
}

@test "make bench and make plot work on a tiny picture (the OpenCV peer skips cleanly)" {
    command -v gnuplot >/dev/null || skip "gnuplot is not installed"
    run make -s -C "$L02" bench REF=1 BENCH_SIZE=40x24 BENCH_REPS=3 BENCH_THREADS="1 2" OUT="$TMP/b"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"v3 sse vs v0 scalar, 1 thread"* ]]
    # header once, then every variant at 1 and at 2 threads
    [ "$(grep -vc "^#" "$TMP/b/bench.tsv")" -eq $((1 + 6 * 2)) ]
    all_exact "$TMP/b/bench.tsv"
    if python3 -c 'import cv2' 2>/dev/null; then
        grep -q '^02	peer	opencv-filter2D	40	24	' "$TMP/b/peer.tsv"
    else
        grep -q '^# skipped: no OpenCV' "$TMP/b/peer.tsv"
    fi
    run make -s -C "$L02" plot OUT="$TMP/b"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    for f in speedup time; do
        is_png "$TMP/b/$f.png"
        [ "$(head -c 4 "$TMP/b/$f.pdf")" = "%PDF" ]
    done
}

@test "the OpenCV peer script exits 0 with a skip line when cv2 cannot be imported" {
    mkdir -p "$TMP/fake"
    printf 'raise ImportError("no cv2 here")\n' > "$TMP/fake/cv2.py"
    run env PYTHONPATH="$TMP/fake" python3 "$L02/bench/opencv_peer.py" --size 8x8 --results "$TMP/p.tsv"
    [ "$status" -eq 0 ]
    [[ "$output" == "# skipped: no OpenCV"* ]]
    grep -q '^# skipped: no OpenCV' "$TMP/p.tsv"
}

@test "the committed skeleton equals the one generated from the solution" {
    run make -s -C "$L02" skeleton-check
    [ "$status" -eq 0 ]
    run grep -q '_mm_load_ps(s' "$L02/conv.c"
    [ "$status" -ne 0 ]
    grep -q '_mm_load_ps(s' "$KIT_ROOT/solutions/02_omp_sse/conv.c"
}

@test "queue and run_queued (the GPU tests' cases in one process): all pass; a bad case or one fewer run fails" {
    for s in 8x8 9x3 1x1; do queue --size $s --filter gaussian --radius 2; done
    run_queued "$REF" --reps 1
    [ ! -e "$BATS_TEST_TMPDIR/cases" ]
    queue --size 8x8
    queue --size 0x3
    run run_queued "$REF" --reps 1
    [ "$status" -ne 0 ]
    [[ "$output" == *"2 cases queued, 1 ran"* ]]
    run run_queued "$REF" --reps 1
    [ "$status" -ne 0 ] # nothing queued
    [[ "$output" == *"no case queued"* ]]
}
