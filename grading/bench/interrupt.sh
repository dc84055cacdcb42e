# grading/bench/interrupt.sh - sourced by the benchmarks once $out is set: an interrupt (Ctrl-C,
# `timeout`) stops the grading under way too (grade stops on its own SIGINT: the runs it started
# end, nothing half-written, nothing left mounted), then the benchmark, saying where its
# results are. `bench_grade LOG CMD...` runs a grading, its output into LOG, so that it can be
# stopped; its exit status.
bench_child=""
bench_stop() {
    trap - INT TERM
    if [ -n "$bench_child" ]; then
        # TERM: a job started with & here ignores INT until the grader sets its own handler
        kill -TERM "$bench_child" 2>/dev/null || true
        wait "$bench_child" 2>/dev/null || true
    fi
    echo "$0: interrupted; what was graded is in $out" >&2
    # a benchmark's own last words on what it has (bench_on_stop, where it defines one)
    if [ "$(type -t bench_on_stop)" = function ]; then bench_on_stop || true; fi
    exit 130
}
trap bench_stop INT TERM
bench_grade() {
    local rc=0 log=$1
    shift
    "$@" >"$log" 2>&1 &
    bench_child=$!
    wait "$bench_child" || rc=$?
    bench_child=""
    return "$rc"
}
