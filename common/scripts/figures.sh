#!/usr/bin/env bash
# figures.sh - every lab's reference figures on this machine (make figures):
# each lab's `make figures` measures what its handout's figures table shows
# into labs/NN_name/figures/MACHINE.tsv (MACHINE: the GPU's name), then every
# handout's figures block is rendered from those files (make figures-table).
#
#   common/scripts/figures.sh [NN ...]      only those labs (e.g. 03 04)
#   KIT_FIGURES_FORCE=1                       measure even the labs that are up to date
#   KIT_FIGURES_TIMEOUT=S                     stop a lab's measuring after S seconds (failed)
#
# A lab whose figures for this machine were measured at a commit since which
# nothing it runs has changed (its sources but the handout and the figures, its
# solution, the kit's C library) is up to date and not measured again.
#
# Provenance: the GPU, driver and CUDA of the runs, the host, the date, and the
# commit ($KIT_COMMIT where the tree is a copy without .git). Without a CUDA
# device the GPU labs are skipped, said once. Exit 1 when a lab failed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH="$root/.deps/usr/bin:$PATH"
machine=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
# the commit measured: $KIT_COMMIT as given (a copy of a tree says which), else
# HEAD, marked when tracked files differ from it
commit=${KIT_COMMIT:-}
if [ -z "$commit" ]; then
    commit=$(git rev-parse --short=12 HEAD 2>/dev/null)
    [ -n "$commit" ] && [ -n "$(git status --porcelain -uno 2>/dev/null)" ] && commit="$commit+changes"
fi
gpu=1
if [ -z "$machine" ]; then
    gpu=0
    machine=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)
    echo "figures: no CUDA device here: the CPU labs only, named after this CPU"
fi
slug=$(printf '%s' "$machine" | sed 's/^ *//; s/[^A-Za-z0-9.]\{1,\}/-/g; s/-$//')
echo "figures: machine $slug, driver ${driver:--}, commit ${commit:--}"
# up_to_date LAB FILE: FILE was measured at a commit of this repository, and
# nothing the lab runs differs from it now (committed or not)
up_to_date() {
    measured_at=$(sed -n 's/^# commit: \([0-9a-f]\{7,40\}\).*/\1/p' "$2" 2>/dev/null | head -n 1)
    [ -n "$measured_at" ] && git cat-file -e "$measured_at^{commit}" 2>/dev/null || return 1
    set -- "labs/$1" ":!labs/$1/README*.md" ":!labs/$1/figures" "solutions/$1" \
        'common/*.c' 'common/*.h' 'common/*.cu' 'common/lab.mk' 'common/config.mk'
    git diff --quiet "$measured_at" -- "$@" 2>/dev/null
}
failed=() t_all=$SECONDS
for d in labs/*/; do
    lab=$(basename "$d")
    [ -f "$d/Makefile" ] || continue
    if [ $# -gt 0 ]; then
        want=0
        for n in "$@"; do [ "${lab%%_*}" = "$n" ] && want=1; done
        [ $want = 1 ] || continue
    fi
    if [ $gpu = 0 ] && grep -q '^GPU *:= *1' "$d/Makefile"; then continue; fi
    printf 'figures: %-18s ' "$lab"
    if [ "${KIT_FIGURES_FORCE:-0}" != 1 ] && up_to_date "$lab" "labs/$lab/figures/$slug.tsv"; then
        echo "up to date (measured at $measured_at)"
        continue
    fi
    t0=$SECONDS
    mkdir -p "$root/out/figures"
    log="$root/out/figures/$lab.log"
    limit=()
    [ -n "${KIT_FIGURES_TIMEOUT:-}" ] && limit=(timeout -k 5 "$KIT_FIGURES_TIMEOUT")
    if ${limit[@]+"${limit[@]}"} make -s -C "$d" figures MACHINE="$slug" DRIVER="$driver" COMMIT="$commit" >"$log" 2>&1; then
        # the seconds each measuring target took (lab.mk's figures-step lines)
        steps=$(sed -n 's/^figures-step: \([a-z0-9_-]*\) \([0-9]*\) s$/\1 \2/p' "$log" | paste -sd, | sed 's/,/, /g')
        echo "ok ($((SECONDS - t0)) s${steps:+: $steps})"
    else
        echo "FAILED ($((SECONDS - t0)) s), see out/figures/$lab.log:"
        tail -n 8 "$log" | sed 's/^/    /'
        failed+=("$lab")
    fi
    make -s -C "$d" figures-table >>"$log" 2>&1
done
echo "figures: $((SECONDS - t_all)) s in all"
if [ ${#failed[@]} -gt 0 ]; then
    echo "figures: FAILED: ${failed[*]}"
    exit 1
fi
exit 0
