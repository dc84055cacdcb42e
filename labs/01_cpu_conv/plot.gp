# plot.gp - lab 01 plots from make bench's TSV (make plot runs it).
#   gnuplot -e "in='out/bench.tsv'; outdir='out'; have='1:laplace5 2:laplace5'" plot.gp
# have: the variant:filter pairs that passed (each a line of time.png);
# outtitle, difftitle: the titles of the panel's output and diff pictures
# ("" when there is none).
# time.png/.pdf: median time per variant against image size (log-log);
# panel.png/.pdf: input, output, and a diff picture of a wrong run.
if (!exists("in")) in = 'out/bench.tsv'
if (!exists("outdir")) outdir = 'out'
if (!exists("have")) have = '1:laplace5 2:laplace5 1:gauss5 2:gauss5 3:gauss5'
if (!exists("outtitle")) outtitle = ''
if (!exists("difftitle")) difftitle = ''
set datafile separator "\t"
set datafile commentschars "#"

pix(w, h) = w * h / 1e6
# the passing rows of variant v with filter f, sorted by size
sel(v, f) = sprintf("< awk -F'\t' '$1 !~ /^#/ && $2 == %d && $6 == \"%s\" && $18 == \"pass\"' '%s' | sort -t'\t' -k4,4n", v, f, in)
has(s) = strstrt(' '.have.' ', ' '.s.' ') > 0
line(v, f, t, style) = sprintf("sel(%d,'%s') using (pix($4,$5)):10 title '%s' %s", v, f, t, style)

plots = ""
if (has('1:laplace5')) plots = plots . ', ' . line(1, 'laplace5', 'v1 naive, laplace5', 'lw 2 pt 7')
if (has('2:laplace5')) plots = plots . ', ' . line(2, 'laplace5', 'v2 loop order, laplace5', 'lw 2 pt 5')
if (has('1:gauss5')) plots = plots . ', ' . line(1, 'gauss5', 'v1 naive, gauss5', 'lw 1 dt 2 pt 6')
if (has('2:gauss5')) plots = plots . ', ' . line(2, 'gauss5', 'v2 loop order, gauss5', 'lw 1 dt 2 pt 4')
if (has('3:gauss5')) plots = plots . ', ' . line(3, 'gauss5', 'v3 separable, gauss5', 'lw 2 pt 9')
plots = 'plot ' . plots[3:]

set title "Lab 01: 2D convolution on one CPU core"
set xlabel "image size (megapixels)"
set ylabel "median time (ms)"
set logscale xy
set grid
set key top left
set style data linespoints

set terminal pngcairo size 900,600 font "sans,11"
set output outdir.'/time.png'
eval plots
set terminal pdfcairo size 6in,4in font "sans,9"
set output outdir.'/time.pdf'
eval plots

# the picture panel: as many pictures as there are
unset logscale; unset grid; unset key; unset xlabel; unset ylabel
unset border; unset tics; unset colorbox
set size ratio -1
n = 1 + (strlen(outtitle) > 0) + (strlen(difftitle) > 0)
img(f, t) = sprintf("set title '%s'; plot '%s/%s' binary filetype=png with rgbimage; ", t, outdir, f)
panel = sprintf("set multiplot layout 1,%d title 'make plot: the input%s%s'; ", n, \
                strlen(outtitle) ? ', the output' : '', strlen(difftitle) ? ', the diff picture of a wrong run' : '') . \
        img('input.png', 'input') . \
        (strlen(outtitle) ? img('output.png', outtitle) : '') . \
        (strlen(difftitle) ? img('diff.png', difftitle) : '') . 'unset multiplot'
set terminal pngcairo size 500 * n,440 font "sans,11"
set output outdir.'/panel.png'
eval panel
set terminal pdfcairo size 3.4 * n,3in font "sans,9"
set output outdir.'/panel.pdf'
eval panel
