# helpers.bash - shared by the bats files: paths and small assertions.
KIT_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
export KIT_ROOT
L01="$KIT_ROOT/labs/01_cpu_conv"

# one_line_error: stderr of the last `run` had exactly one line before any usage
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }

has_gpu() {
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

L03="$KIT_ROOT/labs/03_global_mem"

# skip_without_gpu BIN: skip the test when BIN reports no CUDA device (77)
skip_without_gpu() {
    "$1" --help >/dev/null 2>&1 || true
    local rc=0
    "$1" --size 1x1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || skip "no CUDA device"
}
