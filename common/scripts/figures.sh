#!/usr/bin/env bash
# figures.sh - every lab's reference figures on this machine (make figures):
# each lab's `make figures` measures what its handout's figures table shows
# into labs/NN_name/figures/MACHINE.tsv (MACHINE: the GPU's name), then every
# handout's figures block is rendered from those files (make figures-table).
#
#   common/scripts/figures.sh [NN ...]      only those labs (e.g. 03 04)
#   KIT_FIGURES_FORCE=1                       measure even the labs that are up to date
#   KIT_FIGURES_TIMEOUT=S                     stop a lab's measuring after S seconds (failed)
#   KIT_FIGURES_DEADLINE=S                    measure within S seconds from now: a lab is begun
#                                             only when the time its figures took last (the
#                                             TSV's `# seconds:`, else 150) fits in what is
#                                             left, and stopped at the end (failed); one not
#                                             begun is said and stays as it is, not a failure
#                                             (gpu-run.sh's way: its later steps keep their time)
#   KIT_FIGURES_KNOWN=1                       only the labs with figures of this machine
#                                             committed (stale ones measured again); a lab
#                                             with none is said and left (gpu-run.sh's way:
#                                             a GPU model new to the kit takes about ten
#                                             minutes, more than a check's run has)
#
# A lab whose figures for this machine were measured from the very sources it
# runs now is up to date and not measured again. The sources are its files but
# the handouts and the figures, its solution and the kit's C library, named by
# a hash of their contents (`# sources:` in the TSV), so that a copy of the
# tree without .git (the GPU machine's) tells the same as a clone.
#
#   common/scripts/figures.sh --sources-hash NN   print lab NN's sources hash
#
# Provenance: the GPU, driver and CUDA of the runs, the host, the date, the
# commit ($KIT_COMMIT where the tree is a copy without .git), and the seconds the
# measuring took (`# seconds:`, for the next deadline). Without a CUDA
# device the GPU labs are skipped, said once. Exit 1 when a lab failed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH="$root/.deps/usr/bin:$PATH"
# sources_hash LAB: one hash of the files lab LAB runs (the same list and the
# same hash with or without git: the files are found by name, build outputs
# and handouts left out; the kit's GPU activity records only for a lab that builds them in;
# a lab that profiles adds its metric set as the grader resolves it).
# A Makefile's demo recipe (from `demo:` to the next
# blank line) is left out: make figures never runs it.
sources_hash() {
    { {
        find "labs/$1" "solutions/$1" \( -name out -o -name build -o -name figures -o -name __pycache__ \) -prune \
            -o -type f \( -name Makefile -o -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.py' \
            -o -name '*.awk' -o -name '*.sh' -o -name '*.gp' -o -name '*.mk' \) -print 2>/dev/null
        # the GPU activity records (cupti_*) only where the lab's Makefile builds them in
        find common \( -name build -o -name scripts \) -prune -o -type f \( -name '*.c' -o -name '*.h' \
            -o -name '*.cu' -o -name lab.mk -o -name config.mk \) -print |
            if grep -q cupti "labs/$1/Makefile" 2>/dev/null; then cat; else grep -v '^common/cupti_'; fi
    } | LC_ALL=C sort | while IFS= read -r f; do
        case $f in
            */Makefile) h=$(awk '/^demo:/ { skip = 1 } skip && /^$/ { skip = 0 } !skip' "$f" | sha256sum) ;;
            *) h=$(sha256sum <"$f") ;;
        esac
        printf '%s  %s\n' "${h%% *}" "$f"
    done
    # a lab whose figures hold profiler metrics: its metric set as the grader's tables
    # resolve it (names, Nsight Compute metrics, units), not the other labs' sets
    if grep -q '^FIGURES_RUN .*profile' "labs/$1/Makefile" 2>/dev/null; then
        h=$(grading/metrics list --set "lab${1%%_*}" 2>&1 | sha256sum)
        printf '%s  metric set lab%s\n' "${h%% *}" "${1%%_*}"
    fi
    } |
        sha256sum | cut -c1-16
}
if [ "${1:-}" = --sources-hash ]; then
    [ $# -eq 2 ] && [ -d "$(ls -d labs/"$2"_*/ 2>/dev/null | head -n 1)" ] ||
        { echo "figures: --sources-hash needs one lab number (e.g. 03)"; exit 2; }
    sources_hash "$(basename "$(ls -d labs/"$2"_*/ | head -n 1)")"
    exit 0
fi
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
# up_to_date LAB FILE: FILE was measured from the sources LAB has now
up_to_date() {
    measured_from=$(sed -n 's/^# sources: \([0-9a-f]\{16\}\)$/\1/p' "$2" 2>/dev/null | head -n 1)
    [ -n "$measured_from" ] && [ "$measured_from" = "$(sources_hash "$1")" ]
}
until=""
case ${KIT_FIGURES_DEADLINE:-} in
    '') ;;
    *[!0-9]*) echo "figures: KIT_FIGURES_DEADLINE must be whole seconds, not '$KIT_FIGURES_DEADLINE'"; exit 2 ;;
    *) until=$((SECONDS + KIT_FIGURES_DEADLINE)) ;;
esac
failed=() later=() t_all=$SECONDS
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
    if [ "${KIT_FIGURES_KNOWN:-0}" = 1 ] && [ ! -f "labs/$lab/figures/$slug.tsv" ]; then
        echo "not measured: no figures of $slug are committed (make figures measures them)"
        continue
    fi
    if [ "${KIT_FIGURES_FORCE:-0}" != 1 ] && up_to_date "$lab" "labs/$lab/figures/$slug.tsv"; then
        echo "up to date (measured from sources $measured_from)"
        continue
    fi
    cap=${KIT_FIGURES_TIMEOUT:-}
    if [ -n "$until" ]; then
        # the time this lab's figures took when last measured here (a guess without it)
        took=$(sed -n 's/^# seconds: \([0-9]\{1,\}\)$/\1/p' "labs/$lab/figures/$slug.tsv" 2>/dev/null | head -n 1)
        left=$((until - SECONDS))
        if [ "${took:-150}" -gt "$left" ]; then
            echo "not measured: it takes about ${took:-150} s, and ${left#-} s are left before the deadline (make figures measures it)"
            later+=("$lab")
            continue
        fi
        [ -n "$cap" ] && [ "$cap" -lt "$left" ] || cap=$left
    fi
    t0=$SECONDS
    mkdir -p "$root/out/figures"
    log="$root/out/figures/$lab.log"
    limit=()
    [ -n "$cap" ] && limit=(timeout -k 5 "$cap")
    if ${limit[@]+"${limit[@]}"} make -s -C "$d" figures MACHINE="$slug" DRIVER="$driver" COMMIT="$commit" \
        SOURCES="$(sources_hash "$lab")" >"$log" 2>&1; then
        # how long it took, for a later deadline (beside the provenance; no figure)
        tsv="labs/$lab/figures/$slug.tsv"
        [ -f "$tsv" ] && sed -i -e '/^# seconds: /d' -e "/^# sources: /a # seconds: $((SECONDS - t0))" "$tsv"
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
[ ${#later[@]} -eq 0 ] || echo "figures: not measured before the deadline: ${later[*]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "figures: FAILED: ${failed[*]}"
    exit 1
fi
exit 0
