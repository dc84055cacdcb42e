#!/usr/bin/env bash
# sweep-table.sh RUNS.tsv OUT.tsv - part sep over the radius (make sweep):
# per variant and radius, the mean kernel time of both passes, the copy time
# (total - kernel: the plane in and the result out), their ratio and the
# total, as course guide's step 2 tables them (mean and standard deviation
# of the timed runs, the fastest and slowest dropped). Writes OUT.tsv for
# sweep.gp and prints one table per variant.
runs=$1 out=$2
awk -F'\t' '
    BEGIN { OFS = "\t"; print "variant", "name", "radius", "kernel_ms", "kernel_std", "copy_ms", "ratio", "total_ms", "total_std" }
    /^#/ || $1 == "lab" || $21 != "sep" || $18 != "pass" { next }
    {
        split($6, p, " r"); r = p[2] + 0
        copy = $11 - $8
        print $2, $3, r, $8, $9, copy, (copy > 0 ? $8 / copy : "nan"), $11, $12
    }' "$runs" | { read -r head; echo "$head"; sort -t$'\t' -k1,1n -k3,3n; } >"$out"
awk -F'\t' '
    NR == 1 { next }
    $1 != v {
        if (v != "") print ""
        v = $1
        printf "sep v%s %s (ms; mean of the timed runs)\n", $1, $2
        printf "%8s %12s %10s %12s %14s %12s %10s\n", "radius", "kernel", "std", "copies", "kernel/copy", "total", "std"
    }
    { printf "%8d %12.4f %10.4f %12.4f %14.4f %12.4f %10.4f\n", $3, $4, $5, $6, $7, $8, $9 }' "$out"
echo "wrote $out"
