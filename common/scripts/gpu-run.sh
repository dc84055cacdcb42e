#!/usr/bin/env bash
# gpu-run.sh - everything that needs a GPU, in one call (make gpu-check runs the
# default steps; make gpu all of them but grade):
#   build    every lab for the local GPU, warnings as errors
#   figures  every lab's reference figures into labs/NN_name/figures/GPU.tsv,
#            rendered into the handouts (make figures; a quiet GPU, so it runs first):
#            the labs that have figures of this GPU, a stale one measured again
#            (KIT_FIGURES_KNOWN=0: a GPU model new to the kit too, about ten minutes)
#   demo     make demo: its per-lab times, and a failed lab named
#   tests    the GPU tests (tests/gpu/*.bats), the files in parallel
#   sanitize compute-sanitizer on every GPU lab's reference
#   profile  profiler metrics per variant (Nsight Compute), where permitted
#   bench    every lab's benchmark with the reference solution
#   grade    the grader's benchmark: a made-up class of $KIT_GRADE_N (default 100)
#            lab-03 submissions, graded without profiling (wall time, build/run split)
# then one summary; exits 1 when any step failed. Default: build figures demo tests.
# Choose steps by name: gpu-run.sh tests bench; a step may name what it covers
# after a colon: tests:lab03,grade (test files), bench:03,06 and figures:03,04 (labs).
# On a GPU machine without a package registry, first run
# `common/scripts/setup.sh --local` where there is one and carry .deps/ along
# (it holds gnuplot too). Logs and TSVs go to $KIT_GPU_OUT (default out/gpu);
# with $OUT set (a folder to hand back), a tarball of them, the figures and the
# demo's index is written there as well. KIT_GPU_DEADLINE=S: every step ends
# S seconds after the start (a step still running is stopped and counted as
# failed; a later one is not begun), so that what ran comes back from a call
# with a time limit. Under a deadline the figures step keeps the steps after it
# their time (demo $KIT_GPU_RESERVE_DEMO, default 180 s; tests
# $KIT_GPU_RESERVE_TESTS, default 270 s: an H200's) and measures only the stale
# labs that fit in the rest; the others are named and stay stale (make figures).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH="$root/.deps/usr/bin:$PATH"
deadline=${KIT_GPU_DEADLINE:-0}
case $deadline in
    '' | *[!0-9]*) echo "gpu-run: KIT_GPU_DEADLINE must be whole seconds, not '$deadline'"; exit 2 ;;
esac
dest=${KIT_GPU_OUT:-$root/out/gpu}
rm -rf "$dest"
mkdir -p "$dest"
steps=${*:-build figures demo tests}
gpu_labs=$(for d in labs/*/; do grep -q '^GPU *:= *1' "$d/Makefile" 2>/dev/null && echo "${d%/}"; done)
all_labs=$(for d in labs/*/; do [ -f "$d/Makefile" ] && echo "${d%/}"; done)
summary=()
failed=0
# limit: the timeout command that ends a step at the deadline (none without one)
limit() {
    [ "$deadline" -gt 0 ] || return 0
    echo timeout -k 5 $((deadline - SECONDS))
}
# time_left NAME: there is time to begin step NAME (said and counted when not)
time_left() {
    [ "$deadline" -gt 0 ] && [ $((deadline - SECONDS)) -lt 10 ] || return 0
    summary+=("$(printf '%-28s not begun: the deadline (%ss) came' "$1" "$deadline")")
    failed=1
    return 1
}

# run NAME CMD...: run a step, keep its log, note its status and duration
run() {
    local name=$1; shift
    local t0=$SECONDS
    time_left "$name" || return 1
    echo "== $name: $*"
    # shellcheck disable=SC2046
    $(limit) "$@" >"$dest/$name.log" 2>&1
    local rc=$?
    [ "$rc" -eq 0 ] || failed=1
    tail -n 25 "$dest/$name.log"
    summary+=("$(printf '%-28s exit %-3s %5ss' "$name" "$rc" $((SECONDS - t0)))")
    return $rc
}

echo "== machine"
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 4
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

# reserved STEP: the seconds a deadline keeps for STEP when a step before it may take long
reserved() {
    case ${1%%:*} in
        demo) echo "${KIT_GPU_RESERVE_DEMO:-180}" ;;
        tests) echo "${KIT_GPU_RESERVE_TESTS:-270}" ;;
        *) echo 0 ;;
    esac
}
# figures_time: the seconds the figures step may take from now (empty: no deadline), what
# the deadline leaves once the steps after it in this call have their time
figures_time() {
    [ "$deadline" -gt 0 ] || return 0
    local s after=0 seen=0
    for s in $steps; do
        [ $seen = 1 ] && after=$((after + $(reserved "$s")))
        [ "${s%%:*}" = figures ] && seen=1
    done
    s=$((deadline - after - SECONDS))
    echo $((s > 0 ? s : 0))
}

# picked LIST NAME: NAME is in the comma-separated LIST (an empty LIST takes all)
picked() { [ -z "$1" ] || [[ ",$1," == *",$2,"* ]]; }

for step in $steps; do
    only=""
    [[ $step == *:* ]] && only=${step#*:}
    step=${step%%:*}
    case $step in
    build)
        run build-common make -j"$(nproc)" -C common WERROR=1
        for d in $all_labs; do run "build-$(basename "$d")" make -j"$(nproc)" -C "$d" WERROR=1 all; done ;;
    tests)
        t0=$SECONDS
        pids=() names=()
        for f in tests/gpu/*.bats; do
            n=$(basename "$f" .bats)
            picked "$only" "$n" || continue
            time_left "tests-$n" || continue
            # shellcheck disable=SC2046
            $(limit) bats --tap --timing "$f" >"$dest/tests-$n.log" 2>&1 &
            pids+=($!) names+=("$n")
        done
        echo "== tests: ${names[*]} (in parallel)"
        for i in "${!pids[@]}"; do
            wait "${pids[$i]}"; rc=$?
            n=${names[$i]}
            [ "$rc" -eq 0 ] || failed=1
            counts=$(awk '/^1\.\.[0-9]+/ { split($0, a, "."); plan = a[3] }
                 /^ok .*# skip/ {s++; next} /^ok / {p++} /^not ok/ {f++}
                 END { printf "%d passed, %d failed, %d skipped", p, f, s
                       if (plan > p + f + s) printf ", %d not run", plan - p - f - s }' "$dest/tests-$n.log")
            summary+=("$(printf '%-28s exit %-3s %5ss  (%s)' "tests-$n" "$rc" $((SECONDS - t0)) "$counts")")
            [ "$rc" -eq 0 ] || grep -A 12 '^not ok' "$dest/tests-$n.log" | head -n 40
        done ;;
    figures)
        # the labs with figures of this GPU committed (a stale one measured again); a GPU
        # model new to the kit is measured by make figures, about ten minutes on its own
        KIT_FIGURES_KNOWN=${KIT_FIGURES_KNOWN:-1} KIT_FIGURES_DEADLINE=$(figures_time) \
            run figures common/scripts/figures.sh ${only//,/ }
        grep -E '^figures: (machine|[0-9]+_)|s in all|before the deadline' "$dest/figures.log" 2>/dev/null | sed 's/^/   /'
        n=$(grep -c 'not measured: it takes about' "$dest/figures.log" 2>/dev/null)
        [ "${n:-0}" -eq 0 ] || summary[${#summary[@]}-1]+="  ($n stale, not measured: no time before the later steps)" ;;
    demo)
        run demo make -s demo
        grep -E '^demo: [0-9]+_|^demo: grading|^demo: slowest|ran in' "$dest/demo.log" 2>/dev/null | sed 's/^/   /' ;;
    sanitize)
        for d in $gpu_labs; do run "sanitize-$(basename "$d")" make -s -C "$d" sanitize REF=1; done ;;
    profile)
        for d in $gpu_labs; do
            run "profile-$(basename "$d")" make -s -C "$d" profile REF=1
            for t in "$d"/out/profile*.tsv; do [ -e "$t" ] && cp "$t" "$dest/$(basename "$d")-$(basename "$t")"; done
        done ;;
    bench)
        for d in $all_labs; do
            b=$(basename "$d")
            picked "$only" "${b%%_*}" || continue
            run "bench-$(basename "$d")" make -s -C "$d" bench REF=1
            cp "$d/out/"*.tsv "$dest/" 2>/dev/null
            for t in "$d"/out/*.tsv; do [ -e "$t" ] && cp "$t" "$dest/$(basename "$d")-$(basename "$t")"; done
        done ;;
    grade)
        n=${KIT_GRADE_N:-100}
        cls="$dest/class03" gout="$dest/grades03"
        rm -rf "$cls" "$gout"
        grading/examples/make-class.sh 03 "$n" "$cls" >/dev/null
        run "grade-class03-$n" grading/grade --lab 03 --submissions "$cls" --out "$gout" --timeout 10
        grep -m1 '^Per submission' "$gout/summary.md" 2>/dev/null | fold -s -w 100 | sed 's/^/   /'
        cut -d, -f10 "$gout/grades.csv" 2>/dev/null | tail -n +2 | sort | uniq -c | tr '\n' ' ' | sed 's/^/   statuses:/'
        echo
        summary[${#summary[@]}-1]+="  ($(tail -n +2 "$gout/grades.csv" 2>/dev/null | wc -l) graded)"
        cp "$gout/summary.md" "$dest/grade-summary.md" 2>/dev/null
        cp "$gout/grades.csv" "$dest/grade-grades.csv" 2>/dev/null ;;
    *) echo "gpu-run: unknown step $step (build figures demo tests sanitize profile bench grade)"; exit 2 ;;
    esac
done

if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
    tar -C "$dest" --exclude=./class03 --exclude=./grades03 \
        -czf "$OUT/gpu-out.tar.gz" . 2>/dev/null
    # what comes back to the repository: the figures, the handouts rendered
    # from them, and the demo's index with its plots (no pictures: size)
    { ls -d labs/*/figures labs/*/README.md labs/*/README.*.md out/demo/index.md out/demo/trace.tsv out/demo/*/demo.log
      find out/demo -name '*.png' -size -400k; } 2>/dev/null >"$dest/back.list"
    tar -czf "$OUT/figures.tar.gz" -T "$dest/back.list" 2>/dev/null
fi
echo
echo "== benchmarks (median ms; GB/s against the copy ceiling measured in the same run)"
for t in "$dest"/*-bench.tsv; do
    [ -e "$t" ] || continue
    echo "-- $(basename "$t")"
    "$root/common/scripts/bench-table.sh" "$t" | head -n 60
done
echo
echo "== summary"
printf '  %s\n' "${summary[@]}"
# the status of the whole: 1 when a step failed (a test, a build, a sanitizer run)
exit $failed
