# lib.sh - shell functions shared by make check, make bench and make
# presubmit (common/student/check.sh, run-variants.sh, presubmit.sh).
# Sourced, never run. Everything here reads what a lab binary says about
# itself (--help, exit codes, the TSV of --results): nothing names a lab.

# Exit codes of every lab binary (DESIGN.md, "Harness contract").
KIT_OK=0 KIT_WRONG=1 KIT_USAGE=2 KIT_RUNTIME=3 KIT_NOTIMPL=4 KIT_NODEVICE=77

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

# kit_case_part ARGS...: the --part a case names ("" when none).
kit_case_part() {
    while [ $# -gt 0 ]; do
        case $1 in
            --part) echo "${2:-}"; return ;;
            --part=*) echo "${1#--part=}"; return ;;
        esac
        shift
    done
    echo ""
}

# kit_case_variant ARGS...: the --variant a case names ("" when none).
kit_case_variant() {
    while [ $# -gt 0 ]; do
        case $1 in
            --variant) echo "${2:-}"; return ;;
            --variant=*) echo "${1#--variant=}"; return ;;
        esac
        shift
    done
    echo ""
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
