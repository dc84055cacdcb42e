#!/usr/bin/env bash
# dist-student.sh - the tarball handed to students (make dist-student).
#
#   common/scripts/dist-student.sh [LABS]      LABS: 01,02 (default: every lab)
#
# What it holds: the chosen labs (skeletons, headers, handouts, spec.c and
# ref.c, the glue, plots; no grade.sh, no grade-lab.sh, no new-lab tools), common/ (the library, its CPU
# reference, lab.mk, the student's tools), the grader's checker source
# (grading/check.c: make presubmit judges the public cases with it) and the
# profiler-metrics tool, with a README and a Makefile of the student's own
# (common/student/). Not in it: solutions/, tests/ (planted bugs), rubrics,
# grading examples, hidden data, the grader. The files are the kit's tracked
# ones as they are in the working tree. Refused (nothing written) when a
# solution marker or a line of any solution's answer would be inside.
# Written to out/cuda-lab-kit-student.tar.gz (out/cuda-lab-kit-student-01-02.tar.gz
# for a release of some labs).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
want=${1:-${LABS:-}}

# ---- the labs of this release
all_labs=$(ls -d labs/[0-9][0-9]_*/ 2>/dev/null | sed 's|/$||')
labs=""
if [ -z "$want" ]; then
    labs=$all_labs
else
    for n in $(printf '%s' "$want" | tr ', ' '  '); do
        case $n in [0-9]) n=0$n ;; esac
        d=$(printf '%s\n' "$all_labs" | grep "^labs/${n}_" || true)
        if [ -z "$d" ]; then
            echo "dist-student: LABS=$want: there is no lab $n (the labs: $(printf '%s\n' "$all_labs" | sed 's|labs/\([0-9]*\)_.*|\1|' | paste -sd, -))" >&2
            exit 2
        fi
        labs="$labs $d"
    done
fi
labs=$(printf '%s\n' $labs | sort -u)
suffix=""
[ -z "$want" ] || suffix="-$(printf '%s\n' $labs | sed 's|labs/\([0-9]*\)_.*|\1|' | paste -sd- -)"

# ---- the kit's files: tracked ones where this is a git checkout, else all
# but build outputs
list_files() {
    if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$root" ls-files -- "$@" | while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done
    else
        find "$@" -type f ! -path '*/build/*' ! -path '*/out/*' ! -name '*.o' ! -name '*.a' \
            ! -name '*-diff.png' ! -name '__pycache__' ! -regex '.*/lab[0-9][0-9]\(-.*\)?$' 2>/dev/null
    fi
}
files=$( {
    list_files common | grep -v -e '^common/scripts/dist-student\.sh$' -e '^common/scripts/gpu-run\.sh$' \
        -e '^common/scripts/grade-lab\.sh$' -e '^common/scripts/newlab' -e '^common/scripts/new-lab\.sh$' \
        -e '^common/scripts/demo\.sh$' -e '^common/scripts/mkskel\.awk$' -e '^common/scripts/compat\.sh$' \
        -e '^common/student/README\.md$' -e '^common/student/Makefile$'
    # shellcheck disable=SC2086
    list_files $labs | grep -v '/grade\.sh$'
    list_files grading/check.c grading/metrics grading/kitmetrics grading/metrics.tsv \
        grading/metric_sets.tsv grading/plot_metrics.gp | grep -v '__pycache__'
    list_files .gitignore
} | sort -u)

name=cuda-lab-kit-student
stage=$(mktemp -d "${TMPDIR:-/tmp}/kitdist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
kit="$stage/$name"
mkdir -p "$kit"
printf '%s\n' "$files" | tar -cf - -T - | tar -xf - -C "$kit"

# the student's README (the labs of this release listed) and Makefile
{
    while IFS= read -r line; do
        if [ "$line" = "@LABS@" ]; then
            for d in $labs; do
                title=$(head -n 1 "$d/README.md" 2>/dev/null | sed 's/^# *//')
                printf -- '- `%s/`: %s\n' "$d" "${title:-$(basename "$d")}"
            done
        else
            printf '%s\n' "$line"
        fi
    done <common/student/README.md
} >"$kit/README.md"
cp common/student/Makefile "$kit/Makefile"

# the kit's own files, fingerprinted: make presubmit says which of them a
# student changed (the grader uses its own copy)
student_files=""
for d in $labs; do
    for s in $(sed -n 's/^STUDENT_SRCS *:*= *//p' "$d/Makefile"); do student_files="$student_files $d/$s"; done
done
(
    cd "$kit"
    find common labs -type f | sort | while IFS= read -r f; do
        case " $student_files " in *" $f "*) continue ;; esac
        printf '%s\n' "$f"
    done | xargs -d '\n' sha256sum >"$stage/kit.sha256"
)
mv "$stage/kit.sha256" "$kit/common/student/kit.sha256"

# ---- nothing of the answers may be inside: no solution marker, and no line
# of any solution's answer (a line of a SOLUTION region that neither the
# skeletons generated from the solutions, nor common/, nor the labs' own
# C and CUDA sources, the glue, have: a generic loop header may be in both)
leak=$(grep -rlF -e '>>> SOLUTION' -e '<<< SOLUTION' "$kit" || true)
if [ -n "$leak" ]; then
    echo "dist-student: solution markers in ${leak//$kit\//}; nothing written" >&2
    exit 1
fi
trimmed() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$@"; }
answers="$stage/answers"
for f in $(list_files solutions); do
    awk '{ t = $0; sub(/^[ \t]+/, "", t); sub(/[ \t\r]+$/, "", t) }
         t == "/* >>> SOLUTION */" { on = 1; next }
         t == "/* <<< SOLUTION */" { on = 0; next }
         on && length(t) >= 24 && t !~ /^(\/\/|\/\*|\*)/ { print t }' "$f"
done | sort -u >"$answers.all"
{
    # shellcheck disable=SC2046
    trimmed $(list_files common)
    for f in $(list_files solutions); do awk -f common/scripts/mkskel.awk "$f" | trimmed; done
    for f in $(list_files labs | grep -E '\.(c|cu)$'); do
        [ -e "solutions/$(basename "$(dirname "$f")")/$(basename "$f")" ] || trimmed "$f"
    done
} | sort -u >"$answers.kit"
comm -23 "$answers.all" "$answers.kit" >"$answers"
if [ -s "$answers" ]; then
    hits=$(cd "$kit" && find . -type f \( -name '*.c' -o -name '*.cu' -o -name '*.h' -o -name '*.md' \) -print0 |
        xargs -0 sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -cxF -f "$answers" || true)
    if [ "${hits:-0}" -gt 0 ]; then
        echo "dist-student: $hits line(s) of the solutions' answers would be inside; nothing written" >&2
        exit 1
    fi
fi

# written under a name of this run's own, then renamed: two runs at once (the
# test suite's files run side by side) each leave a whole tarball
mkdir -p out
tar_path="out/$name$suffix.tar.gz"
tar_tmp="$tar_path.$$.tmp"
trap 'rm -rf "$stage" "$tar_tmp"' EXIT
tar -czf "$tar_tmp" -C "$stage" "$name"
mv "$tar_tmp" "$tar_path"
echo "wrote $tar_path ($(tar -tzf "$tar_path" | grep -vc '/$') files; labs $(printf '%s\n' $labs | sed 's|labs/||' | paste -sd' ' -); no solutions, tests, rubrics or grader)"
