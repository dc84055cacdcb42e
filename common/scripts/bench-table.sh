#!/usr/bin/env bash
# bench-table.sh FILE.tsv - a short table of a results file: one line per
# row, median times, GB/s and the share of the copy ceiling when recorded.
f=$1
ceil=$("$(dirname "$0")/ceiling.sh" "$f")
awk -F'\t' -v ceil="$ceil" '
    /^#/ { next }
    $1 == "lab" { printf "%-4s %-2s %-14s %-10s %-10s %-24s %11s %11s %9s %7s %s\n", "lab", "v", "name", "size", "param", "config", "kernel_ms", "total_ms", "GB/s", "%ceil", "status"; next }
    {
        pct = (ceil > 0 && $14 != "nan") ? sprintf("%.1f", 100 * $14 / ceil) : "-"
        printf "%-4s %-2s %-14s %-10s %-10s %-24s %11s %11s %9s %7s %s\n", $1, $2, substr($3, 1, 14), $4 "x" $5, $6, $20, $10, $13, $14, pct, $18
    }' "$f"
