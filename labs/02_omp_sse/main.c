/* main.c - lab 02's glue (owned by the kit; students edit conv.c).
 *
 * The picture and its padded copy with 64-byte aligned rows come from the
 * spec (spec.c). This sets the OpenMP team size (--threads) and the SIMD
 * instruction set of v5 (--isa, or the widest the CPU runs), and hands
 * conv_v0..conv_v5 their buffers; the common harness runs, checks and times
 * them, all in one run so every ratio comes from one process.
 *
 * Testing aid: LAB02_CPU_HIDE=avx512 (or avx2, or "avx2,avx512") makes the
 * harness behave as if the CPU lacked those instruction sets, so the
 * fallback and the refusal of a forced --isa can be tried on any machine.
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "harness.h"

typedef struct {
    int threads;       /* team size of v1, v2, v4, v5 */
    int isa;           /* CONV_ISA_* that v5 uses */
} lab02;

static const char *isa_names[] = {"sse", "avx2", "avx512"};

/* Single-thread variants ignore --threads. */
static int single_thread(int v)
{
    return v == 0 || v == 3;
}

/* ------------------------------------------------------- what the CPU runs */

#if CONV_X86
/* 1 when LAB02_CPU_HIDE lists this instruction set. */
static int hidden(const char *name)
{
    const char *env = getenv("LAB02_CPU_HIDE");
    if (!env)
        return 0;
    size_t n = strlen(name);
    for (const char *p = env; (p = strstr(p, name)) != NULL; p += n)
        if ((p == env || p[-1] == ',' || p[-1] == ' ') && (p[n] == 0 || p[n] == ',' || p[n] == ' '))
            return 1;
    return 0;
}
#endif

static int cpu_runs(int isa)
{
#if CONV_X86
    __builtin_cpu_init();
    switch (isa) {
    case CONV_ISA_SSE: return 1; /* part of x86-64 */
    case CONV_ISA_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !hidden("avx2");
    case CONV_ISA_AVX512: return __builtin_cpu_supports("avx512f") && !hidden("avx512");
    }
#else
    KIT_UNUSED(isa);
#endif
    return 0;
}

/* ----------------------------------------------------------------- callbacks */

static int setup(kit_ctx *ctx)
{
    lab02 *L = kit_calloc(1, sizeof *L);
    ctx->user = L;
    /* v5's instruction set: the forced one, if the CPU runs it; else the widest */
    const char *isa = kit_arg_str(&ctx->args, "--isa");
    if (isa[0]) {
        int want = !strcmp(isa, "avx512") ? CONV_ISA_AVX512
                   : !strcmp(isa, "avx2") ? CONV_ISA_AVX2
                   : !strcmp(isa, "sse")  ? CONV_ISA_SSE
                                          : -1;
        if (want < 0) {
            kit_error("--isa must be sse, avx2 or avx512, not '%s' (try --help)", isa);
            return KIT_EXIT_USAGE;
        }
        if (!cpu_runs(want)) {
            kit_error("--isa %s: this CPU does not support %s%s", isa,
                      want == CONV_ISA_AVX2 ? "AVX2 with FMA" : want == CONV_ISA_AVX512 ? "AVX-512F" : "SSE",
                      CONV_X86 ? "" : " (not an x86 CPU)");
            return KIT_EXIT_USAGE;
        }
        L->isa = want;
    } else {
        L->isa = cpu_runs(CONV_ISA_AVX512) ? CONV_ISA_AVX512
                 : cpu_runs(CONV_ISA_AVX2) ? CONV_ISA_AVX2 : CONV_ISA_SSE;
    }

    /* team size: --threads, else OMP_NUM_THREADS, else every core; the
     * default is read once, before any case of --cases has set a size */
    static int default_threads = 0;
    if (default_threads == 0)
        default_threads = omp_get_max_threads();
    long t = kit_arg_int(&ctx->args, "--threads");
    L->threads = t > 0 ? (int)t : default_threads;
    omp_set_dynamic(0);
    omp_set_num_threads(L->threads);
    ctx->threads = L->threads;
    return 0;
}

static int supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    KIT_UNUSED(ctx);
    if (v >= 3 && !CONV_X86) {
        snprintf(why, len, "SSE/AVX intrinsics need an x86 CPU; this build is for another one");
        return 0;
    }
    return 1;
}

static int launch(kit_ctx *ctx, int v)
{
    lab02 *L = ctx->user;
    const kit_conv_input *in = ctx->prob.data;
    const float *src = in->h_ext, *f = in->filter.w32;
    float *out = ctx->out.data;
    const int s = (int)in->stride, w = in->w, h = in->h, R = in->filter.radius;
    switch (v) {
    case 0: return conv_v0(src, s, out, w, h, f, R);
    case 1: return conv_v1(src, s, out, w, h, f, R);
    case 2: return conv_v2(src, s, out, w, h, f, R);
    case 3: return conv_v3(src, s, out, w, h, f, R);
    case 4: return conv_v4(src, s, out, w, h, f, R);
    case 5: return conv_v5(src, s, out, w, h, f, R, L->isa);
    }
    return KIT_UNSUPPORTED;
}

/* The TSV config column: the instruction set the variant's code uses and
 * its threads ("scalar" for the plain C versions); the row's thread count
 * is the variant's. */
static void config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    lab02 *L = ctx->user;
    const char *isa = v <= 2 ? "scalar" : v <= 4 ? "sse" : isa_names[L->isa];
    ctx->threads = single_thread(v) ? 1 : L->threads;
    snprintf(buf, len, "isa=%s threads=%d", isa, ctx->threads);
}

static void teardown(kit_ctx *ctx)
{
    free(ctx->user);
    ctx->user = NULL;
}

static const kit_part_glue parts[] = {{.part = "",
                                       .setup = setup,
                                       .supports = supports,
                                       .launch = launch,
                                       .config = config,
                                       .teardown = teardown}};
static const kit_glue glue = {1, parts, NULL};

int main(int argc, char **argv)
{
    return kit_main(&kit_lab_spec, &glue, argc, argv);
}
