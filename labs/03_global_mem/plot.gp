# plot.gp - lab 03 plots from make bench's results, through plotdata.sh.
#   ./plotdata.sh out/bench.tsv out
#   gnuplot -e "outdir='out'; ceiling=2972" plot.gp
# time.png/.pdf: kernel time and total time (kernel + copies, pageable and
#                pinned) per variant at the largest size (log scale);
# gbps.png/.pdf: GB/s of the bytes each variant must move, against image
#                size, the measured copy ceiling as a line.
if (!exists("outdir")) outdir = 'out'
if (!exists("ceiling")) ceiling = 0
set datafile separator "\t"
set datafile commentschars "#"
big = system(sprintf("cat '%s/big.txt'", outdir))
names = "linear-grid 2d-grid const-filter unrolled planar-bytes planar-words separable-f64 channel-threads"

set terminal pngcairo size 1100,600 font "sans,11"
set output outdir.'/time.png'
set title sprintf("Lab 03 on %s: kernel alone vs kernel + copies (median ms, log scale)", big)
set style data histograms
set style histogram clustered gap 2
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set ylabel "ms"
set xtics rotate by -20
set key top left
set logscale y
set yrange [0.01:*]
data = outdir.'/time.dat'
plot data using 2:xtic(1) title 'kernel', '' using 3 title 'total, pageable', '' using 4 title 'total, pinned'
set terminal pdfcairo size 7.5in,4.2in font "sans,9"
set output outdir.'/time.pdf'
replot

reset
set datafile separator "\t"
set datafile commentschars "#"
set terminal pngcairo size 1100,600 font "sans,11"
set output outdir.'/gbps.png'
set title "Lab 03: bandwidth of the bytes each variant must move (kernel time)"
set xlabel "image size (megapixels)"
set ylabel "GB/s"
set logscale x
set grid
set key outside right
set style data linespoints
gdata = outdir.'/gbps.dat'
gplot = "plot for [v=1:8] gdata index (v-1) using 1:2 title sprintf('v%d %s', v, word(names,v)) lw 2"
if (ceiling > 0) gplot = gplot . ", ceiling with lines dt 2 lw 2 lc rgb 'black' title sprintf('copy ceiling %.0f GB/s', ceiling)"
eval gplot
set terminal pdfcairo size 7.5in,4.2in font "sans,9"
set output outdir.'/gbps.pdf'
eval gplot
