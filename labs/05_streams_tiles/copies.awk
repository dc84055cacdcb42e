# copies.awk - make copies' table: the harness's rows of part copies (a
# --results file) as GB/s by size and direction, pageable (v1) beside pinned
# (v2), for the handout's figures. Rows that did not pass are left out.
BEGIN { FS = OFS = "\t" }
/^#/ { next }
$1 == "lab" { for (i = 1; i <= NF; i++) col[$i] = i; next }
$col["part"] == "copies" && $col["status"] == "pass" {
    dir = $col["config"] ~ /dir=d2h/ ? "device to host" : "host to device"
    key = $col["param"] SUBSEP dir
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    gbps[key, $col["variant"]] = $col["gbps"]
}
END {
    print "size", "direction", "pageable GB/s", "pinned GB/s", "pinned / pageable"
    for (i = 1; i <= n; i++) {
        split(order[i], k, SUBSEP)
        a = gbps[order[i], 1]; b = gbps[order[i], 2]
        print k[1], k[2], a == "" ? "-" : a, b == "" ? "-" : b, (a > 0 && b > 0) ? sprintf("%.2f", b / a) : "-"
    }
}
