# plot.gp - lab 05's engines chart from make bench (out/engines/engines.tsv):
#   gnuplot -e "in='out/engines/engines.tsv'; outdir='out'" plot.gp
# For each variant run of each part: the whole span beside the busy time of
# the three engines (copy in, kernels, copy out), median ms. A variant whose
# span is close to its busiest engine keeps that engine busy all the time.
# Writes engines.png and engines.pdf.
if (!exists("in")) in = 'out/engines/engines.tsv'
if (!exists("outdir")) outdir = 'out'
set datafile separator "\t"
rows(part) = sprintf("< awk -F'\\t' 'NR > 1 && $1 == \"%s\"' %s", part, in)
label(v, name, how) = sprintf("v%d %s\n%s", v, name, how)
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set ylabel "ms (median of the timed runs)"
set key top right
set xtics font ",8"
set terminal pngcairo size 1300,1000 font "sans,10"
set output outdir.'/engines.png'
set multiplot layout 2,1
do for [part in "strip batch"] {
    set title sprintf("part %s: the whole run and each engine's busy time", part)
    set logscale y
    plot rows(part) using 8:xtic(label($2, strcol(3), strcol(4))) title "span", \
         '' using 9 title "copy in", '' using 10 title "kernels", '' using 11 title "copy out"
}
unset multiplot
set terminal pdfcairo size 10in,8in font "sans,8"
set output outdir.'/engines.pdf'
set multiplot layout 2,1
do for [part in "strip batch"] {
    set title sprintf("part %s: the whole run and each engine's busy time", part)
    plot rows(part) using 8:xtic(label($2, strcol(3), strcol(4))) title "span", \
         '' using 9 title "copy in", '' using 10 title "kernels", '' using 11 title "copy out"
}
unset multiplot
