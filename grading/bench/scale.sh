#!/usr/bin/env bash
# grading/bench/scale.sh - grading at scale? A benchmark, not a test: a made-up class
# (grading/examples/make-class.sh: half copies of the reference, half broken examples) graded
# from scratch once per GPU count, and for each grading: its time, the floor (the GPU time the
# students' and the reference's timed runs needed alone, after their gates, from the
# results.json records: the busiest GPU's), the time against the floor, the speed-up against
# one GPU, the points of the reference's copies (identical work, identical points) and where
# the time went (plots/occupancy.txt). The goals: one GPU within 1.3x of the floor (lab 03),
# 2 GPUs 1.8x and 4 GPUs 3.4x as fast as one, a CPU lab's class of 100 in 45 s on 16 cores.
# The last lines say which goals were met; kept in OUT/scale.txt, each grading in OUT/gN/.
#
#   grading/bench/scale.sh                           lab 03 on 1, 2, 4... of the GPUs here
#                                                    (lab 01 without a GPU), 100 students
#   grading/bench/scale.sh --lab 01 --students 8 --out /tmp/scale -- --jobs 2
#   options: --lab NN, --students N, --gpus "1 2 4" (counts, each at most the GPUs here),
#   --out DIR (kept; default a new temporary folder), --timeout S, and after -- any more
#   options for grading/grade
# Exit 0 when every goal that applies was met, 1 when not, 2 on bad usage.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kit=$(cd "$here/../.." && pwd)
lab="" students=100 counts="" out="" timeout=10 extra=()
usage() { echo "usage: $0 [--lab NN] [--students N] [--gpus \"1 2 4\"] [--out DIR] [--timeout S] [-- GRADE-OPTIONS]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --lab) [ $# -ge 2 ] || usage; lab=$2; shift 2 ;;
        --students) [ $# -ge 2 ] || usage; students=$2; shift 2 ;;
        --gpus) [ $# -ge 2 ] || usage; counts=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
        --timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) usage ;;
    esac
done
[[ "$students" =~ ^[1-9][0-9]*$ && "$timeout" =~ ^[1-9][0-9]*$ ]] ||
    { echo "$0: --students and --timeout are positive numbers" >&2; exit 2; }
have=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    have=$(nvidia-smi -L | grep -c '^GPU ' || true)
fi
[ -n "$lab" ] || { [ "$have" -gt 0 ] && lab=03 || lab=01; }
[[ "$lab" =~ ^[0-9][0-9]$ && -f "$kit/grading/rubrics/lab$lab.rubric" ]] ||
    { echo "$0: no lab $lab to grade" >&2; exit 2; }
gpu_lab=0
# a GPU lab is one whose Makefile says GPU := 1, as for the grader and gpu-run.sh (lab 05
# times total spans on the host's clock, so its rubric's perf_clock does not say it)
grep -qs '^GPU *:= *1' "$kit"/labs/"$lab"_*/Makefile && gpu_lab=1
if [ "$gpu_lab" = 1 ]; then
    [ "$have" -gt 0 ] || { echo "$0: lab $lab needs a GPU, and none is here" >&2; exit 2; }
    if [ -z "$counts" ]; then
        counts=1
        for g in 2 4 8; do [ "$g" -le "$have" ] && counts="$counts $g"; done
    fi
    for g in $counts; do
        [[ "$g" =~ ^[1-9][0-9]*$ && "$g" -le "$have" ]] ||
            { echo "$0: --gpus: $g is not a count of the $have GPUs here" >&2; exit 2; }
    done
else
    [ -z "$counts" ] || { echo "$0: lab $lab runs on the cores: no --gpus" >&2; exit 2; }
    counts=0
fi
[ -n "$out" ] || out=$(mktemp -d /tmp/kit-scale.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
. "$here/interrupt.sh"
make -s -C "$kit/grading" >"$out/make.log" 2>&1 || { cat "$out/make.log" >&2; exit 1; }
"$kit/grading/examples/make-class.sh" "$lab" "$students" "$out/class" >/dev/null
: >"$out/times.txt"
echo "grading at scale: lab $lab, $students students, GPU counts: $counts; in $out" >&2

for g in $counts; do
    d="$out/g$g"
    rm -rf "$d"
    gpus=()
    if [ "$g" -gt 0 ]; then
        gpus=(--gpus "$(seq -s, 0 $((g - 1)))")
    fi
    t0=$(date +%s.%N)
    rc=0
    bench_grade "$out/grade-g$g.log" "$kit/grading/grade" --lab "$lab" --submissions "$out/class" \
        --out "$d" --seed 1 --quiet --timeout "$timeout" "${gpus[@]}" "${extra[@]}" || rc=$?
    t1=$(date +%s.%N)
    awk -v g="$g" -v rc="$rc" -v a="$t0" -v b="$t1" 'BEGIN { printf "%d %d %.3f\n", g, rc, b - a }' >>"$out/times.txt"
    echo "lab $lab on $([ "$g" -gt 0 ] && echo "$g GPUs" || echo "the cores"): exit $rc" >&2
done

set -o pipefail
python3 "$here/scale_summary.py" "$out" "$lab" "$gpu_lab" "$(nproc)" | tee "$out/scale.txt"
