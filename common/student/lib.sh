# shellcheck shell=bash
# lib.sh - shell functions shared by make check, make bench and make
# presubmit (common/student/check.sh, run-variants.sh, presubmit.sh).
# Sourced, never run. Everything here reads what a lab binary says about
# itself (--help, exit codes, the TSV of --results): nothing names a lab.

# kit_parts BIN: the names of the lab's parts, one a line ("" for a lab of one part).
kit_parts() {
    local names
    names=$("$1" --help 2>/dev/null | sed -n 's/^part \([A-Za-z0-9_-]*\): .*/\1/p')
    if [ -z "$names" ]; then echo ""; else printf '%s\n' "$names"; fi
}

# kit_variants BIN PART: the variants of a part, one a line: "N NAME" or
# "N NAME given" for a variant the skeleton ships written.
kit_variants() {
    "$1" --help ${2:+--part "$2"} 2>/dev/null | awk '
        /^variants:$/ { on = 1; next }
        on && /^  [0-9]+ / { print $1, $2 ($NF == "[given]" ? " given" : ""); next }
        on { exit }'
}

# kit_case_opt NAME ARGS...: the value a case gives option NAME ("" when none).
kit_case_opt() {
    local name=$1
    shift
    while [ $# -gt 0 ]; do
        case $1 in
            "$name") echo "${2:-}"; return ;;
            "$name"=*) echo "${1#"$name"=}"; return ;;
        esac
        shift
    done
    echo ""
}
kit_case_part() { kit_case_opt --part "$@"; }       # the --part a case names
kit_case_variant() { kit_case_opt --variant "$@"; } # the --variant a case names

# kit_cases 'ARGS; ARGS; ...': a lab's CHECK_ARGS, one case a line, trimmed.
kit_cases() {
    printf '%s' "$1" | tr ';' '\n' | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -v '^$'
}

# kit_drop_part ARGS...: the arguments without --part NAME.
kit_drop_part() {
    local out=()
    while [ $# -gt 0 ]; do
        case $1 in
            --part) shift ;;
            --part=*) ;;
            *) out+=("$1") ;;
        esac
        shift
    done
    printf '%s\n' "${out[*]}"
}

# kit_slug ARGS...: a file-name part made of a case's arguments
# ("--size 17x13 --filter box" -> "size-17x13_filter-box").
kit_slug() {
    printf '%s' "$*" | sed -e 's/^--//' -e 's/ --/_/g' -e 's/ /-/g' -e 's/[^A-Za-z0-9._=-]/_/g' | cut -c1-120
}

# kit_timeout SECONDS CMD...: CMD under a time limit where coreutils'
# timeout exists (exit 124 when it ran out), else CMD as it is.
kit_timeout() {
    local s=$1
    shift
    if [ "$s" -gt 0 ] 2>/dev/null && command -v timeout >/dev/null 2>&1; then
        timeout -k 5 "$s" "$@"
    else
        "$@"
    fi
}

# kit_status RC STDERR_FILE: one word for how a run of one variant ended.
kit_status() {
    case $1 in
        0) echo PASS ;;
        1) echo FAIL ;;
        2) if grep -q 'cannot run here' "$2" 2>/dev/null; then echo n/a; else echo bad-input; fi ;;
        3) echo ERROR ;;
        4) echo not-written ;;
        77) echo no-device ;;
        124 | 137) echo timeout ;;
        *) if [ "$1" -gt 128 ]; then echo crashed; else echo "exit-$1"; fi ;;
    esac
}

# kit_status_short WORD: the same in two or three words ("wrong" on 3 inputs).
kit_status_short() {
    case $1 in
        FAIL) echo "wrong" ;;
        ERROR) echo "runtime error" ;;
        crashed) echo "crashed" ;;
        timeout) echo "out of time" ;;
        bad-input) echo "refused its arguments" ;;
        not-written) echo "not written" ;;
        no-device) echo "no CUDA device" ;;
        *) echo "ended with ${1#exit-}" ;;
    esac
}

# kit_status_text WORD: what a status word means, for the summary lines.
kit_status_text() {
    case $1 in
        PASS) echo "correct" ;;
        FAIL) echo "wrong result" ;;
        n/a) echo "cannot take this input (not counted)" ;;
        bad-input) echo "refused the case's arguments" ;;
        ERROR) echo "runtime error (CUDA error, out of memory...)" ;;
        not-written) echo "not written yet (returns KIT_NOT_IMPLEMENTED)" ;;
        no-device) echo "no CUDA device here" ;;
        timeout) echo "ran past the time limit" ;;
        crashed) echo "crashed (a signal: segmentation fault, abort...)" ;;
        *) echo "ended with ${1#exit-}" ;;
    esac
}
