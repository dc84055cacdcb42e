"""Static device storage of an object: the bytes its __device__ variables take on the GPU.

A variable declared `__device__` at file scope is device memory that no allocation call
makes, so no budget the harness keeps (lab 05's --gpu-mem) sees it. nvcc puts it in the
cubin's .nv.global (zero-filled) and .nv.global.init (with a value) sections; the cubins
travel inside the host object's .nv_fatbin section, one per GPU architecture built. This
module reads them with no tool: the host object's ELF section table, the fat binary's
entries, each cubin's section table. The largest total over the object's cubins is the
answer (each architecture's cubin holds the same variables).
"""
import struct

FATBIN_MAGIC = 0xBA55ED50
GLOBAL_SECTIONS = (b".nv.global", b".nv.global.init")


class Unreadable(ValueError):
    """The object is not the ELF nvcc writes, or its device code cannot be read."""


def _sections(elf):
    """(name, offset, size) of every section of a 64-bit little-endian ELF image."""
    if elf[:4] != b"\x7fELF" or len(elf) < 64 or elf[4] != 2 or elf[5] != 1:
        raise Unreadable("not a 64-bit little-endian ELF file")
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    if shentsize < 64 or shnum == 0 or shstrndx >= shnum or shoff + shnum * shentsize > len(elf):
        raise Unreadable("a section table out of the file")
    raw = [struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    strtab_off, strtab_size = raw[shstrndx][4], raw[shstrndx][5]
    strtab = elf[strtab_off:strtab_off + strtab_size]
    out = []
    for name, _type, _flags, _addr, off, size in raw:
        end = strtab.find(b"\0", name)
        out.append((strtab[name:end if end >= 0 else len(strtab)], off, size))
    return out


def _cubins(fatbin):
    """The ELF images (cubins) among a fat binary's entries; PTX and other entries skipped."""
    found, off = [], 0
    while off + 16 <= len(fatbin):
        magic, _ver, hsize, fsize = struct.unpack_from("<IHHQ", fatbin, off)
        if magic != FATBIN_MAGIC:
            break
        p, end = off + hsize, min(off + hsize + fsize, len(fatbin))
        while p + 16 <= end:
            _kind, _v, esize, psize = struct.unpack_from("<HHIQ", fatbin, p)
            if esize < 16:
                raise Unreadable("a fat binary entry of %d bytes" % esize)
            payload = fatbin[p + esize:p + esize + psize]
            if payload[:4] == b"\x7fELF":
                found.append(payload)
            p += esize + psize
        off = (end + 7) & ~7
    return found


def static_device_bytes(data):
    """Bytes of static __device__ storage in the host object DATA (bytes): 0 for an object
    with no device code. Unreadable when the object holds device code but no cubin whose
    sections can be read (a compressed one, say)."""
    fatbins = [(off, size) for name, off, size in _sections(data) if name == b".nv_fatbin"]
    if not fatbins:
        return 0
    best = None
    for off, size in fatbins:
        for cubin in _cubins(data[off:off + size]):
            total = sum(size for name, _off, size in _sections(cubin) if name in GLOBAL_SECTIONS)
            best = total if best is None else max(best, total)
    if best is None:
        raise Unreadable("its device code holds no cubin the grader can read")
    return best
