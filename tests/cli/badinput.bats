#!/usr/bin/env bats
# Bad input gets one clear line and the right exit status before any work
# starts: --out naming a folder, --out by extension (PNG, JPG, BMP; others
# refused), a PNG whose header states a huge size, a machine without a GPU.
load helpers

setup() {
    REF="$L01/lab01-ref"
    L06BIN="$KIT_ROOT/labs/06_matvec/lab06"
    TMP="$BATS_TEST_TMPDIR"
}

# one_line: the last run printed exactly one line
one_line() { [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ] || { echo "$output"; return 1; }; }

# png_header FILE W H: a PNG whose header says W x H (a real CRC; the pixel
# data is a few bytes, far from what the header promises)
png_header() {
    python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys, zlib
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
w, h = int(sys.argv[2]), int(sys.argv[3])
ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
with open(sys.argv[1], "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))
EOF
}

@test "--out naming a folder: one line, exit 2, before any work (CPU and GPU labs)" {
    mkdir -p "$TMP/pictures"
    run bash -c "'$REF' --size 64x48 --out '$TMP/pictures' 2>&1"
    [ "$status" -eq 2 ]
    one_line
    [[ "$output" == *"--out $TMP/pictures: that is a folder; give a file name"* ]]
    # a GPU lab refuses it too, before it looks for a device
    run bash -c "'$L06BIN' --rows 4 --cols 4 --out '$TMP/pictures' 2>&1"
    [ "$status" -eq 2 ]
    one_line
    run bash -c "'$REF' --size 64x48 --save-input '$TMP/pictures' 2>&1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"that is a folder"* ]]
}

@test "--out writes PNG, JPG or BMP by the file's extension, and refuses any other before work starts" {
    "$REF" --size 64x48 --variant 2 --reps 1 --quiet --out "$TMP/e.png"
    "$REF" --size 64x48 --variant 2 --reps 1 --quiet --out "$TMP/e.jpg"
    "$REF" --size 64x48 --variant 2 --reps 1 --quiet --out "$TMP/e.JPG"
    "$REF" --size 64x48 --variant 2 --reps 1 --quiet --out "$TMP/e.bmp"
    is_png "$TMP/e.png"
    [ "$(head -c 3 "$TMP/e.jpg" | od -An -tx1 | tr -d ' \n')" = "ffd8ff" ]
    [ "$(head -c 3 "$TMP/e.JPG" | od -An -tx1 | tr -d ' \n')" = "ffd8ff" ]
    [ "$(head -c 2 "$TMP/e.bmp")" = "BM" ]
    # each is a picture the kit reads back, of the size written
    for f in e.png e.jpg e.bmp; do
        run "$REF" --image "$TMP/$f" --variant 2 --reps 1
        [ "$status" -eq 0 ]
        [[ "$output" == *"input 64x48"* ]]
    done
    for bad in e.gif e.tiff e noext.; do
        run bash -c "'$REF' --size 64x48 --out '$TMP/$bad' 2>&1"
        [ "$status" -eq 2 ] || { echo "$bad: exit $status"; false; }
        one_line
        [[ "$output" == *"must end in .png, .jpg or .bmp"* ]]
        [ ! -e "$TMP/$bad" ]
    done
}

@test "a PNG whose header states a huge size says the size and the limit: exit 2, one line" {
    command -v python3 >/dev/null || skip "python3 is not installed"
    png_header "$TMP/wide.png" 100000 100000
    png_header "$TMP/big.png" 40000 40000
    for f in wide big; do
        run bash -c "'$REF' --image '$TMP/$f.png' --out '$TMP/o.png' 2>&1"
        [ "$status" -eq 2 ]
        one_line
        [[ "$output" == *"larger than the kit accepts"* ]]
        [[ "$output" != *"unknown image type"* ]]
    done
    [[ "$output" == *"image is 40000x40000"* ]]
    [ ! -e "$TMP/o.png" ]
    # a PNG of a sane size whose data is broken still says it cannot be read
    png_header "$TMP/broken.png" 40 30
    run bash -c "'$REF' --image '$TMP/broken.png' 2>&1"
    [ "$status" -eq 2 ]
    one_line
    [[ "$output" == *"broken.png"* ]]
}

@test "without a GPU a GPU lab says plainly that there is no device or no driver: exit 77, one line, no advice to upgrade" {
    if has_gpu; then skip "this machine has a GPU"; fi
    run bash -c "'$L06BIN' --rows 4 --cols 4 --reps 1 2>&1"
    [ "$status" -eq 77 ]
    one_line
    [[ "$output" == *"no CUDA device"* ]]
    [[ "$output" != *"insufficient"* ]]
    [[ "$output" != *"upgrade"* ]]
    [[ "$output" != *"driver version"* ]]
}

@test "make plot before any variant passes: one line and exit 0 (nothing to draw); without make bench's results: one line, exit 2" {
    local l hdr
    # a student's bench of a skeleton: every row not-implemented (the status column found by name)
    hdr=$(printf 'lab\tvariant\tname\twidth\theight\tconfig\tkernel_ms_median\ttotal_ms_median\tgbps\tstatus')
    for l in 01_cpu_conv 02_omp_sse 03_global_mem 06_matvec; do
        mkdir -p "$TMP/$l"
        printf '%s\n%s\n' "$hdr" "$(printf 'lab%s\t1\tnaive\t64\t48\tpinned=0\t0\t0\t0\tnot-implemented' "${l%%_*}")" \
            >"$TMP/$l/bench.tsv"
        run make -s -C "$KIT_ROOT/labs/$l" plot OUT="$TMP/$l"
        [ "$status" -eq 0 ] || { echo "$l: $output"; false; }
        [[ $output == "nothing to plot yet: no variant passed in $TMP/$l/bench.tsv"* && $output != *$'\n'* ]] ||
            { echo "$l: $output"; false; }
        run make -s -C "$KIT_ROOT/labs/$l" plot OUT="$TMP/$l/none"
        [ "$status" -eq 2 ] || { echo "$l: $output"; false; }
        [[ "$output" == "no $TMP/$l/none/bench.tsv: run make bench first"* ]] || { echo "$l: $output"; false; }
    done
}
