# handout-commands.bash - loaded by handout-commands-1.bats and handout-commands-2.bats: every
# command the handout of every lab names, run in the student's copy $ST (helpers.bash's
# student_copy). The labs are in two halves, a file each, that make test runs side by side: on a
# GPU machine the commands run in full, about three minutes a half there.

# handout_commands LAB: run every command of the lab handout's sh blocks in
# the unpacked kit; each must work: exit 0, or say plainly why it stops (a
# variant not written yet, no CUDA device, a profiler or sanitizer this
# machine lacks, nothing measured to plot yet, too little host memory for
# the largest case). The make variables the handouts leave to the caller
# are small here: bench sizes, profile shapes, lab 05's folder of pictures;
# and so are the sizes above 1280x960 in labs 01, 02 and 05 (640x480: the command is what is
# checked; a full photo took 4 s of a CPU a command, and lab 05's 16384x16384 strips half a
# minute of the GPU machine's; strips past a --gpu-mem budget are gpu/lab05.bats's).
handout_commands() {
    local dir="$ST/labs/$1" n=0 cmd rc out t bad=0
    [ -f "$dir/README.md" ]
    # a photo for the commands that name one
    "$dir/lab${1%%_*}" --size 64x48 --variant all --reps 1 --quiet --save-input "$dir/photo.jpg" >/dev/null 2>&1 || true
    cp "$dir/photo.jpg" "$dir/photo.png" 2>/dev/null || true
    while IFS= read -r cmd; do
        n=$((n + 1))
        rc=0
        if [[ $1 == 0[125]_* && $cmd =~ --size\ ([0-9]+)x([0-9]+) ]] &&
            ((BASH_REMATCH[1] * BASH_REMATCH[2] > 1280 * 960)); then
            cmd=${cmd/--size ${BASH_REMATCH[1]}x${BASH_REMATCH[2]}/--size 640x480}
        fi
        # make presubmit, the same target of common/lab.mk in every lab, runs in full here
        # in labs 01-03 and in student.bats's presubmit tests (lab 01, lab 06); without a GPU,
        # labs 04-07 make it with -n here: it is there and its recipe expands (a full run
        # builds the lab the grader's way again: about 20 CPU-s of make test on 2 cores)
        if [[ $cmd == "make presubmit" && $1 != 0[123]_* ]] && ! has_gpu; then
            cmd="make -n presubmit"
        fi
        t=$SECONDS
        out=$(cd "$dir" && BENCH_SIZES="64x48 96x64" BENCH_SIZE=64x48 BENCH_REPS=2 BENCH_THREADS="1 2" \
            PROFILE_ROWS=64 PROFILE_COLS=64 PICTURE_COUNT=20 PICTURE_SIZE=64x48 timeout 300 bash -c "$cmd" 2>&1) || rc=$?
        # each command's time in the TAP log (tests/log), where a slow one is seen
        echo "# labs/$1: $cmd: exit $rc, $((SECONDS - t)) s" >&3
        if printf '%s\n' "$out" | grep -qE "No rule to make target|No such file|does not have|command not found|not part of this copy"; then
            echo "handout command fails: $cmd"; printf '%s\n' "$out" | tail -n 5; bad=1; continue
        fi
        [ "$rc" -eq 0 ] && continue
        printf '%s\n' "$out" | grep -qE "not implemented|not written yet|no CUDA device|compute-sanitizer not found|ncu \(Nsight Compute\) not found|gnuplot is not installed|run make bench( and make sweep)? first|GiB of host memory; this machine has|problem\(s\) the grader would hold" && continue
        echo "handout command: $cmd: exit $rc"; printf '%s\n' "$out" | tail -n 8
        bad=1
    done < <(awk '/^```sh/ { on = 1; next } /^```/ { on = 0 } on' "$dir/README.md" |
        sed -e 's/[[:space:]]#.*$//' -e 's/[[:space:]]*$//' | grep -v '^$')
    [ "$n" -ge 3 ] && [ "$bad" = 0 ]
}

# handout_half 1|2: the commands of the first half of the labs (found, not typed: the first
# ceil(N/2) of kit_labs) or of the second; every failure said (one run shows them all)
handout_half() {
    local all half l n=0 failed=""
    all=$(kit_labs "$ST" | wc -l)
    [ "$all" -eq "$(kit_labs | wc -l)" ] # the student's copy has every lab of the kit
    half=$(((all + 1) / 2))
    for l in $(if [ "$1" = 1 ]; then kit_labs "$ST" | head -n "$half"; else kit_labs "$ST" | tail -n +"$((half + 1))"; fi); do
        handout_commands "$l" || { echo "in labs/$l"; failed="$failed $l"; }
        n=$((n + 1))
    done
    [ -z "$failed" ] || { echo "failed in:$failed"; return 1; }
    [ "$n" -ge 1 ]
}
