/* spec.c - lab 07's description (common/spec.h), read by its harness and by
 * the grader's checker. Three parts:
 *
 *   sum        c = a + b, n floats, a and b uniform in [-1, 1) from the
 *              seed and the content key (not stored: lab07.h); exact.
 *   soa        an RGB float picture (channels 0..255) as an array of
 *              structs and as a struct of arrays, rescaled to 0..max or
 *              with one plane deleted, in place; float rounding only.
 *   transpose  a float matrix of --size WxH (H rows of W), values 0..256;
 *              the transpose is an exact copy.
 *
 * Every content (key) is drawn afresh from the seed and the key, so a timed
 * repetition never sees the numbers of another.
 */
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "lab07.h"
#include "spec.h"

/* ------------------------------------------------------------ content */

#define GOLDEN 0x9E3779B97F4A7C15ULL

/* 64 random bits, number j of the stream that starts at s. */
static unsigned long long bits(unsigned long long s, size_t j)
{
    kit_rng r;
    kit_rng_seed(&r, s + (unsigned long long)j * GOLDEN);
    return kit_rng_next(&r);
}

/* The stream of a case's content: its seed, its key, and what it is for. */
static unsigned long long content_stream(const kit_problem *p, unsigned long long what)
{
    kit_rng r;
    kit_rng_seed(&r, p->seed ^ (what * 0xD1B54A32D192ED03ULL));
    kit_rng_next(&r);
    kit_rng_seed(&r, kit_rng_next(&r) ^ p->key);
    return kit_rng_next(&r);
}

/* 24 random bits as a float in [0, 256): exact in float. */
static float to_0_256(unsigned long long b24)
{
    return (float)b24 * (1.0f / 65536.0f);
}

/* count floats in [0, 256) of the stream s into dst, two a draw. */
static void fill_0_256(float *dst, size_t count, unsigned long long s)
{
    const long long pairs = (long long)((count + 1) / 2);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (count > (1u << 16))
#endif
    for (long long j = 0; j < pairs; j++) {
        unsigned long long z = bits(s, (size_t)j);
        dst[2 * j] = to_0_256(z >> 40);
        if ((size_t)(2 * j + 1) < count)
            dst[2 * j + 1] = to_0_256((z >> 16) & 0xFFFFFF);
    }
}

/* ---------------------------------------------------------------- sum */

static const kit_optdesc sum_opts[] = {
    {"--n", KIT_ARG_INT, KIT_ARG_INPUT, "N",
     "elements of each vector (2^22 = 4194304 by default, as in the course guide)", "4194304", 1,
     1L << 36},
    {"--pinned", KIT_ARG_FLAG, KIT_ARG_RUN, NULL,
     "page-locked host buffers for v1's copies and every variant's result", NULL, 0, 0},
    KIT_OPTD_END};

static const kit_variant_desc sum_variants[] = {
    {"device", "cudaMalloc'd vectors, copies in and out around the kernel",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 1, 1},
    {"zero-copy", "a, b in mapped host memory: the kernel reads them over PCIe, no copy in",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 1, 0},
    {"managed", "cudaMallocManaged: pages move to the GPU on the kernel's first touch",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 1, 0},
    {"managed-prefetch", "managed memory moved in bulk (cudaMemPrefetchAsync) before the kernel",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 1, 0},
};

void lab07_sum_content(const kit_problem *p, float *a, float *b, size_t first, size_t count)
{
    const unsigned long long s = content_stream(p, 1);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (count > (1u << 16))
#endif
    for (long long k = 0; k < (long long)count; k++) {
        unsigned long long z = bits(s, first + (size_t)k);
        /* 24-bit fractions: every a[i] + b[i] is the same on any IEEE machine */
        a[k] = (float)(z >> 40) * (1.0f / 8388608.0f) - 1.0f;
        b[k] = (float)((z >> 16) & 0xFFFFFF) * (1.0f / 8388608.0f) - 1.0f;
    }
}

static int sum_make(kit_problem *p, char *err, size_t errlen)
{
    const long n = kit_arg_int(p->args, "--n");
    if (n > SUM_BIG && n % SUM_ROW != 0) {
        kit_set_err(err, errlen, "--n %ld: beyond 2^30 the length must be a multiple of 2^20", n);
        return KIT_EXIT_USAGE;
    }
    lab07_sum_case *c = kit_calloc(1, sizeof *c);
    c->n = n;
    p->data = c;
    p->width = n;
    p->height = 1;
    p->param[0] = 0;
    return 0;
}

static void sum_fresh(kit_problem *p, int v, unsigned long long key)
{
    KIT_UNUSED(v);
    p->key = key; /* the content is a function of the key: nothing to store */
}

static int sum_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(why);
    KIT_UNUSED(whylen);
    const lab07_sum_case *c = p->data;
    memset(o, 0, sizeof *o);
    o->type = KIT_F32;
    o->w = c->n > SUM_BIG ? (int)SUM_ROW : (int)c->n;
    o->h = c->n > SUM_BIG ? (int)(c->n / SUM_ROW) : 1;
    o->c = 1;
    o->atol = 0.0; /* one float addition, correctly rounded everywhere */
    o->rtol = 0.0;
    o->ref_class = 1; /* every variant computes the same vector */
    return 1;
}

/* a and b read once, c written once */
static double sum_bytes(const kit_problem *p, int v)
{
    KIT_UNUSED(v);
    return 3.0 * sizeof(float) * (double)((const lab07_sum_case *)p->data)->n;
}

static void free_data(kit_problem *p)
{
    free(p->data);
    p->data = NULL;
}

/* ---------------------------------------------------------------- soa */

#define SOA_ATOL 1e-4 /* two float roundings (v * max, then / 255) against one */
#define SOA_RTOL 1e-6

static const kit_optdesc soa_opts[] = {
    KIT_OPTD_SIZE("4992x3744"),
    {"--max", KIT_ARG_INT, KIT_ARG_INPUT, "M", "rescale (v1, v2): 0..255 becomes 0..M", "200", 0,
     255},
    {"--plane", KIT_ARG_STR, KIT_ARG_INPUT, "P", "delete (v3, v4): the plane r, g or b", "g", 0,
     0},
    KIT_OPTD_END};

static const kit_variant_desc soa_variants[] = {
    {"rescale-aos", "rescale an array of structs: three strided loads and stores",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 1},
    {"rescale-soa", "rescale a struct of arrays: every load and store of a warp contiguous",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"delete-aos", "zero one channel of an array of structs: a float in every 12 bytes",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 1},
    {"delete-soa", "zero one plane of a struct of arrays: a third of the picture, contiguous",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
};

/* The picture of the current content: always interleaved (value k of the
 * stream is channel k % 3 of pixel k / 3), and planar too when asked for. */
static void soa_fill(const kit_problem *p, lab07_soa_case *c, int planar)
{
    const size_t n = (size_t)c->n;
    fill_0_256(c->aos, 3 * n, content_stream(p, 2));
    if (!planar)
        return;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n > (1u << 16))
#endif
    for (long long i = 0; i < (long long)n; i++)
        for (int ch = 0; ch < 3; ch++)
            c->soa[(size_t)ch * n + (size_t)i] = c->aos[3 * (size_t)i + (size_t)ch];
}

static int soa_make(kit_problem *p, char *err, size_t errlen)
{
    int w, h;
    kit_arg_wxh(p->args, "--size", &w, &h);
    const char *pl = kit_arg_str(p->args, "--plane");
    if (strlen(pl) != 1 || (pl[0] != 'r' && pl[0] != 'g' && pl[0] != 'b')) {
        kit_set_err(err, errlen, "--plane must be r, g or b, not '%s'", pl);
        return KIT_EXIT_USAGE;
    }
    lab07_soa_case *c = kit_calloc(1, sizeof *c);
    p->data = c;
    c->w = w;
    c->h = h;
    c->n = (long)w * h;
    c->max = (int)kit_arg_int(p->args, "--max");
    c->plane = pl[0];
    c->aos = malloc(3 * (size_t)c->n * sizeof(float));
    c->soa = malloc(3 * (size_t)c->n * sizeof(float));
    if (!c->aos || !c->soa) {
        kit_set_err(err, errlen, "--size %dx%d: no host memory for two copies of %.1f MiB", w, h,
                    3.0 * (double)c->n * sizeof(float) / (1 << 20));
        return KIT_EXIT_USAGE;
    }
    p->key = 0;
    soa_fill(p, c, 1);
    p->width = w;
    p->height = h;
    snprintf(p->param, sizeof p->param, "max=%d plane=%c", c->max, c->plane);
    p->input = (kit_buf){KIT_F32, w, h, 3, 0, c->aos};
    return 0;
}

static void soa_fresh(kit_problem *p, int v, unsigned long long key)
{
    p->key = key;
    soa_fill(p, p->data, v == 2 || v == 4);
}

static int soa_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    KIT_UNUSED(why);
    KIT_UNUSED(whylen);
    const lab07_soa_case *c = p->data;
    memset(o, 0, sizeof *o);
    o->type = KIT_F32;
    o->w = c->w;
    o->h = c->h;
    o->c = 3;
    o->planar = (v == 2 || v == 4);
    o->atol = (v <= 2) ? SOA_ATOL : 0.0; /* deleting a plane is exact */
    o->rtol = (v <= 2) ? SOA_RTOL : 0.0;
    return 1;
}

/* rescale reads and writes every float; delete writes one plane */
static double soa_bytes(const kit_problem *p, int v)
{
    const double n = (double)((const lab07_soa_case *)p->data)->n;
    return (v <= 2 ? 2.0 * 3.0 : 1.0) * n * sizeof(float);
}

static void soa_release(kit_problem *p)
{
    lab07_soa_case *c = p->data;
    if (c) {
        free(c->aos);
        free(c->soa);
    }
    free_data(p);
}

/* ---------------------------------------------------------- transpose */

static const kit_optdesc tr_opts[] = {
    {"--size", KIT_ARG_WXH, KIT_ARG_INPUT, "WxH", "a matrix of H rows of W floats", "8192x8192", 1,
     65535},
    {"--tile", KIT_ARG_WXH, KIT_ARG_RUN, "WxH",
     "v1-v4: threads of a block, one per element (v3, v4: square, up to 32x32), default "
     "32x32; v5: what a block of 32x8 threads moves, default 64x64",
     NULL, 1, 1024},
    {"--managed", KIT_ARG_FLAG, KIT_ARG_RUN, NULL,
     "matrices in managed (unified) memory, input written by the host: v1 and v3 only", NULL, 0,
     0},
    KIT_OPTD_END};

static const kit_variant_desc tr_variants[] = {
    {"naive-rows", "one element a thread: reads along rows (coalesced), writes strided",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 1},
    {"naive-cols", "one element a thread: writes coalesced, reads strided (caches absorb some)",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"smem-tile", "a tile in shared memory: both global sides coalesced, column reads conflict",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"smem-padded", "the tile padded by one float a row: no shared-memory bank conflicts",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"smem-vec4", "32x8 threads, 4x4 floats each, 16-byte accesses, XOR-placed tile",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
};

static int tr_make(kit_problem *p, char *err, size_t errlen)
{
    int w, h;
    kit_arg_wxh(p->args, "--size", &w, &h);
    lab07_tr_case *c = kit_calloc(1, sizeof *c);
    p->data = c;
    c->w = w;
    c->h = h;
    c->in = malloc((size_t)w * h * sizeof(float));
    if (!c->in) {
        kit_set_err(err, errlen, "--size %dx%d: no host memory for %.1f MiB", w, h,
                    (double)w * h * sizeof(float) / (1 << 20));
        return KIT_EXIT_USAGE;
    }
    p->key = 0;
    fill_0_256(c->in, (size_t)w * h, content_stream(p, 3));
    p->width = w;
    p->height = h;
    p->param[0] = 0;
    p->input = (kit_buf){KIT_F32, w, h, 1, 0, c->in};
    return 0;
}

static void tr_fresh(kit_problem *p, int v, unsigned long long key)
{
    KIT_UNUSED(v);
    lab07_tr_case *c = p->data;
    p->key = key;
    fill_0_256(c->in, (size_t)c->w * c->h, content_stream(p, 3));
}

static int tr_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(why);
    KIT_UNUSED(whylen);
    const lab07_tr_case *c = p->data;
    memset(o, 0, sizeof *o);
    o->type = KIT_F32;
    o->w = c->h; /* W rows of H floats */
    o->h = c->w;
    o->c = 1;
    o->ref_class = 1; /* every variant computes the same transpose */
    return 1;
}

/* every float read once and written once */
static double tr_bytes(const kit_problem *p, int v)
{
    KIT_UNUSED(v);
    const lab07_tr_case *c = p->data;
    return 2.0 * (double)c->w * c->h * sizeof(float);
}

static void tr_release(kit_problem *p)
{
    lab07_tr_case *c = p->data;
    if (c)
        free(c->in);
    free_data(p);
}

/* ---------------------------------------------------------------- lab */

static const kit_part_spec parts[] = {
    {.name = "sum",
     .title = "c = a + b with the vectors in device, zero-copy (mapped), managed memory",
     .opts = sum_opts,
     .first_variant = 1,
     .nvariants = KIT_NELEMS(sum_variants),
     .variants = sum_variants,
     .help_extra = "exact (one float addition). Every variant is timed from the first byte in to the\n"
                   "last byte out (total ms); kernel ms is the launcher alone, which for v2-v4\n"
                   "already holds the transfers. Beyond 2^30, --n must be a multiple of 2^20.",
     .make = sum_make,
     .fresh = sum_fresh,
     .output = sum_output,
     .bytes = sum_bytes,
     .release = free_data},
    {.name = "soa",
     .title = "an RGB float picture as an array of structs and as a struct of arrays",
     .opts = soa_opts,
     .first_variant = 1,
     .nvariants = KIT_NELEMS(soa_variants),
     .variants = soa_variants,
     .help_extra = "rescale within 1e-4 + 1e-6 |ref| (v * max / 255 in float); delete exact.\n"
                   "v1, v3: interleaved pixels; v2, v4: three planes. Kernel time, copies outside.",
     .make = soa_make,
     .fresh = soa_fresh,
     .output = soa_output,
     .bytes = soa_bytes,
     .release = soa_release},
    {.name = "transpose",
     .title = "out = in^T for a float matrix: naive, shared tiles, 16-byte tiles",
     .opts = tr_opts,
     .first_variant = 1,
     .nvariants = KIT_NELEMS(tr_variants),
     .variants = tr_variants,
     .help_extra = "exact. GB/s counts every float read once and written once; compare with the\n"
                   "copy ceiling of the TSV's provenance lines. v5 tiles: 64x64 128x32 32x128\n"
                   "128x64 64x128 64x32 32x64.",
     .make = tr_make,
     .fresh = tr_fresh,
     .output = tr_output,
     .bytes = tr_bytes,
     .release = tr_release},
};

const kit_lab_desc kit_lab_spec = {
    "07", "zero-copy and managed memory, arrays of structs against structs of arrays, transpose",
    1, 3, parts};
