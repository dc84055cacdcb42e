#!/usr/bin/env bash
# variant-number.sh BIN NAME [PART] - the number of the variant called NAME in
# BIN's --help (lab 03's numbers change as the lab grows; its names stay).
# Prints nothing and exits 1 when there is no such variant.
bin=$1 name=$2 part=${3:-}
"$bin" ${part:+--part "$part"} --help 2>/dev/null |
    awk -v n="$name" '$1 ~ /^[0-9]+$/ && $2 == n { print $1; found = 1; exit } END { exit !found }'
