#!/bin/sh
# grade.sh - this lab's grading entry, for instructors: grading/grade --lab NN, NN from this folder's name
exec "$(dirname "$0")/../../common/scripts/grade-lab.sh" "$0" "$@"
