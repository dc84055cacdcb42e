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

# one line per bar: label, kernel ms; the floor of the part as a second column
bars(part) = sprintf("< awk -F'\\t' -v part=%s -v ceil=%g -v peers=%s ' \
  !/^#/ && $1 != \"lab\" && $18 == \"pass\" && ($21 == part || (part == \"rgb\" && $1 == \"03\")) { \
    cells = $4 * $5; floor = ceil > 0 ? (part == \"sep\" ? 32 : 6) * cells / (ceil * 1e6) : 0; \
    printf \"%%s\\t%%s\\t%%s\\n\", ($1 == \"03\" ? \"lab03 \" $3 : \"v\" $2 \" \" $3), $10, floor; size = $4 \"x\" $5 } \
  END { while ((getline l < peers) > 0) { split(l, p, \"\\t\"); if (p[2] == part) printf \"%%s\\t%%s\\t%%s\\n\", \"cupy\", p[7], floor } }' %s", part, ceiling, peers, in)

set terminal pngcairo size 1200,560 font "sans,10"
set output outdir.'/time.png'
set multiplot layout 1,2 title "Lab 04: median kernel time per variant (log scale); dashed: the byte floor"
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.8
set grid ytics
set logscale y
set ylabel "ms"
set xtics rotate by -30 font ",8"
set key off
set title "part rgb (8-bit RGB)"
plot bars("rgb") using 2:xtic(1) lc rgb "#3465a4", '' using 0:3 with lines dt 2 lw 2 lc rgb "black"
set title "part sep (float64 plane, both passes)"
plot bars("sep") using 2:xtic(1) lc rgb "#73a857", '' using 0:3 with lines dt 2 lw 2 lc rgb "black"
unset multiplot
set terminal pdfcairo size 9in,4.2in font "sans,8"
set output outdir.'/time.pdf'
set multiplot layout 1,2 title "Lab 04: median kernel time per variant (log scale); dashed: the byte floor"
set title "part rgb (8-bit RGB)"
plot bars("rgb") using 2:xtic(1) lc rgb "#3465a4", '' using 0:3 with lines dt 2 lw 2 lc rgb "black"
set title "part sep (float64 plane, both passes)"
plot bars("sep") using 2:xtic(1) lc rgb "#73a857", '' using 0:3 with lines dt 2 lw 2 lc rgb "black"
unset multiplot

# bank conflicts per variant: label, loads, stores
have_prof = system(sprintf("test -s %s && echo 1 || echo 0", prof)) + 0
if (have_prof) {
  conf = sprintf("< awk -F'\\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } \
    $c[\"legacy\"] == \"shared_ld_bank_conflict\" { ld[$c[\"label\"]] += $c[\"value\"]; seen[$c[\"label\"]] = 1 } \
    $c[\"legacy\"] == \"shared_st_bank_conflict\" { st[$c[\"label\"]] += $c[\"value\"]; seen[$c[\"label\"]] = 1 } \
    END { for (v = 1; v <= 9; v++) if ((\"v\" v) in seen) printf \"v%%d\\t%%s\\t%%s\\n\", v, ld[\"v\" v] + 0, st[\"v\" v] + 0 }' %s", prof)
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
