#!/usr/bin/env bash
# profile.sh BIN SET SIZE "V[:LAUNCHES[:ARG,ARG]] ..." OUT.tsv - profile each
# variant V with grading/metrics (Nsight Compute, the metric set SET), counting
# the first LAUNCHES kernels of its run (default 1: the warm-up's), with the
# extra arguments ARG, and print the metrics under the course's legacy names.
# SIZE is WxH, or the lab's own size options starting with --, commas for
# spaces (--rows=4000,--cols=4000). Without ncu or counter permission: says
# why, exit 0 (timings stay available from make bench).
set -u
bin=$1 set=$2 size=$3 variants=$4 out=$5
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -f "$out"
case $size in
    --*) size_args=${size//,/ } ;;
    *) size_args="--size $size" ;;
esac
for spec in $variants; do
    IFS=: read -r v n extra <<<"$spec"
    n=${n:-1}
    tmp=$(mktemp)
    # shellcheck disable=SC2086
    "$root/grading/metrics" run --set "$set" --label "v$v" --launch-count "$n" -- \
        "$bin" --variant "$v" $size_args --reps 1 --quiet ${extra//,/ } >"$tmp"; rc=$?
    case $rc in
        0) if [ -s "$out" ]; then tail -n +2 "$tmp" >>"$out"; else cat "$tmp" >"$out"; fi ;;
        5|6) rm -f "$tmp"; echo "profile: carrying on with timings only (make bench)"; exit 0 ;;
        *) rm -f "$tmp"; echo "profile: variant $v failed (exit $rc)"; exit 1 ;;
    esac
    rm -f "$tmp"
done
"$root/grading/metrics" table "$out"
echo "wrote $out"
