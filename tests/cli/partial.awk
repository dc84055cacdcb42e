# partial.awk - a partly written student file from a reference solution, for
# tests of partial progress: the SOLUTION regions whose numbers (1, 2, ... in
# file order) are listed in `keep` stay answered, the others become what the
# skeleton has there (their STUDENT region). keep="" gives the skeleton.
#   awk -v keep=1,3 -f partial.awk solutions/01_cpu_conv/conv.c > conv.c
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
BEGIN { n = split(keep, k, ","); for (i = 1; i <= n; i++) kept[k[i]] = 1 }
{
    t = trim($0)
    if (t == "/* >>> SOLUTION */") { region++; mode = "sol"; next }
    if (t == "/* <<< SOLUTION */") { mode = ""; next }
    if (t == "/* >>> STUDENT") { mode = "stu"; next }
    if (t == "<<< STUDENT */") { mode = ""; next }
    if (mode == "sol" && !(region in kept)) next
    if (mode == "stu" && (region in kept)) next
    print
}
