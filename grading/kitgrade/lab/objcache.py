"""Objects a trusted build made, reused for a student file with the very same bytes.

A student's file that is byte for byte the skeleton's (a part not started) or the reference
solution's (a copy) compiles to the object a trusted build already made: the pristine kit's
skeleton build, or the reference's build in its box, both with the kit's rules and flags and
the same entry list. Before a student's build that object is put where the build would write
it (out/build/skel/FILE.o, written after the source, so make finds it up to date and does not
compile the file again). Only those two builds ever add an object: nothing a student compiled
is taken, so one student's build cannot reach another's. A file is known by its name and the
SHA-256 of its bytes."""
import hashlib
import os
import threading

from ..base import fsutil

MAX_OBJECT = 256 << 20


def as_handed_in(solution):
    """A solution file's bytes as a student's copy of it holds them: the lines of the region
    markers and the student's TODO blocks taken out, as grading/examples/make.sh takes them
    out. The reference is built from this, so that a copy of it finds its objects."""
    out, todo = [], False
    for line in solution.splitlines(keepends=True):
        if todo:
            todo = b"<<< STUDENT */" not in line
            continue
        if b"/* >>> SOLUTION */" in line or b"/* <<< SOLUTION */" in line:
            continue
        if b"/* >>> STUDENT" in line:
            todo = True
            continue
        out.append(line)
    return b"".join(out)


def key(name, data):
    """A student file's key: its name and its bytes' hash."""
    return name + "\0" + hashlib.sha256(data).hexdigest()


class ObjectCache:
    def __init__(self):
        self._objects = {}          # key -> the object's bytes
        self._lock = threading.Lock()

    def add(self, name, source, obj_path):
        """Keep the object at OBJ_PATH (a regular file, no link followed) as what SOURCE
        compiles to; False when it cannot be read."""
        data = fsutil.read_regular(obj_path, MAX_OBJECT)
        if data is None:
            return False
        with self._lock:
            self._objects[key(name, source)] = data
        return True

    def add_build(self, srcs, src_dir, build_dir):
        """Every file of SRCS in SRC_DIR with its object in BUILD_DIR (FILE.o): a trusted
        build's. The files added."""
        added = []
        for f in srcs:
            source = fsutil.read_regular(os.path.join(src_dir, f), 4 << 20)
            if source is not None and self.add(f, source, os.path.join(build_dir, f + ".o")):
                added.append(f)
        return added

    def prime(self, lab, pristine, dest):
        """Before a grading's builds: the skeleton's objects (the PRISTINE kit's build) known,
        and LAB's solution files as a student's copy holds them written to DEST (the grader's
        own folder), which the reference is built from. The keys of those files."""
        self.add_build(lab.srcs, os.path.join(pristine, "labs", lab.name),
                       os.path.join(pristine, ".skeleton", "build", "skel"))
        fsutil.remove_tree(dest)
        os.makedirs(dest)
        keys = set()
        for f in lab.srcs:
            data = fsutil.read_regular(os.path.join(lab.solutions, f), 4 << 20)
            if data is not None:
                data = as_handed_in(data)
                fsutil.atomic_write(os.path.join(dest, f), data)
                keys.add(key(f, data))
        return keys

    def has(self, name, source):
        with self._lock:
            return key(name, source) in self._objects

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
