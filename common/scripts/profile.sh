#!/usr/bin/env bash
# profile.sh - the course's profiler metrics per variant with grading/metrics (Nsight
# Compute, the metric set SET), printed under the course's legacy names, in one of two forms:
#   profile.sh BIN SET SIZE "V[:LAUNCHES[:ARG,ARG]] ..." OUT.tsv
#       each variant V (label vV), counting the first LAUNCHES kernels of its run (default 1:
#       the warm-up's), with the extra arguments ARG; SIZE is WxH, or the lab's own size
#       options starting with --, commas for spaces (--rows=4000,--cols=4000)
#   profile.sh --runs BIN SET "LABEL:KERNEL:ARG,ARG ..." OUT.tsv
#       each run LABEL with its arguments, counting the first launch of the kernels whose
#       name starts with KERNEL
# KIT_PROFILE_JOBS=N runs up to N at once (default 1, one by one). Nsight Compute profiles
# one kernel at a time across processes (its lock), so start-ups and the programs' own work
# overlap; a kernel's own counters (efficiencies, transactions, bank conflicts) stay its
# own, but device-wide rates (DRAM or PCIe throughput) can take in another program's copies.
# Lab 04 runs its set 8 at once (on the H200 the values differed no more than between two
# runs one by one; its DRAM rates, measured so too, came to each kernel's own bytes over its
# time: sep v1 and v3 read and wrote about the 537 MB plane a pass); the others one by one.
# OUT.tsv keeps the order given.
# Without ncu or counter permission: says why once, exit 0 (timings stay available from
# make bench). A variant not written yet (the program's exit 4) is skipped and said. A run
# that fails otherwise: its label and its output's last lines, exit 1.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
jobs=()          # one entry per run: LABEL|KERNEL|LAUNCHES|ARGS (ARGS with spaces)
if [ "${1:-}" = --runs ]; then
    [ $# -eq 5 ] || { echo "usage: profile.sh --runs BIN SET \"LABEL:KERNEL:ARG,ARG ...\" OUT.tsv" >&2; exit 2; }
    bin=$2 set=$3 out=$5
    for spec in $4; do
        IFS=: read -r label kern args <<<"$spec"
        jobs+=("$label|^$kern|1|${args//,/ }")
    done
else
    [ $# -eq 5 ] || { echo "usage: profile.sh BIN SET SIZE \"V[:LAUNCHES[:ARG,ARG]] ...\" OUT.tsv" >&2; exit 2; }
    bin=$1 set=$2 size=$3 out=$5
    case $size in
        --*) size_args=${size//,/ } ;;
        *) size_args="--size $size" ;;
    esac
    for spec in $4; do
        IFS=: read -r v n extra <<<"$spec"
        jobs+=("v$v||${n:-1}|--variant $v $size_args ${extra//,/ }")
    done
fi
most=${KIT_PROFILE_JOBS:-1}
case $most in '' | *[!0-9]* | 0) most=1 ;; esac
rm -f "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one I: run job I under grading/metrics; its table, messages and status in $tmp/I.*
one() {
    local label kern n args
    IFS='|' read -r label kern n args <<<"${jobs[$1]}"
    local k=()
    [ -n "$kern" ] && k=(--kernel "$kern")
    # shellcheck disable=SC2086
    "$root/grading/metrics" run --set "$set" --label "$label" "${k[@]}" --launch-count "$n" -- \
        "$bin" $args --reps 1 --quiet >"$tmp/$1.tsv" 2>"$tmp/$1.err"
    echo $? >"$tmp/$1.rc"
}
running=0
for i in "${!jobs[@]}"; do
    if [ "$running" -ge "$most" ]; then wait -n; running=$((running - 1)); fi
    one "$i" &
    running=$((running + 1))
done
wait

for i in "${!jobs[@]}"; do
    rc=$(cat "$tmp/$i.rc" 2>/dev/null || echo 1)
    label=${jobs[$i]%%|*}
    case $rc in
        0) cat "$tmp/$i.err" >&2        # the metrics tool's warnings, as one by one
           if [ -s "$out" ]; then tail -n +2 "$tmp/$i.tsv" >>"$out"; else cat "$tmp/$i.tsv" >"$out"; fi ;;
        4) echo "profile: $label not written yet (the program says not implemented): skipped" ;;
        5|6) cat "$tmp/$i.err" >&2; rm -f "$out"
             echo "profile: carrying on with timings only (make bench)"; exit 0 ;;
        *) tail -n 12 "$tmp/$i.err" >&2; rm -f "$out"
           echo "profile: $label failed (exit $rc)"; exit 1 ;;
    esac
done
[ -s "$out" ] || { echo "profile: nothing profiled: no variant is written yet"; exit 0; }
"$root/grading/metrics" table "$out"
echo "wrote $out"
