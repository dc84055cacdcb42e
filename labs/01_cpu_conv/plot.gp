# plot.gp - lab 01 plots from make bench's TSV.
#   gnuplot -e "in='out/bench.tsv'; outdir='out'" plot.gp
# time.png/.pdf: median time per variant against image size (log-log);
# panel.png/.pdf: input, output, and the diff picture of a broken run.
if (!exists("in")) in = 'out/bench.tsv'
if (!exists("outdir")) outdir = 'out'
set datafile separator "\t"
set datafile commentschars "#"

pix(w, h) = w * h / 1e6
# the passing rows of variant v with filter f, sorted by size
sel(v, f) = sprintf("< awk -F'\t' '$1 !~ /^#/ && $2 == %d && $6 == \"%s\" && $18 == \"pass\"' %s | sort -t'\t' -k4,4n", v, f, in)

set title "Lab 01: 2D convolution on one CPU core"
set xlabel "image size (megapixels)"
set ylabel "median time (ms)"
set logscale xy
set grid
set key top left
set style data linespoints
plots = "plot \
  sel(1,'laplace5') using (pix($4,$5)):10 title 'v1 naive, laplace5' lw 2 pt 7, \
  sel(2,'laplace5') using (pix($4,$5)):10 title 'v2 loop order, laplace5' lw 2 pt 5, \
  sel(1,'gauss5') using (pix($4,$5)):10 title 'v1 naive, gauss5' lw 1 dt 2 pt 6, \
  sel(2,'gauss5') using (pix($4,$5)):10 title 'v2 loop order, gauss5' lw 1 dt 2 pt 4, \
  sel(3,'gauss5') using (pix($4,$5)):10 title 'v3 separable, gauss5' lw 2 pt 9"

set terminal pngcairo size 900,600 font "sans,11"
set output outdir.'/time.png'
eval plots
set terminal pdfcairo size 6in,4in font "sans,9"
set output outdir.'/time.pdf'
eval plots

# the picture panel
unset logscale; unset grid; unset key; unset xlabel; unset ylabel
unset border; unset tics; unset colorbox
set size ratio -1
panel = "set multiplot layout 1,3 title 'input, laplace5 output, diff picture of a broken run (rows left unwritten)'; \
  set title 'input'; plot outdir.'/input.png' binary filetype=png with rgbimage; \
  set title 'output (v2)'; plot outdir.'/output.png' binary filetype=png with rgbimage; \
  set title 'diff: planted bug'; plot outdir.'/diff.png' binary filetype=png with rgbimage; \
  unset multiplot"
set terminal pngcairo size 1500,440 font "sans,11"
set output outdir.'/panel.png'
eval panel
set terminal pdfcairo size 10in,3in font "sans,9"
set output outdir.'/panel.pdf'
eval panel
