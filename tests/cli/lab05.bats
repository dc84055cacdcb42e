#!/usr/bin/env bats
# Lab 05 on any machine: --help, usage errors before the device check, exit
# 77 without a GPU, the skeleton generated from the solution, the checker's
# view of both parts (inputs from a folder of pictures included), the CUPTI
# library and the Gantt chart's reader of its records. The GPU tests proper
# are in tests/gpu/lab05.bats.
load helpers
L05="$KIT_ROOT/labs/05_streams_tiles"
CHECK05="$KIT_ROOT/grading/build/check-05"

setup_file() {
    make -s -C "$KIT_ROOT/grading" build/check-05 >/dev/null
    make -s -C "$KIT_ROOT/labs/05_streams_tiles" build/mkpictures >/dev/null
}

@test "both binaries are built; --help lists both parts, their options and variants" {
    [ -x "$L05/lab05" ]
    [ -x "$L05/lab05-ref" ]
    run "$L05/lab05-ref" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--part NAME"*"strip|batch"* ]]
    for o in --gpu-mem --tile --streams --pinned --count --images --group --loaders --timeline --no-trace; do
        [[ "$output" == *"$o"* ]] || { echo "no $o"; false; }
    done
    [[ "$output" == *"1 whole"*"[given]"* ]]
    [[ "$output" == *"2 strips-sync"*"[given]"* ]]
    [[ "$output" == *"5 n-streams"* ]]
    [[ "$output" == *"1 one-by-one"*"[given]"* ]]
    [[ "$output" == *"5 pipelined"* ]]
    # only the given variants say so: strip v1, v2 and batch v1
    [ "$(grep -c '\[given\]' <<<"$output")" -eq 3 ]
    run "$L05/lab05-ref" --part batch --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"part batch"* ]]
    [[ "$output" != *"part strip"* ]]
}

@test "bad usage and bad input give exit 2 with one line, GPU or not" {
    local cases=(
        "--bogus" "--part nope" "--part strip --variant 6" "--part strip --variant 0"
        "--part batch --variant 6" "--part strip --gpu-mem 0" "--part strip --gpu-mem x"
        "--part strip --gpu-mem" "--part strip --streams 1" "--part strip --streams 17"
        "--part strip --tile 0" "--part strip --tile -5" "--part strip --tile 1e9"
        "--part strip --radius 0" "--part strip --radius 81" "--part strip --size 0x4"
        "--part strip --size 65537x2" "--part strip --filter edge3" "--part strip --filter nope"
        "--part strip --count 4" "--part strip --pinned=1"
        "--part batch --gpu-mem 64" "--part batch --tile 4" "--part batch --streams 0"
        "--part batch --streams 17" "--part batch --group 0" "--part batch --group 5000"
        "--part batch --loaders 0" "--part batch --count 0" "--part batch --filter gaussian"
        "--part batch --filter box" "--part batch --images /nonexistent/folder"
        "--part batch --size 9000x2")
    for args in "${cases[@]}"; do
        run bash -c "'$L05/lab05-ref' $args 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "$args: exit $status: $output"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ] || { echo "$args: $output"; false; }
    done
}

@test "a budget too small for v1 or for any strip is refused before any work: exit 2" {
    # these need no device: --gpu-mem is given, the picture's size decides
    run bash -c "'$L05/lab05-ref' --part strip --variant 1 --size 1024x1024 --gpu-mem 15 2>&1"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"whole picture"*"budget of 15.0 MiB"* ]]
    # 2 buffer sets of 1 + 2*80 rows of 65536 doubles do not fit 100 MiB
    run bash -c "'$L05/lab05-ref' --part strip --variant 4 --size 65536x300 --radius 80 --gpu-mem 100 2>&1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"one-row strips"* ]]
    run bash -c "'$L05/lab05-ref' --part strip --variant 3 --size 4096x4096 --tile 16777216 --gpu-mem 64 2>&1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--tile 16777216"* ]]
}

@test "--images: a folder of pictures of one size is read; mixed sizes and bad files are refused" {
    d="$BATS_TEST_TMPDIR/pics"
    run "$L05/build/mkpictures" "$d" 5 21x13
    [ "$status" -eq 0 ]
    [ -f "$d/00004.png" ]
    run "$CHECK05" describe --part batch -- --part batch --images "$d"
    [ "$status" -eq 0 ]
    [[ "$output" == *'"width":21,"height":13,"param":"edge3 x5"'* ]]
    [[ "$output" == *'"w":21,"h":65,"c":3'* ]]
    # the checker sees the same pictures as the generated batch of the same seed
    "$CHECK05" reference --part batch --variant 2 --key 0 --out "$BATS_TEST_TMPDIR/a.bin" -- \
        --part batch --images "$d"
    "$CHECK05" reference --part batch --variant 2 --key 0 --out "$BATS_TEST_TMPDIR/b.bin" -- \
        --part batch --size 21x13 --count 5
    cmp "$BATS_TEST_TMPDIR/a.bin" "$BATS_TEST_TMPDIR/b.bin"
    # --count takes the first files by name
    "$CHECK05" reference --part batch --variant 2 --key 0 --out "$BATS_TEST_TMPDIR/c.bin" -- \
        --part batch --images "$d" --count 2
    [ "$(stat -c %s "$BATS_TEST_TMPDIR/c.bin")" -eq $((21 * 13 * 3 * 2)) ]
    # another size among them
    "$L05/build/mkpictures" "$BATS_TEST_TMPDIR/other" 1 22x13 >/dev/null
    cp "$BATS_TEST_TMPDIR/other/00000.png" "$d/00009.png"
    run bash -c "'$L05/lab05-ref' --part batch --images '$d' 2>&1 >/dev/null"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"00009.png is 22x13"* ]]
    # a file that is not a picture
    rm "$d/00009.png"
    echo "not a picture" >"$d/00002.png"
    run bash -c "'$L05/lab05-ref' --part batch --images '$d' 2>&1 >/dev/null"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"00002.png"* ]]
    mkdir "$BATS_TEST_TMPDIR/empty"
    run bash -c "'$L05/lab05-ref' --part batch --images '$BATS_TEST_TMPDIR/empty' 2>&1 >/dev/null"
    [ "$status" -eq 2 ]
    [[ "$output" == *"no .png or .jpg"* ]]
}

@test "fresh content: every key changes the input, key 0 gives the case's own again" {
    for part in "strip --size 37x11 --radius 3" "batch --size 9x7 --count 3"; do
        "$CHECK05" reference --part ${part%% *} --variant 3 --key 0 --out "$BATS_TEST_TMPDIR/k0" -- --part $part
        "$CHECK05" reference --part ${part%% *} --variant 3 --key 1f --out "$BATS_TEST_TMPDIR/k1" -- --part $part
        "$CHECK05" reference --part ${part%% *} --variant 3 --key 0 --out "$BATS_TEST_TMPDIR/k0b" -- --part $part
        run cmp -s "$BATS_TEST_TMPDIR/k0" "$BATS_TEST_TMPDIR/k1"
        [ "$status" -ne 0 ]
        cmp "$BATS_TEST_TMPDIR/k0" "$BATS_TEST_TMPDIR/k0b"
    done
}

@test "the strip geometry, run on the CPU, gives the reference; ref.c equals the kit's passes" {
    # one-row strips, strips shorter than the radius, a last strip cut short,
    # pictures smaller than the filter: 280 cases (stripcheck.c)
    run make -s -C "$L05" stripcheck
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$output" = "280 cases" ]
}

@test "the device memory account: budget, refusal, peak, leaks (fake CUDA calls)" {
    run make -s -C "$L05" devmemcheck
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"strip v9 asked for 1 bytes of device memory while holding 10.0 MiB: past the --gpu-mem budget of 10.0 MiB"* ]]
    [ "${lines[-1]}" = ok ]
}

@test "without a CUDA device both lab 05 binaries exit 77 with one line, for both parts" {
    if has_gpu; then skip "this machine has a GPU"; fi
    for b in lab05 lab05-ref; do
        for part in "strip --size 16x16" "batch --count 2 --size 8x8"; do
            run bash -c "'$L05/$b' --part $part 2>&1"
            [ "$status" -eq 77 ] || { echo "$b $part: exit $status: $output"; false; }
            [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
            [[ "$output" == *"no CUDA device"* ]]
        done
    done
}

@test "the committed lab 05 skeleton equals the generated one and holds no answer" {
    run make -s -C "$L05" skeleton-check
    [ "$status" -eq 0 ]
    run grep -c 'strip_ring' "$L05/strip.cu"
    [ "$output" -eq 0 ]
    run grep -c 'cudaEventSynchronize(copied' "$L05/batch.cu"
    [ "$output" -eq 0 ]
    # the student's variants say so: strip v3-v5, batch v2-v5
    [ "$(grep -c 'return KIT_NOT_IMPLEMENTED;' "$L05/strip.cu")" -eq 3 ]
    [ "$(grep -c 'return KIT_NOT_IMPLEMENTED;' "$L05/batch.cu")" -eq 4 ]
    # the given kernels and variants are there whole (lab 03's level: no shared memory)
    grep -q 'strip_rows_kernel<<<' "$L05/strip.cu"
    grep -q 'cudaMemcpy(d_pic, j->h_in' "$L05/strip.cu"
    grep -q 'batch_kernel<<<' "$L05/batch.cu"
    run grep -c '__shared__' "$L05/strip.cu" "$L05/batch.cu" "$KIT_ROOT/solutions/05_streams_tiles/strip.cu"
    [[ "$output" != *":1"* ]]
}

@test "the CUPTI library builds from cupti_trace.c and exports only its entry point" {
    [ -f "$KIT_ROOT/common/cupti_trace.c" ]
    if [ ! -f /usr/local/cuda/include/cupti.h -a ! -f "${CUDA_HOME:-/nonexistent}/include/cupti.h" ]; then
        skip "the CUDA toolkit here has no CUPTI"
    fi
    lib="$KIT_ROOT/common/build/libkitcupti.so"
    [ -f "$lib" ]
    run nm -D --defined-only "$lib"
    [[ "$output" == *" T InitializeInjection"* ]]
    [ "$(grep -c ' T ' <<<"$output")" -eq 1 ]
    # the lab binary carries the in-process side and the wrapped allocations
    run nm "$L05/lab05-ref"
    [[ "$output" == *" T kit_trace_collect"* ]]
    [[ "$output" == *" T __wrap_cudaMalloc"* ]]
}

@test "gantt.awk: one lane per stream, times from the first record, a colour per engine" {
    f="$BATS_TEST_TMPDIR/r.tsv"
    printf '# kitcupti 2\n# calib 5 5\n' >"$f"
    printf 'C\t2000000\t6000000\t17\t4096\tHtoD\t-\n' >>"$f"
    printf 'K\t6000000\t7500000\t17\t0\t-\tstrip_rows_kernel\n' >>"$f"
    printf 'C\t7500000\t9000000\t17\t4096\tDtoH\t-\n' >>"$f"
    printf 'C\t6000000\t8000000\t9\t4096\tHtoD\t-\n' >>"$f"
    printf 'C\t6000000\t6000100\t9\t8\tDtoD\t-\n' >>"$f"
    printf '# calib 5 5\n# end kernels=1 copies=4 dropped=0\n' >>"$f"
    run awk -f "$L05/gantt.awk" "$f"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 5 ]
    [ "${lines[0]}" = $'0.000000\t4.000000\t1\t1\t17' ]
    [ "${lines[1]}" = $'4.000000\t5.500000\t1\t2\t17' ]
    [ "${lines[2]}" = $'5.500000\t7.000000\t1\t3\t17' ]
    [ "${lines[3]}" = $'4.000000\t6.000000\t0\t1\t9' ]
    [ "${lines[4]}" = $'4.000000\t4.000100\t0\t4\t9' ]
    printf '# kitcupti 2\n# end kernels=0 copies=0 dropped=0\n' >"$BATS_TEST_TMPDIR/none.tsv"
    run awk -f "$L05/gantt.awk" "$BATS_TEST_TMPDIR/none.tsv"
    [ "$status" -ne 0 ]
    if command -v gnuplot >/dev/null; then
        awk -f "$L05/gantt.awk" "$f" >"$BATS_TEST_TMPDIR/r.dat"
        gnuplot -e "in='$BATS_TEST_TMPDIR/r.dat'; out='$BATS_TEST_TMPDIR/r'; name='test'" "$L05/timeline.gp"
        is_png "$BATS_TEST_TMPDIR/r.png"
        [ -s "$BATS_TEST_TMPDIR/r.pdf" ]
        # make timeline-plot draws every record file of a folder
        mkdir -p "$BATS_TEST_TMPDIR/o/timeline"
        cp "$f" "$BATS_TEST_TMPDIR/o/timeline/strip-v4.tsv"
        cp "$f" "$BATS_TEST_TMPDIR/o/timeline/batch-v4-pageable.tsv"
        run make -s -C "$L05" timeline-plot OUT="$BATS_TEST_TMPDIR/o"
        [ "$status" -eq 0 ]
        is_png "$BATS_TEST_TMPDIR/o/timeline/strip-v4.png"
        is_png "$BATS_TEST_TMPDIR/o/timeline/batch-v4-pageable.png"
    fi
}

@test "make bench, timeline and demo without a device say so and measure nothing" {
    if has_gpu; then skip "this machine has a GPU"; fi
    run make -s -C "$L05" bench REF=1 OUT="$BATS_TEST_TMPDIR/out"
    [ "$status" -eq 0 ]
    [[ "$output" == *"no CUDA device"* ]]
    run make -s -C "$L05" timeline REF=1 OUT="$BATS_TEST_TMPDIR/out"
    [ "$status" -eq 0 ]
    [[ "$output" == *"no CUDA device"* ]]
    run make -s -C "$L05" demo OUT="$BATS_TEST_TMPDIR/out"
    [ "$status" -ne 0 ]
    [[ "$output" == *"no CUDA device"* ]]
}

@test "make plot draws the engines chart from an engines.tsv" {
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    o="$BATS_TEST_TMPDIR/plot"
    mkdir -p "$o/engines"
    {
        printf 'part\tvariant\tname\tlabel\twidth\theight\tparam\tspan_ms\thtod_ms\tkernel_ms\tdtoh_ms\toverlap\thtod_gb\tdtoh_gb\tkernels\tcopies\tstreams\tpeak_mib\tdecode_ms\n'
        printf 'strip\t2\tstrips-sync\tpageable\t4096\t4096\tgaussian r32\t50\t20\t8\t20\t2.5\t0.2\t0.1\t16\t16\t1\t60\t-1\n'
        printf 'strip\t5\tn-streams\tpinned\t4096\t4096\tgaussian r32\t9\t8\t6\t7\t1.1\t0.2\t0.1\t16\t16\t3\t62\t-1\n'
        printf 'batch\t4\tstreams\tpinned\t640\t480\tedge3 x300\t9\t8\t3\t8\t1.1\t0.3\t0.3\t10\t20\t4\t200\t-1\n'
    } >"$o/engines/engines.tsv"
    run make -s -C "$L05" plot OUT="$o"
    [ "$status" -eq 0 ]
    is_png "$o/engines.png"
    [ -s "$o/engines.pdf" ]
}
