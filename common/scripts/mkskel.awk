# mkskel.awk - make a student skeleton from a reference solution.
#
# In the solution file:
#     /* >>> SOLUTION */        lines up to the closing marker are the answer:
#     ...                       dropped from the skeleton
#     /* <<< SOLUTION */
#     /* >>> STUDENT            lines up to the closing marker are what the
#     ...                       student starts from (a comment in the solution,
#     <<< STUDENT */            code in the skeleton); use // comments inside
# Everything else is copied as it is. Unbalanced markers are an error.
# With -v out=solution it writes the solution as a student's copy of it holds it instead:
# the SOLUTION lines kept, the STUDENT blocks and every marker line dropped (the grader's
# examples and the reference it builds: grading/examples/make.sh, kitgrade/lab/objcache.py).
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
{
    t = trim($0)
    if (t == "/* >>> SOLUTION */") {
        if (mode != "") { err("nested marker"); }
        mode = "sol"; start = NR; next
    }
    if (t == "/* <<< SOLUTION */") {
        if (mode != "sol") { err("closing SOLUTION marker without an opening one"); }
        mode = ""; next
    }
    if (t == "/* >>> STUDENT") {
        if (mode != "") { err("nested marker"); }
        mode = "stu"; start = NR; next
    }
    if (t == "<<< STUDENT */") {
        if (mode != "stu") { err("closing STUDENT marker without an opening one"); }
        mode = ""; next
    }
    if (mode == (out == "solution" ? "stu" : "sol")) next
    print
}
function err(msg) {
    printf("%s:%d: %s\n", FILENAME, NR, msg) > "/dev/stderr"
    failed = 1
    exit 1
}
END {
    if (!failed && mode != "") {
        printf("%s:%d: marker opened here is never closed\n", FILENAME, start) > "/dev/stderr"
        exit 1
    }
}
