#!/usr/bin/env bash
# demo.sh - the kit's main job on built-in inputs (make demo): build
# everything, run every lab's reference on generated pictures, check it,
# benchmark briefly, and write pictures, TSVs and plots under out/demo/ with
# an index.md that links them. GPU labs without a GPU: built, not run.
# With Nsight Compute (ncu) the GPU labs add a profiler plot; without gnuplot
# there are no plots. Either is said in one line, on the console and at the
# top of the index, and so is every lab that failed, with its log's last lines.
# trace.tsv holds the seconds of every recipe line the labs' makes ran (the slowest said).
#   KIT_DEMO_OUT (default out/demo), KIT_DEMO_LABS (lab folders, default labs/*/),
#   KIT_DEMO_GRADING=0 (no grading of the examples) and KIT_GNUPLOT (the gnuplot
#   looked for) are for the kit's own tests.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH="$root/.deps/usr/bin:$PATH"
demo=${KIT_DEMO_OUT:-$root/out/demo}
rm -rf "$demo"
mkdir -p "$demo"
t_start=$SECONDS
echo "demo: building the kit"
# the grader's own programs too when the examples are graded (its checkers: a build, not a run)
make -s all >"$demo/build.log" 2>&1 &&
    { [ "${KIT_DEMO_GRADING:-1}" != 1 ] || [ ! -x grading/grade ] || make -s -C grading all >>"$demo/build.log" 2>&1; } ||
    { echo "demo: build failed, see $demo/build.log"; tail -n 20 "$demo/build.log"; exit 1; }
echo "demo: built in $((SECONDS - t_start)) s"
t_run=$SECONDS
# every recipe line of the labs' and the grading's makes timed (trace.tsv, at the end)
export KIT_TRACE="$demo/.trace"
export MAKEFLAGS="${MAKEFLAGS:+$MAKEFLAGS }SHELL=$root/common/scripts/timed-shell.sh"
: >"$KIT_TRACE"

notes=()
command -v "${KIT_GNUPLOT:-gnuplot}" >/dev/null 2>&1 ||
    notes+=("gnuplot is not installed: no plots were drawn (common/scripts/setup.sh installs it; the TSV files are here to plot elsewhere)")
if command -v ncu >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" ]; then
    export DEMO_PROFILE=1
else
    notes+=("Nsight Compute (ncu) is not installed: no profiler plots (bank conflicts, load/store efficiency)")
fi
for n in "${notes[@]}"; do echo "demo: note: $n"; done

body="$demo/body.md"
: >"$body"
not_run=() failed=()
fail_md="$demo/failed.md"
: >"$fail_md"
for d in ${KIT_DEMO_LABS:-labs/*/}; do
    lab=$(basename "$d")
    [ -f "$d/Makefile" ] || continue
    out="$demo/$lab"
    mkdir -p "$out"
    printf 'demo: %-18s ' "$lab"
    t0=$SECONDS
    make -s -C "$d" demo OUT="$out" >"$out/demo.log" 2>&1
    rc=$?
    took=$((SECONDS - t0))
    if [ $rc -eq 77 ] || grep -q "no CUDA device" "$out/demo.log"; then
        echo "built; not run (no CUDA device)"
        not_run+=("$lab")
        printf '## %s: built, not run here (no CUDA device)\n\n' "$lab" >>"$body"
        continue
    elif [ $rc -ne 0 ]; then
        echo "FAILED (exit $rc, $took s), see $demo/$lab/demo.log:"
        tail -n 8 "$out/demo.log" | sed 's/^/    /'
        failed+=("$lab")
        { printf -- '- **%s** (exit %d), [demo.log](%s/demo.log):\n\n' "$lab" "$rc" "$lab"
          tail -n 8 "$out/demo.log" | sed 's/^/        /'; echo; } >>"$fail_md"
    else
        echo "ok ($took s)"
    fi
    {
        if [ $rc -ne 0 ]; then echo "## $lab: FAILED (exit $rc)"; else echo "## $lab"; fi
        echo
        title=$(sed -n '1s/^# *//p' "$d/README.md" 2>/dev/null)
        [ -n "$title" ] && echo "$title" && echo
        # pictures and plots first, shown; then the data and the folders, linked
        for f in "$out"/*.png; do
            [ -e "$f" ] || continue
            r=${f#"$demo/"}
            echo "![${r#"$lab/"}]($r)"
            echo
        done
        for f in "$out"/*.pdf "$out"/*.tsv "$out"/*.log; do
            [ -e "$f" ] || continue
            r=${f#"$demo/"}
            echo "- [${r#"$lab/"}]($r)"
        done
        for f in "$out"/*/; do
            [ -d "$f" ] || continue
            r=${f#"$demo/"}
            echo "- [${r#"$lab/"}]($r) ($(find "$f" -type f | wc -l) files)"
        done
        echo
    } >>"$body"
done
if [ "${KIT_DEMO_GRADING:-1}" = 1 ] && [ -x grading/grade ] && [ -d grading/examples ]; then
    printf 'demo: %-18s ' "grading"
    t0=$SECONDS
    if make -s -C grading demo OUT="$demo/grading" >"$demo/grading.log" 2>&1; then
        echo "ok ($((SECONDS - t0)) s)"
        printf '## grading of the example submissions\n\n- [summary](grading/summary.md)\n- [grades.csv](grading/grades.csv)\n\n' >>"$body"
    else
        echo "FAILED, see $demo/grading.log:"
        tail -n 8 "$demo/grading.log" | sed 's/^/    /'
        failed+=("grading")
        { printf -- '- **grading** of the examples, [grading.log](grading.log):\n\n'
          tail -n 8 "$demo/grading.log" | sed 's/^/        /'; echo; } >>"$fail_md"
    fi
fi

unset MAKEFLAGS KIT_TRACE
# trace.tsv: each recipe line's seconds, in the order they began; the slowest said here
{ printf 'seconds\tlevel\tfolder\tline\n'
  sort -t "$(printf '\t')" -k1,1n "$demo/.trace" |
      awk -F'\t' '{ printf "%.2f\t%s\t%s\t%s\n", $2 - $1, $3, $4, $5 }'; } >"$demo/trace.tsv"
rm -f "$demo/.trace"
# the slowest lines that are work, not a make started for more lines
tail -n +2 "$demo/trace.tsv" | awk -F'\t' '$4 !~ /(^|[ ;&|(])make -/' | sort -t "$(printf '\t')" -k1,1rn |
    head -n 6 | awk -F'\t' '{ printf "demo: slowest: %6.1f s  %-16s %s\n", $1, $3, substr($4, 1, 90) }'

index="$demo/index.md"
{
    echo "# Kit demo, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    if [ ${#failed[@]} -gt 0 ]; then
        echo "**FAILED: ${failed[*]}**"
        echo
        cat "$fail_md"
    fi
    for n in "${notes[@]}"; do echo "- Note: $n"; done
    [ ${#not_run[@]} -gt 0 ] && echo "- Note: no CUDA device here: the GPU labs were built, not run (${not_run[*]})"
    [ ${#notes[@]} -gt 0 ] || [ ${#not_run[@]} -gt 0 ] && echo
    echo "Every lab's reference solution on generated pictures, checked against the CPU reference."
    echo "Built in $((t_run - t_start)) s; the labs and the grading ran in $((SECONDS - t_run)) s"
    echo "([trace.tsv](trace.tsv): the seconds of every step)."
    echo
    cat "$body"
} >"$index"
rm -f "$body" "$fail_md"
[ ${#not_run[@]} -gt 0 ] && echo "demo: GPU labs built but not run (no CUDA device): ${not_run[*]}"
echo "demo: the labs and the grading ran in $((SECONDS - t_run)) s"
echo "demo: wrote $demo/index.md"
if [ ${#failed[@]} -gt 0 ]; then
    echo "demo: FAILED: ${failed[*]}"
    exit 1
fi
exit 0
