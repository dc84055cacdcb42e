#!/usr/bin/env bats
# Lab 07 on any machine: the build, --help, usage errors before the device
# check (exit 2, one line), the committed skeleton, and exit 77 with one line
# without a GPU. The GPU tests proper are in tests/gpu/lab07.bats.
load helpers

L07="$KIT_ROOT/labs/07_zerocopy_soa"

setup() {
    REF="$L07/lab07-ref"
    SKEL="$L07/lab07"
}

@test "lab 07 builds without a warning (WERROR=1)" {
    run make -s -C "$L07" WERROR=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -x "$REF" ]
    [ -x "$SKEL" ]
}

@test "--help lists the three parts, their options and every variant" {
    run "$REF" --help
    [ "$status" -eq 0 ]
    for s in "part sum" "part soa" "part transpose" "--n N" "--pinned" "--max M" "--plane P" \
             "--tile WxH" "--managed" "1 device" "2 zero-copy" "3 managed" "4 managed-prefetch" \
             "1 rescale-aos" "2 rescale-soa" "3 delete-aos" "4 delete-soa" "1 naive-rows" \
             "2 naive-cols" "3 smem-tile" "4 smem-padded" "5 smem-vec4"; do
        [[ "$output" == *"$s"* ]] || { echo "missing: $s"; false; }
    done
    run "$REF" --part transpose --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"5 smem-vec4"* ]]
    [[ "$output" != *"2 zero-copy"* ]]
}

@test "bad parts, variants and options: exit 2 with one line, GPU or not" {
    for args in "--part nope" "--part sum --variant 5" "--part sum --variant 0" \
                "--part soa --variant 5" "--part transpose --variant 6" "--part sum --n 0" \
                "--part sum --n 1200000000" "--part soa --plane x" "--part soa --plane rg" \
                "--part soa --max 256" "--part soa --n 5" "--part sum --size 8x8" \
                "--part transpose --size 0x5" "--part transpose --tile 2000x1" "--bogus" \
                "--part transpose --variant 2 --managed" "--part transpose --variant 5 --managed" \
                "--part transpose --variant 3 --tile 16x8" "--part transpose --variant 4 --tile 64x64" \
                "--part transpose --variant 1 --tile 64x32" "--part transpose --variant 5 --tile 32x32" \
                "--part sum --out $BATS_TEST_TMPDIR/c.png"; do
        run bash -c "'$REF' $args 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "$args: exit $status: $output"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ] || { echo "$args: $output"; false; }
    done
}

@test "the refusals say why" {
    run bash -c "'$REF' --part transpose --variant 2 --managed 2>&1"
    [[ "$output" == *"v1 and v3 only"* ]]
    run bash -c "'$REF' --part transpose --variant 5 --tile 32x32 2>&1"
    [[ "$output" == *"64x64 128x32"* ]]
    run bash -c "'$REF' --part transpose --variant 3 --tile 16x8 2>&1"
    [[ "$output" == *"square"* ]]
    run bash -c "'$REF' --part soa --plane x 2>&1"
    [[ "$output" == *"r, g or b"* ]]
}

@test "without a CUDA device every part of both binaries exits 77 with one line" {
    if has_gpu; then skip "this machine has a GPU"; fi
    for b in lab07 lab07-ref; do
        for args in "--part sum --n 100" "--part soa --size 8x8" "--part transpose --size 8x8" \
                    "--part transpose --size 8x8 --managed"; do
            run bash -c "'$L07/$b' $args 2>&1"
            [ "$status" -eq 77 ] || { echo "$b $args: exit $status"; false; }
            [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
            [[ "$output" == *"no CUDA device"* ]]
        done
    done
}

@test "the committed lab 07 skeletons equal the generated ones" {
    run make -s -C "$L07" skeleton-check
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # the student's work is gone from the skeleton ...
    run grep -c 'cudaHostGetDevicePointer((void \*\*)&d_a' "$L07/sum.cu"
    [ "$output" = "0" ]
    run grep -c 's_tile\[threadIdx.x\]\[threadIdx.y\]' "$L07/transpose.cu"
    [ "$output" = "0" ]
    run grep -c 'make_float4(q\[j\]' "$L07/transpose.cu"
    [ "$output" = "0" ]
    # ... and the given variants are whole
    grep -q 'd_out\[(size_t)x \* height + y\] = d_in\[(size_t)y \* width + x\];' "$L07/transpose.cu"
    grep -q 'sum_arrays<<<kit_blocks_for(n, SUM_BLOCK), SUM_BLOCK>>>(d_a, d_b, d_c, n);' "$L07/sum.cu"
    grep -q 'rescale_img_aos<<<' "$L07/soa.cu"
    grep -q 'delete_plane_aos<<<' "$L07/soa.cu"
}

@test "the variants the skeleton gives whole are the ones the spec calls given" {
    run "$REF" --help
    # sum:1, soa:1, soa:3, transpose:1 and nothing else
    [ "$(grep -c '\[given\]' <<<"$output")" -eq 4 ]
    [[ "$output" == *"1 device"*"[given]"* ]]
    grep -q '^  3 delete-aos .*\[given\]' <<<"$output"
    grep -q '^  1 naive-rows .*\[given\]' <<<"$output"
}

@test "the planted bugs apply to the solution (and build, where a GPU runs them)" {
    for p in wrong nosync; do
        run make_planted "$L07" lab07-$p
        [ "$status" -eq 0 ] || { echo "$p: $output"; false; }
    done
    # nosync takes exactly one barrier out, wrong changes exactly one line of v4
    sol="$KIT_ROOT/solutions/07_zerocopy_soa/transpose.cu"
    run bash -c "sed -f '$KIT_ROOT/tests/planted/07_zerocopy_soa/nosync.sed' '$sol' | grep -c __syncthreads"
    [ "$output" -eq "$(( $(grep -c __syncthreads "$sol") - 1 ))" ]
    run bash -c "sed -f '$KIT_ROOT/tests/planted/07_zerocopy_soa/wrong.sed' '$sol' | diff '$sol' - | grep -c '^>'"
    [ "$output" -eq 2 ]
}
