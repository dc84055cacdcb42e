# grading/plot_metrics.gp - profiler metrics as grouped bars, one bar per variant (label).
#
#   gnuplot -e "in='profile.tsv'; out='metrics'" grading/plot_metrics.gp
#
# `in` is a TSV made by `grading/metrics run --label ...` (columns label kernel launch block grid
# legacy metric value unit). gnuplot cannot pivot that long format itself, so `grading/metrics
# pivot` writes one small table per panel (rows: legacy metrics, columns: variants, mean over
# launches) and meta.gp (counts, names) into a temporary folder. `grading/metrics plot` does that
# first and passes the folder as `pivot`; called on its own, this script runs the pivot itself.
# Panels (only those with data): percentages (efficiencies, utilization, occupancy), counts
# (transactions, bank conflicts), throughputs in GB/s, shared memory per block in bytes (static
# and dynamic: launch attributes), the rest (duration in us, ratios).
# One legend at the top; a variant keeps its colour in every panel. A label with several kernels
# gets one bar per kernel ("label: kernel"). Writes out.png (pngcairo) and out.pdf (pdfcairo).

if (!exists("in")) {
    print "plot_metrics.gp: no input; use gnuplot -e \"in='profile.tsv'; out='metrics'\" plot_metrics.gp"
    exit status 2
}
if (!exists("out")) { out = "metrics" }

cleanup = 0
if (!exists("pivot")) {
    # called on its own: pivot with the metrics tool that sits next to this script
    here = system("dirname '" . ARG0 . "'")
    pivot = system("mktemp -d")
    cleanup = 1
    ok = system("'" . here . "/metrics' pivot '" . in . "' '" . pivot . "' && echo ok")
    if (ok ne "ok") { system("rm -rf '" . pivot . "'"); exit status 2 }
}
load pivot . "/meta.gp"

npanel = words(panels)
if (npanel < 1) { print "plot_metrics.gp: nothing to plot"; exit status 2 }
ncols = (npanel >= 3) ? 2 : 1
nrows = (npanel + ncols - 1) / ncols

# panel name -> title, y label, format of the value printed above each bar
ptitle(p) = (p eq "pct") ? "Efficiency, utilization, occupancy" : \
            (p eq "cnt") ? "Transactions and bank conflicts (per launch)" : \
            (p eq "thr") ? "Throughput" : \
            (p eq "mem") ? "Shared memory per block (launch)" : "Other metrics"
pylabel(p) = (p eq "pct") ? "%" : (p eq "cnt") ? "count" : (p eq "thr") ? "GB/s" : \
             (p eq "mem") ? "bytes" : "value (unit in brackets)"
plabel(p, v) = (v != v) ? "" : \
               (p eq "pct") ? sprintf("%.1f", v) : \
               (v == 0) ? "0" : \
               (p eq "cnt") ? gprintf("%.1s%c", v) : \
               (p eq "thr") ? sprintf(v >= 100 ? "%.0f" : "%.1f", v) : \
               (p eq "mem") ? sprintf("%.0f", v) : \
               sprintf(v >= 100 ? "%.0f" : "%.3g", v)

gap = 1   # must match "clustered gap 1" below
# x of bar k (1-based) in row x0 of a clustered histogram of nc series
barx(x0, k, nc) = x0 - 0.5 + (gap / 2.0 + k - 0.5) / (nc + gap)

set datafile separator "\t"
set datafile missing "NaN"
set datafile columnheaders
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "#333333"
set boxwidth 1.0 relative
set grid ytics lc rgb "#dddddd"
set xtics nomirror rotate by 20 right font ",9"
set ytics nomirror
set border 3
set offsets 0, 0, graph 0.14, 0
set macros
# value labels above the bars: upright for one or two variants, turned when bars are narrow
labstyle = (nser > 2) ? "rotate by 90 left offset 0, 0.3 font \",7\"" : "center offset 0, 0.6 font \",7\""
# colour-blind-safe palette (Paul Tol), repeated after 7 variants
array pal[7] = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb"]
do for [i = 1:7] { set linetype i lc rgb pal[i] }
set linetype cycle 7

# layout in pixels of the PNG (the PDF keeps the proportions): a header with the title and the
# shared legend (as many columns as fit the first panel, as gnuplot does), then the panels; the margins and spacing
# leave room for the turned metric names under each panel and the panel titles
keycols = int(600.0 / (maxlen * 6.5 + 60)); keycols = (keycols < 1) ? 1 : keycols
keyrows = (nser + keycols - 1) / keycols
headpx = 30 + 18 * keyrows
hpx = 430 * nrows + headpx
topfrac = 1.0 - (headpx + 26.0) / hpx
botfrac = 80.0 / hpx
yspace = (80.0 + 34.0) / hpx

do for [t = 1:2] {
    if (t == 1) {
        set terminal pngcairo noenhanced size 700 * ncols, hpx font "Sans,10"
        set output out . ".png"
    } else {
        set terminal pdfcairo noenhanced size 5.0 * ncols, hpx / 140.0 font "Sans,9"
        set output out . ".pdf"
    }
    set multiplot layout nrows, ncols title "Profiler metrics (legacy nvprof names): " . in \
        margins 80.0 / (700 * ncols), 1.0 - 20.0 / (700 * ncols), botfrac, topfrac spacing 110.0 / (700 * ncols), yspace
    first = 1
    do for [p in panels] {
        f = pivot . "/" . p . ".dat"
        set title ptitle(p)
        set ylabel pylabel(p)
        # an all-zero panel (no bank conflicts) gets a 0..1 axis instead of milli-counts
        if (value("max_" . p) > 0) { set yrange [0:*]; set ytics auto } else { set yrange [0:1]; set ytics 1 }
        set format y (p eq "cnt") ? "%.1s%c" : "%g"
        # only the variants with a value in this panel, each in its own colour
        c = value("cols_" . p)
        if (first) {
            set key at screen 0.5, screen 1.0 - 28.0 / hpx center top horizontal \
                samplen 1.5 spacing 1.1 width 1 font ",9"
            plot for [k = 1:words(c)] f using (column(int(word(c, k)))):xtic(1) notitle lt (int(word(c, k)) - 1), \
                 for [k = 1:words(c)] f using (barx($0, k, words(c))):(column(int(word(c, k)))):(plabel(p, column(int(word(c, k))))) \
                     with labels @labstyle notitle, \
                 for [i = 1:nser] keyentry with boxes fs solid 0.85 lt i title value(sprintf("ser_%d", i))
            first = 0
        } else {
            unset key
            plot for [k = 1:words(c)] f using (column(int(word(c, k)))):xtic(1) notitle lt (int(word(c, k)) - 1), \
                 for [k = 1:words(c)] f using (barx($0, k, words(c))):(column(int(word(c, k)))):(plabel(p, column(int(word(c, k))))) \
                     with labels @labstyle notitle
        }
    }
    unset multiplot
    unset output
}

if (cleanup) { system("rm -rf '" . pivot . "'") }
