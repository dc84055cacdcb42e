# plot.gp - lab 06 plots from make bench's TSV.
#   gnuplot -e "in='out/bench.tsv'; outdir='out'; ceiling=2972" plot.gp
# time.png/.pdf: median kernel time against matrix size, log-log, one line
#                per variant (cuBLAS included; v2 with the report's 512x128
#                tiles dashed);
# gbps.png/.pdf: GB/s (8 (mn + m + n) bytes / kernel time) against matrix
#                size, the measured copy ceiling as a line.
if (!exists("in")) in = 'out/bench.tsv'
if (!exists("outdir")) outdir = 'out'
if (!exists("ceiling")) ceiling = 0
set datafile separator "\t"
set datafile commentschars "#"

# passing rows of variant v as "mn/1e6 <tab> kernel ms <tab> GB/s", sorted by
# size; alt=1: only the runs with 512x128 tiles, alt=0: all others
rows(v, alt) = sprintf("< awk -F'\\t' '$1 !~ /^#/ && $1 != \"lab\" && $2 == %d && $18 == \"pass\" && ($20 ~ /tile=512x128/) == %d { print $4 * $5 / 1e6 \"\\t\" $10 \"\\t\" $14 }' %s | sort -g", v, alt, in)
names = "cuBLAS naive tiled-atomic tiled-cas warp-rows"
label(v) = sprintf("v%d %s", v, word(names, v + 1))
colors = "#000000 #d62728 #1f77b4 #ff7f0e #2ca02c"
color(v) = word(colors, v + 1)
gpu = system(sprintf("awk '/^# gpu: / { sub(/^# gpu: /, \"\"); sub(/,.*/, \"\"); print; exit }' %s", in))
if (strlen(gpu) == 0) gpu = "GPU"

set terminal pngcairo size 1000,640 font "sans,11"
set output outdir.'/time.png'
set title sprintf("Lab 06 on %s: y = A x in double, kernel time (median)", gpu)
set xlabel "matrix size m n (millions of elements; A is 8 MB per million)"
set ylabel "kernel ms"
set logscale xy
set grid xtics ytics mxtics mytics
set key top left
set style data linespoints
set autoscale xfix
set offsets graph 0.04, graph 0.04, 0, 0
tplot = "plot for [v=0:4] rows(v, 0) using 1:2 title label(v) lw 2 pt (v + 4) lc rgb color(v), rows(2, 1) using 1:2 title 'v2 tiles 512x128' lw 2 dt 2 pt 6 lc rgb color(2)"
eval tplot
set terminal pdfcairo size 7in,4.5in font "sans,9"
set output outdir.'/time.pdf'
eval tplot

reset
set datafile separator "\t"
set datafile commentschars "#"
set terminal pngcairo size 1000,640 font "sans,11"
set output outdir.'/gbps.png'
set title sprintf("Lab 06 on %s: bandwidth of the bytes y = A x must move (kernel time)", gpu)
set xlabel "matrix size m n (millions of elements)"
set ylabel "GB/s"
set logscale x
set autoscale xfix
set offsets graph 0.04, graph 0.04, 0, 0
set yrange [0:*]
if (ceiling > 0) set yrange [0:ceiling * 1.12]
set grid
set key bottom right
set style data linespoints
gplot = "plot for [v=0:4] rows(v, 0) using 1:3 title label(v) lw 2 pt (v + 4) lc rgb color(v), rows(2, 1) using 1:3 title 'v2 tiles 512x128' lw 2 dt 2 pt 6 lc rgb color(2)"
if (ceiling > 0) gplot = gplot . sprintf(", %g with lines dt 3 lw 2 lc rgb '#7f7f7f' title 'copy ceiling %.0f GB/s'", ceiling, ceiling)
eval gplot
set terminal pdfcairo size 7in,4.5in font "sans,9"
set output outdir.'/gbps.pdf'
eval gplot
