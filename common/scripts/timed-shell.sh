#!/usr/bin/env bash
# timed-shell.sh - a make SHELL that runs each recipe line with /bin/sh, as make would, and
# appends a row to $KIT_TRACE: seconds, make level, folder, the line (its first 200
# characters). demo.sh sets it for every make it starts (MAKEFLAGS=SHELL=...), so that
# out/demo/trace.tsv says where the demo's time went. A row is written when its line ends,
# so a nested make's lines (a level higher) come before the line that started it. Make
# runs $(shell ...) through it too: those rows are the Makefiles' own probes (nvidia-smi,
# nvcc), a level lower than the recipes beside them.
s=${EPOCHREALTIME:-$(date +%s.%N)}     # bash 5; date before it
/bin/sh "$@"
rc=$?
if [ -n "${KIT_TRACE:-}" ]; then
    line=${*: -1}
    line=${line//$'\n'/ }
    line=${line//$'\t'/ }
    e=${EPOCHREALTIME:-$(date +%s.%N)}
    printf '%s\t%s\t%s\t%s\t%s\n' "${s/,/.}" "${e/,/.}" "${MAKELEVEL:-0}" "${PWD##*/}" "${line:0:200}" >>"$KIT_TRACE"
fi
exit $rc
