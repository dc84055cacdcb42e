#!/usr/bin/env bats
# Lab 05 on any machine: --help, usage errors before the device check, exit
# 77 without a GPU, the skeleton generated from the solution, the checker's
# view of every part (inputs from a folder of pictures included), the CUPTI
# library, the Gantt chart's reader of its records and make copies' table. The GPU tests proper
# are in tests/gpu/lab05.bats.
load helpers
L05="$KIT_ROOT/labs/05_streams_tiles"
CHECK05="$KIT_ROOT/grading/build/check-05"

setup_file() {
    make -s -C "$KIT_ROOT/grading" build/check-05 >/dev/null
    make -s -C "$KIT_ROOT/labs/05_streams_tiles" build/mkpictures >/dev/null
}

@test "both binaries are built; --help lists the four parts, their options and variants" {
    [ -x "$L05/lab05" ]
    [ -x "$L05/lab05-ref" ]
    run "$L05/lab05-ref" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--part NAME"*"device|copies|strip|batch (default device)"* ]]
    for o in --facts --bytes --dir --gpu-mem --tile --streams --pinned --count --images --group --loaders --timeline --no-trace; do
        [[ "$output" == *"$o"* ]] || { echo "no $o"; false; }
    done
    [[ "$output" == *"part device"*"1 attributes"*"part copies"*"1 pageable"*"2 pinned"*"part strip"* ]]
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
        "--part batch --size 9000x2"
        "--part device --variant 2" "--part device --bytes 4" "--part device --facts"
        "--part copies --variant 3" "--part copies --bytes 0" "--part copies --bytes 2G"
        "--part copies --bytes 1025M" "--part copies --bytes 12x" "--part copies --bytes -4"
        "--part copies --bytes M" "--part copies --dir up" "--part copies --dir"
        "--part copies --facts x" "--part copies --size 4x4" "--part copies --out x.png"
        "--part device --out x.png")
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

@test "the checker's parts device and copies: zeros, the bytes sent, sizes and tolerance" {
    run "$CHECK05" describe --part device -- --part device
    [ "$status" -eq 0 ]
    [[ "$output" == *'"name":"device"'*'"name":"copies"'*'"name":"strip"'*'"name":"batch"'* ]]
    [[ "$output" == *'"type":"f64","w":11,"h":1,"c":1,"planar":0,"atol":9.99999'*'e-07,"rtol":0,'* ]]
    # the device's output is the student's reading minus the harness's: zeros
    "$CHECK05" reference --part device --variant 1 --key 7 --out "$BATS_TEST_TMPDIR/z" -- --part device
    [ "$(od -An -tx1 -v "$BATS_TEST_TMPDIR/z" | tr -d ' \n' | tr -d 0)" = "" ]
    [ "$(stat -c %s "$BATS_TEST_TMPDIR/z")" -eq 88 ]
    # an integer off by one fails; the peak 1e-7 off (relative) passes, 1e-5 off fails
    dev() { python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<11d", *map(float, sys.argv[1:])))' "$@"; }
    run bash -c "$(declare -f dev); dev 0 0 0 0 0 0 0 0 0 0 1e-7 | '$CHECK05' compare --part device --variant 1 -- --part device"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = pass ]
    run bash -c "$(declare -f dev); dev 0 0 1 0 0 0 0 0 0 0 0 | '$CHECK05' compare --part device --variant 1 -- --part device"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "fail 1 11 "* ]]
    run bash -c "$(declare -f dev); dev 0 0 0 0 0 0 0 0 0 0 1e-5 | '$CHECK05' compare --part device --variant 1 -- --part device"
    [ "$status" -eq 1 ]
    # copies: the bytes sent come back; --dir is a run option (same reference), --bytes an input
    run "$CHECK05" describe --part copies -- --part copies --bytes 3M --dir d2h
    [ "$status" -eq 0 ]
    [[ "$output" == *'"width":3145728,"height":1,"param":"3 MiB"'* ]]
    [[ "$output" == *'"type":"u8","w":3145728,"h":1,"c":1'*'"bytes":3145728'* ]]
    [[ "$output" == *'"name":"--dir","kind":"str","role":"run","default":"h2d"'* ]]
    for k in 0 1f; do
        "$CHECK05" reference --part copies --variant 1 --key $k --out "$BATS_TEST_TMPDIR/a$k" -- --part copies --bytes 4097
        "$CHECK05" reference --part copies --variant 2 --key $k --out "$BATS_TEST_TMPDIR/b$k" -- --part copies --bytes 4097 --dir d2h
        cmp "$BATS_TEST_TMPDIR/a$k" "$BATS_TEST_TMPDIR/b$k"
        [ "$(stat -c %s "$BATS_TEST_TMPDIR/a$k")" -eq 4097 ]
    done
    # each key its own content, every byte changed; another seed other bytes
    run cmp -s "$BATS_TEST_TMPDIR/a0" "$BATS_TEST_TMPDIR/a1f"
    [ "$status" -ne 0 ]
    [ "$(cmp -l "$BATS_TEST_TMPDIR/a0" "$BATS_TEST_TMPDIR/a1f" | wc -l)" -eq 4097 ]
    "$CHECK05" reference --part copies --variant 1 --key 0 --out "$BATS_TEST_TMPDIR/s2" -- --part copies --bytes 4097 --seed 2
    run cmp -s "$BATS_TEST_TMPDIR/a0" "$BATS_TEST_TMPDIR/s2"
    [ "$status" -ne 0 ]
    # the bytes are noise: no byte value takes more than a few percent
    [ "$(od -An -tu1 -v "$BATS_TEST_TMPDIR/a0" | tr -s ' ' '\n' | grep . | sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')" -lt 60 ]
    # the one run's bytes pass, a byte changed fails
    "$CHECK05" compare --part copies --variant 2 --key 1f --in "$BATS_TEST_TMPDIR/a1f" -- --part copies --bytes 4097
    printf '\x00' | dd of="$BATS_TEST_TMPDIR/a1f" bs=1 seek=4096 conv=notrunc status=none
    run "$CHECK05" compare --part copies --variant 2 --key 1f --in "$BATS_TEST_TMPDIR/a1f" -- --part copies --bytes 4097
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "fail 1 4097 "* ]]
    # sizes by suffix
    run "$CHECK05" describe --part copies -- --part copies --bytes 1G
    [[ "$output" == *'"width":1073741824'*'"param":"1024 MiB"'* ]]
    run "$CHECK05" describe --part copies -- --part copies --bytes 12K
    [[ "$output" == *'"width":12288'*'"param":"12 KiB"'* ]]
}

@test "copies.awk: make copies' table, GB/s by size and direction, pageable beside pinned" {
    f="$BATS_TEST_TMPDIR/runs.tsv"
    {
        printf '# gpu: test\n'
        printf 'lab\tpart\tvariant\tname\twidth\theight\tparam\tgbps\tstatus\tconfig\n'
        printf '05\tcopies\t1\tpageable\t1048576\t1\t1 MiB\t5\tpass\tdir=h2d pinned=0\n'
        printf '05\tcopies\t2\tpinned\t1048576\t1\t1 MiB\t20\tpass\tdir=h2d pinned=1\n'
        printf '05\tcopies\t1\tpageable\t1048576\t1\t1 MiB\t4\tpass\tdir=d2h pinned=0\n'
        printf '05\tcopies\t2\tpinned\t1048576\t1\t1 MiB\t\tnot-implemented\tdir=d2h pinned=1\n'
        printf '05\tcopies\t1\tpageable\t4194304\t1\t4 MiB\t6\tpass\tdir=h2d pinned=0\n'
    } >"$f"
    run awk -f "$L05/copies.awk" "$f"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 4 ]
    [ "${lines[0]}" = $'size\tdirection\tpageable GB/s\tpinned GB/s\tpinned / pageable' ]
    [ "${lines[1]}" = $'1 MiB\thost to device\t5\t20\t4.00' ]
    [ "${lines[2]}" = $'1 MiB\tdevice to host\t4\t-\t-' ]
    [ "${lines[3]}" = $'4 MiB\thost to device\t6\t-\t-' ]
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

@test "batch v5's pictures: each run's content encoded as PNG decodes to exactly it, never to the run before's" {
    # 4 batches x 5 keys (0, then others, then back) decoded at once and in groups
    # against spec.c's content, every picture unlike the one decoded for the key
    # before; and requests outside a batch refused, one line each (loadercheck.c)
    run bash -c "make -s -C '$L05' loadercheck 2>'$BATS_TEST_TMPDIR/err'"
    [ "$status" -eq 0 ] || { echo "$output"; cat "$BATS_TEST_TMPDIR/err"; false; }
    [ "$output" = "24 cases" ]
    [ "$(grep -c 'batch_load: pictures .* not a valid request$' "$BATS_TEST_TMPDIR/err")" -eq 12 ]
    [ "$(wc -l <"$BATS_TEST_TMPDIR/err")" -eq 12 ]
    # the key stays out of v5's reach: no field of the source holds it, and the
    # content function is no symbol a student's batch.cu could link to
    run sed -n '/^struct batch_source {/,/^};/p' "$L05/harness05.h"
    [[ "$output" == *"enc_len"* ]]
    [[ "$output" != *"key"* ]]
    run grep -c 'batch_content' "$L05/batch.h"
    [ "$output" = 0 ]
    for b in lab05 lab05-ref; do
        run nm "$L05/$b"
        [ "$status" -eq 0 ]
        [[ "$output" == *" T batch_load"* ]]
        [ "$(grep -cw 'batch_content' <<<"$output")" -eq 0 ]
    done
}

@test "without a CUDA device both lab 05 binaries exit 77 with one line, for every part" {
    if has_gpu; then skip "this machine has a GPU"; fi
    for b in lab05 lab05-ref; do
        for part in "device" "device --facts $BATS_TEST_TMPDIR/f.tsv" "copies --bytes 4097" \
            "copies --bytes 1M --dir d2h --variant 2" "strip --size 16x16" "batch --count 2 --size 8x8"; do
            run bash -c "'$L05/$b' --part $part 2>&1"
            [ "$status" -eq 77 ] || { echo "$b $part: exit $status: $output"; false; }
            [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
            [[ "$output" == *"no CUDA device"* ]]
        done
        # no --part: the first part, device
        run bash -c "'$L05/$b' 2>&1"
        [ "$status" -eq 77 ]
    done
    [ ! -e "$BATS_TEST_TMPDIR/f.tsv" ]
}

@test "the committed lab 05 skeleton equals the generated one and holds no answer" {
    run make -s -C "$L05" skeleton-check
    [ "$status" -eq 0 ]
    run grep -c 'strip_ring' "$L05/strip.cu"
    [ "$output" -eq 0 ]
    run grep -c 'cudaEventSynchronize(copied' "$L05/batch.cu"
    [ "$output" -eq 0 ]
    # the student's variants say so: device v1, copies v1 and v2 (alloc, copy,
    # free each), strip v3-v5, batch v2-v5
    [ "$(grep -c 'return KIT_NOT_IMPLEMENTED;' "$L05/device.cu")" -eq 7 ]
    for w in cudaDevAttrMemoryClockRate cudaDevAttrGlobalMemoryBusWidth 'cudaMallocHost(' \
        'cudaMemcpy(j->' 'malloc(j->bytes)' 'peak_gbps ='; do
        run grep -c -F "$w" "$L05/device.cu"
        [ "$output" -eq 0 ] || { echo "the skeleton holds $w"; false; }
    done
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
    printf '# kitcupti 3\n# calib 5 5\n' >"$f"
    printf 'C\t2000000\t6000000\t17\t4096\tHtoD\t-\tpinned>device\n' >>"$f"
    printf 'M\t2500000\t2500000\t0\t4096\tdevice\talloc\t0x7f00\n' >>"$f"    # no bar
    printf 'K\t6000000\t7500000\t17\t0\t-\tstrip_rows_kernel\t0+4096\n' >>"$f"
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
    run make -s -C "$L05" copies REF=1 OUT="$BATS_TEST_TMPDIR/out"
    [ "$status" -eq 0 ]
    [[ "$output" == *"copies: no CUDA device, nothing measured"* ]]
    [ ! -e "$BATS_TEST_TMPDIR/out/copies.tsv" ]
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
