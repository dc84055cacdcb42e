# plot.gp - lab 02's plots (make plot runs it):
#   gnuplot -e "in='out/bench.tsv'; curves='out/curves.tsv'; bars='out/bars.tsv'; outdir='out'" plot.gp
# speedup.png/.pdf  left: speedup over v0 on one thread against threads, per
#                   variant, with the ideal line (v0's time / threads);
#                   right: each variant against its own one-thread time.
# time.png/.pdf     median time per variant at the most threads measured,
#                   v0 and v3 on one thread, and the OpenCV peer when present.
# Columns of the kit's TSV: 2 variant, 10 kernel_ms_median, 18 status, 19 threads.

if (!exists("in")) in = "out/bench.tsv"
if (!exists("bars")) bars = "out/bars.tsv"
if (!exists("curves")) curves = "out/curves.tsv"
if (!exists("outdir")) outdir = "out"
set datafile separator "\t"
set datafile missing "nan"

# curves.tsv (from bench/summary.awk): blocks v1 v2 v4 v5 v3, rows of
# threads, median ms, that variant's ms on 1 thread, v0's ms on 1 thread
# tmax, img_w, img_h, t_v0 (NaN while v0 has not passed): make plot gives
# them (bench/summary.awk, mode=facts); else they come from the TSV
if (!exists("tmax")) {
    stats in using (strcol(18) eq "pass" ? column(19) : 1/0) nooutput
    tmax = STATS_max
    stats in using (strcol(18) eq "pass" ? column(4) : 1/0) nooutput
    img_w = STATS_max
    stats in using (strcol(18) eq "pass" ? column(5) : 1/0) nooutput
    img_h = STATS_max
    stats in using (column(2) == 0 && strcol(18) eq "pass" ? column(10) : 1/0) nooutput
    t_v0 = STATS_median
}
v0_title = (t_v0 == t_v0) ? sprintf("v0 on 1 thread: %.1f ms", t_v0) : "v0 not timed yet"
# bars.tsv labels are "first line|second line"
twolines(s) = strstrt(s, "|") ? s[1:strstrt(s, "|") - 1] . "\n" . s[strstrt(s, "|") + 1:] : s
array block[4] = [1, 2, 4, 5]
array title[6] = ["v1 omp-rows", "v2 omp-pixels", "v3 sse (1 thread)", "v4 sse-omp", "v5 wide-omp", ""]
array color[6] = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#000000"]

do for [fmt in "png pdf"] {
    if (fmt eq "png") { set terminal pngcairo size 1200,520 font "sans,10" } \
    else { set terminal pdfcairo size 12in,5.2in font "sans,10" }
    set output sprintf("%s/speedup.%s", outdir, fmt)
    set multiplot layout 1,2 title sprintf("Lab 02: %dx%d RGBA float, 5x5 (%s)", img_w, img_h, v0_title)
    set logscale xy 2
    set xrange [0.8:tmax * 1.25]
    set xlabel "threads"
    set grid
    set key top left
    set ylabel "speedup over v0 on 1 thread"
    plot x title "ideal: v0 time / threads" dashtype 2 lc rgb "black", \
         for [b = 0:3] curves index b using 1:($4 / $2) with linespoints pt 7 \
             lc rgb color[block[b + 1]] title title[block[b + 1]], \
         curves index 4 using 1:($4 / $2) with points pt 9 ps 1.5 lc rgb color[3] title title[3]
    set ylabel "speedup over the same variant on 1 thread"
    plot x title "ideal: time(1) / threads" dashtype 2 lc rgb "black", \
         for [b = 0:3] curves index b using 1:($3 / $2) with linespoints pt 7 \
             lc rgb color[block[b + 1]] title title[block[b + 1]]
    unset multiplot
    unset logscale
    unset xrange

    set output sprintf("%s/time.%s", outdir, fmt)
    set title sprintf("Lab 02: median time per variant, %dx%d RGBA float, 5x5 (%d threads where not said)", img_w, img_h, tmax)
    set logscale y 10
    set ylabel "median time (ms), log scale"
    set xlabel ""
    set style fill solid 0.8 border -1
    set boxwidth 0.7
    set key off
    set grid ytics
    set xtics nomirror
    set yrange [*:*]
    set offsets 0.5, 0.5, 0, 0
    set bmargin 4
    # the lab's variants in blue, the OpenCV peer in orange
    plot bars using 0:2:(strstrt(strcol(1), "OpenCV") ? 0xdd8844 : 0x4477aa):xtic(twolines(strcol(1))) \
             with boxes lc rgb variable, \
         bars using 0:($2 * 1.15):(sprintf("%.1f", $2)) with labels font ",9"
    unset offsets
    unset bmargin
    unset title
    unset logscale
}
set output
