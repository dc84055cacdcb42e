# conflicts.awk - lab 04's bank-conflict plot: a line per rgb variant profiled
# (label, load conflicts, store conflicts), from make profile's TSV (columns
# found by name in its header: label, legacy, value).
#   awk -F'\t' -f scripts/conflicts.awk out/profile.tsv
NR == 1 {
    for (i = 1; i <= NF; i++)
        col[$i] = i
    next
}
$col["legacy"] == "shared_ld_bank_conflict" { ld[$col["label"]] += $col["value"]; seen[$col["label"]] = 1 }
$col["legacy"] == "shared_st_bank_conflict" { st[$col["label"]] += $col["value"]; seen[$col["label"]] = 1 }
END {
    for (v = 1; v <= 9; v++)
        if (("v" v) in seen)
            printf "v%d\t%s\t%s\n", v, ld["v" v] + 0, st["v" v] + 0
}
