"""Exactly-once grading across a Slurm round's tasks: static shares, then claims.

A task claims a student before it grades it: a file created with O_EXCL in
OUT/slurm/ROUND/claims, which works on NFS too. The folder of claims belongs to one round: a new
round has its own, so the claims of older rounds are never read."""
import json
import os
import socket
import time


def share(ids, tasks, index):
    """Task INDEX's static share of IDS (the round's students, in the round's order)."""
    return [s for k, s in enumerate(ids) if k % tasks == index]


def order(ids, tasks, index):
    """The order task INDEX tries the round's students in: its own share, then the others'
    (work stealing: a student nobody claimed yet), each share from the task after it on."""
    out = share(ids, tasks, index)
    for d in range(1, tasks):
        out += share(ids, tasks, (index + d) % tasks)
    return out


def owner_here(index):
    """This process as a claim's owner: the Slurm job and array task, the host, the pid."""
    e = os.environ
    return {"job": e.get("SLURM_ARRAY_JOB_ID") or e.get("SLURM_JOB_ID") or "",
            "task": str(e.get("SLURM_ARRAY_TASK_ID", index)), "host": socket.gethostname(),
            "pid": os.getpid(), "time": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}


def read(cdir, sid):
    """The claim on SID (a dict), None when there is none or it cannot be read."""
    try:
        fd = os.open(os.path.join(cdir, sid), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        data = os.read(fd, 4096)
    finally:
        os.close(fd)
    try:
        d = json.loads(data.decode("utf-8"))
        return d if isinstance(d, dict) else {}
    except ValueError:
        return {}         # being written this moment, or torn: someone holds it


def same_task(a, b):
    """Whether two owners are the same array task (a requeued task is)."""
    return bool(a.get("job")) and a.get("job") == b.get("job") and \
        str(a.get("task")) == str(b.get("task"))


def claim(cdir, sid, me):
    """Whether ME now holds the claim on SID: made here (O_EXCL: of two claimants exactly
    one wins), or an earlier one of this same array task (a requeued task takes it back)."""
    path = os.path.join(cdir, sid)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o644)
    except FileExistsError:
        old = read(cdir, sid)
        if old and same_task(old, me):
            _rewrite(path, me)
            return True
        return False
    try:
        os.write(fd, (json.dumps(me, sort_keys=True) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


def _rewrite(path, me):
    tmp = "%s.%d.tmp" % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o644)
    try:
        os.write(fd, (json.dumps(me, sort_keys=True) + "\n").encode())
    finally:
        os.close(fd)
    os.replace(tmp, path)


def all_claims(cdir):
    """{student id: owner} of every claim in CDIR."""
    out = {}
    try:
        names = os.listdir(cdir)
    except OSError:
        return out
    for n in names:
        if n.startswith(".") or n.endswith(".tmp"):
            continue
        c = read(cdir, n)
        if c is not None:
            out[n] = c
    return out
