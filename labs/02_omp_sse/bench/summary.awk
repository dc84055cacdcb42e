# summary.awk - lab 02's benchmark files (bench.tsv isa.tsv peer.tsv, in
# the kit's TSV columns) boiled down for the handout and the plots.
#   awk -f summary.awk -v mode=ratios bench.tsv isa.tsv peer.tsv   the ratios, as text
#   awk -f summary.awk -v mode=curves bench.tsv isa.tsv peer.tsv   gnuplot blocks
#   awk -f summary.awk -v mode=bars   bench.tsv isa.tsv peer.tsv   label<TAB>ms rows
#   awk -f summary.awk -v mode=facts  bench.tsv isa.tsv peer.tsv   gnuplot settings (threads, size, v0)
# bench.tsv holds one `--variant all` run per thread count: v0 and v3 (one
# thread) appear in every run (their rows say not-implemented until written;
# only passing rows count); their time is the median over the runs, and
# the v3/v0 ratio the median of the ratios measured within one run.
# curves: one block per variant (v1 v2 v4 v5, then v3), rows of threads,
# median ms, the same variant's ms on 1 thread, v0's ms.
# Columns used: 2 variant, 10 kernel_ms_median, 18 status, 19 threads, 20 config.
BEGIN { FS = "\t"; maxt = 0; runs = 0 }
/^#/ || $1 == "lab" || NF < 20 { next }
{
    kind = FILENAME ~ /isa\.tsv$/ ? "isa" : FILENAME ~ /peer\.tsv$/ ? "peer" : "bench"
    if (kind == "bench" && $2 == 0)       # a v0 row starts a run, written or not
        runs++
    if (kind != "peer" && $18 != "pass")
        next
    if (kind == "bench" && !w[$4]) { w[$4] = 1; if ($4 * $5 > img) { img = $4 * $5; iw = $4; ih = $5 } }
    isa = $20; sub(/^.*isa=/, "", isa); sub(/ .*$/, "", isa)
    if (kind == "bench") {
        if ($2 == 0) t0[runs] = $10
        else if ($2 == 3) t3[runs] = $10
        else {
            ms[$2 "@" $19] = $10
            thr[$19 + 0] = 1
            if ($19 + 0 > maxt) maxt = $19 + 0
            if ($2 == 5) v5isa = isa
        }
    } else if (kind == "isa") {
        isams[isa] = $10
    } else {
        peer[$19 + 0] = $10
        if ($19 + 0 > peermax) peermax = $19 + 0
    }
}
function have(k) { return (k in ms) && ms[k] != "nan" }
function median(a, n,    i, j, x) {
    for (i = 2; i <= n; i++)            # insertion sort, n is small
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
    return n == 0 ? "" : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
}
function row(label, v) { if (v != "" && v != "nan") printf "%s\t%s\n", label, v }
END {
    T = maxt
    n0 = n3 = nr = 0
    for (g = 1; g <= runs; g++) {
        if (g in t0) a0[++n0] = t0[g]
        if (g in t3) a3[++n3] = t3[g]
        if ((g in t0) && (g in t3)) ar[++nr] = t0[g] / t3[g]
    }
    m0 = median(a0, n0); m3 = median(a3, n3); mr = median(ar, nr)
    if (mode == "facts") {              # what plot.gp's titles and axes need
        printf "tmax=%d; img_w=%d; img_h=%d; t_v0=%s", (T > 0 ? T : 1), iw, ih, (m0 == "" ? "NaN" : m0)
        exit 0
    }
    if (mode == "curves") {
        nt = 0
        for (t in thr) ts[++nt] = t + 0
        median(ts, nt)                  # sorts the thread counts
        nv = split("1 2 4 5", vs, " ")
        for (b = 1; b <= nv; b++) {
            printf "# v%s\n", vs[b]
            for (i = 1; i <= nt; i++)
                if (have(vs[b] "@" ts[i]))
                    printf "%d\t%s\t%s\t%s\n", ts[i], ms[vs[b] "@" ts[i]], \
                           have(vs[b] "@1") ? ms[vs[b] "@1"] : "nan", m0 == "" ? "nan" : m0
            printf "\n\n"
        }
        printf "# v3\n"
        if (m3 != "") printf "1\t%s\t%s\t%s\n", m3, m3, m0 == "" ? "nan" : m0
        printf "\n\n"
        exit 0
    }
    if (mode == "bars") {
        row("v0 scalar|1 thread", m0)
        row("v3 sse|1 thread", m3)
        row("v1 omp-rows|" T " threads", ms["1@" T])
        row("v2 omp-pixels|" T " threads", ms["2@" T])
        row("v4 sse-omp|" T " threads", ms["4@" T])
        n = split("sse avx2 avx512", names, " ")
        shown = 0
        for (i = 1; i <= n; i++)
            if (names[i] in isams) { row("v5 " names[i] "|" T " threads", isams[names[i]]); shown = 1 }
        if (!shown)
            row("v5 " v5isa "|" T " threads", ms["5@" T])
        if (1 in peer) row("OpenCV|1 thread", peer[1])
        if (peermax > 1) row("OpenCV|" peermax " threads", peer[peermax])
        exit 0
    }
    printf "lab 02 benchmark summary (median ms; ratios are speedups, higher is better)\n"
    if (n0 + n3 == 0 && T == 0) {
        printf "  no variant timed yet (a variant is timed once it is written and passes)\n"
        exit 0
    }
    if (nr > 0)
        printf "  v3 sse vs v0 scalar, 1 thread:  %.2fx (median of %d runs' ratios; v0 %.3f ms, v3 %.3f ms)\n", \
               mr, nr, m0, m3
    if ((T in peer) && peer[T] != "nan") {
        if (have("4@" T))
            printf "  v4 sse-omp vs OpenCV, %d threads:  %.2fx (OpenCV %.3f ms, v4 %.3f ms)\n", \
                   T, peer[T] / ms["4@" T], peer[T], ms["4@" T]
        if (have("5@" T))
            printf "  v5 %s vs OpenCV, %d threads:  %.2fx (OpenCV %.3f ms, v5 %.3f ms)\n", \
                   v5isa, T, peer[T] / ms["5@" T], peer[T], ms["5@" T]
    } else {
        printf "  no OpenCV row at %d threads (peer skipped?)\n", T
    }
    sc = ""
    for (b = 1; b <= 4; b++) {          # the variants timed on 1 thread and on T
        vv = substr("1245", b, 1)
        if (T > 1 && have(vv "@1") && have(vv "@" T))
            sc = sc sprintf("%sv%s %.2fx", sc == "" ? "" : ", ", vv, ms[vv "@1"] / ms[vv "@" T])
    }
    if (sc != "")
        printf "  scaling 1 -> %d threads: %s\n", T, sc
}
