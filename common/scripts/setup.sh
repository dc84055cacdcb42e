#!/usr/bin/env bash
# setup.sh - install what the kit needs and is missing; fast when all is there.
#
#   common/scripts/setup.sh [--quiet]
#   common/scripts/setup.sh --local     unpack stb, cmocka, bats and bubblewrap into .deps/
#                                       even where they are installed, and pack gnuplot there
#                                       (gnuplot-bundle.sh), to carry the folder to a GPU
#                                       machine that has no package registry
#   common/scripts/setup.sh --slurm     as root: Slurm and munge, for the grader's cluster
#                                       tests only (tests/slurm); nobody else gets them
#
# Needed: libstb-dev (image I/O), libcmocka-dev (unit tests), bats
# (command-line tests). Wanted: gnuplot (plots), bubblewrap (grading sandbox),
# similarity-tester (the grader's similarity report).
# The CUDA toolkit is not installed here (see README.md).
# As root with apt-get: installs the Debian packages. Otherwise: prints the
# exact command to run, and unpacks the needed packages into .deps/ (a local
# prefix the build and the tests then use), for shared machines without root.
set -u
quiet=0 local_only=0
[ "${1:-}" = "--quiet" ] && quiet=1
[ "${1:-}" = "--local" ] && local_only=1
root=$(cd "$(dirname "$0")/../.." && pwd)
deps="$root/.deps"
say() { [ "$quiet" = 1 ] || echo "setup: $*"; }

if [ "${1:-}" = "--slurm" ]; then
    for p in slurmctld slurmd sbatch munged; do
        command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || miss=1
    done
    [ "${miss:-0}" = 1 ] || exit 0
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "setup: Slurm is missing; as root: apt-get install -y slurmctld slurmd slurm-client munge" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/tmp/kit-setup.log 2>&1 ||
        { apt-get update -qq >>/tmp/kit-setup.log 2>&1 &&
          apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >>/tmp/kit-setup.log 2>&1; } ||
        { echo "setup: apt-get install of Slurm failed; see /tmp/kit-setup.log" >&2; exit 1; }
    exit 0
fi

if [ "$local_only" = 1 ]; then
    mkdir -p "$deps/debs"
    ( cd "$deps/debs" && apt-get download libstb-dev libstb0 libcmocka-dev libcmocka0 bats bubblewrap ) ||
        { echo "setup: apt-get download failed" >&2; exit 1; }
    for f in "$deps"/debs/*.deb; do dpkg -x "$f" "$deps"; done
    rm -rf "$deps/debs"
    # gnuplot too, packed with its libraries (the GPU machine has none)
    PATH="/usr/bin:$PATH" "$root/common/scripts/gnuplot-bundle.sh" ||
        echo "setup: no gnuplot bundle (plots will be skipped where gnuplot is missing)" >&2
    echo "setup: unpacked into $deps (carry it; PATH=$deps/usr/bin:\$PATH)"
    exit 0
fi

have_file() { [ -e "$1" ] || [ -e "$deps$1" ]; }
have_cmd() { command -v "$1" >/dev/null 2>&1 || [ -x "$deps/usr/bin/$1" ]; }

need=() want=()
have_file /usr/include/stb/stb_image.h || need+=(libstb-dev)
have_file /usr/include/cmocka.h || need+=(libcmocka-dev)
have_cmd bats || need+=(bats)
have_cmd gnuplot || want+=(gnuplot-nox)
have_cmd bwrap || want+=(bubblewrap)
have_cmd sim_c || want+=(similarity-tester)
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] ||
    say "note: nvcc not found; install the CUDA Toolkit to build the GPU labs"

[ ${#need[@]} -eq 0 ] && [ ${#want[@]} -eq 0 ] && exit 0

all=("${need[@]}" "${want[@]}")
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing ${all[*]}"
    export DEBIAN_FRONTEND=noninteractive
    log=/tmp/kit-setup.log
    # no waiting on a network that is not there: one try, short timeouts
    quick=(-o Acquire::Retries=0 -o Acquire::http::Timeout=15 -o Acquire::https::Timeout=15)
    apt-get install -y -qq --no-install-recommends "${quick[@]}" "${all[@]}" >"$log" 2>&1 && exit 0
    # the package lists may only be old: fetch them once. When that fails too
    # (apt-get update exits 0 for an index it could not fetch), no registry
    # answers, and the next package would fare no better.
    updated=$(apt-get update -qq "${quick[@]}" -o APT::Update::Error-Mode=any 2>&1)
    rc=$?
    printf '%s\n' "$updated" >>"$log"
    if [ $rc -ne 0 ] || [[ $updated == *"Failed to fetch"* || $updated == *"index files failed to download"* ]]; then
        echo "setup: no package registry answers (no network?), so nothing can be installed;" \
            "missing${need[*]:+ ${need[*]} (needed)}${want[*]:+ ${want[*]} (wanted)}; see $log" >&2
        [ ${#need[@]} -eq 0 ] || exit 1
        exit 0
    fi
    apt-get install -y -qq --no-install-recommends "${all[@]}" >>"$log" 2>&1 || {
        echo "setup: apt-get install ${all[*]} failed; see $log" >&2
        [ ${#need[@]} -eq 0 ] || exit 1
    }
    exit 0
fi

echo "setup: missing ${all[*]}. With administrator rights run:"
echo "    sudo apt-get install -y ${all[*]}"
[ ${#need[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
    echo "setup: no apt-get here: install ${need[*]} (or your system's equivalents) by hand" >&2
    exit 1
fi
# Without root: unpack the needed packages (and their libraries) into .deps/.
pkgs=()
for p in "${need[@]}"; do
    case $p in
        libstb-dev) pkgs+=(libstb-dev libstb0) ;;
        libcmocka-dev) pkgs+=(libcmocka-dev libcmocka0) ;;
        *) pkgs+=("$p") ;;
    esac
done
say "unpacking ${pkgs[*]} into $deps (no root needed)"
mkdir -p "$deps/debs"
( cd "$deps/debs" && apt-get download "${pkgs[@]}" >/dev/null 2>&1 ) || {
    echo "setup: apt-get download ${pkgs[*]} failed; install them by hand" >&2
    exit 1
}
for f in "$deps"/debs/*.deb; do dpkg -x "$f" "$deps"; done
say "done: the build and the tests use $deps/usr; add $deps/usr/bin to PATH for bats"
exit 0
