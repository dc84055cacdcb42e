#!/usr/bin/env bats
# The CUDA architectures common/config.mk asks nvcc for: without a GPU, the
# wanted ones (KIT_FAT_ARCH) that the nvcc in use builds, machine code for
# each and PTX of the newest; CUDA_ARCH overrides; a GPU the nvcc cannot build
# for is named. A fake nvcc and nvidia-smi on PATH answer as CUDA 12 and 13 do.
load helpers

setup() {
    FAKE="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$FAKE"
    printf 'include %s/common/config.mk\nshow:\n\t@echo "$(NVCC_ARCH)"\n' "$KIT_ROOT" \
        >"$BATS_TEST_TMPDIR/show.mk"
    # no GPU unless a test says so (a GPU machine's own nvidia-smi is shadowed)
    fake_smi ""
}

# fake_nvcc CODES...: an nvcc whose --list-gpu-code prints CODES, one a line
fake_nvcc() {
    {
        echo '#!/bin/sh'
        echo '[ "$1" = --list-gpu-code ] || exit 1'
        for c in "$@"; do echo "echo $c"; done
    } >"$FAKE/nvcc"
    chmod +x "$FAKE/nvcc"
}

# fake_smi CAP: an nvidia-smi that reports compute capability CAP (empty: fails)
fake_smi() {
    if [ -n "$1" ]; then
        printf '#!/bin/sh\necho %s\n' "$1" >"$FAKE/nvidia-smi"
    else
        printf '#!/bin/sh\nexit 9\n' >"$FAKE/nvidia-smi"
    fi
    chmod +x "$FAKE/nvidia-smi"
}

# arch [MAKE ARGS...]: the -gencode flags config.mk chose, on stdout
arch() {
    run env -u CUDA_ARCH -u KIT_FAT_ARCH PATH="$FAKE:$PATH" \
        make -s --no-print-directory -f "$BATS_TEST_TMPDIR/show.mk" NVCC="$FAKE/nvcc" "$@" show
}

CUDA12="sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90"
CUDA13="sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_110 sm_103 sm_120 sm_121"

@test "CUDA 12's nvcc, no GPU: sm_70 to sm_90 machine code and PTX of sm_90" {
    fake_nvcc $CUDA12
    arch
    [ "$status" -eq 0 ]
    [ "$output" = "-gencode arch=compute_70,code=sm_70 -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]" ]
}

@test "CUDA 13's nvcc, no GPU: no sm_70 (it cannot), the rest as with CUDA 12" {
    fake_nvcc $CUDA13
    arch
    [ "$status" -eq 0 ]
    [ "$output" = "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]" ]
}

@test "KIT_FAT_ARCH widens the set, still cut to what nvcc builds; PTX of its newest" {
    fake_nvcc $CUDA13
    arch KIT_FAT_ARCH="70 80 86 89 90 120"
    [ "$status" -eq 0 ]
    [ "$output" = "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_120,code=[sm_120,compute_120]" ]
}

@test "an nvcc that answers nothing (missing or too old): sm_75, sm_80, sm_90 and PTX" {
    printf '#!/bin/sh\nexit 1\n' >"$FAKE/nvcc"
    chmod +x "$FAKE/nvcc"
    arch
    [ "$status" -eq 0 ]
    [ "$output" = "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]" ]
}

@test "CUDA_ARCH given: exactly those, nvcc not asked" {
    printf '#!/bin/sh\necho asked >>"%s/asked"\n' "$BATS_TEST_TMPDIR" >"$FAKE/nvcc"
    chmod +x "$FAKE/nvcc"
    arch CUDA_ARCH="70 86"
    [ "$status" -eq 0 ]
    [ "$output" = "-gencode arch=compute_70,code=sm_70 -gencode arch=compute_86,code=sm_86" ]
    [ ! -e "$BATS_TEST_TMPDIR/asked" ]
}

@test "the local GPU: its architecture alone; one it supports brings no warning" {
    fake_nvcc $CUDA12
    fake_smi 7.0
    arch
    [ "$status" -eq 0 ]
    [ "$output" = "-gencode arch=compute_70,code=sm_70" ]
}

@test "a V100 with CUDA 13: one warning naming sm_70 and what to do" {
    fake_nvcc $CUDA13
    fake_smi 7.0
    arch
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | grep -c 'config.mk:[0-9]*: this GPU is sm_70, which .* does not build for: use a CUDA toolkit that does')" -eq 1 ]
    printf '%s\n' "$output" | grep -qx -- "-gencode arch=compute_70,code=sm_70"
}

@test "CUDA objects built for other architectures are built again; a folder with no stamp keeps its objects" {
    L06="$KIT_ROOT/labs/06_matvec"
    o="$BATS_TEST_TMPDIR/o"
    obj="$o/build/sol/matvec.cu.o"
    run make -C "$L06" O="$o" CUDA_ARCH=75 "$obj"
    [[ "$output" == *"code=sm_75"* ]] || { echo "$output"; false; }
    [ -f "$obj" ]
    run make -C "$L06" O="$o" CUDA_ARCH=75 "$obj"
    [[ "$output" == *"is up to date"* ]] || { echo "$output"; false; }
    # another GPU (or CUDA_ARCH): built again, for it, one stamp left
    run make -C "$L06" O="$o" CUDA_ARCH=80 "$obj"
    [[ "$output" == *"code=sm_80"* ]] || { echo "$output"; false; }
    [ "$(ls -A "$o/build" | grep -c '^\.nvcc-')" -eq 1 ]
    # objects with no stamp beside them (the grader seeds a box's build folder) are kept
    rm -f "$o"/build/.nvcc-*
    run make -C "$L06" O="$o" CUDA_ARCH=75 "$obj"
    [[ "$output" == *"is up to date"* ]] || { echo "$output"; false; }
}
