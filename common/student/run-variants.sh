#!/usr/bin/env bash
# run-variants.sh BIN ARGS... - one run of a lab binary for make bench, that
# goes on where the student's work is partial. A lab's bench target runs
# $(RUN_VARIANTS) ARGS instead of $(RUN_BIN) ARGS (common/lab.mk).
#
# The binary runs every selected variant in one process (so their times
# come from one run, as before). Then, by its exit code:
#   0               done
#   4               some variants are not written yet: their TSV rows say
#                   not-implemented, the others were timed; one line says which
#   1               a variant gave a wrong result: its row says FAIL and the
#                   plots leave it out; one line says so (make check says why)
#   3, a signal,    one variant can take the whole process down: the run is
#   a time-out      repeated variant by variant, so the others are still timed
#   2, 77           bad input, no CUDA device: returned as they are
# Exit: 0, 2 or 77 (and the binary's own code when it was asked for one
# variant and that one failed to run).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bin=$1
shift
limit=${BENCH_TIMEOUT:-0}

# the TSV this run appends to (--results), to read the statuses back
results=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case ${args[$i]} in
        --results) results=${args[$((i + 1))]:-} ;;
        --results=*) results=${args[$i]#--results=} ;;
    esac
done
rows_before=0
[ -n "$results" ] && [ -f "$results" ] && rows_before=$(wc -l <"$results")

# statuses NEW_ROWS_FROM: "vN" of the rows appended since then whose status is $2
appended_with() {
    [ -n "$results" ] && [ -f "$results" ] || return 0
    awk -F'\t' -v skip="$1" -v want="$2" '
        /^#/ { next }
        $1 == "lab" { for (c = 1; c <= NF; c++) if ($c == "status") col = c; next }
        FNR > skip && col && $col == want { printf "%sv%s", (n++ ? " " : ""), $2 }' "$results"
}

case_text="${*}"
kit_timeout "$limit" "$bin" "$@"
rc=$?
case $rc in
    0) exit 0 ;;
    2 | 77) exit "$rc" ;;
    1 | 4)
        bad=$(appended_with "$rows_before" FAIL)
        nw=$(appended_with "$rows_before" not-implemented)
        [ "$rc" = 4 ] && [ -z "$nw" ] && nw="some variants"
        [ "$rc" = 1 ] && [ -z "$bad" ] && bad="a variant"
        [ -z "$bad" ] || echo "  ($bad: wrong result, not timed and left out of the plots; make check shows why)"
        [ -z "$nw" ] || echo "  ($nw: not written yet, not timed)"
        exit 0 ;;
esac

# an error, a crash or a time-out: again, one variant at a time (those of a
# --variant list, or every variant of the part); one variant asked for alone
# is reported as it ended
chosen=$(kit_case_variant "$@")
case $chosen in
    "" | all) chosen="" ;;
    *,*) ;;
    *)
        echo "  ($(kit_status_text "$(kit_status "$rc" /dev/null)"): $case_text)"
        exit "$rc" ;;
esac
# the rows that run appended (an error leaves them) give way to the new ones
if [ -n "$results" ] && [ -f "$results" ]; then
    if [ "$rows_before" -eq 0 ]; then
        rm -f "$results"
    else
        head -n "$rows_before" "$results" >"$results.tmp" && mv "$results.tmp" "$results"
    fi
fi
part=$(kit_case_part "$@")
echo "  (the run ended with exit $rc: timing one variant at a time)"
while read -r n vn _; do
    [ -n "$n" ] || continue
    [ -z "$chosen" ] || [[ ",$chosen," == *",$n,"* ]] || continue
    kit_timeout "$limit" "$bin" "$@" --variant "$n" >/dev/null 2>&1
    r=$?
    case $r in
        0) ;;
        *) echo "  v$n $vn: $(kit_status_text "$(kit_status "$r" /dev/null)")" ;;
    esac
done < <(kit_variants "$bin" "$part")
exit 0
