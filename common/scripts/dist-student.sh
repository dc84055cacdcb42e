#!/usr/bin/env bash
# dist-student.sh - the tarball handed to students (make dist-student).
#
#   common/scripts/dist-student.sh [--lang L] [LABS]
#       LABS: 01,02 (default: every lab)
#       --lang L: el, ru, it or hu (make dist-student LANG=L): each lab's handout in
#       that language is its README.md, the English one beside it as README.en.md,
#       and no other translation; en or no --lang: the handouts as in the kit, the
#       English README.md with every translation (README.LANG.md) beside it
#
# What it holds: the chosen labs (skeletons, headers, handouts, spec.c and
# ref.c, the glue, plots; no grade.sh, no grade-lab.sh, no new-lab tools),
# common/ (the library, its CPU reference, lab.mk, the student's tools), the
# grader's checker source (grading/check.c: make presubmit judges the public
# cases with it) and the profiler-metrics tool, with a README and a Makefile
# of the student's own (common/student/), and the glossary (docs/glossary.md,
# rendered for the labs of the release and the tarball's handouts). Not in
# it: solutions/, tests/ (planted bugs), rubrics, grading examples, hidden
# data, the grader. The files are the kit's tracked ones as they are in the
# working tree. Refused (nothing written) when a solution marker or a line of
# any solution's answer would be inside.
# A handout in the chosen language that is missing or out of step with the
# English one (common/scripts/handout_sync.py) is refused too.
# Written to out/cuda-lab-kit-student.tar.gz (out/cuda-lab-kit-student-01-02.tar.gz
# for a release of some labs, out/cuda-lab-kit-student-el.tar.gz and
# cuda-lab-kit-student-01-02-el.tar.gz in Greek).
set -eu
# LANG may have come from make's command line (the handouts' language, passed
# as --lang): the locale of the tools here is the plain one
export LC_ALL=C
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
lang="" lang_given=0
if [ "${1:-}" = --lang ]; then
    lang_given=1
    [ $# -ge 2 ] || { echo "dist-student: --lang needs a language (el, ru, it, hu)" >&2; exit 2; }
    lang=$2
    shift 2
fi
want=${1:-${LABS:-}}
langs=$(python3 common/scripts/glossary.py langs | cut -f1 | paste -sd' ' -)
if [ "$lang_given" = 1 ]; then
    known=0
    for l in en $langs; do if [ "$lang" = "$l" ]; then known=1; fi; done
    if [ "$known" = 0 ]; then
        echo "dist-student: LANG=$(printf '%s' "$lang" | tr -c 'A-Za-z0-9_.@-' '?') is not a language of the handouts (${langs// /, }; en or no LANG: English)" >&2
        exit 2
    fi
fi
[ "$lang" != en ] || lang=""

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
suffix=$suffix${lang:+-$lang}

# ---- in a language: every lab has its handout in it, in step with the English one
if [ -n "$lang" ]; then
    # shellcheck disable=SC2086
    behind=$(for d in $labs; do python3 common/scripts/handout_sync.py check "$d/README.md" "$d/README.$lang.md" || true; done)
    if [ -n "$behind" ]; then
        echo "dist-student: LANG=$lang: these handouts are missing or not in step with the English ones; nothing written" >&2
        printf '%s\n' "$behind" | head -n 20 | sed 's/^/  /' >&2
        exit 1
    fi
fi

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
        -e '^common/scripts/glossary\.py$' -e '^common/scripts/handout_sync\.py$' \
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

# ---- the handouts: in a language, each lab's README.md is the handout in
# it (its link to the English one made to point at README.en.md), the English
# one is README.en.md, and the other translations stay behind
if [ -n "$lang" ]; then
    for d in $labs; do
        mv "$kit/$d/README.md" "$kit/$d/README.en.md"
        sed 's|](README\.md)|](README.en.md)|g' "$kit/$d/README.$lang.md" >"$kit/$d/README.md"
        rm -f "$kit/$d/README.$lang.md"
        for l in $langs; do rm -f "$kit/$d/README.$l.md"; done
    done
fi
# the glossary, linking the labs of this release as this tarball lays out
# their handouts (a kit without the glossary's sources ships none, unless a
# language is chosen)
if [ -n "$lang" ] || [ -f docs/glossary/terms.txt ]; then
    if ! glossary=$(python3 common/scripts/glossary.py render --labs "${labs//$'\n'/ }" ${lang:+--lang "$lang"} \
        --out "$kit/docs/glossary.md" 2>&1); then
        printf '%s\n' "$glossary" >&2
        echo "dist-student: the glossary (docs/glossary/) is not right; nothing written" >&2
        exit 1
    fi
fi

# handouts: what the student's README says of the handouts and their languages
handouts() {
    local d n names="" files="" code english
    if [ -n "$lang" ]; then
        n=$(python3 common/scripts/glossary.py langs | awk -F'\t' -v l="$lang" '$1 == l { print $2 }')
        printf 'Each lab'"'"'s `README.md` is its handout, in %s: start there. The English\n' "$n"
        printf 'handout is beside it, `README.en.md`, and `docs/glossary.md` gives the\n'
        printf 'course'"'"'s terms in English and in the handouts'"'"' languages.\n'
        return
    fi
    while IFS="$(printf '\t')" read -r code english; do
        # a language every lab of this copy has its handout in
        for d in $labs; do [ -f "$kit/$d/README.$code.md" ] || continue 2; done
        names="$names${names:+, }$english" files="$files${files:+, }\`README.$code.md\`"
    done < <(python3 common/scripts/glossary.py langs)
    printf 'Each lab'"'"'s `README.md` is its handout: start there.'
    if [ -n "$names" ] && [ -f "$kit/docs/glossary.md" ]; then
        printf '\nBeside it is the same handout in %s\n(%s); `docs/glossary.md` gives the\ncourse'"'"'s terms in English and in those languages.\n' \
            "$(printf '%s' "$names" | sed 's/\(.*\), /\1 and /')" "$files"
    else
        printf '\n'
    fi
}

# the student's README (the labs of this release listed) and Makefile
{
    while IFS= read -r line; do
        if [ "$line" = "@HANDOUTS@" ]; then
            handouts
        elif [ "$line" = "@LABS@" ]; then
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
