#!/usr/bin/env bats
# Command-line tests of the grader (grading/grade, the Python package grading/kitgrade) on the
# CPU labs 01 and 02 and the kit's test lab of two parts, with no GPU: every example submission
# of grading/examples/lab01 (the grader's own and the sandbox tricks, under their small limits)
# gets the status and points its EXPECT file states; the verdict is the grader's; a replayed
# result is caught; nothing is followed through a link; paths and names are data; a grading
# killed with kill -9 resumes with every student graded once; grades.csv has the contract's
# columns; reports escape what students control. Labs 03 and 06 are built end to end too (not
# run without a GPU). The lab 01 examples are graded once, in quick mode. Nothing here is timed:
# speed points are asserted only where no timing can change them.
load helpers

bats_require_minimum_version 1.5.0

setup_file() {
    export G="$KIT_ROOT/grading/grade"
    export GT="$BATS_FILE_TMPDIR"
    export SMALL="$KIT_ROOT/grading/examples/lab01/rubric"
    # for gradings whose tests assert no speed points: one pair of 3 repetitions a variant
    export FAST="$GT/fast.rubric"
    printf 'perf_pairs 1..1\nperf_reps 3\n' >"$FAST"
    # the examples' small limits with that timing, for gradings whose tests assert no speed points
    export SMALL_FAST="$GT/small-fast.rubric"
    cat "$SMALL" "$FAST" >"$SMALL_FAST"
    make -s -C "$KIT_ROOT/grading" WERROR=1 >"$GT/make.log" 2>&1 || { cat "$GT/make.log"; return 1; }
    "$KIT_ROOT/grading/examples/make.sh" 01 "$GT/ex" >/dev/null
    "$G" --lab 01 --submissions "$GT/ex" --out "$GT/out" --quick --timeout 3 --seed 4242 \
        --rubric "$SMALL" >"$GT/grade.log" 2>&1
    echo $? >"$GT/grade.rc"
}

# field N of a student's result.tsv (1 student ... 11 reason)
field() { cut -f"$2" "$GT/out/students/$1/result.tsv"; }

# check_example NAME [OUT] [LAB]: the example's result against its EXPECT file
check_example() {
    run "$KIT_ROOT/grading/examples/expect.sh" "${3:-01}" "${2:-$GT/out}" "$1"
    echo "$output"
    [ "$status" -eq 0 ]
}

# json OUT ID EXPR: a value of a student's results.json (EXPR in Python, the record is r)
json() {
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1], encoding="utf-8")); print(eval(sys.argv[2]))' \
        "$1/students/$2/results.json" "$3"
}

@test "the grader grades the lab 01 examples: exit 0, every example once in grades.csv" {
    [ "$(cat "$GT/grade.rc")" -eq 0 ] || { cat "$GT/grade.log"; false; }
    n=$(find "$KIT_ROOT/grading/examples/lab01" -mindepth 1 -maxdepth 1 -type d | wc -l)
    [ "$(tail -n +2 "$GT/out/grades.csv" | wc -l)" -eq "$n" ]
    [ "$(tail -n +2 "$GT/out/grades.csv" | cut -d, -f1 | sort | uniq -d | wc -l)" -eq 0 ]
}

# grades.csv gained a twelfth column, id (the student's results folder): a name that is not
# safe as a path is found through it. The first eleven are as before.
@test "grades.csv has the contract's columns, one row per student, sorted" {
    [ "$(head -n1 "$GT/out/grades.csv")" = \
      "student,lab,build,tests_passed,tests_total,correctness_pts,perf_pts,total_pts,max_pts,status,reason,id" ]
    # 12 fields on every row (quoted fields may hold commas)
    run awk '{ n = 0; q = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
                 if (c == "\"") q = !q; else if (c == "," && !q) n++ }
               if (n != 11) { print "row " NR ": " n + 1 " fields"; bad = 1 } } END { exit bad }' "$GT/out/grades.csv"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    tail -n +2 "$GT/out/grades.csv" | cut -d, -f1 | LC_ALL=C sort -c
    grep -q '^"correct","01",ok,19,19,30.0,[0-9.]*,[0-9.]*,50,ok,' "$GT/out/grades.csv"
}

@test "example correct: every test passes, full correctness, its notes file is ignored and reported" {
    check_example correct
}

@test "example slow: right, little or no speed for v2 (as slow as v1)" {
    check_example slow
}

@test "example wrong-borders: wrong, the unwritten border in the mismatch list and a diff picture" {
    check_example wrong-borders
    pics=("$GT/out/students/wrong-borders/diff/"v1-*.png)
    [ -f "${pics[0]}" ]
    is_png "${pics[0]}"
    grep -q 'diff picture' "$GT/out/students/wrong-borders/report.md"
}

@test "example oob-write: v1 writing past its buffer crashes (or is wrong), the others keep their points" {
    check_example oob-write
}

@test "--sanitize: AddressSanitizer finds the write past the buffer, with the kit's rules (a Makefile handed in changes nothing)" {
    subs="$BATS_TEST_TMPDIR/subs"
    mkdir -p "$subs"
    cp -r "$GT/ex/oob-write" "$GT/ex/makefile-edit" "$subs/"
    run "$G" --lab 01 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick --timeout 5 --sanitize \
        --rubric "$SMALL_FAST"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    for s in oob-write makefile-edit; do
        t="$BATS_TEST_TMPDIR/out/students/$s/tests.tsv"
        grep -q $'^1\tsanitize\tsanitizer-error\t.*heap-buffer-overflow' "$t"
        grep -q $'^2\tsanitize\tpass' "$t"
    done
    grep -q 'Makefile: ignored' "$BATS_TEST_TMPDIR/out/students/makefile-edit/files.txt"
}

@test "example infinite-loop: killed at the time limit, v3 not run again, the class goes on" {
    check_example infinite-loop
    [ "$(awk -F'\t' '$1 == 3 && $3 == "timeout"' "$GT/out/students/infinite-loop/tests.tsv" | wc -l)" -ge 2 ]
    grep -q 'not run: it ran past the time limit' "$GT/out/students/infinite-loop/tests.tsv"
}

@test "example compile-error: status compile-error with the compiler's first error, its quotes kept" {
    check_example compile-error
    [ "$(field compile-error 3)" = failed ]
    grep -q 'error' "$GT/out/students/compile-error/build.log"
    # gcc's quotes (‘ext_row’) are in the reason, not dropped
    grep -q '‘ext_row’' "$GT/out/students/compile-error/result.tsv"
}

@test "example fake-pass: printing PASS and exiting 0 gains nothing" {
    check_example fake-pass
    grep -rq 'PASS' "$GT/out/students/fake-pass/logs"
    # its grade files went nowhere the grader reads
    run grep -q 'all passed' "$GT/out/grades.csv"
    [ "$status" -ne 0 ]
}

@test "example reads-solutions: the solutions are not there in the sandbox" {
    check_example reads-solutions
}

@test "example network: the network is unreachable; it still computes right" {
    check_example network
    grep -rqE 'Network is unreachable|Temporary failure|not known' "$GT/out/students/network/logs"
}

@test "example fork-loop: stopped by the process limit and said so" {
    check_example fork-loop
    grep -q 'process-limit' "$GT/out/students/fork-loop/tests.tsv"
}

@test "example partial: an unimplemented variant is not-implemented, the rest scores" {
    check_example partial
}

@test "example replay: a result kept from the first input is caught on fresh content" {
    check_example replay
    [ "$(json "$GT/out" replay 'r["variants"][1]["correctness_pts"] + r["variants"][1]["perf_pts"]')" = 0.0 ]
}

@test "the sandbox examples: links, a swapped run folder, /srv, limits, /proc/self/exe, a grandchild" {
    for e in link-to-reference swap-run-folder reads-srv memory-hog disk-filler include-dev-zero \
        proc-self-exe makefile-edit grandchild; do
        check_example "$e"
    done
    # the swapped run folder was a link to /etc: the grader made nothing there
    [ ! -e /etc/one ]
    [ ! -e /etc/time ]
    [ ! -e /etc/cases.txt ]
}

@test "a graded build holds no reference: nm finds none in the pristine kit's build" {
    top=$(mktemp -d /tmp/kitgrade-bats.XXXXXX)
    chmod 755 "$top"
    mkdir -p "$top/subs"
    cp -r "$GT/ex/partial" "$top/subs/"
    run "$G" --lab 01 --submissions "$top/subs" --out "$top/out" --quick --timeout 3 --rubric "$FAST"
    p=$(sed -n 's/^pristine: //p' "$top/out/grading.txt")
    own=$(ls -d "$top/out/pristine" 2>/dev/null || true)   # none: the kit's, shared
    exe="$p/.skeleton/lab01"
    nmout=$(nm --defined-only "$exe" 2>&1 || echo "nm failed")
    leaks=$(find "$p" -name ref.c -o -name '*.rubric' -o -name solutions -o -name tests | wc -l)
    rm -rf "$top"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$p" == "$KIT_ROOT/grading/build/pristine/01-"* ]] || { echo "pristine: $p"; false; }
    [ -z "$own" ]
    [[ "$nmout" == *" T main"* ]]
    [[ "$nmout" != *kit_ref_* ]]
    [[ "$nmout" != *kit_lab_ref* ]]
    # and the pristine kit has no reference, solutions, rubrics or tests to see
    [ "$leaks" -eq 0 ]
}

@test "each student has a report, results.json with every case and variant, and the logs" {
    for d in "$GT"/out/students/*/; do
        r="$d/report.md"
        [ -s "$r" ] || { echo "no report in $d"; false; }
        grep -q '^## Build' "$r"
        grep -q 'points' "$r"
        [ -s "$d/results.json" ]
    done
    grep -q '^## Hidden tests' "$GT/out/students/correct/report.md"
    grep -q '^## Points per variant' "$GT/out/students/correct/report.md"
    [ -s "$GT/out/students/correct/tests.tsv" ]
    [ -s "$GT/out/students/correct/score.tsv" ]
    ls "$GT/out/students/correct/logs/"*.out >/dev/null
    [ "$(json "$GT/out" correct 'len(r["cases"])')" -eq 19 ]
    [ "$(json "$GT/out" correct '",".join(v["variant"] for v in r["variants"])')" = 1,2,3 ]
    # a timed variant: its pairs with the reference, the repetitions checked, the spread
    [ "$(json "$GT/out" correct 'r["variants"][1]["timing"]["status"]')" = ok ]
    [ "$(json "$GT/out" correct 'len(r["variants"][1]["timing"]["pairs"]) >= 1')" = True ]
    [ "$(json "$GT/out" correct 'len(r["variants"][1]["timing"]["pairs"][0]["checked"]) >= 2')" = True ]
    [ "$(json "$GT/out" correct 'r["variants"][1]["timing"]["spread"][0] <= r["variants"][1]["timing"]["ratio"]')" = True ]
    # where its time went: each phase ends after it starts, in order, within the whole
    [ "$(json "$GT/out" correct 'sorted(r["phases"])')" = "['build', 'run', 'timed', 'total', 'wait']" ]
    [ "$(json "$GT/out" correct 'all(a <= b for a, b in r["phases"].values())')" = True ]
    [ "$(json "$GT/out" correct '(lambda p: p["total"][0] <= p["build"][0] and p["build"][1] <= p["run"][0] and p["run"][1] <= p["wait"][0] and p["wait"][1] <= p["timed"][0] and p["timed"][1] <= p["total"][1])(r["phases"])')" = True ]
    [ "$(json "$GT/out" compile-error 'sorted(r["phases"])')" = "['build', 'total']" ]
}

@test "summary.md with the class plots; grading.txt records the seed, the sandbox and the limits" {
    grep -q 'students; mean' "$GT/out/summary.md"
    grep -q 'students/correct/report.md' "$GT/out/summary.md"
    grep -q '^Where the time went, added over [0-9]* students: building [0-9.]* s, correctness runs [0-9.]* s, waiting for a timed slot [0-9.]* s, timed runs [0-9.]* s' "$GT/out/summary.md"
    # where the time went: a bar per run on the cores, correctness and timed runs, in the summary
    grep -q '^Where the time went (plots/occupancy.tsv): span [0-9.]* s; [0-9]* cores, busy [0-9.]* core-s in all' "$GT/out/summary.md"
    awk -F'\t' 'NR > 1 && $1 ~ /^core [0-9]+$/ && $3 > $2 { k[$4]++ } END { exit !(k["correctness"] && k["timed"]) }' \
        "$GT/out/plots/occupancy.tsv"
    grep -qP '^core \d+\t[0-9.]+\t[0-9.]+\ttimed\tcorrect\t' "$GT/out/plots/occupancy.tsv"
    if command -v gnuplot >/dev/null; then
        is_png "$GT/out/plots/scores.png"
        is_png "$GT/out/plots/time_vs_ref.png"
        [ -s "$GT/out/plots/scores.pdf" ]
        is_png "$GT/out/plots/occupancy.png"
        [ -s "$GT/out/plots/occupancy.pdf" ]
        grep -qF '](plots/occupancy.png)' "$GT/out/summary.md"
    fi
    grep -q '^seed: 4242$' "$GT/out/grading.txt"
    grep -q '^sandbox: ' "$GT/out/grading.txt"
    grep -q '^limits: build 120s, run 3s, memory 384 MB, disk 128 MB' "$GT/out/grading.txt"
    grep -q '^not-enforced: ' "$GT/out/grading.txt"
    grep -q '^ceilings: ' "$GT/out/grading.txt"
    # the seed is the instructor's: in no student's report
    run grep -rl 4242 "$GT"/out/students/*/report.md
    [ "$status" -ne 0 ]
    # the work folders are gone, only the results stay
    [ "$(find "$GT/out/work" -mindepth 1 -maxdepth 1 | wc -l)" -eq 0 ]
}

@test "a second run keeps every grade and grades nobody again" {
    before=$(cat "$GT"/out/students/*/result.tsv | cksum)
    n=$(tail -n +2 "$GT/out/grades.csv" | wc -l)
    run "$G" --lab 01 --submissions "$GT/ex" --out "$GT/out" --quick --timeout 3 --rubric "$SMALL"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"$n students ($n graded before)"* ]]
    [ "$(cat "$GT"/out/students/*/result.tsv | cksum)" = "$before" ]
    # another seed is refused: the hidden cases would not be the same
    run "$G" --lab 01 --submissions "$GT/ex" --out "$GT/out" --quick --seed 1 --rubric "$SMALL"
    [ "$status" -eq 2 ]
    [[ "$output" == *"seed 4242"* ]]
}

@test "resume after Ctrl-C and kill -9: every student graded exactly once, nothing lost, no mount left" {
    subs="$BATS_TEST_TMPDIR/subs"
    out="$BATS_TEST_TMPDIR/out"
    mkdir -p "$subs"
    for e in correct slow partial wrong-borders fork-loop fake-pass; do cp -r "$GT/ex/$e" "$subs/"; done
    # stop NUM SIGNAL...: a grading stopped by the SIGNALs, back to back, once NUM students have their results.json
    stop() {
        "$G" --lab 01 --submissions "$subs" --out "$out" --quick --timeout 3 --seed 7 --rubric "$FAST" >"$BATS_TEST_TMPDIR/$2.log" 2>&1 &
        pid=$!
        for _ in $(seq 1 600); do
            [ "$(find "$out/students" -name results.json 2>/dev/null | wc -l)" -ge "$1" ] && break
            sleep 0.1
        done
        for s in "${@:2}"; do kill "-$s" "$pid" || true; done; wait "$pid" || true
    }
    # gone FILE: no box mounted below OUT or TMPDIR, no work folder of the grader's in TMPDIR
    gone() {
        { grep -e " $out/" -e " $TMPDIR/" /proc/self/mounts; ls -A "$TMPDIR" | grep '^kitgrade-'; } >"$1" || true
        [ ! -s "$1" ]
    }
    export TMPDIR && TMPDIR=$(mktemp -d /tmp/kit-int.XXXXXX) && chmod 0755 "$TMPDIR"
    # an interrupt (Ctrl-C, then a script's TERM) ends the grading at once, says so, and leaves nothing behind
    stop 1 INT TERM
    n1=$(find "$out/students" -name results.json | wc -l)
    gone "$BATS_TEST_TMPDIR/left1" || true
    if [ "$n1" -lt 6 ]; then
        grep -q "interrupted: $n1 of 6 graded" "$BATS_TEST_TMPDIR/INT.log" && ! grep -q Traceback "$BATS_TEST_TMPDIR/INT.log" || { cat "$BATS_TEST_TMPDIR/INT.log"; false; }
        [ ! -s "$BATS_TEST_TMPDIR/left1" ] || { cat "$BATS_TEST_TMPDIR/left1"; false; }
    fi
    # kill -9 leaves its work folder; the next grading of OUT removes it
    stop $((n1 + 1)) 9
    n1=$(find "$out/students" -name results.json | wc -l)
    [ "$n1" -lt 6 ] || skip "the grading finished before it could be killed"
    run "$G" --lab 01 --submissions "$subs" --out "$out" --quick --timeout 3 --rubric "$FAST"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    gone "$BATS_TEST_TMPDIR/left2" || { cat "$BATS_TEST_TMPDIR/left2"; false; }
    rm -rf "$TMPDIR"
    [ "$(find "$out/students" -name results.json | wc -l)" -eq 6 ]
    [ "$(tail -n +2 "$out/grades.csv" | wc -l)" -eq 6 ]
    [ "$(tail -n +2 "$out/grades.csv" | cut -d, -f1 | sort -u | wc -l)" -eq 6 ]
    grep -q '^"correct","01",ok,19,19,30.0,' "$out/grades.csv"
    grep -q '^"fork-loop",.*,process-limit,' "$out/grades.csv"
    grep -q '^"fake-pass",.*,no-output,' "$out/grades.csv"
    [ "$(find "$out/work" -mindepth 1 -maxdepth 1 | wc -l)" -eq 0 ]
}

@test "--force grades everyone again" {
    subs="$BATS_TEST_TMPDIR/subs"
    out="$BATS_TEST_TMPDIR/out"
    mkdir -p "$subs"
    cp -r "$GT/ex/compile-error" "$GT/ex/partial" "$subs/"
    "$G" --lab 01 --submissions "$subs" --out "$out" --quick --quiet --rubric "$FAST"
    touch -d '2001-01-01' "$out"/students/*/results.json
    run "$G" --lab 01 --submissions "$subs" --out "$out" --quick --force --rubric "$FAST"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"(0 graded before)"* ]]
    [ -z "$(find "$out/students" -name results.json ! -newermt '2002-01-01')" ]
    grep -q '^"partial",.*,not-implemented,' "$out/grades.csv"
}

# a submission that probes the sandbox from a constructor, then computes like the skeleton
make_probe() {
    local d=$1
    mkdir -p "$d/probe"
    {
        echo '#define _POSIX_C_SOURCE 200809L'
        echo '#include <arpa/inet.h>'
        echo '#include <errno.h>'
        echo '#include <netinet/in.h>'
        echo '#include <stdio.h>'
        echo '#include <string.h>'
        echo '#include <sys/socket.h>'
        echo '#include <unistd.h>'
        cat <<EOF
static void try_write(const char *what, const char *path)
{
    FILE *fp = fopen(path, "w");
    fprintf(stderr, "probe %s: %s\n", what, fp ? "WRITTEN" : strerror(errno));
    if (fp)
        fclose(fp);
}
static void try_read(const char *what, const char *path)
{
    FILE *fp = fopen(path, "r");
    fprintf(stderr, "probe %s: %s\n", what, fp ? "READ" : strerror(errno));
    if (fp)
        fclose(fp);
}
__attribute__((constructor)) static void probe(void)
{
    try_write("write-outside", "$BATS_TEST_TMPDIR/escaped");
    try_write("write-kit", "$KIT_ROOT/escaped-by-a-submission");
    try_write("write-system", "/var/tmp/escaped-by-a-submission");
    try_write("write-own-folder", "own-folder-file");
    try_read("solutions", "$KIT_ROOT/solutions/01_cpu_conv/conv.c");
    try_read("rubric", "$KIT_ROOT/grading/rubrics/lab01.rubric");
    try_read("other-student", "$GT/ex/correct/conv.c");
    try_read("grading-seed", "$BATS_TEST_TMPDIR/out/grading.txt");
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(53);
    inet_pton(AF_INET, "1.1.1.1", &a.sin_addr);
    int c = s >= 0 ? connect(s, (struct sockaddr *)&a, sizeof a) : -1;
    fprintf(stderr, "probe network: %s\n", c == 0 ? "CONNECTED" : strerror(errno));
}
EOF
        cat "$L01/conv.c"
    } >"$d/probe/conv.c"
}

@test "sandbox: no writes outside the work folder, solutions, OUT and other students invisible, no network" {
    bwrap --ro-bind / / --unshare-net true 2>/dev/null || skip "bubblewrap cannot make a sandbox here"
    subs="$BATS_TEST_TMPDIR/subs"
    make_probe "$subs"
    run "$G" --lab 01 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick --sandbox bwrap --seed 3 --rubric "$FAST"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # every case ran in one process (the harness's --cases): its log
    log="$BATS_TEST_TMPDIR/out/students/probe/logs/together.err"
    cat "$log"
    [ ! -e "$BATS_TEST_TMPDIR/escaped" ]
    [ ! -e "$KIT_ROOT/escaped-by-a-submission" ]
    [ ! -e /var/tmp/escaped-by-a-submission ]
    grep -qE 'probe write-system: (Read-only file system|No such file or directory)' "$log"
    grep -q 'probe write-own-folder: WRITTEN' "$log"
    grep -q 'probe solutions: No such file or directory' "$log"
    grep -q 'probe rubric: No such file or directory' "$log"
    grep -q 'probe other-student: No such file or directory' "$log"
    grep -q 'probe grading-seed: No such file or directory' "$log"
    grep -qE 'probe network: (Network is unreachable|Connection refused)' "$log"
    run grep -q 'CONNECTED\|READ$' "$log"
    [ "$status" -ne 0 ]
    # and it is graded like the skeleton it is: nothing implemented
    grep -q '^"probe",.*,not-implemented,' "$BATS_TEST_TMPDIR/out/grades.csv"
}

@test "without the sandbox the grader says so plainly, and keeps its limits" {
    subs="$BATS_TEST_TMPDIR/subs"
    mkdir -p "$subs"
    cp -r "$GT/ex/partial" "$GT/ex/fork-loop" "$subs/"
    run "$G" --lab 01 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick --sandbox none --timeout 3 --rubric "$FAST"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"WARNING: no sandbox (--sandbox none)"* ]]
    grep -q '^sandbox: none (no sandbox' "$BATS_TEST_TMPDIR/out/grading.txt"
    grep -q 'Sandbox: none' "$BATS_TEST_TMPDIR/out/students/partial/report.md"
    grep -q '^"fork-loop",.*,process-limit,' "$BATS_TEST_TMPDIR/out/grades.csv"
}

@test "paths are data: a kit, submissions and OUT under a space, a comma, a quote, \$(...) and accents" {
    weird="$BATS_TEST_TMPDIR/a b,c'\$(touch pwned)é"
    mkdir -p "$weird/subs"
    tar -C "$KIT_ROOT" --exclude=./.git --exclude=build --exclude=out --exclude=./tests/log \
        --no-wildcards-match-slash --exclude='./labs/*/lab[0-9][0-9]' --exclude='./labs/*/lab[0-9][0-9]-*' -cf - . |
        tar -C "$weird" --one-top-level=kit -xf -
    # the kit's libraries and the grader's programs (helpers.bash, under make test): the
    # pristine kit and the students are still built under the weird path
    seed_kit_copy "$weird/kit"
    cp -r "$GT/ex/correct" "$GT/ex/compile-error" "$weird/subs/"
    run "$weird/kit/grading/grade" --lab 01 --submissions "$weird/subs" --out "$weird/out" --quick \
        --timeout 5 --seed 5 --rubric "$FAST"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
    [ ! -e pwned ]
    grep -q '^"correct","01",ok,19,19,30.0,' "$weird/out/grades.csv"
    grep -q '^"compile-error","01",failed,' "$weird/out/grades.csv"
    # OUT with a comma, the old grader's undoing
    run "$G" --lab 01 --submissions "$weird/subs" --out "$BATS_TEST_TMPDIR/g0,1" --quick --timeout 5 --rubric "$FAST"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    grep -q '^"correct","01",ok,19,19,30.0,' "$BATS_TEST_TMPDIR/g0,1/grades.csv"
}

@test "names are data: two names one accent apart stay two, a link is refused, a dot-folder is listed, reports escape" {
    subs="$BATS_TEST_TMPDIR/subs"
    out="$BATS_TEST_TMPDIR/out"
    mkdir -p "$subs"
    cp -r "$GT/ex/correct" "$subs/Zoë"
    cp -r "$GT/ex/partial" "$subs/Zoé"
    cp -r "$GT/ex/correct" "$subs/.hidden"
    cp -r "$GT/ex/compile-error" "$subs/<img src=x onerror=alert(1)>|[x](y)"
    ln -s "$subs/Zoë" "$subs/mallory"
    run "$G" --lab 01 --submissions "$subs" --out "$out" --quick --timeout 3 --rubric "$FAST"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(tail -n +2 "$out/grades.csv" | wc -l)" -eq 4 ]
    grep -q '^"Zoë","01",ok,' "$out/grades.csv"
    grep -q '^"Zoé","01",.*,not-implemented,' "$out/grades.csv"
    grep -q '^"mallory","01",refused,.*symbolic link' "$out/grades.csv"
    # the two results folders are two, each named after its own name
    [ "$(find "$out/students" -mindepth 1 -maxdepth 1 -name 'Zo_-*' | wc -l)" -eq 2 ]
    # the dot-folder is listed with why it was not graded
    grep -q 'hidden' "$out/summary.md"
    [[ "$output" == *"not graded: .hidden"* ]]
    # no tag, link or table break of a student's making in the class summary
    run grep -c '<img' "$out/summary.md"
    [ "$output" -eq 0 ]
    run grep -cF '[x](y)' "$out/summary.md"
    [ "$output" -eq 0 ]
    grep -qF '&lt;img src=x onerror=alert(1)&gt;\|\[x\](y)' "$out/summary.md"
}

@test "hidden cases: drawn from the grading seed, reproducible, with 1x1 and sizes below the filter" {
    a=$("$G" --lab 01 --print-cases --seed 11)
    [ "$a" = "$("$G" --lab 01 --print-cases --seed 11)" ]
    [ "$a" != "$("$G" --lab 01 --print-cases --seed 12)" ]
    grep -q $'^case\tone\t1,2,3\t--size 1x1 ' <<<"$a"
    # every drawn size within its range; the small case below the 5x5 filter
    sz=$(awk -F'\t' '$2 == "small" { split($4, f, " "); print f[2] }' <<<"$a")
    [[ $sz =~ ^[2-4]x[2-4]$ ]]
    for l in $(kit_labs); do "$G" --lab "${l%%_*}" --print-cases --seed 1 >/dev/null; done
    grep -q $'^case\tone\t1,2,3,4\t--rows 1 --cols 1 --seed' <("$G" --lab 06 --print-cases --seed 1)
    run "$G" --lab 01 --print-cases --seed 11 --quick
    [[ "$output" == *"--size 320x240"* ]]
    printf 'points 1 1 0\ncase x all 0x4 gauss5\n' >"$BATS_TEST_TMPDIR/bad.rubric"
    run "$G" --lab 01 --print-cases --seed 1 --rubric "$BATS_TEST_TMPDIR/bad.rubric"
    [ "$status" -eq 2 ]
    [[ "$output" == *"bad size"* ]]
}

@test "labs of several parts: the kit's test lab graded part by part" {
    k="$BATS_TEST_TMPDIR/kit"
    mkdir -p "$k/labs" "$k/solutions"
    cp -r "$KIT_ROOT/common" "$KIT_ROOT/grading" "$k/"
    link_deps "$k"
    rm -rf "$k/common/build" "$k/grading/build" "$k/grading/examples"
    # the kit's libraries, hold, keyserve and ceilings where their sources are the kit's
    # (helpers.bash, under make test): the grader's build here makes check-99, the test lab's
    seed_kit_copy "$k"
    cp -r "$KIT_ROOT/tests/labs/99_twopart" "$k/labs/"
    cp -r "$KIT_ROOT/tests/labs/solutions/99_twopart" "$k/solutions/"
    rm -rf "$k/labs/99_twopart/build" "$k/labs/99_twopart"/lab99*
    sed -i 's|^include .*lab.mk|include ../../common/lab.mk|; /^SOL_DIR/d' "$k/labs/99_twopart/Makefile"
    cat >"$k/grading/rubrics/lab99.rubric" <<'EOF'
lab 99_twopart
points scale:2   10 5
points invert:1   5 0
points invert:2  10 5
perf_clock cpu
perf_reps 5
case tiny   scale:all   --n 1..7
case long   scale:2     --n 1000..5000
case pic    invert:all  --size 1..9x1..7
case big    invert:all  --size 100..200x50..90
perf scale:2   --n 100000
perf invert:2  --size 512x384
EOF
    subs="$BATS_TEST_TMPDIR/subs"
    mkdir -p "$subs/correct" "$subs/skeleton" "$subs/broken"
    cp "$KIT_ROOT/tests/labs/solutions/99_twopart/twopart.c" "$subs/correct/"
    cp "$KIT_ROOT/tests/labs/99_twopart/twopart.c" "$subs/skeleton/"
    sed '/^int invert_v2(/,/^}/ s/o\[x\] = (unsigned char)~r\[x\];/o[x] = r[x];/' \
        "$KIT_ROOT/tests/labs/solutions/99_twopart/twopart.c" >"$subs/broken/twopart.c"
    run cmp -s "$subs/broken/twopart.c" "$subs/correct/twopart.c"
    [ "$status" -ne 0 ]
    # seed 5 draws a picture v2 takes (it refuses some widths: n/a, as the reference says)
    run "$k/grading/grade" --lab 99 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick \
        --timeout 5 --seed 5
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    o="$BATS_TEST_TMPDIR/out"
    cat "$o/grades.csv"
    grep -q '^"correct","99",ok,8,8,25.0,' "$o/grades.csv"
    grep -q '^"skeleton","99",ok,0,8,0.0,0.0,0.0,.*,not-implemented,' "$o/grades.csv"
    grep -q '^"broken","99",ok,5,8,15.0,.*,wrong,"invert:2 wrong in case' "$o/grades.csv"
    [ "$(json "$o" correct '" ".join(v["variant"] for v in r["variants"])')" = "scale:2 invert:1 invert:2" ]
    [ "$(json "$o" correct 'sorted({c["part"] for c in r["cases"]})')" = "['invert', 'scale']" ]
}

@test "lab 02 (OpenMP and SIMD): its examples get what their EXPECT says" {
    "$KIT_ROOT/grading/examples/make.sh" 02 "$BATS_TEST_TMPDIR/ex" >/dev/null
    run "$G" --lab 02 --submissions "$BATS_TEST_TMPDIR/ex" --out "$BATS_TEST_TMPDIR/out" --quick --timeout 5 \
        --rubric "$FAST"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    for e in correct wrong not-implemented fake-pass compile-error; do
        check_example "$e" "$BATS_TEST_TMPDIR/out" 02
    done
}

@test "bad usage: one line and exit 2; each lab's grade.sh is the grader" {
    run "$G" --submissions /tmp --out "$BATS_TEST_TMPDIR/o"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--lab is required"* ]]
    run "$G" --lab 99 --submissions /tmp --out "$BATS_TEST_TMPDIR/o"
    [ "$status" -eq 2 ]
    [[ "$output" == *"no lab 99"* ]]
    run "$G" --lab 01 --submissions /tmp --out "$BATS_TEST_TMPDIR/o" --sandbox maybe
    [ "$status" -eq 2 ]
    run "$G" --lab 01 --submissions /tmp --out "$BATS_TEST_TMPDIR/o" --print-cases
    [ "$status" -eq 2 ]
    [[ "$output" == *"--print-cases needs --seed"* ]]
    local n=0 gs
    for gs in "$KIT_ROOT"/labs/[0-9][0-9]_*/grade.sh; do
        run "$gs" --help
        [ "$status" -eq 0 ]
        [[ "$output" == *"--submissions DIR"* ]]
        n=$((n + 1))
    done
    [ "$n" -ge 1 ]
    # one script for every lab: the wrappers are the same file, and the lab
    # comes from the folder's name
    [ "$(cat "$KIT_ROOT"/labs/[0-9][0-9]_*/grade.sh | sort | uniq -c | awk '$1 != '"$n"'' | wc -l)" -eq 0 ]
    local k="$BATS_TEST_TMPDIR/kit"
    mkdir -p "$k/labs/notalab" "$k/labs/42_answer" "$k/common" "$k/grading"
    cp -r "$KIT_ROOT/common/scripts" "$k/common/"
    cp "$KIT_ROOT/labs/01_cpu_conv/grade.sh" "$k/labs/notalab/"
    cp "$KIT_ROOT/labs/01_cpu_conv/grade.sh" "$k/labs/42_answer/"
    printf '#!/bin/sh\necho "grader: $*"\n' >"$k/grading/grade"
    chmod +x "$k/grading/grade"
    run "$k/labs/42_answer/grade.sh" --submissions "sub dir" --jobs 2
    [ "$status" -eq 0 ]
    [ "$output" = "grader: --lab 42 --submissions sub dir --jobs 2" ]
    run "$k/labs/notalab/grade.sh" --help
    [ "$status" -eq 2 ]
    [[ "$output" == *"not a lab folder"* ]]
}

@test "the student tarball holds no grader, rubric, hidden case or example" {
    git -C "$KIT_ROOT" rev-parse HEAD >/dev/null 2>&1 || skip "not a git checkout"
    run make -s -C "$KIT_ROOT" dist-student
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run tar -tzf "$KIT_ROOT/out/cuda-lab-kit-student.tar.gz"
    [[ "$output" != *grading/rubrics* ]]
    [[ "$output" != *grading/examples* ]]
    [[ "$output" != *grading/kitgrade* ]]
    [[ "$output" != *grading/grade$'\n'* ]]
    [[ "$output" != *solutions/* ]]
    # (grading/check.c is shipped now: make presubmit judges the public cases with it)
}

@test "lab 03 end to end on any machine: built in the sandbox, a compile error found, runs skipped without a GPU" {
    has_gpu && skip "this machine has a GPU: tests/gpu/grade.bats grades labs 03 and 06"
    # one GPU lab here (lab 06's build in the sandbox, cuBLAS linked, is graded on the GPU
    # machine by tests/gpu/grade.bats: each GPU lab here costs its pristine kit, the
    # reference's build and a student's, about 45 CPU-s of make test on 2 cores)
    for l in 03; do
        subs="$BATS_TEST_TMPDIR/subs$l"
        "$KIT_ROOT/grading/examples/make.sh" $l "$BATS_TEST_TMPDIR/ex$l" >/dev/null
        mkdir -p "$subs"
        cp -r "$BATS_TEST_TMPDIR/ex$l/compile-error" "$BATS_TEST_TMPDIR/ex$l/correct" "$subs/"
        CUDA_ARCH=${CUDA_ARCH:-75} run "$G" --lab $l --submissions "$subs" --out "$BATS_TEST_TMPDIR/out$l" --quick
        [ "$status" -eq 0 ] || { echo "$output"; false; }
        grep -q "^\"compile-error\",\"$l\",failed,.*,compile-error,.*error" "$BATS_TEST_TMPDIR/out$l/grades.csv"
        grep -q "^\"correct\",\"$l\",ok,0,0,.*,skipped,.*no CUDA device" "$BATS_TEST_TMPDIR/out$l/grades.csv"
    done
    # a file with the reference's bytes takes the reference's object: the copy of the
    # reference compiles nothing of its own, the compile error only the file it broke
    o="$BATS_TEST_TMPDIR/out03/students"
    grep -q 'nvcc.* -c .*conv\.cu' "$BATS_TEST_TMPDIR/out03/reference/build.log"
    run grep -c 'nvcc.* -c ' "$o/correct/build.log"
    [ "$output" = 0 ] || { cat "$o/correct/build.log"; false; }
    grep -q 'nvcc.* -c .*conv\.cu' "$o/compile-error/build.log"
    run grep -c 'nvcc.* -c .*words\.cu' "$o/compile-error/build.log"
    [ "$output" = 0 ] || { cat "$o/compile-error/build.log"; false; }
}

@test "every lab's rubric parses and draws hidden cases (part-aware lists like strip:3,4,5 included)" {
    for d in "$KIT_ROOT"/labs/[0-9][0-9]_*/; do
        n=$(basename "$d"); n=${n%%_*}
        run "$KIT_ROOT/grading/grade" --lab "$n" --print-cases --seed 7
        [ "$status" -eq 0 ] || { echo "lab $n: $output"; false; }
        [ "$(printf '%s\n' "$output" | grep -c '^case')" -ge 3 ] || { echo "lab $n: $output"; false; }
    done
}

@test "the grading demo (grading/demo.sh): bad usage is one line and exit 2, before any grading" {
    run "$KIT_ROOT/grading/demo.sh"
    [ "$status" -eq 2 ]
    [[ "$output" == "usage: "* ]]
    run "$KIT_ROOT/grading/demo.sh" "$BATS_TEST_TMPDIR/d" 01
    [ "$status" -eq 2 ]
    [[ "$output" == *"01 is no further GPU lab of the demo" ]]
    [ ! -e "$BATS_TEST_TMPDIR/d" ]
}
