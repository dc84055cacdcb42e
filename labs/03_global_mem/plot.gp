# plot.gp - lab 03 plots from make bench's TSV.
#   gnuplot -e "in='out/bench.tsv'; outdir='out'; ceiling=2972" plot.gp
# time.png/.pdf: kernel time and total time (kernel + copies, pageable and
#                pinned) per variant at the largest size;
# gbps.png/.pdf: GB/s per variant against image size, the measured copy
#                ceiling as a line.
if (!exists("in")) in = 'out/bench.tsv'
if (!exists("outdir")) outdir = 'out'
if (!exists("ceiling")) ceiling = 0
set datafile separator "\t"
set datafile commentschars "#"

# rows of variant v (pass only), optionally with pinned=P in the config
rows(v, p) = sprintf("< awk -F'\\t' '$1 !~ /^#/ && $2 == %d && $18 == \"pass\" && $20 ~ /pinned=%d/' %s | sort -k4,4n", v, p, in)
# the largest picture of the file
big = system(sprintf("awk -F'\\t' '$1 !~ /^#/ && $1 != \"lab\" { p = $4 * $5; if (p > m) { m = p; s = $4 \"x\" $5 } } END { print s }' %s", in))
names = "global-filter const-filter planar-words separable-f64 planar-bytes"

set terminal pngcairo size 1000,600 font "sans,11"
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
data = outdir.'/time.dat'
dummy = system(sprintf("awk -F'\\t' -v big=%s 'BEGIN { split(\"%s\", n, \" \") } $1 !~ /^#/ && $18 == \"pass\" && $4 \"x\" $5 == big { if ($20 ~ /pinned=1/) pin[$2] = $13; else { k[$2] = $10; pag[$2] = $13 } } END { for (v = 1; v <= 5; v++) if (v in k) printf \"%%s\\t%%s\\t%%s\\t%%s\\n\", n[v], k[v], pag[v], (v in pin ? pin[v] : \"NaN\") }' %s > %s", big, names, in, data))
set logscale y
set yrange [0.05:*]
plot data using 2:xtic(1) title 'kernel', '' using 3 title 'total, pageable', '' using 4 title 'total, pinned'
set terminal pdfcairo size 7in,4.2in font "sans,9"
set output outdir.'/time.pdf'
replot

reset
set datafile separator "\t"
set terminal pngcairo size 1000,600 font "sans,11"
set output outdir.'/gbps.png'
set title "Lab 03: bandwidth of the bytes each variant must move (kernel time)"
set xlabel "image size (megapixels)"
set ylabel "GB/s"
set logscale x
set grid
set key bottom right
set style data linespoints
pix(w, h) = w * h / 1e6
gplot = "plot for [v=1:5] rows(v,0) using (pix($4,$5)):14 title sprintf('v%d %s', v, word(names,v)) lw 2"
if (ceiling > 0) gplot = gplot . ", ceiling with lines dt 2 lw 2 lc rgb 'black' title sprintf('copy ceiling %.0f GB/s', ceiling)"
eval gplot
set terminal pdfcairo size 7in,4.2in font "sans,9"
set output outdir.'/gbps.pdf'
eval gplot
