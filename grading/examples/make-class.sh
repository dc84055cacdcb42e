#!/usr/bin/env bash
# grading/examples/make-class.sh NN COUNT DEST - a made-up class of COUNT submissions of lab NN
# for timing the grader: every second student hands in the reference, the others one of the
# broken examples in turn (wrong, crashing, hanging, not compiling, cheating...).
#   grading/examples/make-class.sh 03 100 /tmp/class03
#   grading/grade --lab 03 --submissions /tmp/class03 --out /tmp/grades03 --timeout 10
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 3 ] || { echo "usage: $0 NN COUNT DEST" >&2; exit 2; }
nn=$1 count=$2 dest=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/make.sh" "$nn" "$tmp" >/dev/null
broken=()
for d in "$tmp"/*/; do
    b=$(basename "$d")
    [ "$b" = correct ] || broken+=("$b")
done
rm -rf "$dest"
mkdir -p "$dest"
k=0
for ((i = 1; i <= count; i++)); do
    if ((i % 2)); then
        ex=correct
    else
        ex=${broken[k % ${#broken[@]}]}
        k=$((k + 1))
    fi
    name=$(printf 's%03d-%s' "$i" "$ex")
    cp -r "$tmp/$ex" "$dest/$name"
done
echo "wrote $count submissions of lab $nn to $dest (half the reference, half ${#broken[@]} kinds of broken)"
