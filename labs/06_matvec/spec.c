/* spec.c - lab 06's description (common/spec.h), read by its harness and by
 * the grader's checker: y = A x in double.
 *
 * Input: A (rows x cols, row-major) and x with entries uniform in [-1, 1)
 * from the seeded stream (kit_fill_uniform: any piece of it can be made on
 * its own, on any number of threads). Fresh content for timed repetitions:
 * a new x and about half of A's rows negated, both drawn from the key.
 * Output: y, rows doubles, within a tolerance the reference computes from
 * the summation error bound (ref.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kit.h"
#include "matvec.h"
#include "spec.h"

static const kit_optdesc opts[] = {
    {"--rows", KIT_ARG_INT, KIT_ARG_INPUT, "M", "rows of A (and of y)", "10000", 1, 1 << 28},
    {"--cols", KIT_ARG_INT, KIT_ARG_INPUT, "N", "columns of A (and elements of x)", "10000", 1,
     1 << 28},
    {"--tile", KIT_ARG_WXH, KIT_ARG_RUN, "WxH",
     "v2/v3 tiles of W columns by H rows, each 1..1024 (default 512x64)", NULL, 1, 1024},
    KIT_OPTD_BLOCK, KIT_OPTD_PINNED, KIT_OPTD_END};

#define V(name, what, given) {name, what, KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, given}
static const kit_variant_desc variants[] = {
    V("cublas", "cublasDgemv, the transposed call on the column-major view (baseline)", 1),
    V("naive", "one thread per row: a warp's loads are n*8 bytes apart (uncoalesced)", 0),
    V("tiled-atomic", "course report's 2D tiles: x slice in shared memory, atomicAdd on double", 0),
    V("tiled-cas", "v2 with the double add built from atomicCAS (GPUs before sm_60)", 0),
    V("warp-rows", "whole warps per row, 16-byte loads, shuffle sums, no atomics", 0),
};

static int make(kit_problem *p, char *err, size_t errlen)
{
    matvec_problem *q = kit_calloc(1, sizeof *q);
    p->data = q;
    q->m = (int)kit_arg_int(p->args, "--rows");
    q->n = (int)kit_arg_int(p->args, "--cols");
    const size_t m = (size_t)q->m, n = (size_t)q->n;
    double need = 8.0 * ((double)m * (double)n + (double)n);
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (have > 0 && need > 0.8 * have) {
        kit_set_err(err, errlen, "A of %d x %d doubles needs %.1f GiB of memory; this machine "
                    "has %.1f GiB", q->m, q->n, need / (1 << 30), have / (1 << 30));
        return KIT_EXIT_USAGE;
    }
    kit_rng g;
    kit_rng_seed(&g, p->seed);
    q->s_A = kit_rng_next(&g);
    q->s_x = kit_rng_next(&g);
    q->h_A = kit_malloc(m * n * sizeof(double));
    q->h_x = kit_malloc(n * sizeof(double));
    q->h_neg = kit_calloc(m, 1);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < q->m; i++)
        kit_fill_uniform(q->h_A + (size_t)i * n, n, q->s_A, (size_t)i * n);
    kit_fill_uniform(q->h_x, n, q->s_x, 0);
    p->width = q->n;
    p->height = q->m;
    snprintf(p->param, sizeof p->param, "m=%d n=%d", q->m, q->n);
    return 0;
}

/* Whether row i of A is negated in the content of key (never for key 0). */
static int negated(unsigned long long key, int i)
{
    if (!key)
        return 0;
    unsigned long long h = (key ^ (0x9E3779B97F4A7C15ULL * (unsigned long long)(i + 1))) * 0xBF58476D1CE4E5B9ULL;
    return (int)((h >> 31) & 1);
}

/* A new x, and about half of A's rows negated (exactly: a sign flip), both
 * drawn from the key: a variant that kept anything of an earlier A or x
 * (a transposed copy made in the warm-up, say) gives wrong rows. */
static void fresh(kit_problem *p, int v, unsigned long long key)
{
    KIT_UNUSED(v);
    matvec_problem *q = p->data;
    const size_t n = (size_t)q->n;
    kit_fill_uniform(q->h_x, n, key ? q->s_x ^ key : q->s_x, 0);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < q->m; i++) {
        int want = negated(key, i);
        if (want != q->h_neg[i]) {
            double *a = q->h_A + (size_t)i * n;
            for (size_t j = 0; j < n; j++)
                a[j] = -a[j];
            q->h_neg[i] = (unsigned char)want;
        }
    }
}

static int output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    const matvec_problem *q = p->data;
    KIT_UNUSED(v);
    KIT_UNUSED(why);
    KIT_UNUSED(whylen);
    /* atol NaN: the reference computes it for each x (ref.c) */
    *o = (kit_outdesc){KIT_F64, q->m, 1, 1, 0, NAN, 0.0, 1};
    return 1;
}

/* A read once, x read once, y written once. */
static double bytes(const kit_problem *p, int v)
{
    const matvec_problem *q = p->data;
    KIT_UNUSED(v);
    return 8.0 * ((double)q->m * (double)q->n + (double)q->n + (double)q->m);
}

static void release(kit_problem *p)
{
    matvec_problem *q = p->data;
    if (q) {
        free(q->h_A);
        free(q->h_x);
        free(q->h_neg);
    }
    free(q);
    p->data = NULL;
}

static const kit_part_spec parts[] = {{
    .name = "",
    .title = "matrix-vector product y = A x in double on the GPU: cuBLAS, naive, tiled, warp rows",
    .opts = opts,
    .first_variant = 0,
    .nvariants = KIT_NELEMS(variants),
    .variants = variants,
    .help_extra =
        "A is rows x cols, row-major, entries uniform in [-1, 1). y passes when within\n"
        "atol = gamma(n+2) * max_i sum_j |a_ij x_j| of the CPU reference, where\n"
        "gamma(k) = k u / (1 - k u), u = 2^-53: the worst case of any summation order.\n"
        "--tile WxH: v2/v3 tiles (default 512x64, the tile of the course report).\n"
        "--block Tx1: T threads per block for v1 (default 512) and v4 (default 256, whole\n"
        "warps). kernel ms: the launch alone, A and x already on the GPU, the L2 flushed;\n"
        "total ms: copy A and x in, the launch, copy y out (v2/v3 zero y in their launch).",
    .make = make,
    .fresh = fresh,
    .output = output,
    .bytes = bytes,
    .release = release,
}};

const kit_lab_desc kit_lab_spec = {"06", "matrix-vector product y = A x on the GPU", 1, 1, parts};
