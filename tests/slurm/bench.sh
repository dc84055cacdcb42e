#!/usr/bin/env bash
# tests/slurm/bench.sh [COUNT] [TASKS] - a benchmark, not a test: grades one made-up lab 01
# class locally and through the single-host test Slurm (tests/slurm/cluster.sh, as root), and
# prints the per-task overhead (Slurm's wall time less the local one, over the tasks) and the
# per-task startup (sbatch submit to the task's first claimed student).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-12} tasks=${2:-3}
why=$("$root/tests/slurm/cluster.sh" why)
[ -z "$why" ] || { echo "bench: $why" >&2; exit 2; }
w=$(mktemp -d /tmp/kit-bench.XXXXXX)
chmod 0755 "$w"
trap '"$root/tests/slurm/cluster.sh" down "$w/cluster"; rm -rf "$w"' EXIT
eval "$("$root/tests/slurm/cluster.sh" up "$w/cluster")" || exit 1
export SLURM_CONF
make -s -C "$root/grading" >/dev/null
"$root/grading/examples/make.sh" 01 "$w/ex" >/dev/null
mkdir "$w/class"
for ((i = 1; i <= count; i++)); do
    case $((i % 4)) in 0) e=wrong-borders ;; 1|2) e=correct ;; 3) e=slow ;; esac
    cp -r "$w/ex/$e" "$w/class/$(printf 's%03d-%s' "$i" "$e")"
done
chmod -R a+rX "$w"
common=(--lab 01 --submissions "$w/class" --timeout 3 --seed 99 --jobs 2
        --rubric "$root/grading/examples/lab01/rubric")
t0=$(date +%s.%N)
"$root/grading/grade" "${common[@]}" --out "$w/local" --quiet 2>/dev/null
t1=$(date +%s.%N)
"$root/grading/grade" "${common[@]}" --out "$w/slurm" --slurm --tasks "$tasks" --partition cpu \
    --slurm-user nobody --wait 2>/dev/null
t2=$(date +%s.%N)
python3 - "$w/slurm" "$t0" "$t1" "$t2" "$count" "$tasks" <<'PY'
import json, os, sys
out, t0, t1, t2, n, tasks = sys.argv[1], *map(float, sys.argv[2:5]), int(sys.argv[5]), int(sys.argv[6])
local, slurm = t1 - t0, t2 - t1
cd = os.path.join(out, "slurm", "1", "claims")
first = {}
for sid in os.listdir(cd):
    c = json.load(open(os.path.join(cd, sid)))
    m = os.stat(os.path.join(cd, sid)).st_mtime
    first[c["task"]] = min(first.get(c["task"], m), m)
print("lab 01, %d students, %d tasks (cpus-per-task 2 on a %d-core single-host Slurm)"
      % (n, tasks, os.cpu_count()))
print("%-34s %8.1f s" % ("local grading (--jobs 2)", local))
print("%-34s %8.1f s" % ("Slurm grading, submit to merged", slurm))
print("%-34s %8.1f s" % ("overhead per task", (slurm - local) / tasks))
for t in sorted(first, key=int):
    print("%-34s %8.1f s" % ("task %s: submit to first student" % t, first[t] - t1))
PY
