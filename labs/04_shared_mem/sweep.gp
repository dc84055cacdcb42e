# sweep.gp - part sep over the radius (make sweep), as the course's report
# plots its step 2: kernel time, copy time, their ratio and the total, one
# line per variant.
#   gnuplot -e "in='out/sweep.tsv'; outdir='out'" sweep.gp
if (!exists("in")) in = 'out/sweep.tsv'
if (!exists("outdir")) outdir = 'out'
set datafile separator "\t"
vars = system(sprintf("awk -F'\\t' 'NR > 1 && !s[$1]++ { printf \"%%s \", $1 }' %s", in))
vname(v) = system(sprintf("awk -F'\\t' -v v=%s 'NR > 1 && $1 == v { print $2; exit }' %s", v, in))
rows(v) = sprintf("< awk -F'\\t' -v v=%s 'NR > 1 && $1 == v' %s", v, in)
set style data linespoints
set grid
set key top left font ",8"
set xlabel "filter radius R"
set logscale x 2
set xtics (2, 4, 8, 16, 32, 64, 80)
set xrange [1.8:90]
do for [t in "png pdf"] {
  if (t eq "png") { set terminal pngcairo size 1100,800 font "sans,10"; set output outdir.'/sweep.png' } \
  else { set terminal pdfcairo size 8in,6in font "sans,8"; set output outdir.'/sweep.pdf' }
  set multiplot layout 2,2 title "Lab 04 part sep: the radius sweep (mean of the timed runs)"
  set title "kernels (both passes)"; set ylabel "ms"
  plot for [v in vars] rows(v) using 3:4:5 with yerrorlines lw 2 title sprintf("v%s %s", v, vname(v))
  set title "copies (plane in, result out)"; set ylabel "ms"
  plot for [v in vars] rows(v) using 3:6 lw 2 title sprintf("v%s %s", v, vname(v))
  set title "kernels / copies"; set ylabel "ratio"
  plot for [v in vars] rows(v) using 3:7 lw 2 title sprintf("v%s %s", v, vname(v))
  set title "total (copies and kernels)"; set ylabel "ms"
  plot for [v in vars] rows(v) using 3:8:9 with yerrorlines lw 2 title sprintf("v%s %s", v, vname(v))
  unset multiplot
}
