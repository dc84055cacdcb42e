"""premain.py on real objects: nvcc's registration alone passes (an ordinary .cu, a lab's own
skeleton), and every way of running code before main is named: a constructor, a C++ global's
initialiser, start-up sections from top-level asm, nvcc's registration sent to the student's
functions (through a relocation, through a call the assembler resolved, through an indirect call,
through #pragma redefine_extname), an ifunc; gcc's C objects; files that are no object."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor

import util
from kitgrade.lab import premain

KIT = os.path.dirname(util.GRADING)
NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
HAVE_NVCC = os.access(NVCC, os.X_OK)
HAVE_BINUTILS = all(shutil.which(t) for t in ("readelf", "objdump", "objcopy", "nm"))
# common/config.mk's NVCCFLAGS_KIT for one architecture (sm_90, for speed)
NVCCFLAGS = ["-O3", "-g", "-lineinfo", "-gencode", "arch=compute_90,code=sm_90",
             "-Xcompiler", "-Wall,-Wextra", "-I" + os.path.join(KIT, "common")]
# and its CFLAGS_KIT, for the C student files
CFLAGS = ["-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-fopenmp",
          "-I" + os.path.join(KIT, "common")]

ORDINARY = r"""
#include <cstdio>
__constant__ float coef[16];
__device__ int hits;
__managed__ int seen;
__device__ float scale(float v) { return v * coef[0]; }
template <int R> __global__ void blur(float *o, const float *in, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = scale(in[i]) * R; }
__global__ void hello(void) { printf("hi %d\n", threadIdx.x); atomicAdd(&hits, 1); seen = 1; }
__global__ void fetch(cudaTextureObject_t t, float *o)
{ o[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x); }
extern "C" int launch(float *o, const float *in, int n)
{
    float c[16] = {1};
    cudaMemcpyToSymbol(coef, c, sizeof c);
    blur<3><<<(n + 255) / 256, 256>>>(o, in, n);
    blur<5><<<1, 32>>>(o, in, n);
    hello<<<1, 1>>>();
    fetch<<<1, 1>>>(0, o);
    return cudaGetLastError();
}
"""
CTOR = r"""
__global__ void fill(float *x) { x[threadIdx.x] = 1.0f; }
__attribute__((constructor)) static void f(void) { cudaFree(0); }
extern "C" int launch(float *x) { fill<<<1, 32>>>(x); return 0; }
"""
DYNINIT = r"""
int some_function(void);
static int x = some_function();
extern "C" int launch(void) { return x; }
"""
ASM_SECTION = r"""
extern "C" void early_hook(void) { cudaFree(0); }
asm(".pushsection %s,\"aw\"\n.balign 8\n.quad early_hook\n.popsection");
extern "C" int launch(void) { return 0; }
"""
IFUNC = r"""
extern "C" {
static void impl(void) {}
static void (*pick(void))(void) { cudaFree(0); return impl; }
void fast(void) __attribute__((ifunc("pick")));
int launch(void) { fast(); return 0; }
}
"""
# nvcc expands the student's macros before it writes its registration code, so the ways in are
# the names that code calls: an asm label (1: the student's function, 2: the same, static in
# .text.startup so the assembler resolves the call and leaves no relocation, 3: a function that
# calls the kernel launch stub it is handed) or #pragma redefine_extname (4); 0 is the control
HIJACK = r"""
#if HIJACK == 4
#pragma redefine_extname __cudaRegisterFatBinaryEnd my_end
#endif
#include <cuda_runtime.h>
__global__ void fill(float *x) { x[threadIdx.x] = 1.0f; }
#if HIJACK == 1 || HIJACK == 2
extern "C" void __cudaRegisterFatBinaryEnd(void **h) __asm__("my_end");
#endif
extern "C" void real_end(void **h) __asm__("__cudaRegisterFatBinaryEnd");
extern "C" {
#if HIJACK == 2
static __attribute__((section(".text.startup"), noinline, used))
#endif
void my_end(void **h)
{
    void *p;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaDeviceSynchronize();
    real_end(h);
}
}
#if HIJACK == 3
extern "C" void __cudaRegisterFunction(void **, const char *, char *, const char *, int, uint3 *,
                                       uint3 *, dim3 *, dim3 *, int *) __asm__("my_reg");
extern "C" void my_reg(void **h, const char *host_fun, char *d, const char *n, int l, uint3 *t,
                       uint3 *b, dim3 *bd, dim3 *gd, int *w)
{
    (void)h; (void)d; (void)n; (void)l; (void)t; (void)b; (void)bd; (void)gd; (void)w;
    ((void (*)(float *))host_fun)(0);
}
#endif
extern "C" int launch(float *x) { fill<<<1, 32>>>(x); return 0; }
"""
C_PLAIN = "int launch(int x) { return x * 2; }\n"
C_CTOR = "#include <stdlib.h>\n" \
         "__attribute__((constructor)) static void f(void) { system(\"true\"); }\n" \
         "int launch(int x) { return x * 2; }\n"
C_SECTION = "void early_hook(void) {}\nint launch(int x) { return x; }\n" \
            "__asm__(\".pushsection %s,\\\"aw\\\"\\n.balign 8\\n.quad early_hook\\n.popsection\");\n"
# start-up code written in asm, so that its shape is exact: STI is the body of a function that
# passes for nvcc's registration constructor, one .init_array entry on it
C_STI = r"""
__asm__(".pushsection .text.startup,\"ax\",@progbits\n"
        ".type __sti____cudaRegisterAll, @function\n__sti____cudaRegisterAll:\n" STI "\n"
        ".size __sti____cudaRegisterAll, 1\n"
        ".type next_one, @function\nnext_one:\ncall cudaMalloc@PLT\nret\n"
        ".size next_one, .-next_one\n"
        ".section .init_array,\"aw\"\n.balign 8\n.quad __sti____cudaRegisterAll\n.popsection");
int launch(int x) { return x; }
"""
C_TWO_STI = "volatile int v;\n" \
            "__attribute__((constructor)) static void __sti____cudaRegisterAll_1(void) { v = 1; }\n" \
            "__attribute__((constructor)) static void __sti____cudaRegisterAll_2(void) { v = 2; }\n"


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        raise AssertionError("%s failed:\n%s" % (" ".join(argv),
                                                 p.stdout.decode("utf-8", "replace")))
    return p.stdout.decode("utf-8", "replace")


def localize(obj, entries):
    """What a graded build does to a student's object: only the entry points left global."""
    if entries is None:
        entries = [ln.split()[2] for ln in run(["nm", "-g", "--defined-only", obj]).splitlines()
                   if len(ln.split()) == 3]
    lst = obj + ".entry"
    util.put(lst, "".join(e + "\n" for e in entries))
    run(["objcopy", "--keep-global-symbols=" + lst, obj])


@unittest.skipUnless(HAVE_BINUTILS, "no binutils (readelf, objdump, objcopy, nm)")
@unittest.skipUnless(HAVE_NVCC, "no nvcc")
class Nvcc(unittest.TestCase):
    """Every .cu object is compiled once, all at the same time, with the kit's flags."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kitgrade-premain-")
        lab = os.path.join(KIT, "labs", "03_global_mem")
        jobs = {"ordinary": (ORDINARY, []), "ctor": (CTOR, []), "dyninit": (DYNINIT, []),
                "preinit": (ASM_SECTION % ".preinit_array", []),
                "initprio": (ASM_SECTION % ".init_array.00101", []), "ifunc": (IFUNC, []),
                "lab03": (None, ["-I" + lab])}
        for n in range(5):
            jobs["hijack%d" % n] = (HIJACK, ["-DHIJACK=%d" % n])

        def build(name):
            src, extra = jobs[name]
            if src is None:
                cu = os.path.join(lab, "conv.cu")   # the skeleton a student starts from
            else:
                cu = os.path.join(cls.tmp, name + ".cu")
                util.put(cu, src)
            obj = os.path.join(cls.tmp, name + ".cu.o")
            run([NVCC] + NVCCFLAGS + extra + ["-c", cu, "-o", obj])
            localize(obj, None if src is None else ["launch"])
            return obj
        with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            cls.obj = dict(zip(jobs, pool.map(build, jobs)))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_ordinary(self):
        obj = self.obj["ordinary"]
        self.assertEqual(premain.early_code(obj), "")
        # the registration hands cudart the kernels' launch stubs, which do launch: they are
        # taken, never called, before main
        undefined = run(["nm", "-u", obj])
        self.assertIn("__cudaPushCallConfiguration", undefined)
        self.assertRegex(undefined, r"\b_*cudaLaunchKernel\b")

    def test_lab_skeleton(self):
        self.assertEqual(premain.early_code(self.obj["lab03"]), "")

    def test_constructor(self):
        self.assertEqual(premain.early_code(self.obj["ctor"]),
                         "ctor.cu.o runs code before main: a constructor of its own (f())")

    def test_dynamic_initialiser(self):
        self.assertRegex(premain.early_code(self.obj["dyninit"]), r"^dyninit.cu.o runs code "
                         r"before main: a constructor of its own \(_GLOBAL__sub_I_\w+: a C\+\+ "
                         r"global's initialiser, or <iostream>'s, which Thrust and CUB include\)$")

    def test_asm_sections(self):
        self.assertIn("a .preinit_array section", premain.early_code(self.obj["preinit"]))
        self.assertIn("a .init_array.00101 section", premain.early_code(self.obj["initprio"]))

    def test_ifunc(self):
        self.assertEqual(premain.early_code(self.obj["ifunc"]), "ifunc.cu.o runs code before "
                         "main: an ifunc (fast), whose resolver runs at load time")

    def test_hijacked_registration(self):
        self.assertEqual(premain.early_code(self.obj["hijack0"]), "")
        self.assertEqual(premain.early_code(self.obj["hijack1"]), "hijack1.cu.o runs code before "
                         "main: its start-up code calls cudaMalloc (in my_end)")
        self.assertEqual(premain.early_code(self.obj["hijack4"]), "hijack4.cu.o runs code before "
                         "main: its start-up code calls cudaMalloc (in my_end)")
        self.assertEqual(premain.early_code(self.obj["hijack3"]), "hijack3.cu.o runs code before "
                         "main: its start-up code makes an indirect call or jump (in my_reg)")

    def test_hijack_without_relocation(self):
        obj = self.obj["hijack2"]
        # my_end sits in .text.startup beside the registration, which calls it with no relocation
        syms = run(["readelf", "-W", "-S", "-s", obj])
        ndx = re.search(r"FUNC +LOCAL +DEFAULT +(\d+) my_end\n", syms).group(1)
        self.assertRegex(syms, r"\[ *%s\] \.text\.startup " % ndx)
        self.assertRegex(syms, r"FUNC +LOCAL +DEFAULT +%s _ZL24__sti____cudaRegisterAllv\n" % ndx)
        self.assertNotIn("my_end", run(["readelf", "-W", "-r", obj]))
        self.assertEqual(premain.early_code(obj), "hijack2.cu.o runs code before main: its "
                         "start-up code calls cudaMalloc (in my_end)")


@unittest.skipUnless(HAVE_BINUTILS and shutil.which("gcc"), "no gcc or binutils")
class Gcc(util.TempCase):
    """The kit's C student files (labs 01, 02): gcc objects with no registration at all."""

    def gcc(self, name, src):
        c = self.write(name + ".c", src)
        obj = c + ".o"
        run(["gcc"] + CFLAGS + ["-c", c, "-o", obj])
        return obj

    def test_plain_and_constructor(self):
        self.assertEqual(premain.early_code(self.gcc("plain", C_PLAIN)), "")
        self.assertEqual(premain.early_code(self.gcc("ctor", C_CTOR)),
                         "ctor.c.o runs code before main: a constructor of its own (f)")

    def test_crafted_start_up(self):
        why = "sti.c.o runs code before main: its start-up code "
        for sti, expect in (("ret", ""),                              # next_one is never run
                            ("nop", why + "calls cudaMalloc (in next_one)"),   # falls into it
                            ("jmp next_one", why + "calls cudaMalloc (in next_one)"),
                            ("mov $57, %eax\\nsyscall\\nret", why + "makes a system call or "
                             "cannot be read (in __sti____cudaRegisterAll)"),
                            ("lea next_one(%rip), %rax\\njmp *%rax", why + "makes an indirect "
                             "call or jump (in __sti____cudaRegisterAll)")):
            with self.subTest(sti):
                obj = self.gcc("sti", C_STI.replace(" STI ", ' "%s" ' % sti))
                self.assertEqual(premain.early_code(obj), expect)
        # two entries, even both named like nvcc's
        self.assertRegex(premain.early_code(self.gcc("two", C_TWO_STI)), r"^two.c.o runs code "
                         r"before main: a constructor of its own \(__sti____cudaRegisterAll_[12]\)$")

    def test_lab_skeleton(self):
        lab = os.path.join(KIT, "labs", "01_cpu_conv")
        obj = os.path.join(self.tmp, "conv.c.o")
        run(["gcc"] + CFLAGS + ["-I" + lab, "-c", os.path.join(lab, "conv.c"), "-o", obj])
        self.assertEqual(premain.early_code(obj), "")

    def test_sections(self):
        for sec, bad in ((".preinit_array", True), (".init_array.00101", True), (".ctors", True),
                         (".ctors.65435", True), (".init", True), (".fini_array", False),
                         (".dtors", False)):
            with self.subTest(sec):
                why = premain.early_code(self.gcc("s" + sec.replace(".", "_"), C_SECTION % sec))
                self.assertEqual(why, "s%s.c.o runs code before main: a %s section (start-up "
                                 "code of its own)" % (sec.replace(".", "_"), sec) if bad else "")


class NotAnObject(util.TempCase):
    def test_not_an_object(self):
        self.assertEqual(premain.early_code(self.write("conv.cu.o", "int main(void) {}\n")),
                         "conv.cu.o is not an object file readelf can read")
        self.assertEqual(premain.early_code(self.write("empty.o", b"")),
                         "empty.o is not an object file readelf can read")
        self.assertEqual(premain.early_code(os.path.join(self.tmp, "missing.o")),
                         "missing.o is not an object file readelf can read")

    @unittest.skipUnless(shutil.which("readelf"), "no readelf")
    def test_not_relocatable(self):
        exe = os.path.realpath(sys.executable)
        self.assertEqual(premain.early_code(exe),
                         "%s is not an x86-64 relocatable object" % os.path.basename(exe))


if __name__ == "__main__":
    unittest.main()
