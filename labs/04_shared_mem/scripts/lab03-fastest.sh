#!/usr/bin/env bash
# lab03-fastest.sh LAB03_BIN TSV REPS ARGS... - lab 03's fastest variant
# (planar-words: planar 32-bit words and dp4a, straight from global memory)
# on the bench's picture, appended to the bench TSV, so that lab 04's v6 is
# compared with it in the same run. LAB03_BIN is lab03 (the student's own, in
# a student's copy) or lab03-ref (REF=1); a variant not written yet is left out.
bin=$1 tsv=$2 reps=$3
shift 3
l03=$(dirname "$bin")
here=$(cd "$(dirname "$0")" && pwd)
if ! make -s -C "$l03" all >/dev/null 2>&1; then
    echo "bench: lab 03 does not build here; its fastest variant is left out"
    exit 0
fi
if ! v=$("$here/variant-number.sh" "$bin" planar-words); then
    echo "bench: lab 03 has no variant planar-words any more; its fastest variant is left out"
    exit 0
fi
rc=0
"$bin" --variant "$v" "$@" --reps "$reps" --results "$tsv" --quiet || rc=$?
case $rc in
    0) ;;
    4) echo "bench: lab 03's planar-words is not written yet; left out" ;;
    *) exit "$rc" ;;
esac
