# helpers.bash - shared by the bats files: paths and small assertions.
KIT_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
export KIT_ROOT
L01="$KIT_ROOT/labs/01_cpu_conv"

# kit_labs [ROOT]: the labs of a kit (default this one), found, not typed: the
# folders labs/NN_NAME with a Makefile, in order (01_cpu_conv ...)
kit_labs() {
    local d
    for d in "${1:-$KIT_ROOT}"/labs/[0-9][0-9]_*/; do
        [ -f "$d/Makefile" ] && basename "$d"
    done
    return 0
}

# one_line_error: stderr of the last `run` had exactly one line before any usage
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }

has_gpu() {
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

L03="$KIT_ROOT/labs/03_global_mem"

# make_planted DIR BIN: the lab in DIR built with a planted bug (PLANTED=BUG, BIN is
# labNN-BUG) where a GPU is (tests/run builds them there, for the GPU tests that run them).
# Without one nothing runs a planted CUDA bug, so only the sed is checked, which costs no
# nvcc build: planted_applies
make_planted() {
    local bug=${2#*-}
    if has_gpu || ! compgen -G "$KIT_ROOT/solutions/$(basename "$1")/*.cu" >/dev/null; then
        make -s -C "$1" PLANTED="$bug" "$2"
    else
        planted_applies "$(basename "$1")" "$bug"
    fi
}

# planted_applies LAB BUG: tests/planted/LAB/BUG.sed still fits the solution: every function
# it names (its /^...(/ addresses) is there, and it changes one of the student's files at least
planted_applies() {
    local sed="$KIT_ROOT/tests/planted/$1/$2.sed" sol="$KIT_ROOT/solutions/$1" f a changed=0
    [ -f "$sed" ] || { echo "no $sed"; return 1; }
    while IFS= read -r a; do
        grep -q -- "$a" "$sol"/*.c* || { echo "$2.sed: no line of $1 matches /$a/"; return 1; }
    done < <(sed -n 's|^/\(\^[^/]*\)/,.*|\1|p' "$sed")
    for f in "$sol"/*.c "$sol"/*.cu; do
        [ -e "$f" ] && ! sed -f "$sed" "$f" | cmp -s - "$f" && changed=1
    done
    [ "$changed" -eq 1 ] || { echo "$2.sed changes nothing in $1"; return 1; }
}

# skip_without_gpu BIN: skip the test when BIN reports no CUDA device (77)
skip_without_gpu() {
    "$1" --help >/dev/null 2>&1 || true
    local rc=0
    "$1" --size 1x1 --reps 1 --quiet >/dev/null 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || skip "no CUDA device"
}

# agree BIN CHECK [--part P] ARGS...: every output of every variant of a run
# under --dump passes the checker with its key; prints the number checked
agree() {
    local bin=$1 chk=$2 part=""
    shift 2
    if [ "$1" = --part ]; then part=$2; shift 2; fi
    local d
    d=$(mktemp -d "$BATS_TEST_TMPDIR/dump.XXXX")
    "$bin" ${part:+--part "$part"} --dump "$d" --reps 2 --quiet --seed 7 "$@" || true
    local n=0 f v k key
    for f in "$d"/v*.txt; do
        v=$(basename "$f" .txt); v=${v#v}
        grep -q '^status ok' "$f" || continue
        "$chk" compare --part "$part" --variant "$v" -- --seed 7 "$@" <"$d/v$v.bin" >"$d/out" ||
            { echo "v$v warm-up: $(head -n 3 "$d/out")"; return 1; }
        n=$((n + 1))
        while read -r _ k key _; do
            "$chk" compare --part "$part" --variant "$v" --key "$key" -- --seed 7 "$@" \
                <"$d/v$v.r$k.bin" >"$d/out" || { echo "v$v rep $k: $(head -n 3 "$d/out")"; return 1; }
            n=$((n + 1))
        done < <(grep '^rep ' "$f")
    done
    echo "$n"
}

# queue ARGS...: one more case (one run's own arguments) for run_queued, so
# that a test's many small runs share one process (--cases) instead of
# paying a CUDA context each
queue() {
    local IFS=$'\t'
    printf '%s\n' "$*" >>"$BATS_TEST_TMPDIR/cases"
}

# run_queued BIN ARGS...: every queued case in one process of BIN (ARGS are
# common to all), then the queue is empty; fails unless every case passed
# (exit 0), every case ran (one "input ..." line each) and each had a
# variant that passed
run_queued() {
    local f="$BATS_TEST_TMPDIR/cases" n ran passed
    [ -s "$f" ] || { echo "run_queued: no case queued"; return 1; }
    n=$(grep -c . "$f")
    run "$@" --cases "$f"
    rm -f "$f"
    ran=$(grep -c '^input ' <<<"$output")
    passed=$(awk '/^input / { c++ } / PASS / && c && !seen[c]++ { p++ } END { print p + 0 }' <<<"$output")
    if [ "$status" -ne 0 ] || [ "$ran" -ne "$n" ] || [ "$passed" -ne "$n" ]; then
        echo "$n cases queued, $ran ran, $passed with a variant that passed, exit $status; the runs that did not pass:"
        grep -v -E '^ +[0-9]+ .* PASS |^  v name|^lab [0-9]' <<<"$output" | tail -n 60
        return 1
    fi
}

# link_deps DIR: a copy of the kit in DIR uses the kit's local packages (.deps: stb, cmocka,
# gnuplot), as on a machine where nothing is installed system-wide (the GPU machine)
link_deps() {
    [ -d "$KIT_ROOT/.deps" ] && [ ! -e "$1/.deps" ] && ln -s "$KIT_ROOT/.deps" "$1/.deps"
    return 0
}

# ---- a copy of the kit takes the kit's build where its sources are the kit's. Under make test
# (KIT_TEST_BUILT=1: tests/run has just built the kit, warnings as errors, with this run's
# flags) a test that builds a copy of the kit (the student's tarball, a kit for a new lab) may
# copy in the kit's objects of a folder whose build inputs are the kit's byte for byte: the same
# sources and flags give the same objects, and make then compiles only what differs.

# build_inputs DIR: the files of DIR a build reads (.c, .cu, .h, .mk, Makefile), one a line
build_inputs() { (cd "$1" 2>/dev/null && ls -1 -- *.c *.cu *.h *.mk Makefile 2>/dev/null | LC_ALL=C sort); }

# same_build_inputs REL COPY: folder REL of the kit copy COPY has the build inputs of the kit's
# REL, the same files byte for byte, none more and none fewer
same_build_inputs() {
    local f
    [ "$(build_inputs "$KIT_ROOT/$1")" = "$(build_inputs "$2/$1")" ] || return 1
    for f in $(build_inputs "$2/$1"); do cmp -s "$KIT_ROOT/$1/$f" "$2/$1/$f" || return 1; done
}

# kit_built_after REL OBJ...: under make test only, each OBJ (a file of the kit's build) is
# newer than every build input of the kit's REL and common/ (whose headers and rules every lab
# and the grader's programs read): built from the sources there now
kit_built_after() {
    [ "${KIT_TEST_BUILT:-}" = 1 ] || return 1
    local rel=$1 o
    shift
    for o in "$@"; do
        [ -f "$o" ] || return 1
        [ -z "$(find "$KIT_ROOT/$rel" "$KIT_ROOT/common" -maxdepth 1 -type f \( -name '*.c' -o \
            -name '*.cu' -o -name '*.h' -o -name '*.mk' -o -name Makefile \) -newer "$o" -print -quit)" ] ||
            return 1
    done
}

# seed_common K: under make test, the copy of the kit K takes the kit's libraries (common/build)
# where its common/ is the kit's; status 1 where it does not (nothing copied)
seed_common() {
    local K=$1 k="$KIT_ROOT/common/build"
    same_build_inputs common "$K" && kit_built_after common "$k"/*.o || return 1
    mkdir -p "$K/common/build"
    cp "$k"/*.o "$k"/*.a "$K/common/build/"
    cp "$k"/*.so "$k"/.nvcc-* "$K/common/build/" 2>/dev/null || true
}

# seed_kit_copy K: under make test, the copy of the kit K takes the kit's libraries where its
# common/ is the kit's, and then the grader's programs of what it shares with the kit: the
# checker of each lab whose folder is the kit's, hold, keyserve and the ceilings (where its
# grading/ sources are the kit's). Copied in that order, each newer than what it is made from:
# make in K finds them up to date and builds the rest (a lab of its own, its checker).
seed_kit_copy() {
    local K=$1 g="$KIT_ROOT/grading/build" d n t
    seed_common "$K" || return 0
    same_build_inputs grading "$K" || return 0
    mkdir -p "$K/grading/build"
    for d in "$K"/labs/[0-9][0-9]_*/; do
        n=$(basename "$d")
        t="$g/check-${n%%_*}"
        same_build_inputs "labs/$n" "$K" && kit_built_after "labs/$n" "$t" && kit_built_after grading "$t" &&
            cp "$t" "$K/grading/build/"
    done
    for t in hold keyserve ceiling-host ceiling-gpu; do
        kit_built_after grading "$g/$t" && cp "$g/$t" "$K/grading/build/"
    done
    return 0
}

# student_copy: (a setup_file's) make dist-student's tarball unpacked into an empty folder under a
# path with a space, $ST, and built once; the build's status in $BATS_FILE_TMPDIR/build.rc, its
# log in build.log. The tarball is written whole or not at all (dist-student.sh), so files that
# make it at the same time read a complete one.
student_copy() {
    export ST="$BATS_FILE_TMPDIR/First Last/kit"
    export TARBALL="$KIT_ROOT/out/cuda-lab-kit-student.tar.gz"
    # one architecture keeps the build short: this machine's GPU where there is one (a binary
    # for another architecture has no kernel it can run), else 7.5
    local cc
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
    [[ $cc =~ ^[0-9]+$ ]] || cc=75
    export CUDA_ARCH=${CUDA_ARCH:-$cc}
    make -s -C "$KIT_ROOT" dist-student >"$BATS_FILE_TMPDIR/dist.log" 2>&1
    mkdir -p "$ST"
    tar -xzf "$TARBALL" -C "$ST" --strip-components=1
    link_deps "$ST"
    seed_student_build
    make -C "$ST" -j4 >"$BATS_FILE_TMPDIR/build.log" 2>&1
    echo $? >"$BATS_FILE_TMPDIR/build.rc"
}

# seed_student_build: under make test, each folder of the student's copy $ST whose build inputs
# are the kit's byte for byte, common/ and the labs (a lab only where common/ is too), gets the
# kit's objects of them (the kit's build, warning-free, of the same sources and flags); make then
# compiles nothing of them and links every lab under the path with a space. A folder whose files
# differ in any way (a header the tarball left out, a changed rule) is compiled in full as
# before; so is everything outside make test. A CUDA object of other flags is removed by the
# copy's own make (its .nvcc stamp).
seed_student_build() {
    local k d n
    seed_common "$ST" || return 0
    for d in "$ST"/labs/[0-9][0-9]_*/; do
        n=labs/$(basename "$d")
        k="$KIT_ROOT/$n/build"
        same_build_inputs "$n" "$ST" && kit_built_after "$n" "$k"/*.o "$k"/skel/*.o || continue
        mkdir -p "$d/build/skel"
        cp "$k"/*.o "$d/build/"
        cp "$k"/skel/*.o "$d/build/skel/"
        cp "$k"/.nvcc-* "$d/build/" 2>/dev/null || true
    done
    return 0
}
