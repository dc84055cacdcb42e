#!/usr/bin/env bash
# presubmit.sh - make presubmit: what the grader will see of this lab, found
# out the grader's way before the work is handed in.
#
#   presubmit.sh --lab NN --srcs "conv.c ..." --checker PATH --cases 'ARGS; ...'
#                [--out DIR] [--timeout S] [--make-arg VAR=VALUE ...]   (in the lab's folder)
#
# 1. A fresh copy of the kit in a private folder, as the grader makes it: the
#    lab's folder without ref.c and without the student's files, common/
#    without the reference, the kit's libraries prebuilt, all read-only.
# 2. Only the student's files (--srcs), built by the kit's own rules the way
#    the grader builds them:  make -C COPY/labs/LAB GRADED=1 WERROR=1 O=DIR
#    SRC=DIR labNN  (no reference linked; warnings are errors).
# 3. The student's objects may not define the kit's functions or main, nor
#    call the kit's reference (nm).
# 4. Every public case (the lab's CHECK_ARGS) run in the grader's mode,
#    --dump DIR, and every output it wrote judged by the grader's checker
#    (grading/check.c built for this lab: --checker), repetitions included.
# Exit: 0 nothing the grader would hold against the work; 1 something it
# would (each said in one line); 2 bad usage; 77 built, but no CUDA device
# to run on.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab="" srcs="" checker="" cases_str="" outdir="out/presubmit" limit=300 makeargs=()
while [ $# -gt 0 ]; do
    case $1 in
        --make-arg) makeargs+=("$2"); shift 2 ;;
        --lab) lab=$2; shift 2 ;;
        --srcs) srcs=$2; shift 2 ;;
        --checker) checker=$2; shift 2 ;;
        --cases) cases_str=$2; shift 2 ;;
        --out) outdir=$2; shift 2 ;;
        --timeout) limit=$2; shift 2 ;;
        *) echo "presubmit.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
name="lab$lab"
labdir=$(pwd)
kitroot=$(cd "$here/../.." && pwd)
labrel=${labdir#"$kitroot"/}     # labs/01_cpu_conv (where the lab sits in the kit)
[ -x "$checker" ] || { echo "make presubmit: the checker $checker is not built" >&2; exit 2; }
checker=$(cd "$(dirname "$checker")" && pwd)/$(basename "$checker")
mkdir -p "$outdir" || exit 2
outdir=$(cd "$outdir" && pwd)
rm -f "$outdir"/*.log

# make cannot take a path with a space in O= or SRC=: a private folder
# under TMPDIR when that has none, else under /tmp
base=${TMPDIR:-/tmp}
case $base in *" "*) base=/tmp ;; esac
work=$(mktemp -d "$base/kitpresubmit.XXXXXX") || exit 2
cleanup() { chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

problems=0
say() { echo "  $*"; }
bad() { echo "  PROBLEM: $*"; problems=$((problems + 1)); }

echo "$name presubmit: your $srcs built and run the way the grader does it"

# ---- 1. the fresh copy
kit="$work/kit"
mkdir -p "$kit/common/build" "$kit/$labrel" "$work/src" "$work/out"
(cd "$kitroot/common" && tar -cf - --exclude=./build --exclude=./ref.c --exclude='*.o' .) |
    (cd "$kit/common" && tar -xf -) || exit 2
for lib in libkit.a libkitgpu.a; do
    [ ! -f "$kitroot/common/build/$lib" ] || cp "$kitroot/common/build/$lib" "$kit/common/build/"
done
excl=(--exclude=./ref.c --exclude=./build --exclude=./out --exclude="./$name" --exclude="./$name-*"
      --exclude='*-diff.png' --exclude='*.o')
for s in $srcs; do excl+=(--exclude="./$s"); done
(cd "$labdir" && tar -cf - "${excl[@]}" .) | (cd "$kit/$labrel" && tar -xf -) || exit 2
for s in $srcs; do
    if [ ! -f "$labdir/$s" ]; then
        bad "$s is missing: the grader would build the skeleton's $s instead"
        continue
    fi
    cp "$labdir/$s" "$work/src/$s"
done
# the packages setup.sh unpacked where there was no root (stb): the copy links them
[ ! -d "$kitroot/.deps" ] || ln -s "$kitroot/.deps" "$kit/.deps"
chmod -R a-w "$kit"

# kit files the student changed: the grader uses its own copy of them
if [ -f "$kitroot/common/student/kit.sha256" ]; then
    changed=$(cd "$kitroot" && sha256sum -c --quiet common/student/kit.sha256 2>/dev/null |
        sed -n 's/: FAILED.*$//p' | grep -E "^(common/|$labrel/)" | tr '\n' ' ')
    if [ -n "$changed" ]; then
        bad "you changed files of the kit: ${changed% }; the grader uses its own copy of them, so your build there will differ"
    fi
fi

# ---- 2. the grader's build
build() { # build DIR EXTRA...: 0 when labNN was built
    local o=$1
    shift
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$kit/$labrel" \
        GRADED=1 O="$o" SRC="$work/src" ${makeargs[@]+"${makeargs[@]}"} "$@" "$name" >"$o.log" 2>&1 && [ -x "$o/$name" ]
}
# first_lines LOG WORD: the log's first lines with WORD (else its last lines), our folders cut
first_lines() {
    local l
    l=$(grep -E "$2" "$1" | grep -Ev '^(make|gcc|cc|nvcc|g\+\+|clang)[: ]|^[^ ]*/(gcc|nvcc|cc) ')
    [ -n "$l" ] || l=$(tail -n 3 "$1")
    printf '%s\n' "$l" | sed "s|$work/src/||g; s|$kit/||g" | head -n 5 | sed 's/^/      /'
}
built=0
if build "$work/out" WERROR=1; then
    built=1
    say "build: ok, no warnings (the grader's build treats warnings as errors)"
else
    cp "$work/out.log" "$outdir/build.log"
    if build "$work/loose" WERROR=0; then
        bad "your files compile only with warnings, and the grader builds with warnings as errors (-Werror): its build fails. The first ones:"
        first_lines "$work/loose.log" 'warning:' 
    else
        bad "your files do not compile in the grader's build. The first errors:"
        first_lines "$work/out.log" 'error:|Error [0-9]|multiple definition|undefined reference' 
    fi
    say "the whole build log: $outdir/build.log"
fi

# ---- 3. what the student's objects define and call (whichever build made them)
objs=0
for s in $srcs; do [ -f "$work/out/build/skel/$s.o" ] || [ -f "$work/loose/build/skel/$s.o" ] && objs=1; done
if [ "$objs" = 1 ]; then
    forb=""
    for s in $srcs; do
        o="$work/out/build/skel/$s.o"
        [ -f "$o" ] || o="$work/loose/build/skel/$s.o"
        [ -f "$o" ] || continue
        f=$(nm -g "$o" 2>/dev/null | awk -v file="$s" '
            NF == 3 && $2 != "U" && $2 != "w" && $2 != "v" && $3 ~ /^(kit_.*|main|InitializeInjection|cupti.*)$/ { printf "%s defines %s; ", file, $3 }
            NF == 2 && $1 == "U" && $2 ~ /^(kit_ref_.*|kit_lab_ref)$/ { printf "%s calls %s; ", file, $2 }')
        forb="$forb$f"
    done
    if [ -n "$forb" ]; then
        bad "forbidden: ${forb%; } (the kit's own functions, main and the reference are off limits: the grader refuses the whole submission)"
    else
        say "your objects define none of the kit's functions and no main, and call no reference: ok"
    fi
fi

# ---- 4. the public cases in the grader's mode, judged by the grader's checker
if [ "$built" = 1 ]; then
    mapfile -t CASES < <(kit_cases "$cases_str")
    declare -A RES FIRST VN GIVEN
    order=()
    runlog="$outdir/runs.log"
    : >"$runlog"
    nodev=0
    for i in "${!CASES[@]}"; do
        c=${CASES[$i]}
        # shellcheck disable=SC2086
        part=$(kit_case_part $c)
        # shellcheck disable=SC2086
        cv=$(kit_case_variant $c)
        d="$work/dump$i"
        mkdir -p "$d"
        sel=()
        [ -n "$cv" ] || sel=(--variant all)
        echo "== $name --dump DIR ${sel[*]} --reps 2 --seed 1 $c" >>"$runlog"
        # shellcheck disable=SC2086
        (cd "$work" && kit_timeout "$limit" "$work/out/$name" --dump "$d" "${sel[@]}" \
            --reps 2 --seed 1 --quiet $c) >>"$runlog" 2>&1
        rc=$?
        if [ "$rc" = 77 ]; then nodev=1; break; fi
        if [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$rc" != 1 ]; then
            echo "== $c: exit $rc" >>"$runlog"
        fi
        # the case's variants: what the binary wrote, and what it should have
        while read -r n vn g; do
            [ -n "$n" ] || continue
            [ -z "$cv" ] || [ "$cv" = "$n" ] || continue
            key="${part:+$part:}$n"
            VN[$key]=$vn
            GIVEN[$key]=${g:-}
            [[ " ${order[*]} " == *" $key "* ]] || order+=("$key")
            meta="$d/v$n.txt"
            if [ ! -f "$meta" ]; then
                st="crashed"; why="the run ended (exit $rc) before variant $n said anything"
            else
                st=$(sed -n 's/^status //p' "$meta" | head -n 1)
                why=""
            fi
            if [ "$st" = ok ]; then
                verdict=pass
                files=("0 $d/v$n.bin")
                while read -r _ k kk _; do files+=("$kk $d/v$n.r$k.bin"); done < <(grep '^rep ' "$meta")
                for fk in "${files[@]}"; do
                    kk=${fk%% *} f=${fk#* }
                    # shellcheck disable=SC2086
                    first=$("$checker" compare --part "$part" --variant "$n" --key "$kk" -- --seed 1 $c <"$f" 2>&1 | head -n 1)
                    if [ "$first" != pass ]; then
                        verdict=wrong
                        case $first in
                            "fail "*) read -r _ m cnt mabs _ <<<"$first"
                                why="$m of $cnt values wrong, largest error $mabs" ;;
                            "bad "*) why="the checker refused the output: ${first#bad }" ;;
                            *) why="the checker said: $first" ;;
                        esac
                        [ "$kk" = 0 ] && why="$why (the warm-up run)" || why="$why (a timed run, key $kk)"
                        break
                    fi
                done
                st=$verdict
            fi
            case $st in
                pass) ;;
                unsupported) st=n/a ;;
                not-implemented) ;;
                wrong | crashed) ;;
                *) why="its run says: $st"; st=error ;;
            esac
            RES[$key:$st]=$((${RES[$key:$st]:-0} + 1))
            if [ "$st" != pass ] && [ "$st" != n/a ] && [ -z "${FIRST[$key]:-}" ]; then
                FIRST[$key]="$c${why:+: $why}"
            fi
        done < <(kit_variants "$work/out/$name" "$part")
    done
    if [ "$nodev" = 1 ]; then
        say "no CUDA device here: your build is the grader's, but its runs need a GPU (run make presubmit where there is one)"
        [ "$problems" -eq 0 ] || exit 1
        exit 77
    fi
    say "public cases: ${#CASES[@]}, run with --dump and judged by the grader's checker:"
    for key in "${order[@]}"; do
        p=${RES[$key:pass]:-0} w=${RES[$key:wrong]:-0} ni=${RES[$key:not-implemented]:-0}
        e=$(( ${RES[$key:error]:-0} + ${RES[$key:crashed]:-0} )) na=${RES[$key:n/a]:-0}
        label="v${key##*:} ${VN[$key]}${GIVEN[$key]:+ (given)}"
        [[ $key == *:* ]] && label="${key%%:*}:$label"
        if [ "$ni" -gt 0 ] && [ "$p" -eq 0 ] && [ "$w" -eq 0 ] && [ "$e" -eq 0 ]; then
            bad "$label: missing: it says not implemented, and the grader gives a missing variant no points"
        elif [ "$w" -gt 0 ] || [ "$e" -gt 0 ] || [ "$ni" -gt 0 ]; then
            how="correct on $p of $((p + w + e + ni)) cases"
            [ "$w" -eq 0 ] || how="$how, wrong on $w"
            [ "$e" -eq 0 ] || how="$how, failed to run on $e"
            [ "$ni" -eq 0 ] || how="$how, not implemented on $ni"
            bad "$label: $how; first: ${FIRST[$key]}"
        else
            say "$label: correct on all $p cases it takes${na:+$( [ "$na" -gt 0 ] && echo " ($na it cannot take)")}"
        fi
    done
    say "every run's own output: $runlog"
fi

echo "the grader also runs hidden cases, drawn from a secret seed, and times your code against the reference"
if [ "$problems" -gt 0 ]; then
    echo "$name presubmit: $problems problem(s) the grader would hold against this work"
    exit 1
fi
echo "$name presubmit: nothing the grader would hold against it"
exit 0
