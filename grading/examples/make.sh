#!/usr/bin/env bash
# grading/examples/make.sh NN DEST - write the example submissions of lab NN into DEST/NAME/,
# made from the reference solution at the time they are needed (no copy of a solution is kept
# here). An example folder labNN/NAME/ holds, for each file the student edits (conv.c, ...):
#   FILE.sed   a sed script applied to solutions/<lab>/FILE, run in the example's folder so that
#              it can read snippets (`r NAME.inc`); @KIT_ROOT@ becomes the kit's path
#   FILE       or the whole file, as it is
# The solution's region markers are taken out, as a student's file would not have them.
# EXPECT (what the tests assert) and *.inc snippets stay behind; any other file goes into the
# submission as well (the grader must ignore it and say so).
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
kit=$(cd "$here/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 NN DEST" >&2; exit 2; }
nn=$1 dest=$2
src="$here/lab$nn"
[ -d "$src" ] || { echo "make.sh: no examples for lab $nn ($src)" >&2; exit 2; }
labdirs=("$kit"/labs/"$nn"_*/)
[ -d "${labdirs[0]}" ] || { echo "make.sh: no lab $nn" >&2; exit 2; }
labdir=${labdirs[0]%/}
lab=$(basename "$labdir")
read -ra srcs <<<"$(sed -n 's/^STUDENT_SRCS *:= *//p' "$labdir/Makefile")"
rm -rf "$dest"
mkdir -p "$dest"
# the solution as a student's copy holds it: markers and TODO blocks out (as the grader builds
# its reference: kitgrade/lab/objcache.py)
handin=(awk -v out=solution -f "$kit/common/scripts/mkskel.awk")
for ex in "$src"/*/; do
    name=$(basename "$ex")
    out="$dest/$name"
    mkdir -p "$out"
    for f in "${srcs[@]}"; do
        if [ -f "$ex/$f.sed" ]; then
            (cd "$ex" && sed -f "$f.sed" "$kit/solutions/$lab/$f") | "${handin[@]}" |
                sed "s|@KIT_ROOT@|$kit|g" >"$out/$f"
            # a script with commands that changes nothing no longer fits the solution
            if grep -qv '^[[:space:]]*\(#.*\)\?$' "$ex/$f.sed" &&
                "${handin[@]}" "$kit/solutions/$lab/$f" | sed "s|@KIT_ROOT@|$kit|g" |
                cmp -s - "$out/$f"; then
                echo "make.sh: $ex$f.sed changes nothing in solutions/$lab/$f any more" >&2
                exit 1
            fi
        elif [ -f "$ex/$f" ]; then
            cp "$ex/$f" "$out/$f"
        fi
    done
    for f in "$ex"/*; do
        b=$(basename "$f")
        case $b in EXPECT|*.sed|*.inc) continue ;; esac
        printf '%s\n' "${srcs[@]}" | grep -qxF "$b" && continue
        cp "$f" "$out/$b"
    done
done
n=$(find "$dest" -mindepth 1 -maxdepth 1 -type d | wc -l)
echo "wrote $n example submissions of lab $nn to $dest"
