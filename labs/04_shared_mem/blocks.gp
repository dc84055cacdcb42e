# blocks.gp - the block-size study (make blocks) as a heat map: one panel per
# variant (rgb v5, v6), block width across and height down (log 2 scales),
# each shape's square coloured by its median kernel time and labelled with it.
#   gnuplot -e "in='out/blocks.tsv'; outdir='out'" blocks.gp
if (!exists("in")) in = 'out/blocks.tsv'
if (!exists("outdir")) outdir = 'out'
set datafile separator "\t"
rows(v) = sprintf("< awk -F'\\t' -v v=%d 'NR > 1 && $1 == v' %s", v, in)
set logscale xy 2
set xlabel "block width (threads)"
set ylabel "block height"
set xrange [3:256]
set yrange [0.7:48]
set palette defined (0 "#1a9850", 0.5 "#fee08b", 1 "#d73027")
set cblabel "kernel ms (median)"
set key off
do for [t in "png pdf"] {
  if (t eq "png") { set terminal pngcairo size 1200,520 font "sans,10"; set output outdir.'/blocks.png' } \
  else { set terminal pdfcairo size 9in,4in font "sans,8"; set output outdir.'/blocks.pdf' }
  set multiplot layout 1,2 title "Lab 04 part rgb: kernel time by block shape"
  do for [v in "5 6"] {
    set title sprintf("v%s", v)
    plot rows(v+0) using 2:3:5 with points pt 5 ps 5 palette, \
         rows(v+0) using 2:3:(sprintf("%.3f", $5)) with labels font ",7"
  }
  unset multiplot
}
