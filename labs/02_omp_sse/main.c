/* main.c - lab 02 harness (owned by the kit; students edit conv.c).
 *
 * Builds the RGBA float picture (generated, or --image), its zero-padded
 * extended copy with 64-byte aligned rows, and the CPU reference; sets the
 * OpenMP team size (--threads) and the SIMD instruction set of v5 (--isa, or
 * the widest the CPU runs); then lets the common harness run, check and time
 * conv_v0..conv_v5, all in one run so every ratio comes from one process.
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
#include "filters.h"
#include "harness.h"
#include "image.h"
#include "ref.h"
#include "timing.h"

typedef struct {
    kit_conv_input in; /* picture, extended copy (rows of stride floats), reference */
    int threads;       /* team size of v1, v2, v4, v5 */
    int isa;           /* CONV_ISA_* that v5 uses */
} lab02;

static const kit_variant variants[] = {
    {"scalar", "lab 01's loop order, plain C, one thread (the baseline)"},
    {"omp-rows", "v0 with the rows shared among threads: one fork/join, big pieces"},
    {"omp-pixels", "v0 with each row's pixels shared instead: a fork/join per row (loses)"},
    {"sse", "one pixel per __m128, aligned loads, branch-free clamp, one thread"},
    {"sse-omp", "v3 with the rows shared among threads"},
    {"wide-omp", "v4 with AVX2+FMA (2 pixels a register) or AVX-512 (4), picked at run time"},
};

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
    if (ctx->opt.isa[0]) {
        int want = !strcmp(ctx->opt.isa, "avx512") ? CONV_ISA_AVX512
                   : !strcmp(ctx->opt.isa, "avx2") ? CONV_ISA_AVX2 : CONV_ISA_SSE;
        if (!cpu_runs(want)) {
            kit_error("--isa %s: this CPU does not support %s%s", ctx->opt.isa,
                      want == CONV_ISA_AVX2 ? "AVX2 with FMA" : want == CONV_ISA_AVX512 ? "AVX-512F" : "SSE",
                      CONV_X86 ? "" : " (not an x86 CPU)");
            return KIT_EXIT_USAGE;
        }
        L->isa = want;
    } else {
        L->isa = cpu_runs(CONV_ISA_AVX512) ? CONV_ISA_AVX512
                 : cpu_runs(CONV_ISA_AVX2) ? CONV_ISA_AVX2 : CONV_ISA_SSE;
    }

    /* team size: --threads, else OMP_NUM_THREADS, else every core */
    L->threads = ctx->opt.threads > 0 ? ctx->opt.threads : omp_get_max_threads();
    omp_set_dynamic(0);
    omp_set_num_threads(L->threads);

    /* the extended image: rows rounded up to whole 64-byte lines */
    int rc = kit_conv_input_setup(ctx, CONV_CHANNELS, CONV_STRIDE_ALIGN, &L->in);
    if (rc)
        return rc;
    ctx->threads = (ctx->opt.variant >= 0 && single_thread(ctx->opt.variant)) ? 1 : L->threads;
    return 0;
}

/* Before each variant: the TSV row's thread count is that variant's. */
static void select_variant(kit_ctx *ctx, int v)
{
    lab02 *L = ctx->user;
    ctx->threads = single_thread(v) ? 1 : L->threads;
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

static int run(kit_ctx *ctx, int v, double *kernel_ms, double *total_ms)
{
    lab02 *L = ctx->user;
    const kit_conv_input *in = &L->in;
    const float *src = in->h_ext, *f = in->filter.w32;
    const int s = (int)in->stride, w = in->w, h = in->h, R = in->filter.radius;
    int r = KIT_UNSUPPORTED;
    double t0 = kit_now_ms();
    switch (v) {
    case 0: r = conv_v0(src, s, in->h_out, w, h, f, R); break;
    case 1: r = conv_v1(src, s, in->h_out, w, h, f, R); break;
    case 2: r = conv_v2(src, s, in->h_out, w, h, f, R); break;
    case 3: r = conv_v3(src, s, in->h_out, w, h, f, R); break;
    case 4: r = conv_v4(src, s, in->h_out, w, h, f, R); break;
    case 5: r = conv_v5(src, s, in->h_out, w, h, f, R, L->isa); break;
    }
    *kernel_ms = *total_ms = kit_now_ms() - t0;
    return r;
}

/* Each input float read once, each output float written once (the row
 * padding is not counted). */
static double bytes(kit_ctx *ctx, int v)
{
    lab02 *L = ctx->user;
    KIT_UNUSED(v);
    return kit_conv_input_bytes(&L->in);
}

/* The TSV config column: the instruction set the variant's code uses and
 * its threads ("scalar" for the plain C versions). */
static void config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    lab02 *L = ctx->user;
    const char *isa = v <= 2 ? "scalar" : v <= 4 ? "sse" : isa_names[L->isa];
    snprintf(buf, len, "isa=%s threads=%d", isa, single_thread(v) ? 1 : L->threads);
}

static void teardown(kit_ctx *ctx)
{
    lab02 *L = ctx->user;
    if (!L)
        return;
    kit_conv_input_free(&L->in);
    free(L);
}

static const kit_lab lab = {
    .lab = "02",
    .title = "2D convolution with OpenMP and SIMD: RGBA float picture, zero-padded, clamped",
    .gpu = 0,
    .options = KIT_OPT_SIZE | KIT_OPT_IMAGE | KIT_OPT_FILTER | KIT_OPT_OUT | KIT_OPT_THREADS |
               KIT_OPT_ISA,
    .default_w = 1024,
    .default_h = 768,
    .default_filter = "laplace5",
    .atol = 1e-2,
    .rtol = 1e-5,
    .nvariants = 6,
    .variants = variants,
    .first_variant = 0,
    .help_extra = "tolerance: |got - ref| <= 0.01 + 1e-5 |ref| per channel (laplace5, edge3,\n"
                  "sharpen3 and gauss5 are exact on 8-bit pictures)\n"
                  "v0 and v3 always run on one thread; --isa picks v5's registers\n"
                  "(sse: 1 pixel, avx2: 2 pixels, avx512: 4 pixels); an instruction set\n"
                  "the CPU lacks is refused with exit 2",
    .setup = setup,
    .select = select_variant,
    .supports = supports,
    .run = run,
    .bytes = bytes,
    .config = config,
    .teardown = teardown,
};

int main(int argc, char **argv)
{
    return kit_main(&lab, argc, argv);
}
