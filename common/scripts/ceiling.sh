#!/usr/bin/env bash
# ceiling.sh FILE.tsv - the copy ceiling (GB/s) recorded in a results file's
# provenance lines, or 0 when it has none.
awk '/^# copy ceiling: / { print $4; found = 1; exit } END { if (!found) print 0 }' "$1"
