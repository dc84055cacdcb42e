#!/usr/bin/env bash
# tests/slurm/cluster.sh - a real single-host Slurm for the grader's cluster tests, run
# from a temporary folder: munged, slurmctld and slurmd from the system packages, a
# slurm.conf written here, one CPU partition. Nothing is installed or started unless a
# test asks for it; `down` stops everything it started.
#
#   tests/slurm/cluster.sh up DIR      start a cluster whose files live in DIR; prints
#                                      "export SLURM_CONF=..." for the caller to eval
#   tests/slurm/cluster.sh down DIR    stop it and remove what it wrote outside DIR (nothing)
#   tests/slurm/cluster.sh why         why a cluster cannot start here (empty when it can)
#
# Needs root (the daemons run as root and jobs as an unprivileged user) and the packages
# slurmctld, slurmd, slurm-client and munge: `common/scripts/setup.sh --slurm` installs them.
set -u

why() {
    [ "$(id -u)" = 0 ] || { echo "the test cluster needs root (slurmd runs jobs as their users)"; return; }
    local p
    for p in munged mungekey slurmctld slurmd sbatch squeue sinfo scancel; do
        command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
            { echo "$p is missing (common/scripts/setup.sh --slurm installs it)"; return; }
    done
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

up() {
    local d=$1 host cpus mem p1 p2
    local reason
    reason=$(why)
    [ -z "$reason" ] || { echo "cluster: $reason" >&2; return 2; }
    mkdir -p "$d"/{state,spool,log,run,munge}
    chmod 0700 "$d/munge"
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
    p1=$(free_port)
    p2=$(free_port)
    # munge: its own key, socket and files, as root (--force: the folder is ours)
    dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$d/munge/munge.key"
    /usr/sbin/munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.sock" \
        --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
        --seed-file="$d/munge/munge.seed" || { echo "cluster: munged did not start" >&2; return 1; }
    chmod 0755 "$d/munge"
    cat >"$d/slurm.conf" <<EOF
ClusterName=kittest
SlurmctldHost=$host
SlurmctldPort=$p1
SlurmdPort=$p2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
MaxArraySize=1001
DefMemPerCPU=1024
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=cpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF="$d/slurm.conf"
    /usr/sbin/slurmctld -f "$SLURM_CONF" -i || { echo "cluster: slurmctld did not start (see $d/log)" >&2; return 1; }
    /usr/sbin/slurmd -f "$SLURM_CONF" || { echo "cluster: slurmd did not start (see $d/log)" >&2; return 1; }
    local i state
    for ((i = 0; i < 60; i++)); do
        state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n1)
        case $state in idle*|mixed*|allocated*) echo "export SLURM_CONF=$SLURM_CONF"; return 0 ;; esac
        sleep 0.5
    done
    echo "cluster: the node did not come up (state '$state'; see $d/log)" >&2
    return 1
}

down() {
    local d=$1 f
    for f in "$d/run/slurmd.pid" "$d/run/slurmctld.pid" "$d/munge/munged.pid"; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    sleep 1
    for f in "$d/run/slurmd.pid" "$d/run/slurmctld.pid" "$d/munge/munged.pid"; do
        [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
    done
    # jobs left by the cluster's slurmstepd die with it
    pkill -9 -f "slurmstepd.*$d" 2>/dev/null
    return 0
}

case ${1:-} in
    up) up "${2:?DIR}" ;;
    down) down "${2:?DIR}" ;;
    why) why ;;
    *) echo "usage: $0 up DIR | down DIR | why" >&2; exit 2 ;;
esac
