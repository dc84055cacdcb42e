# plot_grades.gp - the grader's plots (grading/kitgrade/scoring/summary.py and report.py call it, in
# the folder of the data, so that no path is ever pasted into a gnuplot command).
#   gnuplot -e "mode='scores'; in='scores.txt'; out='scores'; maxpts=50" plot_grades.gp
#       score histogram of the class: scores.png and .pdf
#   gnuplot -e "mode='perf'; in='perf.tsv'; out='time_vs_ref'; labels='v2 v3'" plot_grades.gp
#       per variant, each student's time over the reference's (log scale): .png and .pdf
#       (perf.tsv: student-id variant-index variant-name time_ms ref_ms time/ref; labels: the
#       variants' names in the order of their indexes)
#   gnuplot -e "mode='student'; in='score.tsv'; out='time.png'; who='LABEL'" plot_grades.gp
#       one student's time and the reference's per variant
#       (score.tsv: variant passed total corr perf time_ms ref_ms speed)
set datafile separator "\t"
set key top right
set grid ytics lc rgb "#dddddd"

if (mode eq 'scores') {
    set datafile separator whitespace
    nb = 10
    bw = (maxpts > 0 ? maxpts : 1) / (nb * 1.0)
    bin(x) = (floor(x / bw) >= nb ? nb - 1 : floor(x / bw)) * bw + bw / 2
    stats in using 1 nooutput
    if (STATS_records <= 20) { set ytics 1 }
    set boxwidth bw * 0.9
    set style fill solid 0.8 border -1
    set xrange [0:maxpts]
    set yrange [0:*]
    set xlabel "total points"
    set ylabel "students"
    set title "Score histogram"
    unset key
    do for [t in "png pdf"] {
        if (t eq 'png') { set terminal pngcairo size 800,500 font ",11" } else { set terminal pdfcairo size 6in,3.75in font ",9" }
        set output out . "." . t
        plot in using (bin($1)):(1.0) smooth frequency with boxes lc rgb "#4477aa"
    }
}

if (mode eq 'perf') {
    set logscale y
    set xlabel "variant"
    set ylabel "time / reference time (lower is faster)"
    set title "Each student's time against the reference, per variant"
    nv = words(labels)
    set xrange [0.4:nv + 0.6]
    set xtics ("" 1)
    do for [i = 1:nv] { set xtics add (word(labels, i) i) }
    set key top right
    # a small deterministic jitter so students on the same variant do not hide each other
    jit(s) = ((int(strlen(s)) * 37 + int(s[1:1] eq "" ? 0 : 1)) % 11 - 5) * 0.04
    do for [t in "png pdf"] {
        if (t eq 'png') { set terminal pngcairo size 800,540 font ",11" } else { set terminal pdfcairo size 6in,4in font ",9" }
        set output out . "." . t
        plot in using ($2 + jit(strcol(1))):($6) with points pt 7 ps 0.9 lc rgb "#cc3311" \
                 title "a student's time / the reference's", \
             1 with lines dt 2 lc rgb "#333333" title "as fast as the reference"
    }
}

if (mode eq 'student') {
    set style data histograms
    set style histogram clustered gap 1
    set style fill solid 0.8 border -1
    set ylabel "time per run, ms"
    set title "Time against the reference: " . who
    set yrange [0:*]
    set terminal pngcairo size 700,420 font ",10"
    set output out
    plot in using 6:xtic(sprintf("v%s", strcol(1))) title who lc rgb "#cc3311", \
         '' using 7 title "reference" lc rgb "#4477aa"
}
