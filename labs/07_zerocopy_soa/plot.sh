#!/usr/bin/env bash
# plot.sh OUT - lab 07's plots from make sweep (OUT/sweep.tsv) and make bench
# (OUT/bench.tsv), each as PNG and PDF in OUT:
#   sum        kernel ms and total ms against n, log-log, every variant
#              (pageable; v1 and v2 also with --pinned)
#   soa        median kernel ms of the four variants at the bench size (bars)
#              and GB/s against picture size (sweep)
#   transpose  GB/s of every variant at the bench size against the copy
#              ceiling of the same run (log scale, managed memory included),
#              and GB/s against matrix size (sweep)
# Needs gnuplot (with the cairo terminals); columns are found by their names.
set -u
out=${1:-out}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot is not installed (plot on another machine from the TSV files)"; exit 2; }
bench=$out/bench.tsv sweep=$out/sweep.tsv
[ -s "$bench" ] || [ -s "$sweep" ] || { echo "plot.sh: no $bench or $sweep: run make bench and make sweep first"; exit 2; }
dat=$out/plot
mkdir -p "$dat"

# select FILE PART VARIANT CONFIG-REGEX COLUMNS...: passing rows, the named columns
select_rows() {
    local file=$1 part=$2 v=$3 cfg=$4
    shift 4
    [ -s "$file" ] || return 0
    awk -F'\t' -v part="$part" -v v="$v" -v cfg="$cfg" -v cols="$*" '
        /^#/ { next }
        !head { for (i = 1; i <= NF; i++) c[$i] = i; n = split(cols, want, " "); head = 1; next }
        $c["part"] == part && (v == "*" || $c["variant"] == v) && $c["config"] ~ cfg && $c["status"] == "pass" {
            line = ""
            for (k = 1; k <= n; k++) line = line (k > 1 ? "\t" : "") $c[want[k]]
            print line
        }' "$file"
}
ceiling=$(awk '/^# copy ceiling: / { print $4; exit }' "$bench" 2>/dev/null)
ceiling=${ceiling:-0}

# draw NAME BODY: the gnuplot commands BODY into NAME.png and NAME.pdf
draw() {
    { printf 'set terminal pngcairo size 1100,560 font "sans,11"\nset output "%s.png"\n%s\n' "$1" "$2"
      printf 'set terminal pdfcairo size 11in,5.6in font "sans,10"\nset output "%s.pdf"\n%s\n' "$1" "$2"
    } | gnuplot && echo "wrote $1.png $1.pdf"
}

# ---------------------------------------------------------------- sum
if [ -s "$sweep" ]; then
    for v in 1 2 3 4; do
        select_rows "$sweep" sum $v 'pinned=0' width kernel_ms_median total_ms_median | sort -n >"$dat/sum-v$v.dat"
        select_rows "$sweep" sum $v 'pinned=1' width kernel_ms_median total_ms_median | sort -n >"$dat/sum-v$v-pinned.dat"
    done
    body=$(cat <<EOF
set logscale x 2
set logscale y 10
set xtics 4
set format x "2^{%L}"
set format y "10^{%L}"
set grid
set key top left
set xlabel "n (floats per vector)"
set multiplot layout 1,2 title "Lab 07, c = a + b: device memory and copies (v1), zero-copy (v2), managed (v3), managed + prefetch (v4)"
set title "kernel ms (the launcher alone: for v2-v4 it holds the transfers)"
set ylabel "ms (median)"
plot for [v=1:4] sprintf("$dat/sum-v%d.dat", v) using 1:2 with linespoints title sprintf("v%d", v)
set title "total ms (first byte in to last byte out)"
plot for [v=1:4] sprintf("$dat/sum-v%d.dat", v) using 1:3 with linespoints title sprintf("v%d pageable", v), \
     "$dat/sum-v1-pinned.dat" using 1:3 with linespoints dt 2 title "v1 pinned", \
     "$dat/sum-v2-pinned.dat" using 1:3 with linespoints dt 2 title "v2 pinned"
unset multiplot
EOF
)
    draw "$out/sum" "$body"
fi

# ---------------------------------------------------------------- soa
if [ -s "$bench" ]; then
    select_rows "$bench" soa '*' '.' variant name kernel_ms_median gbps >"$dat/soa-bars.dat"
    size=$(select_rows "$bench" soa '*' '.' width height | head -n1 | tr '\t' x)
    body=$(cat <<EOF
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.8
set grid ytics
set xtics rotate by -15
set key off
set yrange [0:*]
set multiplot layout 1,2 title "Lab 07, arrays of structs against structs of arrays, ${size} RGB floats"
set title "kernel ms (median)"
set ylabel "ms"
plot "$dat/soa-bars.dat" using 3:xtic(sprintf("v%d %s", \$1, strcol(2))) lc rgb "#4477aa"
set title "GB/s (bytes each variant must move / kernel time)"
set ylabel "GB/s"
plot "$dat/soa-bars.dat" using 4:xtic(sprintf("v%d %s", \$1, strcol(2))) lc rgb "#cc6677"
unset multiplot
EOF
)
    draw "$out/soa" "$body"
fi
if [ -s "$sweep" ]; then
    for v in 1 2 3 4; do
        select_rows "$sweep" soa $v '.' width height gbps | awk -F'\t' '{ print $1 * $2 "\t" $3 }' | sort -n >"$dat/soa-v$v.dat"
    done
    body=$(cat <<EOF
set logscale x
set grid
set key top left
set xlabel "pixels"
set ylabel "GB/s (bytes each variant must move / kernel time)"
set title "Lab 07, part soa against picture size"
plot for [v=1:4] sprintf("$dat/soa-v%d.dat", v) using 1:2 with linespoints title sprintf("v%d", v)
EOF
)
    draw "$out/soa-sweep" "$body"
fi

# ---------------------------------------------------------- transpose
if [ -s "$bench" ]; then
    { select_rows "$bench" transpose '*' 'managed=0' variant name gbps config | awk -F'\t' '{ print $1 "\t" $2 "\t" $3 }'
      select_rows "$bench" transpose '*' 'managed=1' variant name gbps | awk -F'\t' '{ print $1 "\t" $2 "-managed\t" $3 }'
    } >"$dat/tr-bars.dat"
    size=$(select_rows "$bench" transpose '*' '.' width height | head -n1 | tr '\t' x)
    body=$(cat <<EOF
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.8
set logscale y
set grid ytics
set xtics rotate by -20
set key top right
set ylabel "GB/s (read + written, log scale)"
set title "Lab 07, transpose of ${size} floats: effective bandwidth against the copy ceiling (${ceiling} GB/s)"
plot "$dat/tr-bars.dat" using 3:xtic(sprintf("v%d %s", \$1, strcol(2))) lc rgb "#4477aa" title "kernel", \
     ($ceiling > 0 ? $ceiling : 1/0) with lines lw 2 lc rgb "#cc3311" title "copy ceiling"
EOF
)
    draw "$out/transpose" "$body"
fi
if [ -s "$sweep" ]; then
    for v in 1 2 3 4 5; do
        select_rows "$sweep" transpose $v 'managed=0' width height gbps | awk -F'\t' '{ print $1 * $2 "\t" $3 }' | sort -n >"$dat/tr-v$v.dat"
    done
    body=$(cat <<EOF
set logscale x
set grid
set key bottom right
set xlabel "elements"
set ylabel "GB/s (read + written)"
set title "Lab 07, transpose against matrix size"
plot for [v=1:5] sprintf("$dat/tr-v%d.dat", v) using 1:2 with linespoints title sprintf("v%d", v)
EOF
)
    draw "$out/transpose-sweep" "$body"
fi
