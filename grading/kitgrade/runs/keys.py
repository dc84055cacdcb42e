"""The key channel of a timed run: a fresh key for each timed repetition, recorded.

The channel is `--ctl IN,OUT` (DESIGN.md "The grading mode of the harness"). Before timed
repetition K of variant V the harness writes `rep V K` and reads one line `key HEX`; V is PART:V
where the grader sets KIT_CTL_PARTS=1 in the run's environment and the part has a name (Timer: one
process for every part of a lab). The grader draws each key at that moment (64 random bits, never
0), records it with the times it was asked for and handed out (CLOCK_MONOTONIC ns, the clock of the
launch windows), and refuses anything else on the channel.

Each case of a run begins with `gate 0 0`, once its GPU context is made and before the
student's code runs; it is answered `open` at once, or, the first one of a run started early
(GATE: the read end of a pipe of the grader's), once the grader writes a byte to the pipe; the
pipe's end refuses the run.

The answering is done by build/keyserve (grading/keyserve.c), a process of its own, so that it
takes microseconds whatever the grader's threads are busy with: the times between requests
time a CPU variant. Without it, a thread of the grader answers (slower to answer: timings
are then noisier)."""
import os
import re
import secrets
import select
import subprocess
import tempfile
import threading
import time
from contextlib import suppress
from typing import Dict, List, Tuple

# V: a variant number, or PART:NUMBER where the grader set KIT_CTL_PARTS=1 (one run, several
# parts whose variant numbers repeat)
_REQ = re.compile(r"^(rep|go|done|gate) ((?:[a-z0-9_]+:)?[0-9]{1,9}) ([0-9]+)$")


# the parts of a timed run's time (KeyServer.split), in the order they come
SPLIT = ("start", "gate", "setup", "key", "content", "variant", "output", "between", "end")


class KeyServer:
    """Serve keys to one run while it lasts (build/keyserve, else a thread). BATON: one side
    of a Lockstep (the helper only). GATE: the read end of the pipe that opens the run's gate
    (the server owns it from now on), or None for a gate open at once."""

    def __new__(cls, max_requests, helper=None, tmp=None, baton=None, gate=None):
        if cls is KeyServer and helper and os.path.isfile(helper):
            return object.__new__(HelperKeyServer)
        return object.__new__(cls)

    def __init__(self, max_requests, helper=None, tmp=None, baton=None, gate=None):
        self.key_r, self.key_w = os.pipe()     # grader -> harness (the harness's IN)
        self.req_r, self.req_w = os.pipe()     # harness -> grader (the harness's OUT)
        self.max = max_requests
        self.keys: Dict[Tuple[str, int], Tuple[str, int]] = {}   # (V, K) -> (hex key, sent ns)
        self.requests: List[Tuple[str, int, int]] = []           # (V, K, asked ns), in order
        self.notes: Dict[Tuple[str, int], List[int]] = {}        # (V, K) -> [go ns, done ns]
        self.broken = ""                       # why the channel was refused
        self.gate = -1 if gate is None else gate
        self.gated_ns = self.opened_ns = None  # when the run came to its gate, and went on
        # (V, K) -> {"rep"|"go"|"done": the run's CPU time (us) at that request or note},
        # where start() was given the run's cgroup cpu.stat (cpu_outside)
        self.cpu: Dict[Tuple[str, int], Dict[str, int]] = {}
        self.cpu_stat = None
        self.started = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def child_fds(self):
        return (self.key_r, self.req_w)

    @property
    def ctl_arg(self):
        return "%d,%d" % (self.key_r, self.req_w)

    def start(self, cpu_stat=None):
        """Serve from now on; CPU_STAT: the run's cgroup cpu.stat, read at each request and
        note (self.cpu)."""
        self.cpu_stat, self.started = cpu_stat, True
        self._thread.start()

    def _cpu_us(self):
        """The run's CPU time now (us): v2's usage_usec, or v1's cpuacct.usage (ns)."""
        try:
            with open(self.cpu_stat, "rb") as f:
                text = f.read(4096)
            for ln in text.split(b"\n"):
                if ln.startswith(b"usage_usec "):
                    return int(ln.split()[1])
            return int(text.strip()) // 1000
        except (OSError, ValueError, IndexError, TypeError):
            return None

    def cpu_outside(self, tag):
        """[ms] per repetition of variant TAG but its last: the CPU time the run used outside
        its window beyond one thread's (from the key's request to its go, and from its done
        to the next request); [] without the CPU readings. The harness's work there (fresh
        content, the output) is one thread's: more is another thread's work, the student's."""
        reqs = sorted(self.requests, key=lambda r: r[2])
        out = []
        for (v, k, asked), nxt in zip(reqs, reqs[1:]):
            if v != tag:
                continue
            c, w = self.cpu.get((v, k), {}), self.window(v, k)
            c_next = self.cpu.get((nxt[0], nxt[1]), {}).get("rep")
            if w is None or None in (c.get("rep"), c.get("go"), c.get("done"), c_next):
                return []
            cpu_us = (c["go"] - c["rep"]) + (c_next - c["done"])
            wall_ns = (w[0] - asked) + (nxt[2] - w[1])
            out.append(cpu_us / 1e3 - wall_ns / 1e6)
        return out

    def cpu_inside(self, tag):
        """[(cpu ms, wall ms)] of each repetition of variant TAG inside its window (from its
        go to its done note), or [] without the CPU readings."""
        out = []
        for (v, k), c in sorted(self.cpu.items()):
            w = self.window(v, k)
            if v != tag or w is None:
                continue
            if c.get("go") is None or c.get("done") is None:
                return []
            out.append(((c["done"] - c["go"]) / 1e3, (w[1] - w[0]) / 1e6))
        return out

    def finish(self):
        """After the run: read what it said to the end, stop serving, close every end. Our
        copy of the end the harness writes is closed first, so that once the run is gone its
        last lines end in EOF and none is left unread (a loaded machine may not have served
        them yet); a survivor holding the channel open costs at most the join's wait. Our
        copy of the key end stays open till then: a key answered late is not a write to a
        closed pipe."""
        if self.req_w >= 0:
            with suppress(OSError):
                os.close(self.req_w)
            self.req_w = -1
        self._thread.join(timeout=5)
        self._done.set()
        self._thread.join(timeout=5)
        for fd in (self.key_r, self.key_w, self.req_r, self.req_w, self.gate):
            if fd >= 0:
                with suppress(OSError):
                    os.close(fd)

    def _hang_up(self):
        """No more keys: the harness reads the end of its channel and stops."""
        with suppress(OSError):
            os.close(self.key_w)
        self.key_w = -1

    def _serve(self):
        buf = b""
        while not self._done.is_set():
            r, _, _ = select.select([self.req_r], [], [], 0.02)
            if not r:
                continue
            chunk = os.read(self.req_r, 4096)
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf and not self.broken:
                line, buf = buf.split(b"\n", 1)
                self._answer(line.decode("utf-8", "replace").strip())
            if len(buf) > 256:
                self.broken = "wrote something other than key requests on the key channel"
            if self.broken:
                self._hang_up()
                return

    def _answer(self, line):
        now = time.monotonic_ns()
        cpu = self._cpu_us() if self.cpu_stat else None
        m = _REQ.match(line)
        if not m:
            self.broken = "wrote '%s' on the key channel" % line[:40]
            return
        what, v, k = m.group(1), m.group(2), int(m.group(3))
        if what == "gate":
            if (v, k) != ("0", 0):
                self.broken = "asked to start out of turn"
                return
            if self.gated_ns is None:
                self.gated_ns = now
            if self.gate >= 0:         # wait for the grader: a byte opens, the end refuses
                try:
                    b = os.read(self.gate, 1)
                except OSError:
                    b = b""
                os.close(self.gate)
                self.gate = -1
                if not b:
                    self.broken = "was not let start (the grading went on without it)"
                    return
            if self.opened_ns is None:
                self.opened_ns = time.monotonic_ns()
            try:
                os.write(self.key_w, b"open\n")
            except OSError:
                self.broken = "stopped reading its keys"
            return
        if what != "rep":
            seen = self.notes.setdefault((v, k), [])
            if (v, k) not in self.keys or len(seen) != (0 if what == "go" else 1):
                self.broken = "said it %s a repetition out of turn" % (
                    "started" if what == "go" else "ended")
            else:
                seen.append(now)
                if cpu is not None:
                    self.cpu.setdefault((v, k), {})[what] = cpu
            return
        if (v, k) in self.keys:
            self.broken = "asked twice for the key of repetition %d of v%s" % (k, v)
            return
        if len(self.requests) >= self.max:
            self.broken = "asked for more keys than it has repetitions"
            return
        key = "%016x" % (secrets.randbits(64) | 1)
        self.requests.append((v, k, now))
        if cpu is not None:
            self.cpu.setdefault((v, k), {})["rep"] = cpu
        self.keys[(v, k)] = (key, time.monotonic_ns())
        try:
            os.write(self.key_w, ("key %s\n" % key).encode())
        except OSError:
            self.broken = "stopped reading its keys"

    def window(self, v, k):
        """(go ns, done ns) of repetition K of V by the grader's clock, or None."""
        n = self.notes.get((v, k))
        return (n[0], n[1]) if n and len(n) == 2 else None

    def split(self, start_ns, end_ns):
        """Where a timed run's time went, in seconds, from the channel's records (START_NS and
        END_NS: the process's start and end, the same clock): "start" to its first gate (the
        process, its inputs and CUDA context), "gate" held there (a run started early),
        "setup" from the gate's opening to the first key (the first variant's set-up and
        warm-up); added over the repetitions, "key" from a key asked for to its answer (in
        lockstep, the other run's repetition), "content" from the key handed out to its go (the
        repetition's fresh content made), "variant" from go to done, "output" from done to the
        next key of the same variant (the output written), "between" from done to the first
        key of another variant (the output, the next variant's set-up and warm-up); "end" from
        the last done to the process's end. {} unless every repetition said go and done."""
        reqs = sorted(self.requests, key=lambda r: r[2])
        if not reqs or any(self.window(v, k) is None for v, k, _t in reqs):
            return {}
        gated = self.gated_ns if self.gated_ns is not None else reqs[0][2]
        opened = self.opened_ns if self.opened_ns is not None else gated
        out = dict.fromkeys(SPLIT, 0)
        out.update(start=gated - start_ns, gate=opened - gated, setup=reqs[0][2] - opened)
        for i, (v, k, asked) in enumerate(reqs):
            go, done = self.window(v, k)
            out["key"] += self.keys[(v, k)][1] - asked
            out["content"] += go - self.keys[(v, k)][1]
            out["variant"] += done - go
            if i + 1 < len(reqs):
                out["output" if reqs[i + 1][0] == v else "between"] += reqs[i + 1][2] - done
            else:
                out["end"] = end_ns - done
        return {w: round(max(0, out[w]) / 1e9, 4) for w in SPLIT}

    def next_request_after(self, v, k):
        """When the request after (V, K) came (ns), or None."""
        for i, (rv, rk, t) in enumerate(self.requests):
            if (rv, rk) == (v, k) and i + 1 < len(self.requests):
                return self.requests[i + 1][2]
        return None


class HelperKeyServer(KeyServer):
    """The same, answered by build/keyserve; its log read when the run is over."""

    def __init__(self, max_requests, helper=None, tmp=None, baton=None, gate=None):
        KeyServer.__init__(self, max_requests, gate=gate)
        self.helper = helper
        fd, self.log = tempfile.mkstemp(prefix="keys-", dir=tmp)
        self.logfd = fd
        self.proc = None
        self.baton = baton

    def start(self, cpu_stat=None):
        fds = (self.req_r, self.key_w, self.logfd)
        gate = (self.gate,) if self.gate >= 0 else ()
        extra = self.baton.fds if self.baton is not None else ()
        self.started = True
        cpu = ()
        if cpu_stat:
            with suppress(OSError):
                cpu = (os.open(cpu_stat, os.O_RDONLY | os.O_CLOEXEC),)
        try:
            self.proc = subprocess.Popen(
                [self.helper] + [str(x) for x in fds] + [str(self.max), str(self.gate)] +
                [str(x) for x in extra + cpu], pass_fds=fds + gate + extra + cpu,
                stdin=subprocess.DEVNULL)
        finally:
            if self.baton is not None:
                self.baton.started()
            for fd in cpu:
                os.close(fd)
        for fd in fds + gate:
            os.close(fd)
        self.req_r = self.key_w = self.logfd = self.gate = -1

    def finish(self):
        # as KeyServer.finish: the helper reads to EOF, and a key it answers late still has a
        # reader (our copy of the key end, closed after it)
        if self.req_w >= 0:
            os.close(self.req_w)
            self.req_w = -1
        if self.proc is not None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.key_r >= 0:
            os.close(self.key_r)
            self.key_r = -1
        with open(self.log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        os.unlink(self.log)
        for ln in text.splitlines():
            t = ln.split()
            if t[:1] == ["rep"] and len(t) in (6, 7):
                v, k = t[1], int(t[2])
                self.requests.append((v, k, int(t[4])))
                self.keys[(v, k)] = (t[3], int(t[5]))
                if len(t) == 7 and int(t[6]) >= 0:
                    self.cpu.setdefault((v, k), {})["rep"] = int(t[6])
            elif t[:1] in (["go"], ["done"]) and len(t) in (4, 5):
                self.notes.setdefault((t[1], int(t[2])), []).append(int(t[3]))
                if len(t) == 5 and int(t[4]) >= 0:
                    self.cpu.setdefault((t[1], int(t[2])), {})[t[0]] = int(t[4])
            elif t[:1] == ["gate"] and len(t) == 2 and self.gated_ns is None:
                self.gated_ns = int(t[1])
            elif t[:1] == ["open"] and len(t) == 2 and self.opened_ns is None:
                self.opened_ns = int(t[1])
            elif t[:1] == ["broken"] and not self.broken:
                self.broken = ln[7:]


class Lockstep:
    """Two timed runs, repetition by repetition (build/keyserve's lockstep): side(0) and
    side(1) go to the two runs' key servers; once both runs have asked for their first key
    (or ended), side 0 gets the baton. The grader's copies of the pipes are closed once both
    servers have started; close() ends what is left."""

    class Side:
        def __init__(self, pair, fds):
            self.pair, self.fds = pair, fds

        def started(self):
            self.pair._started()

    def __init__(self, wait_s=60.0):
        a_r, a_w = os.pipe()            # the baton to side 0
        b_r, b_w = os.pipe()            # the baton to side 1
        self.ready_r, ready_w = os.pipe()
        self.token = os.dup(a_w)        # the grader's first baton, to side 0
        self.sides = [self.Side(self, (a_r, b_w, ready_w)), self.Side(self, (b_r, a_w, ready_w))]
        self._ours = [a_r, a_w, b_r, b_w, ready_w]
        self._n = 0
        self._lock = threading.Lock()
        self._wait_s = wait_s
        self._thread = threading.Thread(target=self._first_baton, daemon=True)
        self._thread.start()

    def side(self, i):
        return self.sides[i]

    def _close_ours(self):
        for fd in self._ours:
            with suppress(OSError):
                os.close(fd)
        self._ours = []

    def _started(self):
        with self._lock:
            self._n += 1
            if self._n == 2:
                self._close_ours()

    def _first_baton(self):
        got, end = 0, time.monotonic() + self._wait_s
        while got < 2 and time.monotonic() < end:
            r, _, _ = select.select([self.ready_r], [], [], 0.5)
            if r:
                b = os.read(self.ready_r, 2 - got)
                if not b:
                    break
                got += len(b)
        with suppress(OSError):
            os.write(self.token, b"b")
        self._close_token()

    def _close_token(self):
        with self._lock:
            if self.token >= 0:
                os.close(self.token)
                self.token = -1

    def close(self):
        with self._lock:
            self._close_ours()
        self._thread.join(timeout=self._wait_s + 1)
        self._close_token()
        with suppress(OSError):
            os.close(self.ready_r)
