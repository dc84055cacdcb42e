#!/usr/bin/env bash
# table.sh FILE.tsv - lab 07's results as tables, one per part, in the order
# of the file: median kernel and total ms, GB/s (bytes a variant must move /
# median kernel time) and, for the kernel-span parts, its share of the copy
# ceiling measured in the same run (the file's "# copy ceiling:" line).
# Columns are found by their header names.
set -u
f=${1:?usage: table.sh FILE.tsv}
[ -s "$f" ] || { echo "table.sh: $f is missing or empty" >&2; exit 2; }
ceil=$(awk '/^# copy ceiling: / { print $4; exit }' "$f")
awk -F'\t' -v ceil="${ceil:-0}" '
    /^#/ { next }
    !head { for (i = 1; i <= NF; i++) c[$i] = i; head = 1; next }
    {
        part = $c["part"]
        if (part != last) {
            printf "\npart %s%s\n", part, (ceil > 0 && part != "sum") ? sprintf(" (copy ceiling %.0f GB/s)", ceil) : ""
            printf "%-3s %-17s %-12s %-34s %11s %11s %9s %6s %s\n", "v", "name", "size", "config",
                   "kernel ms", "total ms", "GB/s", "%ceil", "status"
            last = part
        }
        size = (part == "sum") ? $c["width"] : $c["width"] "x" $c["height"]
        g = $c["gbps"]
        pct = (ceil > 0 && part != "sum" && g != "nan") ? sprintf("%.1f", 100 * g / ceil) : "-"
        printf "%-3s %-17s %-12s %-34s %11s %11s %9s %6s %s\n", $c["variant"], $c["name"], size,
               $c["config"], $c["kernel_ms_median"], $c["total_ms_median"], g, pct, $c["status"]
    }' "$f"
