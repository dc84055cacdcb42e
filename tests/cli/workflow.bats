#!/usr/bin/env bats
# The instructors' workflow through the real grader (grading/grade) on lab 01 (the CPU lab,
# --quick): a roster, the students' git repositories (built here, no network: commits before
# and after the deadline, a backdated one, one dated after the clone, a student with an
# extension, one not on the roster, one missing), the deadline and the rubric's late policy,
# --repos with a URL and a local path, --ref, the platform's submission times, --only, both
# gradebook exports from the platforms' own roster headers, the similarity report, and one
# hostile repository per trick (a hook, a link in the tree, a huge blob, a config that runs a
# command, a .git pointing elsewhere, a .git with links into another student's): none of their
# commands runs, no link is followed, the grader says why.
# Nothing here is timed: points are asserted where no timing can change them (correctness),
# and the penalty as the share of the points before it.
load helpers

bats_require_minimum_version 1.5.0

DEADLINE=2025-03-14T23:59:00+01:00

# git as a student's machine runs it, at a chosen date
sgit() {
    local date=$1 repo=$2
    shift 2
    GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
        git -C "$repo" -c user.name="A Student" -c user.email=s@uni.example -c commit.gpgSign=false "$@"
}

# commit REPO DATE FILE: FILE as the lab's conv.c (its kit path), committed at DATE; the id
commit() {
    local repo=$1 date=$2 file=$3
    [ -d "$repo/.git" ] || git init -q -b main "$repo"
    mkdir -p "$repo/labs/01_cpu_conv"
    cp "$file" "$repo/labs/01_cpu_conv/conv.c"
    sgit "$date" "$repo" add -A
    sgit "$date" "$repo" commit -q -m "work"
    sgit "$date" "$repo" rev-parse HEAD
}

setup_file() {
    export G="$KIT_ROOT/grading/grade"
    export GT="$BATS_FILE_TMPDIR"
    export FIX="$KIT_ROOT/grading/tests/fixtures/instructors"
    make -s -C "$KIT_ROOT/grading" WERROR=1 >"$GT/make.log" 2>&1 || { cat "$GT/make.log"; return 1; }
    "$KIT_ROOT/grading/examples/make.sh" 01 "$GT/ex" >/dev/null
    # the repositories live where the grader's unprivileged reader (as root) can reach them
    R=$(mktemp -d /tmp/kit-workflow.XXXXXX)
    chmod 755 "$R"
    export R
    echo "$R" >"$GT/repos-dir"
    mkdir -p "$R/work" "$R/subs" "$R/trap"
    chmod 777 "$R/trap"                 # where a trick's command would leave its mark
    local ex="$GT/ex"
    # the students' own repositories (their machines)
    {
        echo "jdoe1 $(commit "$R/work/janedoe-gh" 2025-03-13T10:00:00+01:00 "$ex/partial/conv.c")"
        echo "jdoe2 $(commit "$R/work/janedoe-gh" 2025-03-16T12:00:00+01:00 "$ex/wrong-borders/conv.c")"
        # made last, dated before the deadline: counts at the date of the commit before it
        echo "jdoe3 $(commit "$R/work/janedoe-gh" 2025-03-14T22:00:00+01:00 "$ex/correct/conv.c")"
        echo "akim1 $(commit "$R/work/akim" 2025-03-14T10:00:00+01:00 "$ex/partial/conv.c")"
        echo "akim2 $(commit "$R/work/akim" 2025-03-15T10:00:00+01:00 "$ex/correct/conv.c")"
        # past the last day the policy accepts: not graded
        echo "akim3 $(commit "$R/work/akim" 2025-03-25T12:00:00+01:00 "$ex/wrong-borders/conv.c")"
        # an extension of 2 days (the roster's column)
        echo "jo1 $(commit "$R/work/jo-smith" 2025-03-16T12:00:00+01:00 "$ex/correct/conv.c")"
        # not on the roster; a commit dated in 2099, after the clone was made
        echo "eve1 $(commit "$R/work/eve" 2025-03-14T12:00:00+01:00 "$ex/correct/conv.c")"
        echo "eve2 $(commit "$R/work/eve" 2099-01-01T00:00:00+00:00 "$ex/wrong-borders/conv.c")"
    } >"$GT/commits"
    git -C "$R/work/janedoe-gh" branch submitted "$(id_of jdoe3)"
    # the instructor's copy at the deadline: one clone each, named ASSIGNMENT-LOGIN (jo-smith's
    # dated when her extension of 2 days ended: her late work comes after it, in --only's test)
    for s in janedoe-gh akim eve; do
        git clone -q "$R/work/$s" "$R/subs/lab01-$s"
    done
    GIT_COMMITTER_DATE=2025-03-17T00:00:00+01:00 git clone -q "$R/work/jo-smith" "$R/subs/lab01-jo-smith"
    git -C "$R/subs/lab01-akim" branch submitted "$(id_of akim1)"
    hostile "$R/subs" "$ex"
    # one pair of 3 repetitions a timed variant: nothing here asserts speed points (a penalty is
    # asserted as a share of the points before it)
    printf 'late penalty=10%%/day grace=15m last=7d extension=extension\nlimits build=120 run=10\nperf_pairs 1..1\nperf_reps 3\n' \
        >"$GT/late.rubric"
    "$G" --lab 01 --submissions "$R/subs" --out "$GT/out" --quick --seed 4242 --rubric "$GT/late.rubric" \
        --roster "$FIX/plain_roster.csv" --deadline "$DEADLINE" >"$GT/grade.log" 2>&1
    echo $? >"$GT/grade.rc"
}

teardown_file() {
    rm -rf "$(cat "$BATS_FILE_TMPDIR/repos-dir")"
}

# hostile DIR EX: one repository per trick, handed in as they are (not cloned)
hostile() {
    local d=$1 ex=$2 t="$R/trap"
    local hook="#!/bin/sh
touch $t/hook-\$(basename \$0)"
    # hooks in the repository, and a hooks folder of its own named in its config
    commit "$d/lab01-hook" 2025-03-14T09:00:00+01:00 "$ex/correct/conv.c" >/dev/null
    mkdir -p "$d/lab01-hook/myhooks"
    for h in post-checkout post-merge pre-auto-gc reference-transaction post-index-change \
        fsmonitor-watchman post-rewrite; do
        printf '%s\n' "$hook" >"$d/lab01-hook/.git/hooks/$h"
        printf '%s\n' "$hook" >"$d/lab01-hook/myhooks/$h"
        chmod 755 "$d/lab01-hook/.git/hooks/$h" "$d/lab01-hook/myhooks/$h"
    done
    git -C "$d/lab01-hook" config core.hooksPath "$d/lab01-hook/myhooks"
    # a config whose commands would run on a checkout, a diff, a pager, an alias, a fetch
    commit "$d/lab01-config" 2025-03-14T09:00:00+01:00 "$ex/correct/conv.c" >/dev/null
    printf '*.c filter=evil diff=evil\n' >"$d/lab01-config/.gitattributes"
    sgit 2025-03-14T09:30:00+01:00 "$d/lab01-config" add -A
    sgit 2025-03-14T09:30:00+01:00 "$d/lab01-config" commit -q -m attributes
    local kv
    for kv in "core.fsmonitor=touch $t/fsmonitor; false" "core.sshCommand=touch $t/ssh" \
        "core.pager=touch $t/pager; cat" "core.editor=touch $t/editor" \
        "core.askPass=touch $t/askpass" "alias.cat-file=!touch $t/alias" \
        "alias.ls-tree=!touch $t/alias2" "filter.evil.smudge=touch $t/smudge; cat" \
        "filter.evil.clean=touch $t/clean; cat" "filter.evil.process=touch $t/process" \
        "filter.evil.required=true" "diff.evil.textconv=touch $t/textconv; cat" \
        "diff.external=touch $t/diff" "gpg.program=touch $t/gpg" \
        "credential.helper=!touch $t/credential" "pager.ls-tree=touch $t/pager2; cat" \
        "core.gitProxy=touch $t/proxy"; do
        git -C "$d/lab01-config" config "${kv%%=*}" "${kv#*=}"
    done
    # the lab's file is a link to the reference solution
    git init -q -b main "$d/lab01-link"
    mkdir -p "$d/lab01-link/labs/01_cpu_conv"
    ln -s "$KIT_ROOT/solutions/01_cpu_conv/conv.c" "$d/lab01-link/labs/01_cpu_conv/conv.c"
    sgit 2025-03-14T09:00:00+01:00 "$d/lab01-link" add -A
    sgit 2025-03-14T09:00:00+01:00 "$d/lab01-link" commit -q -m link
    # the lab's file is a blob of 5 MB
    git init -q -b main "$d/lab01-huge"
    mkdir -p "$d/lab01-huge/labs/01_cpu_conv"
    { cat "$ex/correct/conv.c"; head -c 5000000 /dev/zero | tr '\0' '/'; echo; } \
        >"$d/lab01-huge/labs/01_cpu_conv/conv.c"
    sgit 2025-03-14T09:00:00+01:00 "$d/lab01-huge" add -A
    sgit 2025-03-14T09:00:00+01:00 "$d/lab01-huge" commit -q -m huge
    # .git is a file naming another student's repository
    mkdir -p "$d/lab01-gitfile"
    echo "gitdir: $d/lab01-eve/.git" >"$d/lab01-gitfile/.git"
    # .git links into another student's repository: lab01-eve's pack, packed-refs and branch
    commit "$d/lab01-linked" 2025-03-14T09:00:00+01:00 "$ex/partial/conv.c" >/dev/null
    git -C "$d/lab01-eve" repack -q -a -d
    rm -rf "$d/lab01-linked/.git/objects/pack" "$d/lab01-linked/.git/refs/heads/main"
    ln -s "$d/lab01-eve/.git/objects/pack" "$d/lab01-linked/.git/objects/pack"
    ln -s "$d/lab01-eve/.git/packed-refs" "$d/lab01-linked/.git/packed-refs"
    ln -s "$d/lab01-eve/.git/refs/heads/main" "$d/lab01-linked/.git/refs/heads/main"
}

# id_of NAME: the commit recorded as NAME
id_of() { awk -v n="$1" '$1 == n { print $2 }' "$GT/commits"; }

# json OUT ID EXPR: a value of a student's results.json (EXPR in Python, the record is r)
json() {
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1], encoding="utf-8")); print(eval(sys.argv[2]))' \
        "$1/students/$2/results.json" "$3"
}

# csv FILE KEY COLUMN: the cell of COLUMN in the row whose first cell (or login) is KEY
csv() {
    python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
for r in rows:
    if sys.argv[2] in (r.get("student"), r.get("login")):
        print(r[sys.argv[3]]); break
else:
    sys.exit("no row " + sys.argv[2])' "$@"
}

# penalised OUT ID PCT: points after = points before less PCT % (rounded as late.py rounds), and
# the total in results.json is the points after
penalised() {
    [ "$(json "$1" "$2" 'r["late"]["points_after"] == float("%.4g" % (r["late"]["points_before"] * (1.0 - '"$3"' / 100.0))) and r["points"]["total"] == r["late"]["points_after"] and r["late"]["points_before"] > 0')" = True ]
}

@test "the class at the deadline: exit 0, one row per student on the roster or graded, the workflow's columns after the twelve" {
    [ "$(cat "$GT/grade.rc")" -eq 0 ] || { cat "$GT/grade.log"; false; }
    [ "$(head -n1 "$GT/out/grades.csv")" = \
      "student,lab,build,tests_passed,tests_total,correctness_pts,perf_pts,total_pts,max_pts,status,reason,id,login,roster,commit,commit_time,submitted_at,late,points_before_late,late_penalty_pct,flags" ]
    # 4 clones, 6 hostile repositories, 1 student missing
    [ "$(tail -n +2 "$GT/out/grades.csv" | wc -l)" -eq 11 ]
    [ "$(csv "$GT/out/grades.csv" lab01-akim commit)" = "$(id_of akim2)" ]
    grep -q '^lab: 01$' "$GT/out/grading.txt"
    grep -q -- "--deadline $DEADLINE" "$GT/out/grading.txt"
}

@test "the last commit at or before the deadline plus the policy's last day; a later one is not graded; the penalty is 10% a day" {
    o="$GT/out"
    [ "$(json "$o" lab01-akim 'r["git"]["commit"]')" = "$(id_of akim2)" ]
    [ "$(json "$o" lab01-akim 'r["git"]["newer_commits"]')" -eq 1 ]
    [ "$(json "$o" lab01-akim 'r["git"]["until"]')" = 2025-03-21T23:59:00+01:00 ]
    [ "$(json "$o" lab01-akim 'r["late"]["status"], r["late"]["periods"], r["late"]["penalty_pct"]')" = "('late', 1, 10.0)" ]
    [ "$(json "$o" lab01-akim 'r["points"]["correctness"]')" = 30.0 ]
    penalised "$o" lab01-akim 10
    [ "$(csv "$o/grades.csv" akim late_penalty_pct)" = 10 ]
    [ "$(csv "$o/grades.csv" akim late)" = late ]
    [ "$(csv "$o/grades.csv" akim commit_time)" = 2025-03-15T10:00:00+01:00 ]
    grep -q 'points before the late penalty' "$o/students/lab01-akim/report.md"
    grep -q '^\*\*[0-9.]* of 50 points\*\* (correctness 30.0, performance [0-9.]*, [0-9.]* off for lateness)' \
        "$o/students/lab01-akim/report.md"
    grep -q "Commit graded: \`$(id_of akim2)\`" "$o/students/lab01-akim/report.md"
}

@test "a backdated commit counts at the date of the commit before it, and both dates are flagged" {
    o="$GT/out"
    [ "$(json "$o" lab01-janedoe-gh 'r["login"], r["roster"]')" = "('jdoe', 'matched')" ]
    [ "$(json "$o" lab01-janedoe-gh 'r["git"]["commit"]')" = "$(id_of jdoe3)" ]
    [ "$(json "$o" lab01-janedoe-gh 'r["git"]["submitted_at"]')" = 2025-03-16T12:00:00+01:00 ]
    [ "$(json "$o" lab01-janedoe-gh 'r["late"]["periods"], r["late"]["penalty_pct"]')" = "(2, 20.0)" ]
    penalised "$o" lab01-janedoe-gh 20
    [ "$(csv "$o/grades.csv" jdoe flags)" = "out-of-order;backdated" ]
    grep -q 'backdated' "$o/students/lab01-janedoe-gh/report.md"
    grep -q 'lab01-janedoe-gh (out-of-order, backdated)' "$o/summary.md"
}

@test "a student with an extension is on time; one not on the roster is graded and listed; a commit dated after the clone is flagged" {
    o="$GT/out"
    [ "$(json "$o" lab01-jo-smith 'r["git"]["commit"] == "'"$(id_of jo1)"'", r["late"]["status"], r["late"]["deadline"]')" = \
      "(True, 'on-time', '2025-03-16T23:59:00+01:00')" ]
    [ "$(json "$o" lab01-jo-smith 'r["points"]["total"] == r["late"]["points_before"], r["points"]["correctness"]')" = "(True, 30.0)" ]
    [ "$(csv "$o/grades.csv" jo-smith late_penalty_pct)" = 0 ]
    [ "$(json "$o" lab01-eve 'r["roster"], r["login"], r["status"]')" = "('not-on-roster', 'eve', 'ok')" ]
    [ "$(json "$o" lab01-eve 'r["git"]["commit"]')" = "$(id_of eve1)" ]
    [ "$(csv "$o/grades.csv" eve flags)" = dated-after-clone ]
    grep -q 'not on the roster' "$o/students/lab01-eve/report.md"
    grep -q 'submissions of nobody on the roster (graded): .*lab01-eve' "$o/summary.md"
}

@test "a student on the roster without a repository: missing, 0 points, a row and a report" {
    o="$GT/out"
    [ "$(csv "$o/grades.csv" pnovak status)" = missing ]
    [ "$(csv "$o/grades.csv" pnovak total_pts)" = 0.0 ]
    [ "$(csv "$o/grades.csv" pnovak roster)" = missing ]
    grep -q 'no submission' "$o/students/pnovak/report.md"
    grep -q '1 missing (0 points)' "$o/summary.md"
}

@test "hostile repositories: no hook or configured command runs; a link and a huge blob are not taken, and the reason says so" {
    o="$GT/out"
    [ -z "$(ls -A "$R/trap")" ] || { ls -l "$R/trap"; false; }
    # the hook's and the config's repositories are graded from the commit, as committed
    [ "$(json "$o" lab01-hook 'r["status"], r["points"]["correctness"]')" = "('ok', 30.0)" ]
    [ "$(json "$o" lab01-config 'r["status"], r["points"]["correctness"]')" = "('ok', 30.0)" ]
    grep -q 'its hooks and configuration are not obeyed' "$o/students/lab01-hook/report.md"
    [ "$(csv "$o/grades.csv" lab01-link status)" = no-files ]
    [[ "$(csv "$o/grades.csv" lab01-link reason)" == *"labs/01_cpu_conv/conv.c: a symbolic link, not taken"* ]]
    [ "$(csv "$o/grades.csv" lab01-huge status)" = no-files ]
    [[ "$(csv "$o/grades.csv" lab01-huge reason)" == *"more than the 4194304 allowed: not taken"* ]]
    [ "$(csv "$o/grades.csv" lab01-gitfile status)" = refused ]
    [[ "$(csv "$o/grades.csv" lab01-gitfile reason)" == *"gitdir"* ]]
    # links into lab01-eve's repository: refused, the link named, nothing of eve's taken
    [ "$(csv "$o/grades.csv" lab01-linked status)" = refused ]
    [[ "$(csv "$o/grades.csv" lab01-linked reason)" == *".git/refs/heads/main is a symbolic link (to $R/subs/lab01-eve/.git/refs/heads/main)"* ]]
    [ ! -e "$o/students/lab01-linked/submitted/conv.c" ]
    [ "$(csv "$o/grades.csv" lab01-linked total_pts)" = 0.0 ]
    [ "$(csv "$o/grades.csv" lab01-link total_pts)" = 0.0 ]
}

@test "the similarity report: the class's copies of one solution side by side, the skeleton left out" {
    command -v sim_c >/dev/null || skip "sim_c (similarity-tester) is not installed"
    o="$GT/out"
    [ -s "$o/similarity.md" ]
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); \
pairs = {(p["a"], p["b"]) for p in r["pairs"]}; \
assert ("lab01-eve", "lab01-hook") in pairs or ("lab01-hook", "lab01-eve") in pairs, pairs; \
assert all(p["share"] >= 40 for p in r["pairs"]); \
assert not any("pnovak" in (p["a"], p["b"]) or "lab01-link" in (p["a"], p["b"]) for p in r["pairs"])' \
        "$o/similarity.json"
    grep -q 'similarity.md' "$o/summary.md"
}

@test "--export canvas and moodle: the platforms' own rosters, one row each in their order, the points after the penalty" {
    o="$GT/out"
    run "$G" --lab 01 --out "$o" --roster "$FIX/canvas_gradebook.csv" --export canvas --assignment "Lab 3"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"eve: not on the roster, not exported"* ]]
    python3 - "$o" <<'EOF'
import csv, json, sys
o = sys.argv[1]
def total(sid):
    return json.load(open("%s/students/%s/results.json" % (o, sid)))["points"]["total"]
rows = list(csv.reader(open(o + "/canvas.csv", newline="")))
assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 3 (56789)"], rows[0]
assert rows[1][0].strip() == "Points Possible" and rows[1][5] == "50", rows[1]
got = {r[3]: r[5] for r in rows[2:]}
want = {"jdoe": total("lab01-janedoe-gh"), "jo-smith": total("lab01-jo-smith"),
        "akim": total("lab01-akim"), "pnovak": 0}
assert [r[3] for r in rows[2:]] == ["jdoe", "jo-smith", "akim", "pnovak"], rows
for k, v in want.items():
    assert abs(float(got[k]) - v) < 0.006, (k, got[k], v)
assert rows[2][:3] == ["Doe, Jane", "1234", "s001"], rows[2]
EOF
    run "$G" --lab 01 --out "$o" --roster "$FIX/moodle_grades.csv" --export moodle --assignment "Lab 3"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    python3 - "$o" <<'EOF'
import csv, json, sys
o = sys.argv[1]
rows = list(csv.reader(open(o + "/moodle.csv", newline="")))
assert rows[0] == ["First name", "Last name", "Email address", "Assignment: Lab 3 (Real)"], rows[0]
assert [r[2] for r in rows[1:]] == ["jdoe@uni.example", "jo-smith@uni.example",
                                    "akim@uni.example", "pnovak@uni.example"], rows
akim = json.load(open(o + "/students/lab01-akim/results.json"))["points"]["total"]
assert abs(float(rows[3][3]) - akim) < 0.006 and rows[4][3] == "0", rows
EOF
    run "$G" --lab 01 --out "$o" --roster "$FIX/moodle_grades.csv" --export moodle --assignment "Lab 3" \
        --moodle-id idnumber
    [ "$status" -eq 0 ]
    [ "$(head -n1 "$o/moodle.csv" | tr -d '\r')" = "First name,Last name,ID number,Assignment: Lab 3 (Real)" ]
    run "$G" --lab 01 --out "$o" --export canvas --assignment "Lab 3"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--export needs --roster"* ]]
}

@test "--repos: a URL cloned, a local path read in place, --ref, and the platform's submission times rule" {
    o="$BATS_TEST_TMPDIR/out"
    printf '# lab 01\nfile://%s\nlab01-akim  %s\n' "$R/work/janedoe-gh" "$R/subs/lab01-akim" >"$BATS_TEST_TMPDIR/repos.txt"
    run "$G" --lab 01 --repos "$BATS_TEST_TMPDIR/repos.txt" --out "$o" --quick --seed 4242 \
        --rubric "$GT/late.rubric" --roster "$FIX/canvas_gradebook.csv" \
        --classroom-roster "$FIX/classroom_roster.csv" --submitted "$FIX/classroom_grades.csv" \
        --deadline "$DEADLINE" --ref submitted
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # janedoe-gh is jdoe through GitHub Classroom's roster; cloned from its address
    [ "$(json "$o" janedoe-gh 'r["login"], r["git"]["repo"].startswith("file://"), r["git"]["clone_time"] is not None')" = \
      "('jdoe', True, True)" ]
    [ "$(json "$o" janedoe-gh 'r["git"]["commit"]')" = "$(id_of jdoe3)" ]
    # handed in on the platform at 21:30 UTC, before the deadline: on time whatever the commits say
    [ "$(json "$o" janedoe-gh 'r["git"]["submitted_from"], r["late"]["status"]')" = "('platform', 'on-time')" ]
    # --ref submitted: akim's branch at the first commit; handed in 2025-03-16 09:00 UTC: 2 days late
    [ "$(json "$o" lab01-akim 'r["git"]["commit"]')" = "$(id_of akim1)" ]
    [ "$(json "$o" lab01-akim 'r["late"]["periods"], r["late"]["submitted"]')" = "(2, '2025-03-16T09:00:00+00:00')" ]
    penalised "$o" lab01-akim 20
    [ "$(csv "$o/grades.csv" jo-smith status)" = missing ]
    [ "$(csv "$o/grades.csv" pnovak status)" = missing ]
    [ "$(tail -n +2 "$o/grades.csv" | wc -l)" -eq 4 ]
}

@test "--only regrades one student with the grading's seed, keeps the earlier result, leaves the others as they were" {
    o="$BATS_TEST_TMPDIR/out"
    cp -r "$GT/out" "$o"
    sums() { for s in lab01-akim lab01-janedoe-gh lab01-eve pnovak lab01-hook; do md5sum "$o/students/$s/results.json"; done; }
    before=$(sums)
    seed=$(sed -n 's/^seed: //p' "$o/grading.txt")
    # late work: a new commit, and a new copy of the repository; past the deadline's last day
    # accepted, within the student's (the deadline moved by the extension of 2 days)
    late=$(commit "$R/work/jo-smith" 2025-03-22T12:00:00+01:00 "$GT/ex/partial/conv.c")
    git -C "$R/subs/lab01-jo-smith" pull -q
    run "$G" --lab 01 --submissions "$R/subs" --out "$o" --quick --rubric "$GT/late.rubric" \
        --roster "$FIX/plain_roster.csv" --deadline "$DEADLINE" --only jo-smith
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(json "$o" lab01-jo-smith 'r["git"]["commit"]')" = "$late" ]
    [ "$(json "$o" lab01-jo-smith 'r["late"]["periods"], r["late"]["penalty_pct"], r["git"]["until"]')" = \
      "(6, 60.0, '2025-03-23T23:59:00+01:00')" ]
    penalised "$o" lab01-jo-smith 60
    [ "$(sums)" = "$before" ]
    [ "$(sed -n 's/^seed: //p' "$o/grading.txt")" = "$seed" ]
    # the earlier result: kept whole, and a line with its commit and seed
    [ -s "$o/history/lab01-jo-smith/1-results.json" ]
    python3 -c 'import json, sys; e = [json.loads(l) for l in open(sys.argv[1])]; \
assert len(e) == 1 and e[0]["commit"] == sys.argv[2] and e[0]["seed"] == sys.argv[3], e' \
        "$o/history/lab01-jo-smith/history.jsonl" "$(id_of jo1)" "$seed"
    grep -q '^## Earlier gradings' "$o/students/lab01-jo-smith/report.md"
    run grep -q "$seed" "$o/students/lab01-jo-smith/report.md"
    [ "$status" -ne 0 ]
    # the grades list everyone, the regraded one with its new commit
    [ "$(csv "$o/grades.csv" jo-smith commit)" = "$late" ]
    [ "$(tail -n +2 "$o/grades.csv" | wc -l)" -eq 11 ]
    # a regrade keeps the seed, and names only students of the class
    run "$G" --lab 01 --submissions "$R/subs" --out "$o" --quick --only jo-smith --seed 1
    [ "$status" -eq 2 ]
    [[ "$output" == *"same seed"* ]]
    run "$G" --lab 01 --submissions "$R/subs" --out "$o" --quick --roster "$FIX/plain_roster.csv" --only nobody
    [ "$status" -eq 2 ]
    [[ "$output" == *"nobody in this class is named nobody"* ]]
}

@test "bad workflow input: one line, exit 2, before any work" {
    o="$BATS_TEST_TMPDIR/out"
    for args in "--deadline 2025-03-14T23:59:00" "--deadline tomorrow" "--export excel --roster $FIX/plain_roster.csv --assignment x" \
        "--roster $FIX/README.md" "--roster-login nope --roster $FIX/plain_roster.csv" "--assignment x" \
        "--similarity-threshold 0" "--submitted-tz +01:00" "--only jo-smith --force"; do
        # shellcheck disable=SC2086
        run "$G" --lab 01 --submissions "$R/subs" --out "$o" --quick $args
        [ "$status" -eq 2 ] || { echo "$args: $status $output"; false; }
        [ "$(echo "$output" | wc -l)" -eq 1 ] || { echo "$args: $output"; false; }
        [ ! -e "$o/grading.txt" ]
    done
}
