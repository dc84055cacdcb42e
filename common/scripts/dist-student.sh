#!/usr/bin/env bash
# dist-student.sh - the tarball handed to students (make dist-student):
# the committed labs (skeletons, handouts, harness), common/ and the
# profiler-metrics tool; no solutions, no tests with planted bugs, no
# rubrics, grading examples or hidden grading data. Written to out/.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p out
name=cuda-lab-kit-student
tar_path="out/$name.tar.gz"
git archive --format=tar --prefix="$name/" HEAD -- \
    README.md Makefile .gitignore labs common \
    grading/metrics grading/kitmetrics grading/metrics.tsv grading/metric_sets.tsv grading/plot_metrics.gp \
    | gzip -9 >"$tar_path"
# nothing of the answers may leak: no lab file may hold a solution region
tmp=$(mktemp -d)
tar -xzf "$tar_path" -C "$tmp"
leak=$(grep -rl '>>> SOLUTION' "$tmp/$name/labs" || true)
rm -rf "$tmp"
if [ -n "$leak" ]; then
    echo "dist-student: solution markers found in $tar_path; refusing" >&2
    rm -f "$tar_path"
    exit 1
fi
echo "wrote $tar_path ($(tar -tzf "$tar_path" | wc -l) files; no solutions, no grading data)"
