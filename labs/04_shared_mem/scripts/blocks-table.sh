#!/usr/bin/env bash
# blocks-table.sh RUNS.tsv OUT.tsv - the block-size study (make blocks): for
# rgb v5 and v6, the median kernel time of every block shape that ran.
# Writes OUT.tsv (variant, block width, height, threads, kernel ms, GB/s) for
# blocks.gp and prints, per variant, a grid of block width against height.
runs=$1 out=$2
awk -F'\t' '
    BEGIN { OFS = "\t"; print "variant", "bw", "bh", "threads", "kernel_ms", "gbps" }
    /^#/ || $1 == "lab" || $21 != "rgb" || $18 != "pass" { next }
    match($20, /block=[0-9]+x[0-9]+/) {
        split(substr($20, RSTART + 6, RLENGTH - 6), b, "x")
        print $2, b[1], b[2], b[1] * b[2], $10, $14
    }' "$runs" >"$out"
awk -F'\t' '
    NR == 1 { next }
    { t[$1, $2, $3] = $5; vs[$1] = 1; ws[$2] = 1; hs[$3] = 1
      if (!($1 in best) || $5 < best[$1]) { best[$1] = $5; bb[$1] = $2 "x" $3 } }
    END {
        nw = 0; for (w in ws) W[++nw] = w + 0
        nh = 0; for (h in hs) H[++nh] = h + 0
        for (i = 1; i <= nw; i++) for (j = i + 1; j <= nw; j++) if (W[j] < W[i]) { x = W[i]; W[i] = W[j]; W[j] = x }
        for (i = 1; i <= nh; i++) for (j = i + 1; j <= nh; j++) if (H[j] < H[i]) { x = H[i]; H[i] = H[j]; H[j] = x }
        for (v = 1; v <= 9; v++) {
            if (!(v in vs)) continue
            printf "rgb v%d: median kernel ms by block shape (width across, height down); best %s, %.4f ms\n", v, bb[v], best[v]
            printf "%6s", "h\\w"
            for (i = 1; i <= nw; i++) printf " %9d", W[i]
            printf "\n"
            for (j = 1; j <= nh; j++) {
                printf "%6d", H[j]
                for (i = 1; i <= nw; i++) printf " %9s", ((v, W[i], H[j]) in t) ? sprintf("%.4f", t[v, W[i], H[j]]) : "-"
                printf "\n"
            }
            printf "\n"
        }
    }' "$out"
echo "wrote $out"
