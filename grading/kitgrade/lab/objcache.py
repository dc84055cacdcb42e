"""The reference's objects, reused for a student file with the very same bytes.

A student's file that is byte for byte the reference solution's, as a student's copy of it
holds it (the region markers and TODO blocks taken out), compiles to the object the
reference's own build made: in its box, with the kit's rules and flags, the same entry list and the same environment
as a student's build. Before such a student's build that object is put where the build would
write it (out/build/skel/FILE.o, after the source, so make finds it up to date and does not
compile the file again), and the build log says so. Only the reference's build adds objects,
read from its box before anything runs there: nothing a student compiled is taken, so one
student's build cannot reach another's. A file is known by its name and the SHA-256 of the
bytes the grader put in the box."""
import hashlib
import os
import subprocess
import threading

from ..base import fsutil
from .build import MAX_OBJECT, KitError


def key(name, data):
    """A student file's key: its name and its bytes' hash."""
    return name + "\0" + hashlib.sha256(data).hexdigest()


class ObjectCache:
    def __init__(self):
        self._objects = {}          # key -> the object's bytes
        self._lock = threading.Lock()

    def add_box(self, box, sources, rel="out/build/skel"):
        """Keep each object BOX/REL/FILE.o (read from the box with no link followed) as what
        SOURCES[FILE] (the bytes the grader put in BOX/src) compiles to. The files added."""
        added = []
        for f, source in sorted(sources.items()):
            data, _why = box.read_file("%s/%s.o" % (rel, f), MAX_OBJECT)
            if data is not None:
                with self._lock:
                    self._objects[key(f, source)] = data
                added.append(f)
        return added

    @staticmethod
    def prime(lab, dest):
        """Before a grading's builds: LAB's solution files as a student's copy holds them
        (common/scripts/mkskel.awk with out=solution: markers and TODO blocks out, as
        grading/examples/make.sh makes its copies), written to DEST (the grader's own folder),
        which the reference is built from. The keys of those files."""
        fsutil.remove_tree(dest)
        os.makedirs(dest)
        awk = os.path.join(lab.kit, "common", "scripts", "mkskel.awk")
        keys = set()
        for f in lab.srcs:
            r = subprocess.run(["awk", "-v", "out=solution", "-f", awk,
                                os.path.join(lab.solutions, f)], stdout=subprocess.PIPE)
            if r.returncode != 0:
                raise KitError("cannot make the reference's %s from the solution" % f)
            fsutil.atomic_write(os.path.join(dest, f), r.stdout)
            keys.add(key(f, r.stdout))
        return keys

    def seed(self, box, sources, rel="out/build/skel"):
        """Put the known object of each of SOURCES ({file: bytes}, as put in BOX/src) at
        BOX/REL/FILE.o. The files seeded."""
        seeded = []
        for f, source in sorted(sources.items()):
            with self._lock:
                obj = self._objects.get(key(f, source))
            if obj is not None:
                # the box user's, as the build's own objects (make may still replace it)
                fsutil.bwrite(box, "%s/%s.o" % (rel, f), obj, give=True)
                seeded.append(f)
        return seeded
