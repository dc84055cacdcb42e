#!/usr/bin/env bash
# new-lab.sh - lay out a new lab (make new-lab NN=08 NAME=scale):
#
#   common/scripts/new-lab.sh NN NAME
#
# NN: two digits no lab has yet; NAME: a C name (a-z, 0-9, _; a letter first)
# that becomes the lab's folder (labs/NN_NAME) and the student's file
# (NAME.c, functions NAME_v1 ...). From the templates in common/scripts/newlab/
# (@NN@, @NAME@, @UNAME@, @LAB@ filled in) it writes:
#   labs/NN_NAME/        Makefile, spec.c, main.c, ref.c, NAME.h, NAME.c (the
#                        skeleton, made from the solution by mkskel.awk),
#                        grade.sh (the same line as every lab's), README.md
#                        (an outline: its questions and its figures block)
#   solutions/NN_NAME/   NAME.c (with its SOLUTION and STUDENT markers), NOTES.md
#   grading/rubrics/labNN.rubric, grading/examples/labNN/correct/ (EXPECT)
#   tests/cli/labNN.bats
# The new lab is a working stub (y = a x on n floats, one variant): it builds,
# its skeleton exits 4, its reference passes, and every list of labs in the
# kit finds it. Nothing is overwritten: an existing lab NN or file refuses.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tpl="$root/common/scripts/newlab"
die() { echo "new-lab: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: make new-lab NN=08 NAME=scale (two digits, a C name)"
nn=$1 name=$2
[[ $nn =~ ^[0-9][0-9]$ ]] || die "NN must be two digits (08), not '$(printf '%s' "$nn" | tr -cd '[:alnum:]_' | head -c 20)'"
[[ $name =~ ^[a-z][a-z0-9_]{0,23}$ ]] ||
    die "NAME must be a C name: a-z first, then a-z, 0-9 or _ (24 at most), not '$(printf '%s' "$name" | tr -cd '[:alnum:]_' | head -c 30)'"
case $name in main | spec | ref | harness | kit | grade) die "NAME '$name' is a name the kit's files use" ;; esac
for d in "$root"/labs/"$nn"_*; do
    [ -e "$d" ] && die "there is a lab $nn already ($(basename "$d"))"
done
lab="${nn}_$name"
uname=$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')
L="$root/labs/$lab" S="$root/solutions/$lab"
rubric="$root/grading/rubrics/lab$nn.rubric" ex="$root/grading/examples/lab$nn"
bats_file="$root/tests/cli/lab$nn.bats"
for f in "$L" "$S" "$rubric" "$ex" "$bats_file"; do
    [ -e "$f" ] && die "${f#"$root"/} exists already"
done

fill() { sed -e "s/@NN@/$nn/g" -e "s/@NAME@/$name/g" -e "s/@UNAME@/$uname/g" -e "s/@LAB@/$lab/g" "$tpl/$1"; }

mkdir -p "$L" "$S" "$ex/correct" "$(dirname "$rubric")"
fill Makefile.in >"$L/Makefile"
fill spec.c.in >"$L/spec.c"
fill main.c.in >"$L/main.c"
fill ref.c.in >"$L/ref.c"
fill NAME.h.in >"$L/$name.h"
fill README.md.in >"$L/README.md"
# every lab's grade.sh is the same line (common/scripts/grade-lab.sh): one of them
for grade_sh in "$root"/labs/[0-9][0-9]_*/grade.sh; do
    [ "$grade_sh" = "$L/grade.sh" ] || [ ! -f "$grade_sh" ] && continue
    cp "$grade_sh" "$L/grade.sh"
    chmod +x "$L/grade.sh"
    break
done
fill NAME.c.in >"$S/$name.c"
fill NOTES.md.in >"$S/NOTES.md"
awk -f "$root/common/scripts/mkskel.awk" "$S/$name.c" >"$L/$name.c"
fill rubric.in >"$rubric"
fill EXPECT.in >"$ex/correct/EXPECT"
fill correct.sed.in >"$ex/correct/$name.c.sed"
fill lab.bats.in >"$bats_file"
# the handout's figures block, rendered from its (empty) figures folder
python3 "$root/common/scripts/figures.py" render "$L/README.md" "$L/figures" >/dev/null
# the glossary links every lab's handout: rendered again with the new one
# (where the kit has the glossary's sources; a fault in them is only told)
if [ -f "$root/docs/glossary/terms.txt" ]; then
    python3 "$root/common/scripts/glossary.py" render --root "$root" ||
        echo "new-lab: docs/glossary.md not rendered again (make glossary once its sources are right)"
fi

echo "laid out lab $nn ($lab):"
for f in "$L" "$S" "$rubric" "$ex" "$bats_file"; do echo "  ${f#"$root"/}"; done
echo "next: make -C labs/$lab && tests/run cli-lab$nn; then write the handout, the variants and their tests, and the handout's translations (README.LANG.md)"
