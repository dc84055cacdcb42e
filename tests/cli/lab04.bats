#!/usr/bin/env bats
# Lab 04 on any machine: the build, --help, usage errors and refused inputs
# (exit 2, one line, before the device check), the references of both parts
# against an independent computation, the skeleton, and exit 77 without a GPU.
# The GPU tests proper are in tests/gpu/lab04.bats.
load helpers
L04="$KIT_ROOT/labs/04_shared_mem"

@test "lab 04 builds without a warning; its planted bugs build where a GPU runs them, and apply everywhere" {
    run make -s -C "$L04" WERROR=1
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -x "$L04/lab04" ]
    [ -x "$L04/lab04-ref" ]
    for p in race wrong; do
        run make_planted "$L04" lab04-$p
        [ "$status" -eq 0 ] || { echo "$p: $output"; false; }
        if has_gpu; then [ -x "$L04/lab04-$p" ]; fi
    done
}

@test "--help lists both parts, their options and every variant" {
    run "$L04/lab04-ref" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"part rgb"* ]]
    [[ "$output" == *"part sep"* ]]
    [[ "$output" == *"--tile WxH"* ]]
    [[ "$output" == *"--per-thread N"* ]]
    [[ "$output" == *"--pinned"* ]]
    for v in "1 bytes-int" "2 bytes-float" "3 floats" "4 floats-padded" "5 floats-32wide" \
             "6 planar-dp4a" "1 global" "2 shared" "3 shared-const" "4 registers"; do
        [[ "$output" == *"  $v "* ]] || { echo "missing: $v"; false; }
    done
    [[ "$output" == *"[given]"* ]]
    run "$L04/lab04-ref" --part sep --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"part sep"* ]]
    [[ "$output" != *"part rgb"* ]]
}

@test "bad usage and refused inputs give exit 2 with one line, GPU or not" {
    local args
    for args in "--bogus" "--part nope" "--part rgb --variant 7" "--part sep --variant 5" \
        "--part sep --tile 8x4" "--part rgb --per-thread 8" "--part rgb --pinned" \
        "--filter nope" "--image /nonexistent.png" "--part sep --radius 81" \
        "--size 20x20 --variant 1 --filter box" "--size 20x20 --variant 6 --filter gaussian --radius 3" \
        "--size 20x20 --variant 3 --filter gaussian --radius 4" \
        "--size 20x20 --variant 2 --block 32x8" "--size 20x20 --variant 5 --block 64x32" \
        "--size 20x20 --variant 6 --tile 5x5" "--size 20x20 --variant 6 --block 32x32" \
        "--part sep --size 20x20 --variant 2 --filter laplace5" \
        "--part sep --size 20x20 --variant 4 --per-thread 5" \
        "--part sep --size 20x20 --variant 4 --block 32x32" \
        "--part sep --size 20x20 --variant 1 --block 64x32"; do
        run bash -c "'$L04/lab04-ref' $args 2>&1 >/dev/null"
        [ "$status" -eq 2 ] || { echo "$args: exit $status: $output"; false; }
        [ "${#lines[@]}" -eq 1 ] || { echo "$args: $output"; false; }
    done
    run bash -c "'$L04/lab04-ref' --size 20x20 --variant 4 --filter box 2>&1"
    [[ "$output" == *"not 8-bit integers"* ]]
    run bash -c "'$L04/lab04-ref' --size 20x20 --variant 1 --filter gaussian --radius 3 2>&1"
    [[ "$output" == *"radius 2 at most"* ]]
    run bash -c "'$L04/lab04-ref' --part sep --size 20x20 --variant 4 --block 32x32 2>&1"
    [[ "$output" == *"at most 512 threads"* ]]
    run bash -c "'$L04/lab04-ref' --part sep --size 20x20 --variant 3 --filter edge3 2>&1"
    [[ "$output" == *"not separable"* ]]
}

@test "without a CUDA device every lab 04 binary exits 77 with one line, in both parts" {
    if has_gpu; then skip "this machine has a GPU"; fi
    for b in lab04 lab04-ref; do
        for part in rgb sep; do
            run bash -c "'$L04/$b' --part $part --size 8x8 2>&1"
            [ "$status" -eq 77 ] || { echo "$b $part: exit $status"; false; }
            [ "${#lines[@]}" -eq 1 ]
            [[ "$output" == *"no CUDA device"* ]]
        done
    done
}

@test "the committed lab 04 skeletons equal the generated ones and hold no answer" {
    run make -s -C "$L04" skeleton-check
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run grep -c "sum = kit_dot4(w\[i\]\[a + hi\], taps\[i\], sum)" "$L04/tile.cu"
    [ "$output" -eq 0 ]
    run grep -c "s_win\[r\]\[lcol\] = b;" "$L04/conv.cu"
    [ "$output" -eq 0 ]
    run grep -c "acc\[j\] = fma(c, v\[j + t\], acc\[j\])" "$L04/sep.cu"
    [ "$output" -eq 0 ]
    # the given variant stays whole
    run grep -c "s += d_row\[k + radius\] \* row\[xx\]" "$L04/sep.cu"
    [ "$output" -eq 1 ]
}

# An independent reference in Python (plain sums in double, zero outside) on
# the input the harness saves; rows beyond one band of the kit's parallel
# reference (64) so that the bands' seams are covered.
ref_py() {
    python3 - "$@" <<'EOF'
import struct, sys
part, bmp, raw = sys.argv[1], sys.argv[2], sys.argv[3]
d = open(bmp, 'rb').read()
off, w, h = struct.unpack_from('<I', d, 10)[0], *struct.unpack_from('<ii', d, 18)
bpp = struct.unpack_from('<H', d, 28)[0] // 8
stride = (w * bpp + 3) & ~3
px = lambda x, y, c: d[off + (h - 1 - y) * stride + x * bpp + (2 - c)]  # BGR, bottom-up
got = open(raw, 'rb').read()
if part == 'rgb':  # laplace5, interleaved (v1) or planar (v6)
    planar = sys.argv[4] == 'planar'
    bad = 0
    for y in range(h):
        for x in range(w):
            for c in range(3):
                s = 0
                for i in range(-2, 3):
                    for j in range(-2, 3):
                        if 0 <= x + j < w and 0 <= y + i < h:
                            s += (24 if i == 0 and j == 0 else -1) * px(x + j, y + i, c)
                want = min(max(s, 0), 255)
                at = c * w * h + y * w + x if planar else (y * w + x) * 3 + c
                bad += got[at] != want
    print(bad)
else:  # gaussian radius 3: binomial taps C(6, k) / 64 on each axis
    from math import comb
    t = [comb(6, k) / 64.0 for k in range(7)]
    v = [[float(px(x, y, 0)) for x in range(w)] for y in range(h)]
    row = [[sum(t[k] * v[y][x + k - 3] for k in range(7) if 0 <= x + k - 3 < w) for x in range(w)] for y in range(h)]
    out = struct.unpack('<%dd' % (w * h), got)
    worst = 0.0
    for y in range(h):
        for x in range(w):
            s = sum(t[k] * row[y + k - 3][x] for k in range(7) if 0 <= y + k - 3 < h)
            worst = max(worst, abs(out[y * w + x] - s))
    print(0 if worst <= 1e-9 else worst)
EOF
}

@test "the checker's references of both parts equal an independent computation" {
    local d="$BATS_TEST_TMPDIR" chk="$KIT_ROOT/grading/build/check-04"
    make -s -C "$KIT_ROOT/grading" "build/check-04" >/dev/null
    # the input pictures (the binary saves them before it looks for a device)
    "$L04/lab04-ref" --part rgb --size 11x150 --seed 5 --save-input "$d/rgb.bmp" --reps 1 --quiet >/dev/null 2>&1 || true
    "$L04/lab04-ref" --part sep --size 13x140 --radius 3 --seed 5 --save-input "$d/sep.bmp" --reps 1 --quiet >/dev/null 2>&1 || true
    [ -s "$d/rgb.bmp" ]
    [ -s "$d/sep.bmp" ]
    run "$chk" reference --part rgb --variant 1 --out "$d/v1.raw" -- --size 11x150 --seed 5
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run ref_py rgb "$d/rgb.bmp" "$d/v1.raw" interleaved
    [ "$output" = 0 ]
    run "$chk" reference --part rgb --variant 6 --out "$d/v6.raw" -- --size 11x150 --seed 5
    [ "$status" -eq 0 ]
    run ref_py rgb "$d/rgb.bmp" "$d/v6.raw" planar
    [ "$output" = 0 ]
    # the test can fail: v6's planar bytes are not v1's interleaved ones
    run ref_py rgb "$d/rgb.bmp" "$d/v6.raw" interleaved
    [ "$output" != 0 ]
    run "$chk" reference --part sep --variant 3 --out "$d/sep.raw" -- --size 13x140 --radius 3 --seed 5
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run ref_py sep "$d/sep.bmp" "$d/sep.raw"
    [ "$output" = 0 ]
}

@test "the checker describes both parts: spans, fewest launches, the given variant, n/a" {
    run "$KIT_ROOT/grading/build/check-04" describe --part rgb -- --size 9x7 --filter box
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [p["name"] for p in d["parts"]] == ["rgb", "sep"]
rgb, sep = d["parts"]
assert len(rgb["variants"]) == 6 and len(sep["variants"]) == 4
assert all(v["span"] == "kernel" and v["ceiling"] == "device-copy" for v in rgb["variants"] + sep["variants"])
assert all(v["min_launches"] == 2 for v in sep["variants"])
assert sep["variants"][0]["given"] is True and not any(v["given"] for v in rgb["variants"])
c = d["case"]
assert all(v["supported"] is False and "8-bit integers" in v["why"] for v in c["variants"])
' "$output"
    run "$KIT_ROOT/grading/build/check-04" describe --part rgb -- --size 9x7
    python3 -c '
import json, sys
c = json.loads(sys.argv[1])["case"]
assert [v["supported"] for v in c["variants"]] == [True] * 6
assert c["variants"][0]["bytes"] == 2 * 9 * 7 * 3
' "$output"
}
