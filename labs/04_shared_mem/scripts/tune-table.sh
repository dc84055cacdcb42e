#!/usr/bin/env bash
# tune-table.sh RUNS.tsv - make tune's runs, fastest first within each part,
# with the byte floor of each (the ceiling of the same run), and the best
# configuration of rgb v6 and sep v4 on the last lines.
runs=$1
ceil=$("$(dirname "$0")/../../../common/scripts/ceiling.sh" "$runs")
awk -F'\t' -v ceil="$ceil" '
    /^#/ || $1 == "lab" || $18 != "pass" { next }
    {
        floor = ceil > 0 ? ($21 == "sep" ? 32 : 6) * $4 * $5 / (ceil * 1e6) : 0
        x = floor > 0 ? sprintf("%.2f", $10 / floor) : "-"
        printf "%s\t%s\t%s\t%.4f\t%s\n", $21, $10, $20, $10, x
    }' "$runs" | sort -t$'\t' -k1,1 -k2,2g | awk -F'\t' '
    BEGIN { printf "%-4s %-36s %10s %8s\n", "part", "config", "kernel_ms", "x floor" }
    { printf "%-4s %-36s %10s %8s\n", $1, $3, $4, $5; if (!($1 in best)) best[$1] = $3 " (" $4 " ms, " $5 "x the floor)" }
    END { for (p in best) printf "best %s: %s\n", p, best[p] }'
