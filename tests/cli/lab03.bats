#!/usr/bin/env bats
# Lab 03 on any machine: it builds, --help lists the eight variants in
# teaching order, usage errors come before the device check (exit 2, one
# line), without a GPU every binary exits 77 with one line, make filters
# runs every filter at both sizes, and the committed skeleton is the one
# generated from the solution. The GPU tests proper are in
# tests/gpu/lab03.bats.
load helpers

@test "make builds lab03 (the skeleton) and lab03-ref (the solution)" {
    run make -s -C "$L03" WERROR=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -x "$L03/lab03" ]
    [ -x "$L03/lab03-ref" ]
}

@test "--help works without a GPU and lists the eight variants in teaching order" {
    run "$L03/lab03-ref" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--pinned"* ]]
    [[ "$output" == *"--block WxH"* ]]
    local order="" n
    for n in linear-grid 2d-grid const-filter unrolled planar-bytes planar-words separable-f64 \
             channel-threads; do
        order+=$(printf '%s\n' "$output" | grep -nE "^ *[1-8] +$n( |$)" | cut -d: -f1)" "
    done
    # each name once, on its own line, in this order, numbered 1 to 8
    [ "$(echo $order | wc -w)" -eq 8 ] || { echo "$output"; false; }
    printf '%s\n' $order | sort -nc
    [[ "$output" == *"1 linear-grid"* ]]
    [[ "$output" == *"6 planar-words"* ]]
    [[ "$output" == *"7 separable-f64"* ]]
    [[ "$output" == *"8 channel-threads"* ]]
    [[ "$output" == *"1..8"* ]]
    # the skeleton binary describes the same lab
    run "$L03/lab03" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"4 unrolled"* ]]
}

@test "bad usage and bad input give exit 2 with one line, GPU or not" {
    for args in "--bogus" "--variant 9" "--variant 0" "--variant 1,9" "--block 64x32" "--block 0x4" \
                "--filter nope" "--threads 2" "--size 0x5" "--image /nonexistent.png" \
                "--filter edge3 --radius 4" "--filter gaussian --radius 81"; do
        run bash -c "'$L03/lab03-ref' $args 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ] || { echo "$args: $output"; false; }
    done
}

@test "a corrupt picture is refused with exit 2 and one line naming it" {
    printf 'not a picture at all' >"$BATS_TEST_TMPDIR/bad.png"
    run bash -c "'$L03/lab03-ref' --image '$BATS_TEST_TMPDIR/bad.png' 2>&1 >/dev/null"
    [ "$status" -eq 2 ]
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
    [[ "$output" == *"bad.png"* ]]
}

@test "a variant refuses a filter it cannot take before the device check: exit 2, one line" {
    for args in "--variant 6 --filter gaussian --radius 3" "--variant 6 --filter gaussian --radius 4" \
                "--variant 6 --filter box --radius 1" "--variant 1 --filter gaussian --radius 9" \
                "--variant 7 --filter laplace5" "--variant 7 --filter sharpen3" \
                "--variant 8 --filter gaussian --radius 9" "--variant 8 --filter gaussian --radius 5"; do
        run bash -c "'$L03/lab03-ref' $args --size 20x20 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
        [ "${#lines[@]}" -eq 1 ] || { echo "$args: $output"; false; }
    done
    for v in 1 2 3 4 5 8; do
        run bash -c "'$L03/lab03-ref' --variant $v --filter box --radius 2 --size 20x20 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "v$v: exit $status"; false; }
        [[ "$output" == *"not exact"* ]]
    done
    run bash -c "'$L03/lab03-ref' --variant 6 --filter gaussian --radius 3 --size 20x20 2>&1"
    [[ "$output" == *"8-bit integer weights"* ]]
    run bash -c "'$L03/lab03-ref' --variant 1 --filter gaussian --radius 9 --size 20x20 2>&1"
    [[ "$output" == *"radius 9"* ]]
    run bash -c "'$L03/lab03-ref' --variant 7 --size 20x20 2>&1"
    [[ "$output" == *"separable"* ]]
}

@test "what a variant can take is not refused: it runs, or exits 77 without a GPU" {
    for args in "--variant 6 --filter gaussian --radius 2" "--variant 6 --filter sharpen3" \
                "--variant 4 --filter gaussian --radius 4" "--variant 5 --filter edge3" \
                "--variant 1 --filter gauss5 --block 1024x1" "--variant 7 --filter box --radius 80" \
                "--variant 7 --filter gaussian --radius 5 --pinned" "--variant 8 --filter gaussian --radius 4" \
                "--variant 8 --filter edge3 --block 7x5" "--variant 8 --filter gauss5 --block 1024x1"; do
        run "$L03/lab03-ref" $args --size 21x13 --reps 1 --quiet
        case $status in 0|77) ;; *) echo "$args: exit $status"; echo "$output"; false ;; esac
    done
}

@test "spec.c and ref.c agree across layouts and keys (the grader's checker, no GPU)" {
    run make -s -C "$KIT_ROOT/grading" build/check-03
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    C="$KIT_ROOT/grading/build/check-03" T="$BATS_TEST_TMPDIR" A="--size 23x17 --filter gauss5 --seed 9"
    for v in 1 5 7 8; do
        "$C" reference --variant $v --key 3f --out "$T/r$v.bin" -- $A
    done
    cmp -s "$T/r1.bin" "$T/r8.bin"              # v8 writes v1's layout: the same bytes
    "$C" reference --variant 1 --key 3f --out "$T/again.bin" -- $A
    "$C" reference --variant 1 --key 0 --out "$T/k0.bin" -- $A
    cmp -s "$T/r1.bin" "$T/again.bin"           # the same key, the same content
    run cmp -s "$T/r1.bin" "$T/k0.bin"          # another key, other content
    [ "$status" -ne 0 ]
    # planar bytes are the interleaved bytes transposed; the doubles round to them
    python3 - "$T" <<'PY'
import struct, sys
t, w, h = sys.argv[1], 23, 17
r1, r5, r7 = (open(f"{t}/r{v}.bin", "rb").read() for v in (1, 5, 7))
n = w * h
assert len(r1) == len(r5) == 3 * n and len(r7) == 24 * n
assert r5 == bytes(r1[(i % n) * 3 + i // n] for i in range(3 * n)), "planar != interleaved"
d = struct.unpack(f"{3 * n}d", r7)
assert [max(0, min(255, int(x + 0.5))) for x in d] == list(r5), "doubles do not round to bytes"
PY
    # what each variant takes, as the harness says it (n/a with a reason)
    run "$C" describe -- --size 20x16 --filter gaussian --radius 3
    [ "$status" -eq 0 ]
    [[ "$output" == *'{"v":6,"supported":false'* ]]
    [[ "$output" == *'{"v":7,"supported":true'* ]]
    [[ "$output" == *'"min_launches":6'* ]]
    [[ "$output" == *'{"v":8,"supported":true'* ]]
    run "$C" describe -- --size 20x16 --filter gaussian --radius 5
    [[ "$output" == *'{"v":2,"supported":false'* ]]     # its float sums are not exact
    [[ "$output" == *'{"v":8,"supported":false'* ]]
    run "$C" describe -- --size 20x16 --filter laplace5
    [[ "$output" == *'{"v":6,"supported":true'* ]]
    [[ "$output" == *'{"v":7,"supported":false'* ]]
    [[ "$output" == *'{"v":8,"supported":true'* ]]
}

@test "make filters: every filter at 300x300 and 2000x2000, one run each, the refused variants' rows left out" {
    # a stand-in binary: logs its arguments, appends a row per variant (v7
    # takes gauss5 only) the way the harness does
    fake="$BATS_TEST_TMPDIR/fake-lab03" log="$BATS_TEST_TMPDIR/runs.log" out="$BATS_TEST_TMPDIR/out"
    cat >"$fake" <<'SH'
#!/usr/bin/env bash
echo "$*" >>"$FAKE_LOG"
while [ $# -gt 0 ]; do
    case $1 in --filter) f=$2 ;; --size) s=$2 ;; --results) r=$2 ;; esac
    shift
done
new=1
[ -s "$r" ] && new=0
{
    printf '# gpu: Fake GPU 9\n# copy ceiling: 1000.0 GB/s (device-to-device copy)\n'
    [ $new = 0 ] || printf 'lab\tvariant\tname\twidth\theight\tparam\treps\tkernel_ms\tkernel_ms_std\tkernel_ms_median\ttotal_ms\ttotal_ms_std\ttotal_ms_median\tgbps\tmax_abs_err\tmax_rel_err\tmismatches\tstatus\tthreads\tconfig\tpart\tspan\n'
    for v in 1 2 3 4 5 6 7 8; do
        st=pass
        [ $v != 7 ] || [ "$f" = gauss5 ] || st=unsupported
        printf '03\t%d\tv%d-name\t%s\t%s\t%s\t5\t0.%d\t0\t0.%d\t1.%d\t0\t1.%d\t10\t0\t0\t0\t%s\t1\tblock=16x16 pinned=0\t-\tkernel\n' \
            $v $v "${s%x*}" "${s#*x}" "$f" $v $v $v $v $st
    done
} >>"$r"
SH
    chmod +x "$fake"
    run env FAKE_LOG="$log" make -s -C "$L03" filters RUN_BIN="$fake" OUT="$out" FILTERS_REPS=3
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"wrote $out/filters.tsv"* ]]
    # one run per size and filter, every variant (all), pageable, the reps asked for
    [ "$(wc -l <"$log")" -eq 8 ] || { cat "$log"; false; }
    for s in 300x300 2000x2000; do
        for f in laplace5 edge3 sharpen3 gauss5; do
            [ "$(grep -c -- "--filter $f --size $s --reps 3 " "$log")" -eq 1 ] || { cat "$log"; false; }
        done
    done
    run grep -c -- '--variant\|--pinned' "$log"
    [ "$output" = 0 ]
    # v7 stays only where it ran (gauss5): 2 x (3 x 7 + 8) rows
    run grep -c 'unsupported' "$out/filters.tsv"
    [ "$output" = 0 ]
    [ "$(grep -c '^03	' "$out/filters.tsv")" -eq 58 ]
    # the figures: a table per size and filter, in the kit's results columns
    python3 "$KIT_ROOT/common/scripts/figures.py" collect --lab-dir "$BATS_TEST_TMPDIR/lab" --machine X \
        "$out/filters.tsv" >/dev/null
    f="$BATS_TEST_TMPDIR/lab/figures/X.tsv"
    grep -qP '^300x300, edge3\tv8 v8-name\tkernel ms\t0.8000$' "$f"
    grep -qP '^2000x2000, gauss5\tv7 v7-name\ttotal ms\t1.700$' "$f"
    run grep -c '^2000x2000, sharpen3	v7 ' "$f"
    [ "$output" = 0 ]
    # without a device: said in one line, nothing written, not an error
    if ! has_gpu; then
        run make -s -C "$L03" filters REF=1 OUT="$out" FILTERS_SIZES=30x20 FILTERS="edge3"
        [ "$status" -eq 0 ]
        [[ "$output" == *"filters: no CUDA device, nothing measured"* ]]
    fi
}

@test "without a CUDA device every lab 03 binary exits 77 with one line" {
    if has_gpu; then skip "this machine has a GPU"; fi
    for b in lab03 lab03-ref; do
        run bash -c "'$L03/$b' --size 8x8 2>&1"
        [ "$status" -eq 77 ] || { echo "$b: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
        [[ "$output" == *"no CUDA device"* ]]
    done
}

@test "the untouched skeleton exits 4 on a GPU, for every variant" {
    skip_without_gpu "$L03/lab03-ref"
    run "$L03/lab03" --size 64x64 --reps 1
    [ "$status" -eq 4 ]
    for v in 1 2 3 4 5 6 7 8; do
        f=laplace5
        [ "$v" -ne 7 ] || f=gauss5
        run "$L03/lab03" --variant $v --filter $f --size 33x17 --reps 1
        [ "$status" -eq 4 ] || { echo "v$v: exit $status"; echo "$output"; false; }
    done
}

@test "the committed lab 03 skeleton equals the generated one, with no answer in it" {
    run make -s -C "$L03" skeleton-check
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run bash -c "cat '$L03/conv.cu' '$L03/words.cu' |
        grep -c 'r += c \\* p\\[0\\]\\|kit_dot4(win\\|conv_pixel(d_in, d_out\\|<<<\\|s += d_filter'"
    [ "$output" = 0 ]
    # the kernels each variant's TODO names are there to be written (v6's in words.cu)
    for k in conv_v1_kernel conv_v2_kernel conv_v3_kernel conv_unrolled_body \
             conv_v7_rows conv_v7_cols conv_v8_kernel; do
        grep -q "$k" "$L03/conv.cu" || { echo "no $k in the skeleton"; false; }
    done
    grep -q conv_v6_body "$L03/words.cu" || { echo "no conv_v6_body in the skeleton's words.cu"; false; }
}
