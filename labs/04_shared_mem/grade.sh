#!/bin/sh
# grade.sh - lab 04's grading entry, for instructors: grading/grade --lab 04.
#   ./grade.sh --submissions DIR --out OUT [any other option of grading/grade, e.g. --jobs 8]
# grading/README.md explains the rubric, the sandbox and the outputs.
here=$(cd "$(dirname "$0")" && pwd)
grader="$here/../../grading/grade"
if [ ! -x "$grader" ]; then
    echo "grade.sh: the grader (grading/grade) is not part of this copy of the kit" >&2
    exit 2
fi
exec "$grader" --lab 04 "$@"
