"""The instructors' workflow wired into the driver: the hooks schedule and entry call.

Without any of the workflow's options the hooks change nothing but reading a folder of clones
at a commit:

- the class: classlist.Roll (roster, clones, --repos, `missing` students, --only);
- a git submission: gitsub.take() of the commit graded into OUT/students/ID/submitted, which
  the build reads; the cutoff is the student's deadline (--deadline, moved by the roster's
  extension) and the late policy's last day; no cutoff without --deadline, nor under a policy
  without `last` (every commit counts, and lateness is charged);
- after scoring, late.assess() into results.json "late", the total being the points after it;
- --only: the grading's seed (history.regrade_seed), each earlier result archived before the
  student's folder is wiped;
- at the end, the similarity report (sim_c, when installed) and the gradebook export.
"""
import csv
import os
import threading
from types import SimpleNamespace

from ..base import fsutil
from ..base.safetext import json_text, md
from ..base.tell import say
from ..box import uidpool
from ..course import gitsub, history, late, similarity, wfopts
from ..course.export import ExportError, export
from ..course.roster import RosterError
from ..scoring import summary
from .classlist import Roll
from .setup import Fatal, lock

NOT_SUBMITTED = ("missing", "refused", "no-commit", "no-files")


class Workflow:
    def __init__(self, opts):
        """The files the options name, read and checked (Fatal, exit 2, on bad input)."""
        self.opts = opts
        self.wf = getattr(opts, "wf", None) or wfopts.WfOptions()
        self.export_only = wfopts.export_only(opts) if self.wf.active else False
        self.only = self.wf.only
        self.deadline = self.wf.deadline
        self.policy = None
        self.ctx = None
        self.by_id = {}
        self.selected = set()
        self._when = {}                 # student id -> the time lateness is measured from
        self._lock = threading.Lock()
        self._reader = None
        self._lease = None
        try:
            self.roll = Roll(self.wf)
        except csv.Error as e:          # a cell past the csv module's limit (128 KiB)
            raise Fatal("a roster or submission-times file cannot be read as CSV: %s" % e)
        except (RosterError, ValueError, OSError, UnicodeDecodeError) as e:
            raise Fatal(str(e))

    # ---------------------------------------------------------------- before the grading
    def regrade_seed(self):
        """--only: the seed the grading recorded (a different --seed refused)."""
        if self.only is None:
            return
        try:
            seed = history.regrade_seed(os.path.abspath(self.opts.out),
                                        None if self.opts.seed is None else str(self.opts.seed))
        except (history.HistoryError, OSError) as e:
            raise Fatal(str(e))
        self.opts.seed = int(seed)

    def start(self, ctx):
        """After the setup: the late policy and every extension checked."""
        self.ctx = ctx
        self.policy = getattr(ctx.rub, "late", None)
        if self.policy is not None and self.policy.extension_column:
            self.roll.extension_column = self.policy.extension_column
            if self.roll.roster is not None and not self.roll.has_extension_column():
                say("no extensions: the rubric's late policy reads them from the column '%s', "
                    "which %s does not have" % (self.policy.extension_column, self.wf.roster))
        if self.deadline is not None and self.roll.roster is not None:
            for p in self.roll.roster.students:
                ext = self.roll.extension(SimpleNamespace(person=p))
                try:
                    late.student_deadline(self.deadline, ext)
                except ValueError as e:
                    raise Fatal("%s: %s: %s" % (self.wf.roster, p.login or p.name, e))
        for n in self.roll.notes:
            say(n)

    def scan(self, subs):
        try:
            students, skipped = self.roll.scan(subs)
        except (ValueError, OSError) as e:
            raise Fatal(str(e))
        self.by_id = {st.id: st for st in students}
        return students, skipped

    def select(self, students, todo):
        """The students to grade now: --only's, or TODO (those without a result)."""
        if self.only is None:
            return todo
        try:
            chosen = self.roll.select(students, self.only)
        except ValueError as e:
            raise Fatal(str(e))
        self.selected = {st.id for st in chosen}
        return chosen

    # ---------------------------------------------------------------- one student
    def before_wipe(self, st):
        """--only: the student's earlier result into OUT/history before it is replaced."""
        if st.id not in self.selected:
            return
        try:
            history.archive(self.ctx.out, st.id, seed=self.ctx.seed, why="regraded (--only)")
        except (history.HistoryError, OSError) as e:
            say("%s: the earlier result could not be kept: %s" % (st.name, e))

    def source(self, st, sd, extra):
        """(the folder the build reads, or None; a (status, reason) that decides without a
        build, or None). What the record gains goes into EXTRA."""
        if self.roll.roster is not None:
            extra["login"], extra["roster"] = st.login, st.roster
        if st.roster == "missing":
            return None, ("missing", "no submission: 0 points")
        if st.refused:
            return st.path, None
        if st.repo or st.url:
            return self._git(st, sd, extra)
        self._when[st.id] = self.roll.platform_time(st)
        return st.path, None

    def until(self, st):
        """The newest commit time that counts for ST (None: every commit)."""
        if self.deadline is None:
            return None
        own = late.student_deadline(self.deadline, self.roll.extension(st))
        if self.policy is None:
            return own
        return own + self.policy.last if self.policy.last is not None else None

    def reader(self):
        with self._lock:
            if self._reader is None:
                uid = None
                if os.geteuid() == 0:
                    pool = getattr(self.ctx.sandbox, "_pool", None) or uidpool.UidPool()
                    self._lease = pool.acquire()
                    uid = self._lease.uid
                self._reader = gitsub.GitReader(uid=uid)
            return self._reader

    def _git(self, st, sd, extra):
        ctx = self.ctx
        ref = self.wf.ref or "HEAD"
        repo, made = st.repo, None
        try:
            reader = self.reader()
            if st.url:
                repo = os.path.join(ctx.home, "repos", st.id + ".git")
                fsutil.remove_tree(repo)
                os.makedirs(os.path.dirname(repo), exist_ok=True)
                made = gitsub.clone(st.url, repo)
        except (gitsub.GitError, uidpool.UidPoolError) as e:
            sub = gitsub.GitSubmission(login=st.login, repo=st.url or st.repo or "", ref=ref,
                                       status="refused", reason=str(e))
            extra["git"] = sub.to_dict()
            return None, ("refused", str(e))
        dest = os.path.join(sd, "submitted")
        sub = gitsub.take(repo, dest, files=ctx.lab.srcs, lab_dir="labs/" + ctx.lab.name,
                          login=st.login, ref=ref, until=self.until(st),
                          submitted_at=self.roll.platform_time(st), clone_time=made,
                          reader=reader, seen=history.copies_seen(ctx.out, st.id))
        if st.url:
            sub.repo = st.url
        extra["git"] = sub.to_dict()
        if sub.status != "ok":
            why = "; ".join([sub.reason] + sub.skipped)
            return None, (sub.status, why)
        self._when[st.id] = late.parse_time(sub.submitted_at) if sub.submitted_at else None
        return dest, None

    def finish(self, rec):
        """The late penalty (with --deadline): results.json "late", the total after it."""
        if self.deadline is None or rec.get("status") in NOT_SUBMITTED:
            return
        st = self.by_id.get(rec["id"])
        p = rec["points"]
        lt = late.assess(self.policy, deadline=self.deadline, submitted=self._when.get(rec["id"]),
                         points=p["total"], max_points=p["max"],
                         extension=self.roll.extension(st) if st is not None else "")
        rec["late"] = lt.to_dict()
        p["total"] = lt.points_after

    # ---------------------------------------------------------------- after the grading
    def similarity(self, students):
        """OUT/similarity.md and similarity.json, when sim_c is installed."""
        ctx = self.ctx
        tool = similarity.find_tool()
        if not tool:
            if self.wf.compare_with or not ctx.opts.quiet:
                say("no similarity report: sim_c is not installed (Debian package "
                    "similarity-tester)")
            return
        by_id = {st.id: st for st in students}
        current = {}
        for r in summary.records(ctx.out):
            st = by_id.get(r["id"])
            if r.get("status") in NOT_SUBMITTED or st is None:
                continue
            base = os.path.join(ctx.out, "students", r["id"], "submitted") \
                if isinstance(r.get("git"), dict) else st.path
            files = {f: os.path.join(base, f) for f in ctx.lab.srcs
                     if base and os.path.lexists(os.path.join(base, f))}
            if files:
                current[r["student"]] = files
        earlier, labels = {}, set()
        for d in self.wf.compare_with:
            earlier.update(similarity.collect(d, ctx.lab.srcs, lab_dir="labs/" + ctx.lab.name,
                                              label_prefix=year_label(d, labels)))
        skeleton = {f: os.path.join(ctx.pristine, "labs", ctx.lab.name, f)
                    for f in ctx.lab.srcs}
        try:
            rep = similarity.compare(current, skeleton=skeleton, earlier=earlier,
                                     threshold=self.wf.threshold, tool=tool)
        except similarity.SimilarityError as e:
            say("no similarity report: %s" % e)
            # said where the summary links it too: a class's copies go unreported meanwhile
            fsutil.atomic_write(os.path.join(ctx.out, "similarity.md"),
                                "# Similarity\n\nNo report this time: %s.\n" % md(str(e)))
            return
        fsutil.atomic_write(os.path.join(ctx.out, "similarity.md"), similarity.markdown(rep))
        fsutil.atomic_write(os.path.join(ctx.out, "similarity.json"),
                            json_text(rep.to_dict(), indent=1) + "\n")

    def export(self, out, recs, max_points=None):
        """--export: OUT/canvas.csv or OUT/moodle.csv; what was left out said."""
        if not self.wf.export:
            return
        if max_points is None:
            max_points = max((r["points"]["max"] for r in recs), default=0)
        try:
            ex = export(self.wf.export, self.roll.roster, self.roll.points_by_login(recs),
                        assignment=self.wf.assignment, max_points=max_points,
                        identifier=self.wf.moodle_id or "email")
        except ExportError as e:
            raise Fatal(str(e))
        path = os.path.join(out, self.wf.export + ".csv")
        ex.write(path)
        say("wrote %s (%d students on the roster)" % (path, len(self.roll.roster.students)))
        for s in ex.skipped:
            say("export: %s" % s)

    def close(self):
        if self._lease is not None:
            self._lease.release()
            self._lease = None

    def words(self):
        """The options for grading.txt's command (a regrade's --only is in the history)."""
        return self.wf.words()


def year_label(folder, taken):
    """The label prefix of an earlier year's folder: its name, with its parent's where two
    folders share a name (2024/lab03 and 2023/lab03), and a number past that."""
    path = os.path.abspath(folder).rstrip("/")
    cands = [os.path.basename(path),
             os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))]
    label = next((c for c in cands if c and c not in taken), None)
    n = 2
    while label is None:
        label = "%s-%d" % (cands[0], n) if "%s-%d" % (cands[0], n) not in taken else None
        n += 1
    taken.add(label)
    return label + "/"


def export_only(opts, wf):
    """--export with nothing to grade: the file from the results already in OUT."""
    out = os.path.abspath(opts.out)
    recs = summary.records(out) if os.path.isdir(out) else []
    if not recs:
        raise Fatal("%s holds no graded student yet: grade first (--submissions or --repos)"
                    % opts.out)
    fd = lock(out)
    try:
        wf.export(out, summary.records(out))
    finally:
        os.close(fd)
    return 0
