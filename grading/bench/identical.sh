#!/usr/bin/env bash
# grading/bench/identical.sh - identical work, identical points? A benchmark, not a test: for
# each lab, COPIES identical copies of the reference solution (the lab's `correct` example)
# graded RUNS times, each time from scratch (a new OUT, the same seed), and the spread of the
# points per copy and per run. Every copy should get the same points in every run; for each
# copy that lost a point it prints why, from its results.json: the status and reason, and for
# lost performance points the pairs below the ratio of full points (the ratio, the slowest
# repetition) or the run that broke a speed check, and what else ran on its GPU and cores then
# (the report's "Speed points lost"). The last lines say whether the goal was met; they are
# kept in OUT/spread.txt, each run's results.json in OUT/labNN/runs/K/. Interrupted (Ctrl-C,
# `timeout -s INT`), it keeps what the run under way graded and prints the spread of what is there.
#
#   grading/bench/identical.sh                       GPU labs 03..07 where a GPU is, else 01;
#                                                    50 copies, 5 runs each
#   grading/bench/identical.sh --labs 01 --copies 6 --runs 2 --out /tmp/ident
#   options: --labs "NN ...", --copies N, --runs N, --out DIR (kept; default a new temporary
#   folder), --timeout S, and after -- any more options for grading/grade (e.g. --gpus 0)
# Exit 0 when every copy got the same points in every run, 1 when not, 2 on bad usage.
# Time: a grading of 50 copies of lab 03 takes about a minute on one H100 (the README's
# table), so the default (5 labs x 5 runs) is about half an hour there.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kit=$(cd "$here/../.." && pwd)
labs="" copies=50 runs=5 out="" timeout="" extra=()
usage() { echo "usage: $0 [--labs \"NN ...\"] [--copies N] [--runs N] [--out DIR] [--timeout S] [-- GRADE-OPTIONS]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --labs) [ $# -ge 2 ] || usage; labs=$2; shift 2 ;;
        --copies) [ $# -ge 2 ] || usage; copies=$2; shift 2 ;;
        --runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
        --timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) usage ;;
    esac
done
[[ "$copies" =~ ^[1-9][0-9]*$ && "$runs" =~ ^[1-9][0-9]*$ ]] ||
    { echo "$0: --copies and --runs are positive numbers" >&2; exit 2; }
if [ -z "$labs" ]; then
    if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
        labs="03 04 05 06 07"
    else
        labs="01"
    fi
fi
for nn in $labs; do
    [[ "$nn" =~ ^[0-9][0-9]$ && -d "$kit/grading/examples/lab$nn/correct" ]] ||
        { echo "$0: no lab $nn with a correct example" >&2; exit 2; }
done
[ -n "$out" ] || out=$(mktemp -d /tmp/kit-identical.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
. "$here/interrupt.sh"
make -s -C "$kit/grading" >"$out/make.log" 2>&1 || { cat "$out/make.log" >&2; exit 1; }
echo "identical copies: labs $labs, $copies copies, $runs runs each; in $out" >&2

# summarize NN...: the spread of each lab's copies over its runs, into OUT/spread.txt too
summarize() {
python3 - "$out" "$@" <<'EOF' | tee "$out/spread.txt"
import json, os, statistics, sys
out, labs = sys.argv[1], sys.argv[2:]
ok_all = True


def meanwhile(o, indent):
    where = ", ".join(x for x in ("GPU %s" % o["gpu"] if o["gpu"] is not None else "",
                                  "cores %s" % ",".join(map(str, o["cores"])) if o["cores"]
                                  else "") if x)
    print("%smeanwhile %s (%s), %s-%s s%s" % (
        indent, o["what"], where or "no core", o["at"], "on" if o["end"] is None else o["end"],
        "; shared: %s" % ", ".join(o["shared"]) if o["shared"] else ""))


for nn in labs:
    base = os.path.join(out, "lab" + nn, "runs")
    runs = sorted((int(k) for k in os.listdir(base) if k.isdigit()))
    pts = {}                            # copy -> [points per run]
    recs = {}
    for k in runs:
        for f in sorted(os.listdir(os.path.join(base, str(k)))):
            with open(os.path.join(base, str(k), f), encoding="utf-8") as fh:
                r = json.load(fh)
            pts.setdefault(r["id"], {})[k] = r["points"]["total"]
            recs[(r["id"], k)] = r
    if not pts:
        print("lab %s: nothing graded" % nn)
        ok_all = False
        continue
    best = max(p for c in pts.values() for p in c.values())
    mx = next(iter(recs.values()))["points"]["max"]
    print("lab %s: %d copies, %d runs, %g points possible; the best copy got %g" % (
        nn, len(pts), len(runs), mx, best))
    for k in runs:
        xs = [pts[c][k] for c in pts if k in pts[c]]
        low = sum(1 for x in xs if x < best)
        print("  run %d: min %.2f, median %.2f, max %.2f; %d of %d copies below the best" % (
            k, min(xs), statistics.median(xs), max(xs), low, len(xs)))
    spread = {c: max(v.values()) - min(v.values()) for c, v in pts.items()}
    missing = [(c, k) for c in pts for k in runs if k not in pts[c]]
    print("  per copy: the largest spread across runs %.2f points (%s); %d copies always "
          "the same" % (max(spread.values()), max(spread, key=spread.get),
                        sum(1 for x in spread.values() if x == 0)))
    lost = [(c, k) for (c, k), r in sorted(recs.items()) if r["points"]["total"] < best]
    if missing:
        print("  not graded: %s" % ", ".join("%s in run %d" % ck for ck in missing))
    for c, k in lost:
        r = recs[(c, k)]
        print("  %s, run %d: %.2f of %g, %s: %s" % (c, k, r["points"]["total"], mx, r["status"],
                                                   r["reason"]))
        for v in r["variants"]:
            s = v.get("speed_loss")
            if not s:
                continue
            print("    v%s: %.2f performance points lost: %s" % (
                v["variant"], s["lost"], ("ratio %.3f, full points from %s" % (
                    s["ratio"], s["full_ratio"])) if s["status"] == "ok" else
                "%s: %s" % (s["status"], s["reason"])))
            for p in s["pairs"]:
                print("      pair %d: ratio %.3f (reference %.4f ms, copy %.4f ms), "
                      "repetitions %s ms, the slowest %s; run %s" % (
                          p["pair"], p["ratio"], p["ref_ms"], p["student_ms"],
                          ", ".join("%.4g" % x for x in p["student_reps_ms"]),
                          p["slowest_rep"], (p["student_run"] or {}).get("run")))
                for o in p["others"]:
                    meanwhile(o, "        ")
            for o in s.get("others") or []:
                meanwhile(o, "      ")
    same = not lost and not missing and all(x == 0 for x in spread.values())
    ok_all = ok_all and same
    print("  goal (every copy the same points in every run): %s" % ("met" if same else
                                                                  "NOT met"))
print("all labs: %s" % ("every copy got the same points in every run" if ok_all else
                        "some copies got fewer points (above: why)"))
sys.exit(0 if ok_all else 1)
EOF
}

# keep NN K: run K's results.json of lab NN (those graded so far) in OUT/labNN/runs/K
keep() {
    local d="$out/lab$1" s
    mkdir -p "$d/runs/$2"
    for s in "$d/out/students"/*/; do
        [ -f "$s/results.json" ] && cp "$s/results.json" "$d/runs/$2/$(basename "$s").json"
    done
    return 0
}
# interrupted (Ctrl-C, `timeout`): the run under way keeps what it graded, and the spread of
# what there is is printed (its copies not graded yet are listed as such)
done_labs=""
bench_on_stop() {
    [ -n "${nn:-}" ] && [ -n "${k:-}" ] || return 0
    keep "$nn" "$k"
    echo "interrupted in lab $nn's run $k: the spread of what was graded until then" | tee "$out/interrupted.txt"
    # shellcheck disable=SC2086
    summarize $done_labs "$nn"
}

for nn in $labs; do
    d="$out/lab$nn" k=""
    rm -rf "$d"
    mkdir -p "$d/runs" "$d/class"
    "$kit/grading/examples/make.sh" "$nn" "$d/examples" >/dev/null
    for ((i = 1; i <= copies; i++)); do
        cp -r "$d/examples/correct" "$(printf '%s/class/c%03d' "$d" "$i")"
    done
    for ((k = 1; k <= runs; k++)); do
        t0=$(date +%s)
        rc=0
        rm -rf "$d/out"     # from scratch: a new OUT (--force would build the kit again too)
        bench_grade "$d/runs/grade-$k.log" "$kit/grading/grade" --lab "$nn" --submissions \
            "$d/class" --out "$d/out" --seed 1 --quiet ${timeout:+--timeout "$timeout"} \
            "${extra[@]}" || rc=$?
        keep "$nn" "$k"
        echo "lab $nn run $k: exit $rc, $(($(date +%s) - t0)) s" >&2
    done
    done_labs="$done_labs $nn"
done
k=""

set -o pipefail
# shellcheck disable=SC2086
summarize $labs
