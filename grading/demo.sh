#!/usr/bin/env bash
# grading/demo.sh OUT [NN ...] - the grading demo (make demo in grading/, part of the kit's
# make demo): lab 01's example submissions graded into OUT/lab01, and where a CUDA device is,
# lab 03's and those of any more GPU labs named (06: DEMO_LABS=06) into OUT/labNN, one after
# another; then OUT/summary.md, which links each grading, and OUT/grades.csv (lab 01's).
# Lab 01 is a CPU lab: its timed runs take cores, the GPU labs' timed runs take the GPU. So on
# 8 cores or more the two go at once, each on cores of its own (taskset): lab 01 on a quarter
# of them, the GPU labs on the rest, each grading told its share (--jobs). On fewer cores, or
# without a GPU, one after another. Each grading's output goes to OUT/labNN.log, printed after.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 OUT [NN ...]" >&2; exit 2; }
out=$1
shift
gpu_labs="03"
for nn in "$@"; do
    [[ $nn =~ ^0[4-9]$ ]] || { echo "$0: $nn is no further GPU lab of the demo" >&2; exit 2; }
    gpu_labs="$gpu_labs $nn"
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$here" || exit 1

# grade NN CPUS JOBS: the examples of lab NN graded into OUT/labNN (log OUT/labNN.log), on the
# cores CPUS (a taskset list; empty: every core) with JOBS builds and runs at once (empty: the
# grader's default)
grade() {
    local nn=$1 cpus=$2 jobs=$3 extra=()
    case $nn in
        01) extra=(--timeout 5 --rubric examples/lab01/rubric) ;;
        03) extra=(--timeout 10) ;;
        *) [ -f "examples/lab$nn/rubric" ] && extra=(--rubric "examples/lab$nn/rubric") ;;
    esac
    ./examples/make.sh "$nn" "$out/examples/lab$nn" >"$out/lab$nn.log" 2>&1 || return 1
    ${cpus:+taskset -c "$cpus"} ./grade --lab "$nn" --submissions "$out/examples/lab$nn" \
        --out "$out/lab$nn" --quick ${jobs:+--jobs "$jobs"} "${extra[@]}" >>"$out/lab$nn.log" 2>&1
}

gpu=0
../labs/03_global_mem/lab03-ref --size 1x1 --reps 1 --quiet >/dev/null 2>&1 && gpu=1
cpus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
read -r -a cpu <<<"$cpus"
n=${#cpu[@]}
rc=0
if [ "$gpu" = 1 ] && [ "$n" -ge 8 ] && command -v taskset >/dev/null; then
    q=$((n / 4))
    cpu01=$(IFS=,; echo "${cpu[*]:0:q}")
    cpugpu=$(IFS=,; echo "${cpu[*]:q}")
    echo "lab 01 on cores $cpu01, the GPU labs ($gpu_labs) on cores $cpugpu, at the same time"
    grade 01 "$cpu01" "$q" &
    pid01=$!
    for nn in $gpu_labs; do grade "$nn" "$cpugpu" $((n - q)) || rc=1; done
    wait "$pid01" || rc=1
else
    grade 01 "" "" || rc=1
    if [ "$gpu" = 1 ]; then
        for nn in $gpu_labs; do grade "$nn" "" "" || rc=1; done
    else
        echo "lab 03 examples: no CUDA device here, not graded"
        gpu_labs=""
    fi
fi
for nn in 01 $gpu_labs; do
    echo "== lab $nn"
    cat "$out/lab$nn.log"
done
[ "$rc" = 0 ] || exit 1
cp "$out/lab01/grades.csv" "$out/grades.csv"
{
    echo "# Grading demo"
    echo
    for nn in 01 $gpu_labs; do
        echo "- [lab $nn summary](lab$nn/summary.md), [grades](lab$nn/grades.csv)"
    done
} >"$out/summary.md"
