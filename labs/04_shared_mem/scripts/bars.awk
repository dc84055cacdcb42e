# bars.awk - lab 04's time plot, one part: a line per bar (label, median kernel
# ms, the part's byte floor at the copy ceiling), then the CuPy peer of that part.
#   awk -F'\t' -v part=rgb -v ceiling=2886.7 -v peers=out/peers.tsv -f scripts/bars.awk out/bench.tsv
# Lab 03's fastest variant (lab column 03) is drawn beside part rgb. The floor
# counts the bytes a variant must move: 6 a pixel for rgb (3 read, 3 written),
# 32 a pixel for sep (two passes, each reading and writing 8-byte doubles).
!/^#/ && $1 != "lab" && $18 == "pass" && ($21 == part || (part == "rgb" && $1 == "03")) {
    per_pixel = (part == "sep") ? 32 : 6
    byte_floor = (ceiling > 0) ? per_pixel * $4 * $5 / (ceiling * 1e6) : 0
    label = ($1 == "03") ? ("lab03 " $3) : ("v" $2 " " $3)
    if (part == "sep" && $20 ~ /pinned=0/)
        label = label " pageable"
    printf "%s\t%s\t%s\n", label, $10, byte_floor
}
END {
    if (peers == "")
        exit
    while ((getline line < peers) > 0) {
        n = split(line, p, "\t")
        if (n >= 7 && p[2] == part)
            printf "%s\t%s\t%s\n", "cupy", p[7], byte_floor
    }
}
