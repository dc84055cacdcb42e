# timeline.gp - a Gantt chart of one run's GPU activity (make timeline):
#   awk -f gantt.awk out/timeline/strip-v4.tsv > strip-v4.dat
#   gnuplot -e "in='strip-v4.dat'; out='out/timeline/strip-v4'; name='strip-v4'" timeline.gp
# One lane per stream; copies in, kernels and copies out in three colours.
# Writes out.png and out.pdf.
if (!exists("in")) in = 'timeline.dat'
if (!exists("out")) out = 'timeline'
if (!exists("name")) name = ''
set datafile separator "\t"
stats in using 3 nooutput
lanes = STATS_max + 1
stats in using 2 nooutput
span = STATS_max
colour(c) = c == 1 ? 0x1f77b4 : c == 2 ? 0xff7f0e : c == 3 ? 0x2ca02c : 0x999999
# the stream ids of the lanes, for the tics
set ytics ()
do for [l = 0:lanes - 1] {
    id = system(sprintf("awk -F'\\t' '$3 == %d { print $5; exit }' %s", l, in))
    set ytics add (sprintf("stream %s", id) l)
}
set yrange [lanes - 0.4:-0.6]
set xrange [0:span * 1.01]
set xlabel "ms from the run's first GPU activity"
set title sprintf("%s: %.2f ms of GPU activity on %d stream%s", name, span, lanes, lanes == 1 ? "" : "s")
set grid xtics
set key outside top center horizontal
set style fill solid 0.9 noborder
set terminal pngcairo size 1200,(220 + 60 * lanes) font "sans,10"
set output out.'.png'
plot in using (($1 + $2) / 2):3:(($2 - $1) / 2):(0.36):(colour($4)) with boxxyerror lc rgb variable notitle, \
     NaN with boxes lc rgb "#1f77b4" title "copy in (HtoD)", \
     NaN with boxes lc rgb "#ff7f0e" title "kernel", \
     NaN with boxes lc rgb "#2ca02c" title "copy out (DtoH)", \
     NaN with boxes lc rgb "#999999" title "other copy"
set terminal pdfcairo size 8in,(1.6 + 0.45 * lanes) font "sans,8"
set output out.'.pdf'
replot
