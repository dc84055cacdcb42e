#!/usr/bin/env bats
# Command-line tests of the grader (grading/grade) on the CPU lab 01, with no GPU: every example
# submission of grading/examples/lab01 gets the status and points its EXPECT file states; the
# verdict is the grader's, not the submission's; the sandbox hides the solutions, blocks the
# network and keeps writes inside the work folder; a grading killed with kill -9 resumes with
# every student graded once; grades.csv has the contract's columns. Lab 03 is graded end to end
# too (built; without a GPU, not run). The examples are graded once, in quick mode.
load helpers

bats_require_minimum_version 1.5.0

setup_file() {
    export G="$KIT_ROOT/grading/grade"
    export CHECK="$KIT_ROOT/grading/build/check"
    export GT="$BATS_FILE_TMPDIR"
    make -s -C "$KIT_ROOT/grading" WERROR=1 >"$GT/make.log" 2>&1 || { cat "$GT/make.log"; return 1; }
    "$KIT_ROOT/grading/examples/make.sh" 01 "$GT/ex" >/dev/null
    "$G" --lab 01 --submissions "$GT/ex" --out "$GT/out" --quick --timeout 3 --seed 4242 \
        >"$GT/grade.log" 2>&1
    echo $? >"$GT/grade.rc"
}

# field N of a student's result.tsv (1 student ... 11 reason)
field() { cut -f"$2" "$GT/out/students/$1/result.tsv"; }

# check_example NAME: the example's result against its EXPECT file
check_example() {
    run "$KIT_ROOT/grading/examples/expect.sh" 01 "$GT/out" "$1"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "the grader grades the lab 01 examples: exit 0, every example once in grades.csv" {
    [ "$(cat "$GT/grade.rc")" -eq 0 ] || { cat "$GT/grade.log"; false; }
    n=$(find "$KIT_ROOT/grading/examples/lab01" -mindepth 1 -maxdepth 1 -type d | wc -l)
    [ "$(tail -n +2 "$GT/out/grades.csv" | wc -l)" -eq "$n" ]
    [ "$(tail -n +2 "$GT/out/grades.csv" | cut -d, -f1 | sort | uniq -d | wc -l)" -eq 0 ]
}

@test "grades.csv has the contract's columns, one row per student, sorted" {
    [ "$(head -n1 "$GT/out/grades.csv")" = \
      "student,lab,build,tests_passed,tests_total,correctness_pts,perf_pts,total_pts,max_pts,status,reason" ]
    # 11 fields on every row (quoted fields may hold commas)
    run awk '{ n = 0; q = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
                 if (c == "\"") q = !q; else if (c == "," && !q) n++ }
               if (n != 10) { print "row " NR ": " n + 1 " fields"; bad = 1 } } END { exit bad }' "$GT/out/grades.csv"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    tail -n +2 "$GT/out/grades.csv" | cut -d, -f1 | LC_ALL=C sort -c
    grep -q '^"correct","01",ok,19,19,30.0,[0-9.]*,[0-9.]*,50,ok,' "$GT/out/grades.csv"
}

@test "example correct: every test passes, full correctness, its notes file is ignored and reported" {
    check_example correct
}

@test "example slow: right, no performance points for v2 (as slow as v1)" {
    check_example slow
}

@test "example wrong-borders: wrong, the unwritten border in the mismatch list and a diff picture" {
    check_example wrong-borders
    pics=("$GT/out/students/wrong-borders/diff/"v1-*.png)
    [ -f "${pics[0]}" ] && is_png "${pics[0]}"
    grep -q 'diff picture' "$GT/out/students/wrong-borders/report.md"
}

@test "example oob-write: v1 writing past its buffer crashes (or is wrong), the others keep their points" {
    check_example oob-write
}

@test "example oob-write with --sanitize: AddressSanitizer finds the write past the buffer" {
    subs="$BATS_TEST_TMPDIR/subs"
    mkdir -p "$subs"
    cp -r "$GT/ex/oob-write" "$subs/"
    run "$G" --lab 01 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick --timeout 5 --sanitize
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    t="$BATS_TEST_TMPDIR/out/students/oob-write/tests.tsv"
    grep -q $'^1\tsanitize\tsanitizer-error\t.*heap-buffer-overflow' "$t"
    grep -q $'^2\tsanitize\tpass' "$t"
}

@test "example infinite-loop: killed at the time limit, v3 not run again, the class goes on" {
    check_example infinite-loop
    [ "$(awk -F'\t' '$1 == 3 && $3 == "timeout"' "$GT/out/students/infinite-loop/tests.tsv" | wc -l)" -ge 2 ]
    grep -q 'not run: it ran past the time limit' "$GT/out/students/infinite-loop/tests.tsv"
}

@test "example compile-error: status compile-error with the compiler's first error" {
    check_example compile-error
    [ "$(field compile-error 3)" = failed ]
    grep -q 'error' "$GT/out/students/compile-error/build.log"
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

@test "each student has a report with the build, the tests, the points and the logs" {
    for d in "$GT"/out/students/*/; do
        r="$d/report.md"
        [ -s "$r" ] || { echo "no report in $d"; false; }
        grep -q '^## Build' "$r"
        grep -q 'points' "$r"
    done
    grep -q '^## Hidden tests' "$GT/out/students/correct/report.md"
    grep -q '^## Points per variant' "$GT/out/students/correct/report.md"
    [ -s "$GT/out/students/correct/tests.tsv" ] && [ -s "$GT/out/students/correct/score.tsv" ]
    ls "$GT/out/students/correct/logs/"*.out >/dev/null
}

@test "summary.md with the class plots; grading.txt records the seed and the sandbox" {
    grep -q 'students; mean' "$GT/out/summary.md"
    grep -q 'students/correct/report.md' "$GT/out/summary.md"
    if command -v gnuplot >/dev/null; then
        is_png "$GT/out/plots/scores.png"
        is_png "$GT/out/plots/time_vs_ref.png"
        [ -s "$GT/out/plots/scores.pdf" ]
    fi
    grep -q '^seed: 4242$' "$GT/out/grading.txt"
    grep -q '^sandbox: ' "$GT/out/grading.txt"
    # the work folders are gone, only the results stay
    [ "$(find "$GT/out/work" -mindepth 1 -maxdepth 1 | wc -l)" -eq 0 ]
}

@test "a second run keeps every grade and grades nobody again" {
    before=$(cat "$GT"/out/students/*/result.tsv | cksum)
    run "$G" --lab 01 --submissions "$GT/ex" --out "$GT/out" --quick --timeout 3
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"11 students (11 graded before)"* ]]
    [ "$(cat "$GT"/out/students/*/result.tsv | cksum)" = "$before" ]
    # another seed is refused: the hidden cases would not be the same
    run "$G" --lab 01 --submissions "$GT/ex" --out "$GT/out" --quick --seed 1
    [ "$status" -eq 2 ]
    [[ "$output" == *"seed 4242"* ]]
}

@test "resume after kill -9: every student graded exactly once, nothing lost" {
    subs="$BATS_TEST_TMPDIR/subs"
    out="$BATS_TEST_TMPDIR/out"
    mkdir -p "$subs"
    for e in correct slow partial wrong-borders fork-loop fake-pass; do cp -r "$GT/ex/$e" "$subs/"; done
    "$G" --lab 01 --submissions "$subs" --out "$out" --quick --timeout 3 --seed 7 >"$BATS_TEST_TMPDIR/1.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do
        n=$(find "$out/students" -name result.tsv 2>/dev/null | wc -l)
        [ "$n" -ge 2 ] && break
        sleep 0.1
    done
    kill -9 "$pid"
    wait "$pid" || true
    n1=$(find "$out/students" -name result.tsv | wc -l)
    [ "$n1" -lt 6 ] || skip "the grading finished before it could be killed"
    run "$G" --lab 01 --submissions "$subs" --out "$out" --quick --timeout 3
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(find "$out/students" -name result.tsv | wc -l)" -eq 6 ]
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
    "$G" --lab 01 --submissions "$subs" --out "$out" --quick --quiet
    touch -d '2001-01-01' "$out"/students/*/result.tsv
    run "$G" --lab 01 --submissions "$subs" --out "$out" --quick --force
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"(0 graded before)"* ]]
    [ -z "$(find "$out/students" -name result.tsv ! -newermt '2002-01-01')" ]
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

@test "sandbox: no writes outside the work folder, solutions and other students invisible, no network" {
    bwrap --ro-bind / / --unshare-net true 2>/dev/null || skip "bubblewrap cannot make a sandbox here"
    subs="$BATS_TEST_TMPDIR/subs"
    make_probe "$subs"
    run "$G" --lab 01 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick --sandbox bwrap --seed 3
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # every case ran in one process (the harness's --cases): its log
    log="$BATS_TEST_TMPDIR/out/students/probe/logs/together.err"
    cat "$log"
    [ ! -e "$BATS_TEST_TMPDIR/escaped" ]
    [ ! -e "$KIT_ROOT/escaped-by-a-submission" ]
    [ ! -e /var/tmp/escaped-by-a-submission ]
    grep -q 'probe write-system: Read-only file system' "$log"
    grep -q 'probe write-own-folder: WRITTEN' "$log"
    grep -q 'probe solutions: No such file or directory' "$log"
    grep -q 'probe rubric: No such file or directory' "$log"
    grep -q 'probe other-student: No such file or directory' "$log"
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
    run "$G" --lab 01 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick --sandbox none --timeout 3
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"WARNING: no sandbox (--sandbox none)"* ]]
    grep -q '^sandbox: none (no sandbox' "$BATS_TEST_TMPDIR/out/grading.txt"
    grep -q 'Sandbox: none' "$BATS_TEST_TMPDIR/out/students/partial/report.md"
    grep -q '^"fork-loop",.*,process-limit,' "$BATS_TEST_TMPDIR/out/grades.csv"
}

@test "hidden cases: drawn from the grading seed, reproducible, with 1x1 and sizes below the filter" {
    r="$KIT_ROOT/grading/rubrics/lab01.rubric"
    a=$("$CHECK" cases "$r" 11)
    [ "$a" = "$("$CHECK" cases "$r" 11)" ]
    [ "$a" != "$("$CHECK" cases "$r" 12)" ]
    grep -q $'^case\tone\t1,2,3\t--size 1x1 ' <<<"$a"
    # every drawn size within its range; the small case below the 5x5 filter
    sz=$(awk -F'\t' '$2 == "small" { split($4, f, " "); print f[2] }' <<<"$a")
    [[ $sz =~ ^[2-4]x[2-4]$ ]]
    for l in 01 02 03 06; do "$CHECK" cases "$KIT_ROOT/grading/rubrics/lab$l.rubric" 1 >/dev/null; done
    grep -q $'^case\tone\t1,2,3,4\t--rows 1 --cols 1 --seed' <("$CHECK" cases "$KIT_ROOT/grading/rubrics/lab06.rubric" 1)
    run "$CHECK" cases "$r" 11 --quick
    [[ "$output" == *"--size 480x360"* ]]
    printf 'variants 1\ncase x all 0x4 gauss5\n' >"$BATS_TEST_TMPDIR/bad.rubric"
    run "$CHECK" cases "$BATS_TEST_TMPDIR/bad.rubric" 1
    [ "$status" -eq 2 ]
    [[ "$output" == *"bad size"* ]]
}

@test "the checker: its own reference, exact shape, mismatches and a diff picture" {
    d="$BATS_TEST_TMPDIR/dump"
    mkdir -p "$d"
    args="--size 23x17 --filter gauss5 --seed 99"
    # shellcheck disable=SC2086
    "$L01/lab01-ref" $args --reps 1 --quiet --dump "$d"
    run "$CHECK" compare --lab 01 --variant 2 --args "$args" --out "$d/v2.bin" --meta "$d/v2.txt"
    [ "$status" -eq 0 ] && [ "$output" = pass ]
    # the same output checked against another seed's input is wrong, with the first mismatches
    run "$CHECK" compare --lab 01 --variant 2 --args "--size 23x17 --filter gauss5 --seed 98" \
        --out "$d/v2.bin" --diff "$BATS_TEST_TMPDIR/diff.png"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == fail* ]]
    [[ "$output" == *"expected"* ]]
    is_png "$BATS_TEST_TMPDIR/diff.png"
    # a truncated output or the wrong shape is refused
    head -c 100 "$d/v2.bin" >"$d/short.bin"
    run "$CHECK" compare --lab 01 --variant 2 --args "$args" --out "$d/short.bin"
    [ "$status" -eq 1 ] && [[ "$output" == "bad the output has 100 bytes"* ]]
    run "$CHECK" compare --lab 01 --variant 2 --args "--size 24x17 --filter gauss5 --seed 99" --out "$d/v2.bin" --meta "$d/v2.txt"
    [ "$status" -eq 1 ] && [[ "$output" == "bad the output is f32 23x17x4"* ]]
}

@test "the harness's --dump: outputs and spans per variant, not in --help" {
    d="$BATS_TEST_TMPDIR/dump"
    mkdir -p "$d"
    run "$L01/lab01-ref" --size 9x7 --reps 2 --quiet --filter gauss5 --dump "$d"
    [ "$status" -eq 0 ]
    [ -f "$d/v1.bin" ] && [ -f "$d/v1.2.bin" ] && [ -f "$d/v3.bin" ]
    [ "$(stat -c %s "$d/v1.bin")" -eq $((9 * 7 * 4 * 4)) ]
    read -r st ty w h c pl t0 t1 <"$d/v1.txt"
    [ "$st $ty $w $h $c $pl" = "ok f32 9 7 4 0" ] && [ "$t1" -ge "$t0" ]
    run "$L01/lab01-ref" --size 9x7 --reps 1 --quiet --filter laplace5 --dump "$d"
    [ "$(cut -d' ' -f1 "$d/v3.txt")" = unsupported ]
    # asked for by name, a variant that cannot take the input is refused (exit 2), and the
    # grader still reads "unsupported" (n/a), not a missing description
    rm -f "$d/v3.txt"
    run "$L01/lab01-ref" --size 9x7 --reps 1 --quiet --filter laplace5 --variant 3 --dump "$d"
    [ "$status" -eq 2 ] && [ "$(cut -d' ' -f1 "$d/v3.txt")" = unsupported ]
    run "$L01/lab01" --size 9x7 --reps 1 --quiet --dump "$d"
    [ "$(cut -d' ' -f1 "$d/v2.txt")" = not-implemented ]
    run "$L01/lab01-ref" --help
    [[ "$output" != *"--dump"* ]]
}

@test "the harness under --dump leaves the verdict to the checker; --cases runs many in one process" {
    make -s -C "$L01" PLANTED=wrong lab01-wrong >/dev/null
    d="$BATS_TEST_TMPDIR/dump"
    mkdir -p "$d"
    # alone the planted bug is caught; under --dump the harness does not judge, the checker does
    run "$L01/lab01-wrong" --size 23x17 --filter gauss5 --seed 5 --reps 1 --quiet --variant 2
    [ "$status" -eq 1 ]
    run "$L01/lab01-wrong" --size 23x17 --filter gauss5 --seed 5 --reps 1 --quiet --variant 2 --dump "$d"
    [ "$status" -eq 0 ] && [ -f "$d/v2.bin" ]
    run "$CHECK" compare --lab 01 --variant 2 --args "--size 23x17 --filter gauss5 --seed 5" --out "$d/v2.bin" --meta "$d/v2.txt"
    [ "$status" -eq 1 ] && [[ "${lines[0]}" == fail* ]]
    # --cases: one line per run (tab-separated, so a path may hold a space), each into its folder
    mkdir -p "$BATS_TEST_TMPDIR/c 1" "$BATS_TEST_TMPDIR/c2"
    printf -- '--dump\t%s\t--size\t1x1\n\n--dump\t%s\t--size\t9x4\t--filter\tgauss5\n' \
        "$BATS_TEST_TMPDIR/c 1" "$BATS_TEST_TMPDIR/c2" >"$BATS_TEST_TMPDIR/cases"
    run "$L01/lab01-ref" --reps 1 --quiet --cases "$BATS_TEST_TMPDIR/cases"
    [ "$status" -eq 0 ]
    [ "$(stat -c %s "$BATS_TEST_TMPDIR/c 1/v1.bin")" -eq $((1 * 1 * 4 * 4)) ]
    [ "$(stat -c %s "$BATS_TEST_TMPDIR/c2/v3.bin")" -eq $((9 * 4 * 4 * 4)) ]
    # the most serious status of the lines: here a bad size on the second line
    printf -- '--size\t3x3\n--size\t0x3\n--size\t2x2\n' >"$BATS_TEST_TMPDIR/cases"
    run "$L01/lab01" --reps 1 --quiet --cases "$BATS_TEST_TMPDIR/cases"
    [ "$status" -eq 2 ]
    run "$L01/lab01-ref" --cases "$BATS_TEST_TMPDIR/nothing"
    [ "$status" -eq 2 ] && [[ "$output" == *"cannot read --cases"* ]]
}

@test "CUPTI kernel records: attributed to each variant by its span" {
    f="$BATS_TEST_DIRNAME/fixtures/cupti"
    run "$CHECK" kernels "$f/complete.txt" "$f/run" 1,2,3
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "complete 4" ]
    [[ "${lines[1]}" == $'1\t2\t900000\tconv_v1_kernel('* ]]
    [ "${lines[2]}" = $'2\t1\t300000\tconv_v2_kernel' ]
    [ "${lines[3]}" = $'3\t0\t0\t-' ]
    run "$CHECK" kernels "$f/incomplete.txt" "$f/run" 1
    [ "${lines[0]}" = "incomplete 1" ]
    run "$CHECK" kernels "$f/none.txt" "$f/run" 1
    [ "$status" -eq 3 ] && [ "$output" = "missing 0" ]
    # the injection library is built wherever the toolkit has CUPTI
    if [ -f /usr/local/cuda/include/cupti.h ]; then
        nm -D "$KIT_ROOT/common/build/libkitcupti.so" | grep -q ' T InitializeInjection$'
    fi
}

@test "bad usage: one line and exit 2; the lab's grade.sh is the grader" {
    run "$G" --submissions /tmp --out "$BATS_TEST_TMPDIR/o"
    [ "$status" -eq 2 ] && [[ "$output" == *"--lab is required"* ]]
    run "$G" --lab 99 --submissions /tmp --out "$BATS_TEST_TMPDIR/o"
    [ "$status" -eq 2 ] && [[ "$output" == *"no lab 99"* ]]
    run "$G" --lab 01 --submissions /tmp --out "$BATS_TEST_TMPDIR/o" --sandbox maybe
    [ "$status" -eq 2 ]
    run "$L01/grade.sh" --help
    [ "$status" -eq 0 ] && [[ "$output" == *"--submissions DIR"* ]]
}

@test "the student tarball holds no grader, rubric, hidden case or example" {
    git -C "$KIT_ROOT" rev-parse HEAD >/dev/null 2>&1 || skip "not a git checkout"
    run make -s -C "$KIT_ROOT" dist-student
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run tar -tzf "$KIT_ROOT/out/cuda-lab-kit-student.tar.gz"
    [[ "$output" != *grading/rubrics* && "$output" != *grading/examples* ]]
    [[ "$output" != *grading/grade$'\n'* && "$output" != *grading/check.c* && "$output" != *solutions/* ]]
}

@test "lab 03 end to end on any machine: built in the sandbox, a compile error found, runs skipped without a GPU" {
    has_gpu && skip "this machine has a GPU: tests/gpu/grade.bats grades lab 03"
    subs="$BATS_TEST_TMPDIR/subs"
    "$KIT_ROOT/grading/examples/make.sh" 03 "$BATS_TEST_TMPDIR/ex03" >/dev/null
    mkdir -p "$subs"
    cp -r "$BATS_TEST_TMPDIR/ex03/compile-error" "$BATS_TEST_TMPDIR/ex03/correct" "$subs/"
    CUDA_ARCH=${CUDA_ARCH:-75} run "$G" --lab 03 --submissions "$subs" --out "$BATS_TEST_TMPDIR/out" --quick
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    grep -q '^"compile-error","03",failed,.*,compile-error,.*error' "$BATS_TEST_TMPDIR/out/grades.csv"
    grep -q '^"correct","03",ok,0,0,.*,skipped,.*no CUDA device' "$BATS_TEST_TMPDIR/out/grades.csv"
}
