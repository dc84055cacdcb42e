# plot.gp - lab 04 plots from make bench and make profile.
#   gnuplot -e "in='out/bench.tsv'; prof='out/profile.tsv'; outdir='out'; ceiling=2972" plot.gp
# time.png/.pdf:      median kernel time per variant of both parts, with lab 03's
#                     fastest variant, the CuPy peers (outdir/peers.tsv) and the byte
#                     floor at the copy ceiling measured in the same run;
# conflicts.png/.pdf: shared-memory bank conflicts (loads and stores) per rgb variant
#                     (make profile; skipped when there is no profile).
if (!exists("in")) in = 'out/bench.tsv'
if (!exists("prof")) prof = 'out/profile.tsv'
if (!exists("outdir")) outdir = 'out'
if (!exists("ceiling")) ceiling = 0
peers = outdir.'/peers.tsv'
set datafile separator "\t"

# one line per bar: label, kernel ms, the part's byte floor (scripts/bars.awk)
bars(part) = sprintf("< awk -F'\\t' -v part=%s -v ceiling=%g -v peers='%s' -f scripts/bars.awk '%s'", part, ceiling, peers, in)
# a part is drawn only where it has a passing row (a variant not written yet has none)
has(part) = system(sprintf("awk -F'\\t' -v part=%s -v ceiling=0 -v peers= -f scripts/bars.awk '%s' | wc -l", part, in)) + 0
parts = (has("rgb") ? "rgb " : "").(has("sep") ? "sep" : "")
if (strlen(parts) == 0) { print "plot.gp: no passing variant in ".in; exit }
ncols = words(parts)
rgbtitle = "part rgb (8-bit RGB)"
septitle = "part sep (float64 plane, both passes)"
color(part) = part eq "rgb" ? "#3465a4" : "#73a857"

set terminal pngcairo size 1200,560 font "sans,10"
set output outdir.'/time.png'
set multiplot layout 1,ncols title "Lab 04: median kernel time per variant (log scale); dashed: the byte floor"
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.8
set grid ytics
set logscale y
set ylabel "ms"
set xtics rotate by -30 font ",8"
set key off
do for [part in parts] {
  set title (part eq "rgb" ? rgbtitle : septitle)
  plot bars(part) using 2:xtic(1) lc rgb color(part), '' using 0:3 with lines dt 2 lw 2 lc rgb "black"
}
unset multiplot
set terminal pdfcairo size 9in,4.2in font "sans,8"
set output outdir.'/time.pdf'
set multiplot layout 1,ncols title "Lab 04: median kernel time per variant (log scale); dashed: the byte floor"
do for [part in parts] {
  set title (part eq "rgb" ? rgbtitle : septitle)
  plot bars(part) using 2:xtic(1) lc rgb color(part), '' using 0:3 with lines dt 2 lw 2 lc rgb "black"
}
unset multiplot

# bank conflicts per variant: label, loads, stores
have_prof = system(sprintf("test -s %s && echo 1 || echo 0", prof)) + 0
if (have_prof) {
  conf = sprintf("< awk -F'\\t' -f scripts/conflicts.awk '%s'", prof)
  reset
  set datafile separator "\t"
  set terminal pngcairo size 900,520 font "sans,11"
  set output outdir.'/conflicts.png'
  set title "Lab 04 part rgb: shared-memory bank conflicts per variant (Nsight Compute)"
  set style data histograms
  set style histogram clustered gap 2
  set style fill solid 0.85 border -1
  set grid ytics
  set ylabel "conflicts (extra wavefronts)"
  set key top right
  plot conf using 2:xtic(1) title 'loads (shared\_ld\_bank\_conflict)', '' using 3 title 'stores (shared\_st\_bank\_conflict)'
  set terminal pdfcairo size 7in,4in font "sans,9"
  set output outdir.'/conflicts.pdf'
  replot
}
