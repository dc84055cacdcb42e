#!/usr/bin/env bash
# bench-summary.sh BENCH.tsv [PEERS.tsv] - lab 04's bench in one table: each
# variant's median kernel time against the byte floor (the bytes a variant
# must move at the copy ceiling measured in the same run; for part sep both
# passes, 4 x 8 bytes a cell), its total time with the copies, and the peers
# (lab 03's fastest variant, CuPy) on the same pictures.
tsv=$1 peers=${2:-}
ceil=$("$(dirname "$0")/../../../common/scripts/ceiling.sh" "$tsv")
awk -F'\t' -v ceil="$ceil" -v peers="$peers" '
    /^#/ || $1 == "lab" { next }
    {
        part = ($21 == "-" ? "" : $21)
        cells = $4 * $5
        bytes = (part == "sep") ? 4 * 8 * cells : 2 * 3 * cells
        floor = (ceil > 0) ? bytes / (ceil * 1e6) : 0
        x = (floor > 0 && $10 != "nan") ? sprintf("%.2f", $10 / floor) : "-"
        printf "%-5s %-4s %-2s %-16s %-10s %-13s %-26s %10s %7s %10s %s\n", "lab" $1, part, $2, $3, $4 "x" $5, $6, $20, $10, x, $13, $18
        if (part == "rgb" && $2 == 6) v6[$4 "x" $5] = $10
        if (part == "sep" && $2 == 1 && $20 ~ /pinned=0/) first = $11
        if (part == "sep" && $2 == 3 && $20 ~ /pinned=1/) opt = $11
        if ($1 == "03") l03[$4 "x" $5] = $10
    }
    BEGIN {
        printf "%-5s %-4s %-2s %-16s %-10s %-13s %-26s %10s %7s %10s %s\n", "lab", "part", "v", "name", "size", "param", "config", "kernel_ms", "x floor", "total_ms", "status"
    }
    END {
        if (ceil > 0) printf "copy ceiling %.1f GB/s (this run); x floor = kernel ms / (bytes a variant must move / ceiling)\n", ceil
        if (first > 0 && opt > 0)
            printf "the report'"'"'s step 1 on this GPU: sep v1 pageable %.3f ms -> v3 pinned %.3f ms with the copies, %.2fx (K80: 2.27x)\n", first, opt, first / opt
        for (s in v6) if (s in l03 && v6[s] > 0) printf "lab 04 v6 is %.2fx as fast as lab 03'"'"'s planar-words at %s\n", l03[s] / v6[s], s
        if (peers != "" && (getline line < peers) > 0) {
            while ((getline line < peers) > 0) {
                split(line, p, "\t")
                printf "peer  %-4s    %-16s %-10s %-13s %-26s %10s\n", p[2], p[1], p[3] "x" p[4], p[5], "reps=" p[6], p[7]
                if (p[2] == "rgb" && (p[3] "x" p[4]) in v6 && v6[p[3] "x" p[4]] > 0)
                    printf "lab 04 v6 is %.2fx as fast as %s at %s\n", p[7] / v6[p[3] "x" p[4]], p[1], p[3] "x" p[4]
            }
        }
    }' "$tsv"
