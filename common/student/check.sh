#!/usr/bin/env bash
# check.sh - make check: every variant of a lab on the lab's check inputs
# (CHECK_ARGS), one variant at a time, so a variant not written yet (or one
# that crashes) does not stop the others from being checked.
#
#   check.sh --bin ./lab01 --lab 01 --cases 'ARGS; ARGS; ...' [--only V]
#            [--out DIR] [--timeout S] [--skip-untouched]
#
# --only V          one variant: N (every part that has it) or PART:N
# --out DIR         where the diff pictures of failing cases go, one per case,
#                   named after it, with DIR/index.html showing them enlarged
#                   and DIR/log.txt holding every run's own output
# --skip-untouched  a lab whose variants (given ones aside) all say "not
#                   implemented" is reported as not started, and a GPU lab
#                   without a CUDA device as not checked: exit 0 (make test)
# Exit: 0 every variant written passes every input it takes; 1 a wrong
# result, an error, a crash or a time-out; 2 bad usage; 4 nothing written
# yet (given variants aside); 77 no CUDA device.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bin="" lab="" cases_str="" only="" outdir="out/check" limit=300 skip_untouched=0
while [ $# -gt 0 ]; do
    case $1 in
        --bin) bin=$2; shift 2 ;;
        --lab) lab=$2; shift 2 ;;
        --cases) cases_str=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --out) outdir=$2; shift 2 ;;
        --timeout) limit=$2; shift 2 ;;
        --skip-untouched) skip_untouched=1; shift ;;
        *) echo "check.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ ! -x "$bin" ]; then
    echo "make check: $bin is not built (run make first)" >&2
    exit 2
fi
name="lab$lab"

# ---- the lab as its binary describes it: parts and variants
declare -A VNAME VGIVEN
mapfile -t PARTS < <(kit_parts "$bin")
declare -A PVARS # part -> "1 2 3"
for p in "${PARTS[@]}"; do
    list=""
    while read -r n vn g; do
        [ -n "$n" ] || continue
        list="$list $n"
        VNAME[_$p:$n]=$vn
        VGIVEN[_$p:$n]=${g:-}
    done < <(kit_variants "$bin" "$p")
    PVARS[_$p]=${list# }
done
default_part=${PARTS[0]}

# ---- --only: N or PART:N, checked against what the lab has
only_part="" only_v=""
if [ -n "$only" ]; then
    case $only in
        *:*) only_part=${only%%:*}; only_v=${only#*:} ;;
        *) only_v=$only ;;
    esac
    found=0
    for p in "${PARTS[@]}"; do
        [ -z "$only_part" ] || [ "$only_part" = "$p" ] || continue
        for n in ${PVARS[_$p]}; do [ "$n" = "$only_v" ] && found=1; done
    done
    if [ "$found" = 0 ]; then
        have=""
        for p in "${PARTS[@]}"; do have="$have${have:+; }${p:+part $p: }${PVARS[_$p]}"; done
        echo "make check: V=$only: $name has no such variant (its variants: $have)" >&2
        exit 2
    fi
fi

# ---- the cases, each with its part
mapfile -t CASES < <(kit_cases "$cases_str")
if [ ${#CASES[@]} -eq 0 ]; then
    echo "make check: this lab lists no check inputs (CHECK_ARGS)" >&2
    exit 2
fi
declare -a CPART
for i in "${!CASES[@]}"; do
    # shellcheck disable=SC2086
    p=$(kit_case_part ${CASES[$i]})
    CPART[$i]=${p:-$default_part}
done

# the variants case i runs (its own --variant, the part's, --only)
case_variants() {
    local i=$1 p=${CPART[$1]} cv out=""
    # shellcheck disable=SC2086
    cv=$(kit_case_variant ${CASES[$i]})
    for n in ${PVARS[_$p]}; do
        [ -z "$cv" ] || [ "$cv" = "$n" ] || continue
        [ -z "$only_v" ] || [ "$only_v" = "$n" ] || continue
        [ -z "$only_part" ] || [ "$only_part" = "$p" ] || continue
        out="$out $n"
    done
    echo "${out# }"
}

mkdir -p "$outdir" || exit 2
rm -f "$outdir"/*-diff.png "$outdir/index.html" "$outdir/log.txt"
work=$(mktemp -d "${TMPDIR:-/tmp}/kitcheck.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
log="$outdir/log.txt"
: >"$log"

# run_one I V: variant V on case I; prints the status word
run_one() {
    local i=$1 v=$2 rc st
    rm -rf "$work/diff"
    mkdir -p "$work/diff"
    # shellcheck disable=SC2086
    kit_timeout "$limit" "$bin" --reps 1 --quiet --variant "$v" --diff-dir "$work/diff" \
        ${CASES[$i]} >"$work/out" 2>"$work/err"
    rc=$?
    st=$(kit_status "$rc" "$work/err")
    {
        echo "== $name --variant $v ${CASES[$i]}: $st (exit $rc)"
        cat "$work/out" "$work/err"
    } >>"$log"
    echo "$st"
}

# ---- make test's question first: has the student started this lab?
if [ "$skip_untouched" = 1 ]; then
    started=0 nodev=1
    for p in "${PARTS[@]}"; do
        for n in ${PVARS[_$p]}; do
            [ -z "${VGIVEN[_$p:$n]}" ] || continue
            # the first of the part's cases this variant takes
            for i in "${!CASES[@]}"; do
                [ "${CPART[$i]}" = "$p" ] || continue
                case " $(case_variants "$i") " in *" $n "*) ;; *) continue ;; esac
                st=$(run_one "$i" "$n")
                [ "$st" = n/a ] && continue
                [ "$st" = no-device ] || nodev=0
                [ "$st" = not-written ] || [ "$st" = no-device ] || started=1
                break
            done
        done
    done
    if [ "$nodev" = 1 ]; then
        echo "$name: no CUDA device here: not checked"
        exit 0
    fi
    if [ "$started" = 0 ]; then
        echo "$name: not started (every variant says not implemented yet): skipped"
        exit 0
    fi
fi

# ---- every case, variant by variant
wide=20
for c in "${CASES[@]}"; do [ ${#c} -lt "$wide" ] || wide=$((${#c} + 1)); done
[ "$wide" -le 64 ] || wide=64
declare -A RES   # part:v:i -> status
INDEX=() # lines for index.html: file|caption|mismatch lines
any_bad=0 any_run=0 all_nodev=1 saw_nodev=0
echo "$name: make check, variant by variant, on ${#CASES[@]} inputs${only:+ (only V=$only)}"
for p in "${PARTS[@]}"; do
    header=1
    for i in "${!CASES[@]}"; do
        [ "${CPART[$i]}" = "$p" ] || continue
        vs=$(case_variants "$i")
        [ -n "$vs" ] || continue
        if [ "$header" = 1 ]; then
            [ -z "$p" ] || echo "part $p"
            printf '  %-*s' "$wide" "input"
            for n in ${PVARS[_$p]}; do
                [ -z "$only_v" ] || [ "$only_v" = "$n" ] || continue
                printf ' %-12s' "v$n"
            done
            echo
            header=0
        fi
        line=$(printf '  %-*s' "$wide" "${CASES[$i]}")
        for n in ${PVARS[_$p]}; do
            [ -z "$only_v" ] || [ "$only_v" = "$n" ] || continue
            case " $vs " in
                *" $n "*) ;;
                *) line="$line $(printf '%-12s' -)"; continue ;;
            esac
            st=$(run_one "$i" "$n")
            RES[_$p:$n:$i]=$st
            [ "$st" = no-device ] && saw_nodev=1
            [ "$st" = no-device ] || [ "$st" = n/a ] || all_nodev=0
            case $st in
                PASS) [ -n "${VGIVEN[_$p:$n]}" ] || any_run=1 ;;
                n/a | not-written | no-device) ;;
                *) any_run=1; any_bad=1 ;;
            esac
            for f in "$work"/diff/*-diff.png; do
                [ -e "$f" ] || continue
                # shellcheck disable=SC2046,SC2086
                dest="$name${p:+-$p}-v$n-$(kit_slug $(kit_drop_part ${CASES[$i]}))-diff.png"
                mv "$f" "$outdir/$dest"
                INDEX+=("$dest|v$n ${VNAME[_$p:$n]}: ${CASES[$i]}|$(grep -v 'diff picture' "$work/out" | head -n 8 | tr '|' '/' | tr '\n' '\r')")
            done
            line="$line $(printf '%-12s' "$st")"
        done
        echo "$line"
        if [ "$all_nodev" = 1 ] && [ "$saw_nodev" = 1 ]; then
            echo "$name: no CUDA device here: nothing checked (the GPU labs need one)"
            exit 77
        fi
    done
done

# ---- one line per variant
echo "summary:"
for p in "${PARTS[@]}"; do
    for n in ${PVARS[_$p]}; do
        [ -z "$only_v" ] || [ "$only_v" = "$n" ] || continue
        [ -z "$only_part" ] || [ "$only_part" = "$p" ] || continue
        declare -A cnt=()
        total=0 firstbad="" firsti=""
        for k in "${!RES[@]}"; do
            case $k in "_$p:$n:"*) ;; *) continue ;; esac
            st=${RES[$k]}
            cnt[$st]=$((${cnt[$st]:-0} + 1))
            total=$((total + 1))
            case $st in PASS | n/a | not-written | no-device) ;; *)
                i=${k##*:}
                if [ -z "$firsti" ] || [ "$i" -lt "$firsti" ]; then firsti=$i; firstbad="${CASES[$i]}"; fi ;;
            esac
        done
        [ "$total" -gt 0 ] || continue
        label="  ${p:+$p:}v$n ${VNAME[_$p:$n]}${VGIVEN[_$p:$n]:+ (given)}"
        if [ "${cnt[not-written]:-0}" -eq $((total - ${cnt[n/a]:-0})) ]; then
            echo "$label: not written yet"
            continue
        fi
        ran=$((total - ${cnt[n/a]:-0}))
        what="correct on ${cnt[PASS]:-0}"
        for st in FAIL ERROR crashed timeout bad-input not-written no-device; do
            [ "${cnt[$st]:-0}" -eq 0 ] || what="$what, $(kit_status_short "$st") on ${cnt[$st]}"
        done
        for st in "${!cnt[@]}"; do
            case $st in PASS | FAIL | ERROR | crashed | timeout | bad-input | not-written | no-device | n/a) ;;
                *) what="$what, $(kit_status_short "$st") on ${cnt[$st]}" ;; esac
        done
        what="$what of $ran inputs"
        if [ "${cnt[PASS]:-0}" -eq "$ran" ]; then
            what="correct on all $ran inputs it takes"
        fi
        [ "${cnt[n/a]:-0}" -eq 0 ] || what="$what (${cnt[n/a]} it cannot take)"
        echo "$label: $what${firstbad:+; first: $firstbad}"
        unset cnt
    done
done

# ---- the diff pictures, enlarged so that a 3x3 case can be read
if [ ${#INDEX[@]} -gt 0 ]; then
    {
        echo "<!doctype html><meta charset=utf-8><title>$name make check: failing cases</title>"
        echo "<style>body{font-family:sans-serif} img{image-rendering:pixelated;border:1px solid #888}"
        echo "pre{background:#f4f4f4;padding:4px}</style>"
        echo "<h1>$name: the failing cases of make check</h1>"
        echo "<p>Red: wrong values (orange to red: small to large errors); yellow: differences"
        echo "within the tolerance; grey: the expected picture, faded. Small pictures are shown"
        echo "enlarged, one square per pixel.</p>"
        for e in "${INDEX[@]}"; do
            f=${e%%|*} rest=${e#*|}
            cap=${rest%%|*} mism=${rest#*|}
            read -r w h < <(od -An -tu1 -j16 -N8 "$outdir/$f" |
                awk '{ print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }')
            big=$(( w > h ? w : h ))
            k=1
            [ "${big:-0}" -gt 0 ] && [ "$big" -lt 480 ] && k=$(( (480 + big - 1) / big ))
            cap=$(printf '%s' "$cap" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g')
            echo "<h2>$cap</h2>"
            printf '<pre>%s</pre>\n' "$(printf '%s' "$mism" | tr '\r' '\n' | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g')"
            echo "<p><img src=\"$f\" width=$((w * k)) height=$((h * k)) alt=\"$f\"> ${w}x${h} pixels, shown ${k}x</p>"
        done
    } >"$outdir/index.html"
    echo "diff pictures of the failing cases, one per case: $outdir/ (open $outdir/index.html: small ones enlarged)"
fi
echo "every run's own output: $log"

[ "$any_bad" = 1 ] && exit 1
[ "$any_run" = 0 ] && exit 4
exit 0
