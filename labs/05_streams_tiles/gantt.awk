# gantt.awk - GPU activity records (kitcupti 2 or 3, DESIGN.md) to the bars of a
# Gantt chart for timeline.gp: one line per record,
#   START_MS  END_MS  LANE  COLOUR  STREAM
# times from the first record's start; one lane per stream, numbered from 0
# in the order of the streams' ids; colours: copy in, kernel, copy out, other.
BEGIN { FS = "\t"; OFS = "\t" }
/^#/ || NF < 7 { next }
($1 == "K" || $1 == "C") {
    n++; t[n] = $1; s[n] = $2; e[n] = $3; st[n] = $4; kind[n] = $6
    if (first == "" || $2 + 0 < first + 0) first = $2
    seen[$4] = 1
}
END {
    if (!n) { print "gantt.awk: no records" > "/dev/stderr"; exit 1 }
    m = 0
    for (id in seen) ids[++m] = id + 0
    for (i = 2; i <= m; i++) { v = ids[i]; for (j = i - 1; j >= 1 && ids[j] > v; j--) ids[j + 1] = ids[j]; ids[j + 1] = v }
    for (i = 1; i <= m; i++) lane[ids[i]] = i - 1
    for (i = 1; i <= n; i++) {
        c = t[i] == "K" ? 2 : kind[i] == "HtoD" ? 1 : kind[i] == "DtoH" ? 3 : 4
        printf "%.6f\t%.6f\t%d\t%d\t%s\n", (s[i] - first) / 1e6, (e[i] - first) / 1e6, lane[st[i] + 0], c, st[i]
    }
}
