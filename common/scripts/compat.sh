#!/usr/bin/env bash
# compat.sh - every lab and the grader's programs built with a CUDA 12 toolkit
# (what `make compat` runs; not part of `make test`: it downloads ~500 MB once).
#
#   common/scripts/compat.sh               CUDA 12.4, assembled in .deps/cuda12 (no root)
#   common/scripts/compat.sh --nvcc PATH   an installed toolkit instead (.../cuda-12.6/bin/nvcc)
#
# The toolkit: NVIDIA's CUDA 12 wheels on PyPI hold ptxas, libdevice, the
# headers (runtime, CCCL, CUPTI, cuBLAS) and the libraries, but not nvcc's
# driver (nvcc, cicc, cudafe++, fatbinary, nvlink): those come from Debian 13's
# nvidia-cuda-toolkit (non-free), the same release 12.4.131. Both are fetched
# by their own clients without root (pip download; apt-get download with an
# apt state of its own). The wheels of 12.4 have no static runtime, so the
# labs link libcudart.so.12 (nvcc -cudart=shared); libcudadevrt.a is an empty
# archive (no lab launches kernels from the device). libcuda.so, which the
# grader's hold and ceiling-gpu link, is the 550 driver's (Debian libcuda1).
#
# The build: a copy of the kit's files in .deps/cuda12/tree, made with
# WERROR=1 and CUDA_ARCH empty, so that config.mk asks this nvcc what it builds
# (sm_70 to sm_90). /usr/local, where CUDA 13 usually lives, is hidden from
# the build (bubblewrap) where it can be. A GPU lab is OK when it builds, its
# binaries hold sm_70 code, and they link the CUDA 12 runtime. One line per
# lab, then one summary line; exit 0 when all are OK, 1 otherwise.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cache="$root/.deps/cuda12"
nvcc=""
case ${1:-} in
    "") ;;
    --nvcc)
        nvcc=${2:-}
        [ -x "$nvcc" ] || { echo "compat: --nvcc wants the path of an nvcc that runs" >&2; exit 2; } ;;
    *) echo "compat: unknown option ${1} (usage: compat.sh [--nvcc PATH])" >&2; exit 2 ;;
esac

# ---- the pinned toolkit: CUDA 12.4 (12.4.1), the oldest the kit supports
PYPI_PINS=(nvidia-cuda-nvcc-cu12==12.4.131 nvidia-cuda-runtime-cu12==12.4.127
           nvidia-cuda-cupti-cu12==12.4.127 nvidia-cuda-cccl-cu12==12.4.127.post1
           nvidia-cublas-cu12==12.4.5.8)
DEB_PINS=(nvidia-cuda-toolkit=12.4.131~12.4.1-2 libcuda1)
DEB_SOURCE="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie non-free"
tk="$cache/cuda-12.4"
start=$SECONDS
say() { echo "compat: $*"; }
die() { echo "compat: $*" >&2; exit 1; }

# unwheel WHEEL DEST PREFIX...: the wheel's files under each PREFIX, into DEST
unwheel() {
    python3 - "$@" <<'EOF'
import os, shutil, sys, zipfile
wheel, dest, prefixes = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for m in z.infolist():
        for p in prefixes:
            if m.filename.startswith(p) and not m.is_dir() and not m.filename.endswith("__init__.py"):
                out = os.path.join(dest, m.filename[len(p):])
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with z.open(m) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                os.chmod(out, 0o755 if "/bin/" in m.filename else 0o644)
EOF
}

fetch() {
    [ "$(uname -m)" = x86_64 ] || die "the CUDA 12 packages fetched here are for x86_64; use --nvcc PATH"
    for c in python3 apt-get dpkg-deb; do
        command -v "$c" >/dev/null 2>&1 || die "needs $c to fetch CUDA 12 (or use --nvcc PATH)"
    done
    local dl="$cache/download" apt="$cache/apt"
    mkdir -p "$dl/wheels" "$dl/debs" "$apt/lists/partial" "$apt/archives/partial" "$apt/sources.list.d"
    say "downloading the CUDA 12.4 wheels (PyPI) into $dl"
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$dl/wheels" "${PYPI_PINS[@]}" \
        >"$cache/download.log" 2>&1 || die "pip download failed; see $cache/download.log"
    say "downloading nvcc's driver (Debian 13, non-free) into $dl"
    echo "$DEB_SOURCE" >"$apt/sources.list"
    : >"$apt/status"
    local o=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts="$apt/sources.list.d"
             -o Dir::State::Lists="$apt/lists" -o Dir::State::status="$apt/status"
             -o Dir::Cache="$apt" -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)")
    apt-get "${o[@]}" update >>"$cache/download.log" 2>&1 &&
        (cd "$dl/debs" && apt-get "${o[@]}" download "${DEB_PINS[@]}" >>"$cache/download.log" 2>&1) ||
        die "apt-get download of ${DEB_PINS[*]} failed; see $cache/download.log"
}

assemble() {
    local dl="$cache/download" t="$tk.tmp" deb="$cache/download/deb" w
    rm -rf "$t" "$deb"
    mkdir -p "$t/bin/crt" "$t/nvvm/bin" "$t/include" "$t/lib64/stubs" "$deb"
    for f in "$dl"/debs/*.deb; do dpkg-deb -x "$f" "$deb" || die "cannot unpack $f"; done
    local tb="$deb/usr/lib/nvidia-cuda-toolkit/bin"
    cp "$tb/nvcc" "$deb"/usr/bin/{cudafe++,fatbinary,nvlink,bin2c,cuobjdump} "$t/bin/" &&
        cp "$tb"/crt/*.stub "$t/bin/crt/" && cp "$tb/cicc" "$t/nvvm/bin/" &&
        cp "$deb"/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.*.* "$t/lib64/stubs/libcuda.so" ||
        die "the Debian packages do not hold what was expected; see $deb"
    for w in "$dl"/wheels/*.whl; do
        unwheel "$w" "$t" nvidia/cuda_nvcc/ nvidia/cuda_runtime/ nvidia/cuda_cupti/ \
            nvidia/cuda_cccl/ nvidia/cublas/ || die "cannot unpack $w"
    done
    # nvcc's profile, as NVIDIA's installer lays the toolkit out
    cat >"$t/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
    # the libraries a lab links, as NVIDIA's installer names them
    for l in cudart cupti cublas cublasLt; do
        mv "$t/lib/lib$l.so.12" "$t/lib64/" && ln -s "lib$l.so.12" "$t/lib64/lib$l.so" ||
            die "no lib$l.so.12 in the wheels"
    done
    rm -rf "${t:?}/lib"
    ar rcs "$t/lib64/libcudadevrt.a"
    "$t/bin/nvcc" --version >/dev/null 2>&1 || die "the assembled nvcc does not run; see $t"
    printf '%s\n' "${PYPI_PINS[@]}" "${DEB_PINS[@]}" >"$t/PINS"
    rm -rf "$tk" "$deb" && mv "$t" "$tk" && rm -rf "$dl"
}

if [ -z "$nvcc" ]; then
    if ! cmp -s "$tk/PINS" <(printf '%s\n' "${PYPI_PINS[@]}" "${DEB_PINS[@]}"); then
        fetch
        assemble
        say "CUDA 12.4 assembled in $tk ($(du -sh "$tk" | cut -f1)) in $((SECONDS - start)) s"
    fi
    nvcc="$tk/bin/nvcc"
    export NVCC_APPEND_FLAGS="-cudart=shared"
fi
home=$(cd "$(dirname "$nvcc")/.." && pwd)
release=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
[ -n "$release" ] || die "$nvcc --version names no release"

# ---- a copy of the kit's files (tracked and new, not ignored ones)
tree="$cache/tree"
rm -rf "$tree" && mkdir -p "$tree" "$cache/logs" && rm -f "$cache"/logs/*.log
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$root" && git ls-files -z --cached --others --exclude-standard |
        xargs -0 cp --parents -t "$tree") || die "cannot copy the kit into $tree"
else
    (cd "$root" && tar --exclude=./.deps --exclude=./out --exclude='*/build' -cf - .) |
        (cd "$tree" && tar -xf -) || die "cannot copy the kit into $tree"
fi
[ ! -d "$root/.deps/usr" ] || { mkdir -p "$tree/.deps" && ln -s "$root/.deps/usr" "$tree/.deps/usr"; }

# ---- build: the toolkit alone in sight (no CUDA 13 from /usr/local)
unset LIBRARY_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH NVCC_PREPEND_FLAGS NVCC_CCBIN
export PATH="$home/bin:$PATH"
sandbox=() hidden="/usr/local hidden"
for p in "$root" "$home" "$(command -v make)" "$(command -v gcc)" "$(command -v g++)"; do
    case $p/ in /usr/local/*) hidden="/usr/local not hidden: $p is there" ;; esac
done
if [ "$hidden" = "/usr/local hidden" ]; then
    if command -v bwrap >/dev/null 2>&1 && bwrap --dev-bind / / --tmpfs /usr/local true 2>/dev/null; then
        sandbox=(bwrap --dev-bind / / --tmpfs /usr/local --)
    else
        hidden="/usr/local not hidden (no bubblewrap)"
    fi
fi
jobs=$(nproc 2>/dev/null || echo 2)
mk() { "${sandbox[@]}" make -k -j"$jobs" --no-print-directory -C "$tree/$1" WERROR=1 CUDA_ARCH= \
           NVCC="$nvcc" CUDA_HOME="$home" all; }

# check_gpu DIR: a GPU lab's binaries hold sm_70 code and link the CUDA 12 runtime
check_gpu() {
    local b why=""
    for b in "$tree/$1"/lab[0-9][0-9] "$tree/$1"/lab[0-9][0-9]-ref; do
        if [ -x "$home/bin/cuobjdump" ] && ! "$home/bin/cuobjdump" --list-elf "$b" | grep -q 'sm_70'; then
            why="$why $(basename "$b") has no sm_70 code;"
        fi
        if readelf -d "$b" | grep -q 'libcudart\.so\.1[^2]'; then
            why="$why $(basename "$b") links another CUDA runtime;"
        fi
    done
    printf '%s' "$why"
}

say "building every lab with nvcc $release ($home; $hidden)"
ok=0 failed=0 names=()
b0=$SECONDS
if ! mk common >"$cache/logs/common.log" 2>&1; then
    failed=$((failed + 1)); names+=(common)
    printf '  %-22s FAILED (see %s)\n' common "$cache/logs/common.log"
    grep -i 'error' "$cache/logs/common.log" | grep -v -e '-Werror' | head -n 5 | sed 's/^/    /'
fi
for d in "$tree"/labs/[0-9][0-9]_*/ grading/; do
    d=${d#"$tree"/}; d=${d%/}
    name=${d#labs/}
    log="$cache/logs/$name.log"
    why=""
    if ! mk "$d" >"$log" 2>&1; then
        why="the build failed (see $log)"
    elif grep -q '^GPU *:= *1' "$tree/$d/Makefile" 2>/dev/null; then
        why=$(check_gpu "$d")
    fi
    if [ -z "$why" ]; then
        ok=$((ok + 1)); printf '  %-22s OK\n' "$name"
    else
        failed=$((failed + 1)); names+=("$name")
        printf '  %-22s FAILED: %s\n' "$name" "$why"
        grep -i 'error' "$log" | grep -v -e '-Werror' | head -n 5 | sed 's/^/    /'
    fi
done
arches=$("$home/bin/cuobjdump" --list-elf "$tree/labs/03_global_mem/lab03-ref" 2>/dev/null |
    sed -n 's/.*\.\(sm_[0-9]*\)\.cubin$/\1/p' | sort -u | paste -sd' ' -)
summary="CUDA $release (${arches:-sm_?}): $ok OK, $failed FAILED${names[*]:+ (${names[*]})}; build $((SECONDS - b0)) s, all $((SECONDS - start)) s"
say "$summary"
[ "$failed" -eq 0 ]
