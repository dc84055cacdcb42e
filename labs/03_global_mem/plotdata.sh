#!/bin/sh
# plotdata.sh BENCH.tsv OUTDIR - the tables plot.gp draws, from make bench's
# results file (columns found by their header names, so the file's layout
# may grow):
#   OUTDIR/time.dat  at the largest picture, one line per variant: name,
#                    kernel ms, total ms pageable, total ms pinned (medians)
#   OUTDIR/gbps.dat  one block per variant 1..8 (pageable runs), lines of
#                    megapixels and GB/s, blocks separated by two blank lines
set -eu
in=$1 outdir=$2
awk -F'\t' -v outdir="$outdir" '
    /^#/ { next }
    !hdr { hdr = 1; for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["status"] != "pass" { next }
    {
        v = $c["variant"] + 0; w = $c["width"]; h = $c["height"]; px = w * h
        pin = ($c["config"] ~ /pinned=1/)
        name[v] = $c["name"]
        if (!pin) { n[v]++; mp[v, n[v]] = px / 1e6; gb[v, n[v]] = $c["gbps"] }
        if (px > big) big = px
        key = v SUBSEP px
        if (pin) tpin[key] = $c["total_ms_median"]
        else { k[key] = $c["kernel_ms_median"]; tpag[key] = $c["total_ms_median"] }
    }
    END {
        t = outdir "/time.dat"; g = outdir "/gbps.dat"
        printf "" > t; printf "" > g
        for (v = 1; v <= 8; v++) {
            key = v SUBSEP big
            if (key in k)
                printf "%s\t%s\t%s\t%s\n", name[v], k[key], tpag[key], (key in tpin ? tpin[key] : "NaN") > t
            printf "# v%d %s\n", v, (v in name ? name[v] : "-") > g
            if (!n[v]) print "NaN\tNaN" > g
            for (i = 1; i <= n[v]; i++) printf "%s\t%s\n", mp[v, i], gb[v, i] > g
            printf "\n\n" > g
        }
    }' "$in"
# the largest picture, for the title
awk -F'\t' '/^#/ { next } !hdr { hdr = 1; for (i = 1; i <= NF; i++) c[$i] = i; next }
    { p = $c["width"] * $c["height"]; if (p > m) { m = p; s = $c["width"] "x" $c["height"] } }
    END { print s }' "$in" >"$outdir/big.txt"
