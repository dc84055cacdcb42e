#!/usr/bin/env bash
# steps.sh LAB03_BIN LAB04_BIN OUT.tsv REPS ARGS... - the table of steps of
# the course's report on optimising a convolution (make steps): lab 03's
# global-memory steps and lab 04's shared-memory ones on one picture and
# filter (ARGS, by default the report's 2000x2000 edge detection), in one
# run: kernel time, time with the copies, and the speed-up of each step over
# the first. Lab 03's variants are found by name in its --help.
l03=$1 l04=$2 out=$3 reps=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
runs="$out.runs"
rm -f "$runs" "$out"
# step label, lab binary, part ("" for lab 03), variant name
steps=(
    "linear grid, filter in global memory|$l03||linear-grid"
    "2D grid of 2D blocks|$l03||2d-grid"
    "filter in constant memory|$l03||const-filter"
    "loops unrolled, one kernel per radius|$l03||unrolled"
    "planar channels (struct of arrays)|$l03||planar-bytes"
    "shared memory: 16x16 blocks, byte window, int sums|$l04|rgb|bytes-int"
    "shared memory: float window, padded rows|$l04|rgb|floats-padded"
    "shared memory: 32-wide blocks|$l04|rgb|floats-32wide"
    "lab 03's fastest: planar words and dp4a, global memory|$l03||planar-words"
    "shared tiles, planar words and dp4a|$l04|rgb|planar-dp4a"
)
i=0
printf 'step\tlab\tpart\tvariant\tname\twhat\tkernel_ms\ttotal_ms\tspeedup\n' >"$out"
for s in "${steps[@]}"; do
    IFS='|' read -r what bin part name <<<"$s"
    i=$((i + 1))
    lab=$(basename "$bin" | sed 's/^lab\([0-9]*\).*/\1/')
    if ! v=$("$here/variant-number.sh" "$bin" "$name" "$part"); then
        printf '%d\t%s\t%s\t-\t%s\t%s\tnan\tnan\tnan\n' "$i" "$lab" "${part:--}" "$name" "$what" >>"$out"
        continue
    fi
    rm -f "$runs"
    "$bin" ${part:+--part "$part"} --variant "$v" "$@" --reps "$reps" --results "$runs" --quiet
    rc=$?
    [ $rc = 77 ] && { echo "steps: no CUDA device, nothing measured"; rm -f "$out"; exit 0; }
    if [ $rc = 4 ]; then # a step not written yet: a row of nan, the others go on
        printf '%d\t%s\t%s\t%s\t%s\t%s\tnan\tnan\tnan\n' "$i" "$lab" "${part:--}" "$v" "$name" "$what" >>"$out"
        continue
    fi
    [ $rc = 0 ] || { echo "steps: lab $lab $name failed (exit $rc)"; exit 1; }
    awk -F'\t' -v i="$i" -v lab="$lab" -v part="${part:--}" -v what="$what" \
        '!/^#/ && $1 != "lab" { printf "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\n", i, lab, part, $2, $3, what, $10, $13 }' \
        "$runs" >>"$out"
done
rm -f "$runs"
# the speed-up of every step over the first
awk -F'\t' 'BEGIN { OFS = "\t" } NR == 1 { print; next }
    { if (base == "" && $7 != "nan") base = $7
      $9 = ($7 != "nan" && $7 > 0) ? sprintf("%.2f", base / $7) : "nan"; print }' "$out" >"$out.tmp" && mv "$out.tmp" "$out"
echo "| step | lab | variant | what changed | kernel ms | with copies, ms | speed-up over step 1 |"
echo "|---|---|---|---|---|---|---|"
awk -F'\t' 'NR > 1 { printf "| %s | %s%s | %s %s | %s | %s | %s | %s |\n", $1, $2, ($3 == "-" ? "" : " " $3), $4, $5, $6, $7, $8, $9 }' "$out"
echo "wrote $out"
