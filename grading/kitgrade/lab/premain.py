"""Proof that a student's object runs nothing of its own before main.

The grader starts a timed process early and holds it at a gate in main() while another process
is timed alone on the GPU, so student code that runs before main would run during someone else's
timing: a constructor, a C++ global's initialiser, an ifunc resolver, a .preinit_array, .ctors,
.init or .init_array.N entry, or nvcc's own registration constructor with the calls it makes sent
to the student's functions (an asm label or #pragma redefine_extname on __cudaRegisterFatBinaryEnd
and the like: nvcc expands the student's macros before it writes that code, so #define cannot).
An object passes when its start-up code is nvcc's: at most one .init_array entry, on
__sti____cudaRegisterAll, no other start-up section, no ifunc. The code that entry can run is
followed by disassembly (objdump) and relocations (readelf): direct calls and jumps, with a
relocation or resolved by the assembler, and falling off a function's end. It may call only the
CUDA runtime's registration (ALLOWED), and make no indirect call or jump and no system call.
Addresses it only takes (the kernel launch stubs handed to __cudaRegisterFunction, the exit
handler handed to atexit) are not followed: with no indirect call nothing runs them before main.
Not caught: code that only computes, and inline assembly that hides its jumps.
"""
import bisect
import os
import re
import subprocess

# all that nvcc 13's start-up code calls (__sti____cudaRegisterAll and the registration callback
# inlined in it at -O3, from crt/host_runtime.h's __cudaRegisterBinary, __cudaRegisterEntry,
# __cudaRegisterVariable and __cudaRegisterManagedVariable), seen in objects of the kit's labs and
# of kernels, templates, __constant__/__device__/__managed__ variables, printf, texture and surface
# objects. Not __cudaRegisterLinkedBinary_* (-rdc only; it calls back what it is handed).
ALLOWED = frozenset(("__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "atexit",
                     "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterManagedVar"))
_START = "__sti____cudaRegisterAll"
_BAD_SECTION = re.compile(r"^(\.preinit_array.*|\.ctors.*|\.init|\.init\..*|\.init_array.+)$")
_SECTION = re.compile(r"^\s*\[\s*(\d+)\]\s+(.*?)\s+(\S+)\s+[0-9a-f]{16}\s+([0-9a-f]+)\s+"
                      r"([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s*(\d+)\s+(\d+)\s+\d+\s*$")
_SYMBOL = re.compile(r"^\s*(\d+):\s+([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+"
                     r"(\S+)\s?(.*)$")
_RELOC_HEAD = re.compile(r"^Relocation section '.*' at offset 0x([0-9a-f]+) contains")
_RELOC = re.compile(r"^([0-9a-f]+)\s+([0-9a-f]+)\s+(R_\S+)(?:.*?\s([+-])\s([0-9a-f]+))?\s*$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f]{2}(?: [0-9a-f]{2})*)\s*\t(.*)$")
_BRANCH = re.compile(r"^(j[a-z]+|call[lqw]?|loop[a-z]*|jrcxz|xbegin|lcall|ljmp)$")
_PREFIX = re.compile(r"^(notrack|bnd|data16|addr32|cs|ds|es|ss|fs|gs|lock|rep[a-z]*|rex.*)$")
_STOP = {"ret", "retq", "jmp", "jmpq", "ud2", "hlt"}     # no falling through after these


def _tool(argv, path):
    """ARGV's output on PATH, None when it fails or complains."""
    try:
        p = subprocess.run(argv + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=dict(os.environ, LC_ALL="C"))
    except OSError:
        return None
    return p.stdout.decode("utf-8", "replace") if p.returncode == 0 and not p.stderr else None


def _readelf(text):
    """(header fields, sections {idx: (name, type, size, flags, info)}, symbols [(value, size,
    type, ndx, name)] by index, relocations {section idx: [(offset, sym, type, addend)]})."""
    head, secs, by_off, syms, relocs, cur = {}, {}, {}, [], {}, None
    for ln in text.splitlines():
        m = _SECTION.match(ln)
        if m:
            i = int(m.group(1))
            secs[i] = (m.group(2), m.group(3), int(m.group(5), 16), m.group(6), int(m.group(8)))
            if m.group(3) in ("RELA", "REL"):
                by_off[int(m.group(4), 16)] = i
            continue
        m = _SYMBOL.match(ln)
        if m and int(m.group(1)) == len(syms):
            syms.append((int(m.group(2), 16), int(m.group(3), 0), m.group(4), m.group(7),
                         m.group(8).strip()))
            continue
        m = _RELOC_HEAD.match(ln)
        if m:
            cur = relocs.setdefault(secs.get(by_off.get(int(m.group(1), 16)), ("",) * 5)[4], [])
            continue
        m = _RELOC.match(ln)
        if m and cur is not None:
            add = int(m.group(5) or "0", 16) * (-1 if m.group(4) == "-" else 1)
            cur.append((int(m.group(1), 16), int(m.group(2), 16) >> 32, m.group(3), add))
        if ln.strip().startswith(("Type:", "Machine:")):
            head[ln.split(":")[0].strip()] = ln.split(":", 1)[1].strip()
    return head, secs, syms, relocs


def _disasm(text, secs):
    """{code section idx: [(address, length, mnemonic, operands)]} from objdump -d."""
    order = {}
    for i in sorted(secs):
        if "X" in secs[i][3] and secs[i][2]:
            order.setdefault(secs[i][0], []).append(i)
    out, cur = {}, None
    for ln in text.splitlines():
        if ln.startswith("Disassembly of section "):
            left = order.get(ln[len("Disassembly of section "):].rstrip(":"), [])
            cur = out.setdefault(left.pop(0), []) if left else None
            continue
        m = _INSN.match(ln)
        if m and cur is not None:
            words = m.group(3).split("#")[0].split()
            while len(words) > 1 and _PREFIX.match(words[0]):
                words.pop(0)
            cur.append((int(m.group(1), 16), len(m.group(2).split()),
                        words[0] if words else "(bad)", " ".join(words[1:])))
    return out


def _demangle(name):
    try:
        p = subprocess.run(["c++filt", name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return p.stdout.decode("utf-8", "replace").strip() or name
    except OSError:
        return name


def early_code(path):
    """'' when the object at PATH runs nothing before main but nvcc's registration, else why."""
    what = os.path.basename(path)
    text = _tool(["readelf", "-W", "-h", "-S", "-s", "-r"], path)
    if text is None:
        return "%s is not an object file readelf can read" % what
    head, secs, syms, relocs = _readelf(text)
    if not head.get("Type", "").startswith("REL ") or "X86-64" not in head.get("Machine", ""):
        return "%s is not an x86-64 relocatable object" % what
    early = "%s runs code before main: " % what
    if any(sec[1] == "REL" for sec in secs.values()):
        return "%s has REL relocations, which x86-64 objects do not use" % what
    for name, typ, _size, _flags, _info in secs.values():
        if _BAD_SECTION.match(name) or typ == "PREINIT_ARRAY" or \
                (typ == "INIT_ARRAY" and name != ".init_array"):
            return early + "a %s section (start-up code of its own)" % name
    for s in syms:
        if s[2] == "IFUNC":
            return early + "an ifunc (%s), whose resolver runs at load time" % _demangle(s[4])
    nosym = (0, 0, "", "", "")
    sym_of = lambda k: syms[k] if k < len(syms) else nosym             # noqa: E731
    is_code = lambda ndx: ndx.isdigit() and "X" in secs.get(int(ndx), nosym)[3]  # noqa: E731
    starts = {}                             # code section idx -> sorted function starts
    for value, _size, typ, ndx, _name in syms:
        if typ == "FUNC" and is_code(ndx):
            starts.setdefault(int(ndx), set()).add(value)
    starts = {i: sorted(v) for i, v in starts.items()}

    def func_at(sec, addr):
        """(section, start, end) of the function holding ADDR: up to the next one's start."""
        st = starts.get(sec, [])
        k = bisect.bisect_right(st, addr) - 1
        end = st[k + 1] if k + 1 < len(st) else secs[sec][2]
        return (sec, st[k], end) if k >= 0 and addr < end else None

    def names(fn):
        return sorted(s[4] for s in syms if s[2] == "FUNC" and s[3] == str(fn[0]) and s[0] == fn[1])

    todo = []                               # the .init_array entry, then what it runs
    for i, (name, _typ, size, _flags, _info) in secs.items():
        rel = sorted(relocs.get(i, [])) if name == ".init_array" else []
        if name == ".init_array" and (size % 8 or [r[0] for r in rel] != list(range(0, size, 8))):
            return early + "its .init_array holds entries that are not plain function pointers"
        for _off, sym, rtype, add in rel:
            value, _size, _typ, ndx, sname = sym_of(sym)
            fn = func_at(int(ndx), value + add) if is_code(ndx) else None
            if rtype != "R_X86_64_64" or fn is None or fn[1] != value + add:
                return early + "a constructor of its own (%s)" % _demangle(sname or "?")
            if todo or not any(_START in n for n in names(fn)):
                own = _demangle(names(fn)[0])
                if own.startswith("_GLOBAL__sub_I"):
                    own += (": a C++ global's initialiser, or <iostream>'s, which Thrust and CUB"
                            " include")
                return early + "a constructor of its own (%s)" % own
            todo.append(fn)
    insns = _disasm(_tool(["objdump", "-d", "-z", "-w"], path) or "", secs) if todo else {}
    seen = set()
    while todo:
        fn = todo.pop()
        if fn in seen:
            continue
        seen.add(fn)
        sec, lo, hi = fn
        bad = early + "its start-up code %s (in " + _demangle(names(fn)[0]) + ")"
        rel = [r for r in relocs.get(sec, []) if lo <= r[0] < hi]
        body = [x for x in insns.get(sec, []) if lo <= x[0] < hi]
        last = None
        for addr, length, mnem, ops in body:
            here = [r for r in rel if addr <= r[0] < addr + length]
            rel = [r for r in rel if r not in here]
            branch = bool(_BRANCH.match(mnem))
            if mnem in ("syscall", "sysenter", "int", "(bad)"):
                return bad % "makes a system call or cannot be read"
            if branch and ops.startswith("*"):
                return bad % "makes an indirect call or jump"
            for off, sym, rtype, add in here:
                value, _size, _typ, ndx, sname = sym_of(sym)
                if ndx == "UND" and sname not in ALLOWED:
                    return bad % ("calls " + _demangle(sname or "?"))
                if not is_code(ndx):        # an allowed function, or data
                    if branch and ndx != "UND":
                        return bad % "jumps into data"
                    continue
                pcrel = re.search(r"_(PC|PLT|GOTPC)", rtype)
                to = func_at(int(ndx), value + add + (addr + length - off if pcrel else 0))
                if to is None:
                    return bad % "refers to code outside any function"
                if branch:
                    todo.append(to)
            if branch and not here:         # a jump the assembler resolved: no relocation
                m = re.match(r"([0-9a-f]+)\s*(<|$)", ops)
                to = func_at(sec, int(m.group(1), 16)) if m else None
                if to is None:
                    return bad % "jumps outside any function"
                todo.append(to)
            if not (mnem.startswith("nop") or mnem == "xchg" and ops == "%ax,%ax"):
                last = mnem
        if rel or not body:
            return bad % "cannot be disassembled"
        if last not in _STOP:               # runs on into whatever follows
            nxt = func_at(sec, hi) if hi < secs[sec][2] else None
            if nxt is None:
                return bad % "runs past its section's end"
            todo.append(nxt)
    return ""
