# vs-cublas.awk - every variant against cuBLAS (v0) of the same size and the
# same run, from make bench's TSV:  awk -f vs-cublas.awk out/bench.tsv
# time ratio > 1: slower than cuBLAS; GB/s share < 100%: less bandwidth.
BEGIN { FS = "\t" }
/^#/ || $1 == "lab" { next }
{
    key = $5 "x" $4 # rows x cols
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
    n = ++rows[key]
    v[key, n] = $2; name[key, n] = $3; cfg[key, n] = $20; st[key, n] = $18
    ms[key, n] = $10; gb[key, n] = $14
    if ($2 == 0 && $18 == "pass") { base_ms[key] = $10; base_gb[key] = $14 }
}
END {
    printf "%-13s %-2s %-13s %-34s %10s %9s %9s %9s\n", "rows x cols", "v", "name", "config",
           "kernel ms", "x cuBLAS", "GB/s", "%cuBLAS"
    for (k = 1; k <= nk; k++) {
        key = order[k]
        for (i = 1; i <= rows[key]; i++) {
            if (st[key, i] != "pass") {
                printf "%-13s %-2s %-13s %-34s %10s\n", key, v[key, i], name[key, i], cfg[key, i], st[key, i]
                continue
            }
            r = (key in base_ms && base_ms[key] > 0) ? sprintf("%.2f", ms[key, i] / base_ms[key]) : "-"
            p = (key in base_gb && base_gb[key] > 0) ? sprintf("%.1f", 100 * gb[key, i] / base_gb[key]) : "-"
            printf "%-13s %-2s %-13s %-34s %10.4f %9s %9.1f %9s\n", key, v[key, i], name[key, i],
                   substr(cfg[key, i], 1, 34), ms[key, i], r, gb[key, i], p
        }
    }
}
