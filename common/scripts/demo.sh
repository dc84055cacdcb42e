#!/usr/bin/env bash
# demo.sh - the kit's main job on built-in inputs (make demo): build
# everything, run every lab's reference on generated pictures, check it,
# benchmark briefly, and write pictures, TSVs and plots under out/demo/ with
# an index.md that links them. GPU labs without a GPU: built, not run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH="$root/.deps/usr/bin:$PATH"
demo="$root/out/demo"
rm -rf "$demo"
mkdir -p "$demo"
echo "demo: building the kit"
make -s all >"$demo/build.log" 2>&1 || { echo "demo: build failed, see out/demo/build.log"; tail -n 20 "$demo/build.log"; exit 1; }
index="$demo/index.md"
{
    echo "# Kit demo, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "Every lab's reference solution on generated pictures, checked against the CPU reference."
    echo
} >"$index"
not_run=() failed=0
for d in labs/*/; do
    lab=$(basename "$d")
    [ -f "$d/Makefile" ] || continue
    out="$demo/$lab"
    mkdir -p "$out"
    printf 'demo: %-18s ' "$lab"
    make -s -C "$d" demo OUT="$out" >"$out/demo.log" 2>&1
    rc=$?
    if [ $rc -eq 77 ] || grep -q "no CUDA device" "$out/demo.log"; then
        echo "built; not run (no CUDA device)"
        not_run+=("$lab")
        echo "## $lab: built, not run here (no CUDA device)" >>"$index"
        echo >>"$index"
        continue
    elif [ $rc -ne 0 ]; then
        echo "FAILED (exit $rc), see out/demo/$lab/demo.log"
        tail -n 5 "$out/demo.log"
        failed=1
    else
        echo "ok"
    fi
    {
        echo "## $lab"
        echo
        title=$(sed -n '1s/^# *//p' "$d/README.md" 2>/dev/null)
        [ -n "$title" ] && echo "$title" && echo
        for f in "$out"/*; do
            b=$(basename "$f")
            case $b in
                *.png) echo "- ![$b]($lab/$b)" ;;
                *.pdf|*.tsv|*.log) echo "- [$b]($lab/$b)" ;;
            esac
        done
        echo
    } >>"$index"
done
if [ -x grading/grade ] && [ -d grading/examples ]; then
    printf 'demo: %-18s ' "grading"
    if make -s -C grading demo OUT="$demo/grading" >"$demo/grading.log" 2>&1; then
        echo "ok"
        { echo "## grading of the example submissions"; echo; echo "- [summary](grading/summary.md)"; echo "- [grades.csv](grading/grades.csv)"; echo; } >>"$index"
    else
        echo "FAILED, see out/demo/grading.log"; failed=1
    fi
fi
[ ${#not_run[@]} -gt 0 ] && echo "demo: GPU labs built but not run (no CUDA device): ${not_run[*]}"
echo "demo: wrote out/demo/index.md"
exit $failed
