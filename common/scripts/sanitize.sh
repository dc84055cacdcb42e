#!/usr/bin/env bash
# sanitize.sh BIN "ARGS; ARGS; ..." TOOL[,TOOL] - run a lab binary under
# compute-sanitizer (memcheck, racecheck, ...) on each argument set, with
# launches synchronised; memcheck pads every allocation, so a write just past one
# buffer is seen even where the next buffer follows. Exit 0 clean, 1 an error
# found, 77 no GPU/sanitizer. An argument set whose variant is not implemented
# yet (the harness's exit 4, as in a student's copy) is skipped, and said so.
set -u
bin=$1 argsets=$2 tools=$3
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -z "$cs" ]; then echo "sanitize: compute-sanitizer not found (part of the CUDA Toolkit)"; exit 77; fi
export KIT_SYNC_CHECK=1
fail=0
IFS=';' read -ra sets <<<"$argsets"
for tool in ${tools//,/ }; do
    for a in "${sets[@]}"; do
        # shellcheck disable=SC2086
        out=$("$cs" --tool "$tool" --error-exitcode 9 $( [ "$tool" = memcheck ] && echo --leak-check full --padding 4096 ) \
              "$bin" --reps 1 --quiet $a 2>&1); rc=$?
        if [ $rc = 77 ] || grep -q "no CUDA device" <<<"$out"; then
            echo "sanitize: no CUDA device (skipped)"; exit 77
        fi
        summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" <<<"$out" | tail -n1)
        if [ $rc = 0 ]; then
            printf '  %-10s %-48s clean (%s)\n' "$tool" "$a" "${summary:-no summary}"
        elif [ $rc = 4 ] && ! grep -qE "ERROR SUMMARY: [1-9]" <<<"$out"; then
            # the harness's exit for a variant not written yet: nothing to check there
            printf '  %-10s %-48s skipped: a variant it runs is not implemented yet\n' "$tool" "$a"
        else
            printf '  %-10s %-48s FAILED (exit %s)\n' "$tool" "$a" "$rc"
            grep -E "=========" <<<"$out" | head -n 20
            fail=1
        fi
    done
done
exit $fail
