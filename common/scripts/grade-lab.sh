#!/bin/sh
# grade-lab.sh - every lab's grading entry, for instructors: labs/NN_NAME/grade.sh
# is one line that runs this script with its own path, and this runs
# grading/grade --lab NN, NN read from the lab's folder name.
#   labs/NN_NAME/grade.sh --submissions DIR --out OUT [any other option of grading/grade, e.g. --jobs 8]
# Each student's folder holds the files they edited (the lab Makefile's
# STUDENT_SRCS). grading/README.md explains the rubric, the sandbox and the outputs.
# Not in the student tarball (no grader there either).
if [ $# -lt 1 ]; then
    echo "grade-lab.sh: usage: grade-lab.sh LABS_GRADE_SH [grader options] (labs/NN_NAME/grade.sh runs it)" >&2
    exit 2
fi
lab_dir=$(cd "$(dirname "$1")" && pwd) || exit 2
shift
folder=$(basename "$lab_dir")
num=${folder%%_*}
case $folder in
    [0-9][0-9]_*) ;;
    *) echo "grade-lab.sh: the folder of grade.sh is not a lab folder (NN_NAME)" >&2
       exit 2 ;;
esac
grader="$lab_dir/../../grading/grade"
if [ ! -x "$grader" ]; then
    echo "grade.sh: the grader (grading/grade) is not part of this copy of the kit" >&2
    exit 2
fi
exec "$grader" --lab "$num" "$@"
