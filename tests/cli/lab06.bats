#!/usr/bin/env bats
# Lab 06 on any machine: --help, usage errors before the device check, exit
# 77 without a GPU, the skeleton generated from the solution (the GPU tests
# proper are in tests/gpu/lab06.bats).
load helpers
L06="$KIT_ROOT/labs/06_matvec"

@test "--help works without a GPU: matrix and tile options, variants 0..4" {
    run "$L06/lab06-ref" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--rows M"* && "$output" == *"--cols N"* && "$output" == *"--tile WxH"* ]]
    [[ "$output" == *"--block WxH"* && "$output" == *"--pinned"* ]]
    [[ "$output" == *"0 cublas"* && "$output" == *"1 naive"* && "$output" == *"2 tiled-atomic"* ]]
    [[ "$output" == *"3 tiled-cas"* && "$output" == *"4 warp-rows"* ]]
    [[ "$output" == *"77 no CUDA device"* ]]
}

@test "bad usage gives exit 2 with one line, GPU or not" {
    for args in "--bogus" "--variant 5" "--variant -1" "--rows 0" "--cols abc" "--rows" \
                "--size 10x10" "--filter laplace5" "--block 64x32" "--tile 0x4" "--tile 2048x8" \
                "--tile 1025x1 --rows 4 --cols 4" "--rows 4 --cols 4 --save-input $BATS_TEST_TMPDIR/x.png"; do
        run bash -c "'$L06/lab06-ref' $args 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ] || { echo "$args: $output"; false; }
    done
}

@test "without a CUDA device both lab 06 binaries exit 77 with one line" {
    if has_gpu; then skip "this machine has a GPU"; fi
    for b in lab06 lab06-ref; do
        run bash -c "'$L06/$b' --rows 8 --cols 8 2>&1"
        [ "$status" -eq 77 ] || { echo "$b: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
        [[ "$output" == *"no CUDA device"* ]]
    done
}

@test "the committed lab 06 skeleton equals the generated one and holds no answer" {
    run make -s -C "$L06" skeleton-check
    [ "$status" -eq 0 ]
    run grep -qE 'v \+= __shfl_down_sync|= atomicCAS\(word|matvec_v4_kernel<<<' "$L06/matvec.cu"
    [ "$status" -ne 0 ]
    # every student launcher still says so
    [ "$(grep -c 'return KIT_NOT_IMPLEMENTED;' "$L06/matvec.cu")" -eq 4 ]
}

@test "make bench and make demo without a device say so and measure nothing" {
    if has_gpu; then skip "this machine has a GPU"; fi
    run make -s -C "$L06" bench REF=1 OUT="$BATS_TEST_TMPDIR/out" BENCH_SIZES=8x8
    [ "$status" -eq 0 ]
    [[ "$output" == *"no CUDA device"* ]]
    run make -s -C "$L06" demo OUT="$BATS_TEST_TMPDIR/out"
    [ "$status" -eq 77 ] || [ "$status" -eq 2 ]
    [[ "$output" == *"no CUDA device"* ]]
}

@test "make plot draws time and GB/s plots, and the cuBLAS table reads the same file" {
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    out="$BATS_TEST_TMPDIR/plot"
    mkdir -p "$out"
    # a results file of the kit's format: three sizes, five variants, v2 twice
    {
        echo "# gpu: Test GPU, compute capability 9.0"
        echo "# copy ceiling: 2900.0 GB/s (test)"
        printf 'lab\tvariant\tname\twidth\theight\tparam\treps\tkernel_ms\tkernel_ms_std\tkernel_ms_median\ttotal_ms\ttotal_ms_std\ttotal_ms_median\tgbps\tmax_abs_err\tmax_rel_err\tmismatches\tstatus\tthreads\tconfig\n'
        for n in 1000 3000 10000; do
            for spec in 0:block=256 1:block=512 2:tile=512x64 3:tile=512x64 4:block=256 2:tile=512x128; do
                v=${spec%%:*} cfg=${spec#*:}
                ms=$(awk -v n=$n -v v=$v 'BEGIN { printf "%g", n * n * 8e-9 / (v == 1 ? 300 : 2500) }')
                gb=$(awk -v n=$n -v ms=$ms 'BEGIN { printf "%g", 8 * n * n / (ms * 1e6) }')
                printf '06\t%d\tv%d\t%d\t%d\tm=%d n=%d\t12\t%s\t0\t%s\t%s\t0\t%s\t%s\t0\t0\t0\tpass\t1\t%s\n' \
                    $v $v $n $n $n $n "$ms" "$ms" "$ms" "$ms" "$gb" "$cfg"
            done
        done
    } >"$out/bench.tsv"
    run make -s -C "$L06" plot OUT="$out"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    for f in time gbps; do
        is_png "$out/$f.png"
        [ "$(head -c 4 "$out/$f.pdf")" = "%PDF" ]
    done
    run awk -f "$L06/vs-cublas.awk" "$out/bench.tsv"
    [ "$status" -eq 0 ]
    [[ "$output" == *"x cuBLAS"* && "$output" == *"tile=512x128"* ]]
    [ "$(grep -c '^10000x10000' <<<"$output")" -eq 6 ]
}
