#!/bin/sh
# plot-ready.sh BENCH.tsv - is there something to plot in make bench's results? Exit 0 when a
# row's status is pass; 1, said in one line, when none is (a student's variants not written yet,
# or all wrong); 3, said, when there is no such file. A lab's make plot begins with
#   plot-ready.sh $(OUT)/bench.tsv || exit $$(($$? - 1))
# so that nothing to plot ends it with exit 0, no results with exit 2.
[ -f "$1" ] || { echo "no $1: run make bench first"; exit 3; }
awk -F'\t' '/^#/ { next } !hdr { hdr = 1; for (i = 1; i <= NF; i++) if ($i == "status") c = i; next }
    c && $c == "pass" { found = 1; exit } END { exit !found }' "$1" && exit 0
echo "nothing to plot yet: no variant passed in $1 (write one, then make bench)"
exit 1
