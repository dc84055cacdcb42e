#!/usr/bin/env bash
# grading/examples/expect.sh NN OUT [NAME...] - compare the grading in OUT of lab NN's example
# submissions with what each example's EXPECT file says (all examples graded in OUT, or the
# NAMEs). Prints "ok NAME" or "FAIL NAME: why" per example; exit 1 when one fails.
# EXPECT keys: status S[|S...], correctness N or A..B, total A..B, perf-vN P or A..B (that
# variant's performance points; N is a variant's name: 3, or strip:3 in a lab of parts),
# ratio-vN A..B (that variant's speed against the reference's: the reference's time over its),
# timing-vN S[|S...] (what its timed runs showed: ok, replayed, no-kernel, impossible-time,
# copies-in-launcher, extra-processes, no-mechanism, unverified, forbidden, ...), reason TEXT,
# files TEXT,
# log TEXT (in a run's output), nolog TEXT, log_mismatch TEXT (in a mismatch list),
# status-sanitize S (checked by the --sanitize tests).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 NN OUT [NAME...]" >&2; exit 2; }
nn=$1 out=$2
shift 2
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for d in "$here/lab$nn"/*/; do
        n=$(basename "$d")
        [ -d "$out/students/$n" ] && names+=("$n")
    done
fi
in_range() { awk -v a="$1" -v r="$2" 'BEGIN { n = split(r, x, /\.\./); if (n == 1) x[2] = x[1]; exit !(a >= x[1] && a <= x[2]) }'; }
fail=0
for name in "${names[@]}"; do
    exp="$here/lab$nn/$name/EXPECT" sd="$out/students/$name" why=""
    if [ ! -f "$sd/result.tsv" ]; then
        why="no result in $sd"
    else
        IFS=$'\t' read -r _ _ _ _ _ corr _ tot _ st reason <"$sd/result.tsv"
        while read -r key val; do
            case $key in
                ''|'#'*) continue ;;
                status) [[ "|$val|" == *"|$st|"* ]] || why="status $st, expected $val" ;;
                correctness) in_range "$corr" "$val" || why="correctness $corr, expected $val" ;;
                total) in_range "$tot" "$val" || why="total $tot, expected $val" ;;
                perf-v* | ratio-v*)
                    # score.tsv: the variant's performance points (column 5) or its ratio (8)
                    c=5; [[ $key == ratio-v* ]] && c=8
                    p=$(awk -F'\t' -v v="${key#*-v}" -v c="$c" '$1 == v { print $c }' "$sd/score.tsv")
                    { [ -n "$p" ] && in_range "$p" "$val"; } || why="$key is ${p:-missing}, expected $val" ;;
                timing-v*)
                    t=$(awk -F'\t' -v v="${key#timing-v}" '$1 == v { s = $5; sub(/:.*/, "", s); print s }' "$sd/perf.tsv")
                    [[ "|$val|" == *"|${t:-none}|"* ]] || why="$key is ${t:-none}, expected $val" ;;
                reason) [[ "$reason" == *"$val"* ]] || why="the reason lacks '$val'" ;;
                files) grep -qF -- "$val" "$sd/files.txt" || why="files.txt lacks '$val'" ;;
                log) grep -rqF -- "$val" "$sd/logs" || why="no log says '$val'" ;;
                nolog) ! grep -rqF -- "$val" "$sd/logs" || why="a log says '$val'" ;;
                log_mismatch) grep -rqF -- "$val" "$sd/mismatch" 2>/dev/null || why="no mismatch list says '$val'" ;;
                status-sanitize) ;;
                *) why="unknown EXPECT key '$key'" ;;
            esac
            [ -z "$why" ] || break
        done <"$exp"
        [ -z "$why" ] || why="$why ($st, $tot points: $reason)"
    fi
    if [ -z "$why" ]; then echo "ok $name"; else echo "FAIL $name: $why"; fail=1; fi
done
exit $fail
