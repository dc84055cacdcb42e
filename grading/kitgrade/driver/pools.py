"""What the scheduler hands out: the machine's cores and its GPUs.

One task per core, pinned; a wall-clock timed run takes every core. A GPU takes correctness
runs of several students at once, a timed run alone. First come, first served, so that a task
that needs everything is not starved. Only the reference (every student waits for it) and a
GPU's timing worker, once that GPU has run nothing for a second (it waits idle for the worker's
cores), go to the head of the line. While correctness runs keep the GPU busy, more students'
runs end, and the worker's next turn times them all."""
import threading
import time
from contextlib import contextmanager


def _cpu_list(text):
    """'0-3,8' -> [0, 1, 2, 3, 8]; None when it is not such a list."""
    out = []
    try:
        for part in text.strip().split(","):
            a, _, b = part.partition("-")
            out += list(range(int(a), int(b or a) + 1))
    except ValueError:
        return None
    return out


def thread_siblings(cpu, sysfs="/sys/devices/system/cpu"):
    """The logical CPUs that share CPU's physical core (SMT), CPU alone when unknown."""
    try:
        with open("%s/cpu%d/topology/thread_siblings_list" % (sysfs, cpu)) as f:
            got = _cpu_list(f.read())
    except OSError:
        got = None
    return sorted(set(got) | {cpu}) if got else [cpu]


URGENT_S = 0.25   # how often a waiting task's urgency is asked again (Cores._acquire)


def _asked(urgent):
    """URGENT's answer; no (the task keeps its place) when it fails: a ticket must never stay
    in the queue for want of an answer."""
    try:
        return bool(urgent())
    except Exception:
        return False


def idle_for(gpus, slot, secs=1.0, clock=time.monotonic):
    """An urgency (Cores.acquire's URGENT) that says yes once GPU SLOT of GPUS has run nothing
    for SECS at every asking (asked every URGENT_S at least): a GPU that stands idle, not the
    short gaps between a student's correctness runs, while a timing worker waits for cores."""
    since = [None]

    def urgent():
        if not gpus.idle(slot):
            since[0] = None
            return False
        now = clock()
        if since[0] is None:
            since[0] = now
        return now - since[0] >= secs
    return urgent


class Cores:
    """The logical CPUs handed out, FIFO. SIBLINGS (cpu -> the CPUs of its physical core,
    default: the kernel's topology) lets a timed run take a whole physical core: with SMT a
    run whose sibling CPU is busy gets about half the core, and its CPU time would say so."""

    def __init__(self, cores, siblings=thread_siblings):
        self.free = list(cores)
        self.all = list(cores)
        self.cv = threading.Condition()
        self.queue = []
        self.urgent = set()         # tickets at the head of the queue (acquire's URGENT)
        self.ticket = 0
        groups = []
        for c in self.all:
            g = tuple(x for x in siblings(c) if x in self.all) or (c,)
            if g not in groups:
                groups.append(g)
        self.groups = groups

    def _acquire(self, pick, urgent=None):
        """FIFO: wait for our turn and for PICK(free) to name the CPUs to take. URGENT (a
        function, asked again at least every URGENT_S while we wait): once it says yes, our
        turn comes before every task waiting that is not urgent (FIFO among the urgent)."""
        with self.cv:
            self.ticket += 1
            me = self.ticket
            self.queue.append(me)
            while True:
                if urgent is not None and me not in self.urgent and _asked(urgent):
                    self.queue.remove(me)
                    at = 0
                    while at < len(self.queue) and self.queue[at] in self.urgent:
                        at += 1
                    self.queue.insert(at, me)
                    self.urgent.add(me)
                got = pick(self.free) if self.queue[0] == me else None
                if got is not None:
                    break
                self.cv.wait(URGENT_S if urgent is not None and me not in self.urgent else None)
            self.queue.pop(0)
            self.urgent.discard(me)
            self.free = [c for c in self.free if c not in got]
            self.cv.notify_all()
        return list(got)

    def acquire(self, n=1, urgent=None):
        """N cores (all of them when N is 0 or more than there are), FIFO (URGENT: _acquire)."""
        n = len(self.all) if n <= 0 or n > len(self.all) else n
        return self._acquire(lambda free: free[:n] if len(free) >= n else None, urgent)

    def acquire_whole(self):
        """The CPUs of one physical core, all free at once, FIFO (the first CPU first)."""
        return self._acquire(lambda free: next(
            (g for g in self.groups if all(c in free for c in g)), None))

    def take_whole(self):
        """A context: the CPUs of one physical core (acquire_whole), released at its end."""
        return self._lent(self.acquire_whole())

    def release(self, got):
        with self.cv:
            self.free += got
            self.cv.notify_all()

    def take(self, n=1, urgent=None):
        """A context: N cores (acquire), released at its end."""
        return self._lent(self.acquire(n, urgent))

    @contextmanager
    def _lent(self, got):
        try:
            yield got
        finally:
            self.release(got)


class Held:
    """The cores a task holds (CS), which it may give back while it waits for something
    else and take again after: with Held(cores) as h: ... h.cs ..."""

    def __init__(self, cores, n=1):
        self.pool, self.n, self.cs = cores, n, None

    def __enter__(self):
        self.cs = self.pool.acquire(self.n)
        return self

    def __exit__(self, *exc):
        self.give_back()

    def give_back(self):
        if self.cs is not None:
            self.pool.release(self.cs)
            self.cs = None

    def take_again(self):
        if self.cs is None:
            self.cs = self.pool.acquire(self.n)


class Gpus:
    """Per GPU: shared holders (correctness runs) or one exclusive holder (a timed run); a
    waiting exclusive holder keeps new shared ones out."""

    def __init__(self, slots, share=8):
        self.slots = list(slots)
        self.share = share
        self.cv = threading.Condition()
        self.shared = {s: 0 for s in slots}
        self.excl = {s: False for s in slots}
        self.waiting = {s: 0 for s in slots}

    @contextmanager
    def shared_use(self, slot):
        with self.cv:
            while not self._open(slot):
                self.cv.wait()
            self.shared[slot] += 1
        try:
            yield slot
        finally:
            self._leave(slot)

    def _leave(self, slot):
        with self.cv:
            self.shared[slot] -= 1
            self.cv.notify_all()

    def _open(self, slot):
        return not (self.excl[slot] or self.waiting[slot] or self.shared[slot] >= self.share)

    def sharers(self, slot):
        """How many correctness runs hold SLOT now (read without the lock: for a run's time
        limit, Limits.share)."""
        return self.shared[slot]

    def idle(self, slot):
        """SLOT runs nothing now (read without the lock: a hint, for Cores' urgency)."""
        return not self.excl[slot] and self.shared[slot] == 0

    def _kept(self, slot):
        return self.excl[slot] or self.waiting[slot] > 0

    @contextmanager
    def shared_run(self, slot, held):
        """One correctness run on SLOT, for a task holding the cores HELD (a Held). A run, not a
        student's whole set of runs, holds the GPU: a timed run waits for the runs in flight (at
        most one run limit, or run.SHARE_STRETCH of them on a shared GPU), not for every case of
        every student in flight (one student's hanging kernel would hold it while every other
        student queued). While the GPU is kept for a timed run the task gives its cores back
        (builds go on), and once the GPU is open it takes a core again and looks once more; a
        task never holds a place on the GPU while it waits for a core (places held by tasks
        queued for cores would keep the GPU idle). When the GPU is only full of other runs, the
        task waits with its core: one of them ends soon."""
        while True:
            with self.cv:
                while held.cs is not None and not self._open(slot) and not self._kept(slot):
                    self.cv.wait()
                if held.cs is not None and self._open(slot):
                    self.shared[slot] += 1
                    break
                if held.cs is None:
                    while not self._open(slot):
                        self.cv.wait()
            if held.cs is not None:
                held.give_back()
            else:
                held.take_again()
        try:
            yield slot
        finally:
            self._leave(slot)

    @contextmanager
    def alone(self, slot=None):
        """One GPU to itself (SLOT, or the first that is free)."""
        with self.cv:
            cands = [slot] if slot is not None else self.slots
            for s in cands:
                self.waiting[s] += 1
            while True:
                free = [s for s in cands if not self.excl[s] and self.shared[s] == 0]
                if free:
                    got = free[0]
                    break
                self.cv.wait()
            for s in cands:
                self.waiting[s] -= 1
            self.excl[got] = True
        try:
            yield got
        finally:
            with self.cv:
                self.excl[got] = False
                self.cv.notify_all()


class TimingLine:
    """The students waiting for their timed runs on the GPUs: one worker per GPU takes the GPU
    alone (and a core) once and times every student waiting, back to back, before it hands the
    GPU back to the correctness runs; so those drain once per batch of students, not once per
    student. submit(job, ahead) waits for job(slot, cores) to run on some GPU and returns its
    value. AHEAD(slot, cores), where given, is called once the student is next in the line
    of a GPU whose worker is timing another (when it queues, or when the one before it
    starts): it starts the student's timed run early, held at its gate (timing.Ahead), on the
    other of the worker's two cores, and the student's job then runs on that GPU and core.
    So a timed run's process start and CUDA context are made while the GPU times another,
    not while the GPU waits."""

    def __init__(self, gpus, cores, slots):
        self.gpus, self.cores = gpus, cores
        self.cv = threading.Condition()
        self.queue = []
        self.workers = [threading.Thread(target=self._work, args=(s,), daemon=True)
                        for s in slots]
        self.closed = False
        self.running = {}           # GPU -> the core its worker's next job gets
        self.held = 0.0             # seconds the workers held a GPU alone, all together
        self.batches = 0            # how many times they took one
        for w in self.workers:
            w.start()

    def submit(self, job, ahead=None):
        item = {"job": job, "ahead": ahead, "slot": None, "done": threading.Event(),
                "ready": threading.Event(), "value": None, "error": None}
        item["ready"].set()
        early = None
        with self.cv:
            self.queue.append(item)
            for slot, cs in self.running.items():
                if self._claim_next(slot) is item:
                    early = slot, cs
                    break
            self.cv.notify_all()
        if early is not None:
            self._start_early(item, *early)
        item["done"].wait()
        if item["error"] is not None:
            raise item["error"]
        return item["value"]

    def _claim_next(self, slot):
        """The student next in SLOT's line, if it may start early and has not: it is SLOT's
        from now on, and not ready to be timed till its early start is made. Under self.cv."""
        nxt = self._take(slot, keep=True)
        if nxt is None or nxt["ahead"] is None or nxt["slot"] is not None:
            return None
        nxt["slot"] = slot
        nxt["ready"].clear()
        return nxt

    @staticmethod
    def _start_early(item, slot, cs):
        try:
            item["ahead"](slot, cs)
        except Exception:                   # it starts when its turn comes
            pass
        finally:
            item["ready"].set()

    def _take(self, slot, keep=False):
        """The first student in the line this worker may time (none that another's worker
        started early), out of the line unless KEEP; None if there is none. Under self.cv."""
        for i, item in enumerate(self.queue):
            if item["slot"] in (None, slot):
                return item if keep else self.queue.pop(i)
        return None

    def close(self):
        with self.cv:
            self.closed = True
            for item in self.queue:
                item["error"] = RuntimeError("the grading stopped")
                item["done"].set()
            self.queue = []
            self.cv.notify_all()

    def _work(self, slot):
        while True:
            with self.cv:
                while self._take(slot, keep=True) is None and not self.closed:
                    self.cv.wait()
                if self.closed:
                    return
            # its cores before any build's or check's waiting once the GPU has run nothing for
            # a second (it waits for them: behind a class's builds a GPU stood idle 23 s)
            with self.cores.take(2, urgent=idle_for(self.gpus, slot)) as cs, \
                    self.gpus.alone(slot):
                t0 = time.monotonic()
                k = 0                               # the student's place in this batch
                while True:
                    mine, other = [cs[k % len(cs)]], [cs[(k + 1) % len(cs)]]
                    with self.cv:
                        item = self._take(slot)
                        if item is None:
                            self.running.pop(slot, None)
                            break
                        self.running[slot] = other
                        nxt = self._claim_next(slot)
                    item["ready"].wait()            # its early start, made by its submit
                    if nxt is not None:
                        self._start_early(nxt, slot, other)
                    try:
                        item["value"] = item["job"](slot, mine)
                    except BaseException as e:      # handed to the student's thread
                        item["error"] = e
                    item["done"].set()
                    k += 1
                with self.cv:
                    self.held += time.monotonic() - t0
                    self.batches += 1
