/* spec.c - lab 05's description (common/spec.h), read by its harness and by
 * the grader's checker. Four parts:
 *
 * device the GPU's attributes and its memory's peak bandwidth, read by the
 *        student's function; the output is its reading minus the harness's
 *        (main.c), one double per field, all zero within 1e-6 (the peak as a
 *        relative difference). No input, no content: the GPU is the input.
 * copies --bytes bytes (seeded noise) copied host to device or device to host
 *        (--dir, a run option), from pageable or pinned host memory; output
 *        the bytes that came back, exact. Fresh content: the bytes XOR a
 *        pattern of the key. Span total (the launch is the one copy), bounded
 *        by PCIe.
 * strip  one W x H picture of doubles (values in [0, 255), seeded uniform
 *        noise), a separable filter (gaussian or box, radius 1..80); output
 *        W x H doubles within 1e-9 + 1e-12 |ref|. Fresh content: the noise of
 *        another key. Every variant's span is total (copies, kernels, the
 *        wait), bounded by PCIe.
 * batch  --count pictures of W x H RGB bytes (generated scenes, or --images),
 *        a small 8-bit filter; output the pictures one below the other,
 *        exact. Fresh content: each picture's bytes XOR a pattern of (key,
 *        picture). Span total, bounded by PCIe. Its inputs are spec_batch.c's.
 *
 * How a variant runs (device memory budget, strip rows, streams, pinned
 * buffers, decoding threads) is for main.c: those options are run options,
 * which the checker ignores.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "convin.h"
#include "image.h"
#include "kit.h"
#include "lab05.h"
#include "spec.h"

#define STRIP_ATOL 1e-9
#define STRIP_RTOL 1e-12

/* ---------------------------------------------------------------- options */

#define OPT_TIMELINE(part)                                                                   \
    {"--timeline", KIT_ARG_STR, KIT_ARG_RUN, "DIR",                                           \
     "write each variant's last run as GPU activity records, DIR/" part "-vN.tsv", NULL, 0, 0}
#define OPT_NO_TRACE                                                                         \
    {"--no-trace", KIT_ARG_FLAG, KIT_ARG_RUN, NULL,                                           \
     "record no GPU activity (no engine busy times, no timeline)", NULL, 0, 0}

static const kit_optdesc device_opts[] = {
    {"--facts", KIT_ARG_STR, KIT_ARG_RUN, "PATH",
     "write the GPU's memory figures (clock, bus, peak, the measured copy ceiling) as a TSV "
     "table", NULL, 0, 0},
    KIT_OPTD_END};

static const kit_optdesc copies_opts[] = {
    {"--bytes", KIT_ARG_STR, KIT_ARG_INPUT, "N",
     "bytes per copy: N, or NK, NM, NG (KiB, MiB, GiB), at most 1G", "64M", 0, 0},
    {"--dir", KIT_ARG_STR, KIT_ARG_RUN, "DIR",
     "the direction timed: h2d (host to device) or d2h (device to host)", "h2d", 0, 0},
    KIT_OPTD_END};

static const kit_optdesc strip_opts[] = {
    {"--size", KIT_ARG_WXH, KIT_ARG_INPUT, "WxH", "a picture of W x H doubles", "8192x8192", 1,
     65536},
    {"--filter", KIT_ARG_STR, KIT_ARG_INPUT, "NAME", "separable filter: gaussian or box",
     "gaussian", 0, 0},
    {"--radius", KIT_ARG_INT, KIT_ARG_INPUT, "R", "radius of the filter", "32", 1, 80},
    {"--gpu-mem", KIT_ARG_INT, KIT_ARG_RUN, "MiB",
     "device memory a variant may hold at once (default: what the GPU has free)", NULL, 1,
     1L << 24},
    {"--tile", KIT_ARG_INT, KIT_ARG_RUN, "N",
     "v2-v5: strip size in elements, N / W rows (at least 1); default: the tallest strips the "
     "budget holds, at most an eighth of the picture",
     NULL, 1, 1L << 40},
    {"--streams", KIT_ARG_INT, KIT_ARG_RUN, "N", "v5: streams and buffer sets", "3", 2, 16},
    {"--pinned", KIT_ARG_FLAG, KIT_ARG_RUN, NULL,
     "v1, v2: page-locked host buffers (v3-v5 always have them)", NULL, 0, 0},
    OPT_TIMELINE("strip"),
    OPT_NO_TRACE,
    KIT_OPTD_END};

static const kit_optdesc batch_opts[] = {
    {"--size", KIT_ARG_WXH, KIT_ARG_INPUT, "WxH", "size of each generated picture", "640x480",
     1, 8192},
    {"--count", KIT_ARG_INT, KIT_ARG_INPUT, "N", "pictures in the batch", "500", 1, 100000},
    {"--images", KIT_ARG_STR, KIT_ARG_INPUT, "DIR",
     "the PNG and JPG files of DIR (all of one size, by name; the first --count when given) "
     "instead of generated pictures",
     NULL, 0, 0},
    {"--filter", KIT_ARG_STR, KIT_ARG_INPUT, "NAME", "edge3, sharpen3, laplace5 or gauss5",
     "edge3", 0, 0},
    {"--group", KIT_ARG_INT, KIT_ARG_RUN, "G", "v3-v5: pictures per copy and per launch", "64",
     1, 4096},
    {"--streams", KIT_ARG_INT, KIT_ARG_RUN, "N", "v4: streams", "4", 1, 16},
    {"--pinned", KIT_ARG_FLAG, KIT_ARG_RUN, NULL,
     "v4: page-locked host buffers instead of pageable ones", NULL, 0, 0},
    {"--loaders", KIT_ARG_INT, KIT_ARG_RUN, "T",
     "v5: threads that decode pictures (default: the cores, at most 16)", NULL, 1, 256},
    OPT_TIMELINE("batch"),
    OPT_NO_TRACE,
    KIT_OPTD_END};

/* ---------------------------------------------------------------- variants */

static const kit_variant_desc device_variants[] = {
    {"attributes", "the attributes with cudaDeviceGetAttribute, and the memory's peak bandwidth",
     KIT_SPAN_TOTAL, KIT_CEIL_NONE, 0, 0},
};

static const kit_variant_desc copies_variants[] = {
    {"pageable", "malloc'd host buffers, cudaMemcpy: the driver stages every copy",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 0, 0},
    {"pinned", "cudaMallocHost buffers, cudaMemcpy: the copy engine reads and writes them itself",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 0, 0},
};

static const kit_variant_desc strip_variants[] = {
    {"whole", "the whole picture on the GPU at once (2 W H doubles of the budget)",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 2, 1},
    {"strips-sync", "strips with R halo rows, one by one, synchronous copies, pageable memory",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 2, 1},
    {"strips-pinned", "one stream, asynchronous copies from pinned memory, one wait at the end",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 2, 0},
    {"two-streams", "two streams and buffer sets: strip k+1's copies overlap strip k's kernels",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 2, 0},
    {"n-streams", "--streams buffer sets in a ring: copy in, kernels, copy out all busy at once",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 2, 0},
};

static const kit_variant_desc batch_variants[] = {
    {"one-by-one", "allocate, copy in, launch, copy out, free: for every picture",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 1, 1},
    {"alloc-once", "device buffers allocated once for the batch and reused", KIT_SPAN_TOTAL,
     KIT_CEIL_PCIE, 1, 0},
    {"groups", "--group pictures per copy and per launch", KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 1, 0},
    {"streams", "groups on --streams streams, asynchronous copies (overlap from --pinned memory)",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 1, 0},
    {"pipelined", "decodes the next group on --loaders threads while the GPU filters this one",
     KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 1, 0},
};

/* ------------------------------------------------------------------ memory */

/* Host memory this machine can still give (MemAvailable), in bytes; 0 when unknown. */
static double host_available(void)
{
    FILE *fp = fopen("/proc/meminfo", "r");
    char line[256];
    double kib = 0.0;
    while (fp && fgets(line, sizeof line, fp))
        if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1)
            break;
    if (fp)
        fclose(fp);
    return kib * 1024.0;
}

/* 0 when `need` bytes of host memory are there to take; else the reason (lab05.h). */
int host_room(double need, const char *what, char *err, size_t errlen)
{
    double avail = host_available();
    if (avail > 0 && need > 0.9 * avail) {
        kit_set_err(err, errlen, "%s need %.1f GiB of host memory; this machine has %.1f GiB free",
                    what, need / (1 << 30), avail / (1 << 30));
        return -1;
    }
    return 0;
}

void *alloc_pages(size_t bytes)
{
    void *p = NULL;
    size_t page = 4096, n = (bytes + page - 1) / page * page;
    return posix_memalign(&p, page, n ? n : page) ? NULL : p;
}

/* ------------------------------------------------------------- part device */

const char *const device_field_names[DEVICE_FIELDS] = {
    "compute capability, major", "compute capability, minor", "multiprocessors", "warp size",
    "threads per block", "shared memory per block, bytes", "registers per block",
    "memory clock, kHz", "memory bus, bits", "copy engines", "peak bandwidth, GB/s"};

static int device_make(kit_problem *p, char *err, size_t errlen)
{
    KIT_UNUSED(err);
    KIT_UNUSED(errlen);
    p->data = NULL;
    p->width = DEVICE_FIELDS;
    p->height = 1;
    snprintf(p->param, sizeof p->param, "attributes");
    return 0;
}

static void device_fresh(kit_problem *p, int v, unsigned long long key)
{
    KIT_UNUSED(v);
    p->key = key; /* the GPU is the input: no content to change */
}

static int device_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    KIT_UNUSED(p);
    KIT_UNUSED(v);
    KIT_UNUSED(why);
    KIT_UNUSED(whylen);
    *o = (kit_outdesc){KIT_F64, DEVICE_FIELDS, 1, 1, 0, 1e-6, 0.0, 1};
    return 1;
}

static void device_release(kit_problem *p)
{
    p->data = NULL;
}

/* ------------------------------------------------------------- part copies */

#define COPIES_MAX ((size_t)1 << 30)

/* "N", "NK", "NM" or "NG": 0 with *bytes set (1 .. 1 GiB), else -1. */
static int parse_bytes(const char *s, size_t *bytes)
{
    char num[32];
    size_t n = strlen(s), shift = 0;
    if (n == 0 || n >= sizeof num)
        return -1;
    memcpy(num, s, n + 1);
    switch (num[n - 1]) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    default: break;
    }
    if (shift)
        num[n - 1] = 0;
    long v;
    if (kit_parse_long(num, 1, (long)(COPIES_MAX >> shift), &v))
        return -1;
    *bytes = (size_t)v << shift;
    return 0;
}

/* Seeded noise, the same on any number of threads. */
static void copies_noise(unsigned char *dst, size_t n, unsigned long long seed)
{
    const size_t chunk = (size_t)1 << 16;
    const long nchunks = (long)((n + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < nchunks; c++) {
        kit_rng r;
        kit_rng_seed(&r, seed ^ (0xC0B1E5ULL + 0x9E3779B97F4A7C15ULL * (unsigned long long)c));
        const size_t first = (size_t)c * chunk, end = first + chunk < n ? first + chunk : n;
        for (size_t i = first; i < end; i += 8) {
            unsigned long long x = kit_rng_next(&r);
            for (size_t b = 0; b < 8 && i + b < end; b++)
                dst[i + b] = (unsigned char)(x >> (8 * b));
        }
    }
}

static int copies_make(kit_problem *p, char *err, size_t errlen)
{
    copies_data *d = kit_calloc(1, sizeof *d);
    p->data = d;
    const char *b = kit_arg_str(p->args, "--bytes");
    if (parse_bytes(b, &d->bytes)) {
        kit_set_err(err, errlen, "--bytes %s: a size from 1 to 1G (N, NK, NM or NG)", b);
        return KIT_EXIT_USAGE;
    }
    const char *dir = kit_arg_str(p->args, "--dir");
    if (strcmp(dir, "h2d") && strcmp(dir, "d2h")) {
        kit_set_err(err, errlen, "--dir %s: h2d or d2h", dir);
        return KIT_EXIT_USAGE;
    }
    if (host_room(5.0 * (double)d->bytes, "the bytes sent, those that come back and their copies",
                  err, errlen))
        return KIT_EXIT_USAGE;
    d->base = alloc_pages(d->bytes);
    d->px = alloc_pages(d->bytes);
    if (!d->base || !d->px) {
        kit_set_err(err, errlen, "cannot allocate %zu bytes twice", d->bytes);
        return KIT_EXIT_USAGE;
    }
    copies_noise(d->base, d->bytes, p->seed);
    memcpy(d->px, d->base, d->bytes);
    d->px_key = 0;
    p->width = (long)d->bytes;
    p->height = 1;
    if (d->bytes % ((size_t)1 << 20) == 0)
        snprintf(p->param, sizeof p->param, "%zu MiB", d->bytes >> 20);
    else if (d->bytes % 1024 == 0)
        snprintf(p->param, sizeof p->param, "%zu KiB", d->bytes >> 10);
    else
        snprintf(p->param, sizeof p->param, "%zu B", d->bytes);
    return 0;
}

static void copies_fresh(kit_problem *p, int v, unsigned long long key)
{
    KIT_UNUSED(v);
    copies_data *d = p->data;
    p->key = key;
    if (d->px_key != key) {
        kit_bytes_fresh(d->px, d->base, d->bytes, key);
        d->px_key = key;
    }
}

static int copies_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(why);
    KIT_UNUSED(whylen);
    const copies_data *d = p->data;
    *o = (kit_outdesc){KIT_U8, (int)d->bytes, 1, 1, 0, 0.0, 0.0, 1};
    return 1;
}

/* One direction's bytes: the run's timed copy. */
static double copies_bytes(const kit_problem *p, int v)
{
    KIT_UNUSED(v);
    const copies_data *d = p->data;
    return (double)d->bytes;
}

static void copies_release(kit_problem *p)
{
    copies_data *d = p->data;
    if (d) {
        free(d->base);
        free(d->px);
        free(d);
    }
    p->data = NULL;
}

/* -------------------------------------------------------------- part strip */

void strip_fill(double *v, size_t n, unsigned long long seed, unsigned long long key)
{
    kit_rng r;
    kit_rng_seed(&r, seed ^ (key * 0x9E3779B97F4A7C15ULL) ^ 0x5EEDF11ULL);
    const unsigned long long s0 = kit_rng_next(&r);
    const size_t chunk = (size_t)1 << 20;
    const long nchunks = (long)((n + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < nchunks; c++) {
        const size_t first = (size_t)c * chunk;
        const size_t len = first + chunk < n ? chunk : n - first;
        kit_fill_uniform(v + first, len, s0, first);
        for (size_t i = first; i < first + len; i++)
            v[i] = 127.5 * (v[i] + 1.0);
    }
}

static int strip_make(kit_problem *p, char *err, size_t errlen)
{
    strip_data *d = kit_calloc(1, sizeof *d);
    p->data = d;
    const char *fname = kit_arg_str(p->args, "--filter");
    if (strcmp(fname, "gaussian") != 0 && strcmp(fname, "box") != 0) {
        kit_set_err(err, errlen, "--filter %s: part strip takes the separable gaussian or box",
                    fname);
        return KIT_EXIT_USAGE;
    }
    if (kit_filter_from_args(p->args, &d->f, err, errlen))
        return KIT_EXIT_USAGE;
    kit_arg_wxh(p->args, "--size", &d->w, &d->h);
    const size_t n = (size_t)d->w * (size_t)d->h;
    if (host_room(3.0 * (double)n * sizeof(double), "the picture, its result and the reference",
                  err, errlen))
        return KIT_EXIT_USAGE;
    d->in = alloc_pages(n * sizeof(double));
    if (!d->in) {
        kit_set_err(err, errlen, "cannot allocate %.1f GiB for the picture",
                    (double)n * sizeof(double) / (1 << 30));
        return KIT_EXIT_USAGE;
    }
    strip_fill(d->in, n, p->seed, 0);
    d->key = 0;
    p->width = d->w;
    p->height = d->h;
    snprintf(p->param, sizeof p->param, "%s r%d", d->f.name, d->f.radius);
    p->input = (kit_buf){KIT_F64, d->w, d->h, 1, 0, d->in};
    return 0;
}

static void strip_fresh(kit_problem *p, int v, unsigned long long key)
{
    KIT_UNUSED(v);
    strip_data *d = p->data;
    if (d->key != key) {
        strip_fill(d->in, (size_t)d->w * (size_t)d->h, p->seed, key);
        d->key = key;
    }
    p->key = key;
}

static int strip_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(why);
    KIT_UNUSED(whylen);
    const strip_data *d = p->data;
    *o = (kit_outdesc){KIT_F64, d->w, d->h, 1, 0, STRIP_ATOL, STRIP_RTOL, 1};
    return 1;
}

/* The picture read once and the result written once: halo rows read again
 * and the copies of a strip's intermediate are the variant's own choice. */
static double strip_bytes(const kit_problem *p, int v)
{
    KIT_UNUSED(v);
    const strip_data *d = p->data;
    return 2.0 * (double)d->w * (double)d->h * sizeof(double);
}

static void strip_release(kit_problem *p)
{
    strip_data *d = p->data;
    if (d) {
        kit_filter_free(&d->f);
        free(d->in);
        free(d);
    }
    p->data = NULL;
}

/* ------------------------------------------------------------------- parts */

static const kit_part_spec parts[] = {
    {
        .name = "device",
        .title = "what the GPU is: its attributes and its memory's peak bandwidth",
        .opts = device_opts,
        .first_variant = 1,
        .nvariants = KIT_NELEMS(device_variants),
        .variants = device_variants,
        .help_extra = "the output is your reading minus the harness's, field by field: the "
                      "integers exact,\nthe peak bandwidth within one part in a million.",
        .make = device_make,
        .fresh = device_fresh,
        .output = device_output,
        .bytes = NULL,
        .release = device_release,
    },
    {
        .name = "copies",
        .title = "host to device and device to host, from pageable and from pinned memory",
        .opts = copies_opts,
        .first_variant = 1,
        .nvariants = KIT_NELEMS(copies_variants),
        .variants = copies_variants,
        .help_extra = "the bytes that come back must equal the bytes sent. Each run times one "
                      "copy (--dir)\nbetween CUDA events; GB/s counts its bytes once.",
        .make = copies_make,
        .fresh = copies_fresh,
        .output = copies_output,
        .bytes = copies_bytes,
        .release = copies_release,
    },
    {
        .name = "strip",
        .title = "a picture larger than the GPU allows: separable double filter in strips of rows",
        .opts = strip_opts,
        .first_variant = 1,
        .nvariants = KIT_NELEMS(strip_variants),
        .variants = strip_variants,
        .help_extra = "tolerance: |got - ref| <= 1e-9 + 1e-12 |ref|. Each run is timed whole: "
                      "allocations,\ncopies in, kernels, copies out. v1 needs 2 W H doubles of "
                      "device memory; v2-v5\nhold one buffer set (2 (rows + 2R) W doubles) per "
                      "stream they use.",
        .make = strip_make,
        .fresh = strip_fresh,
        .output = strip_output,
        .bytes = strip_bytes,
        .release = strip_release,
    },
    {
        .name = "batch",
        .title = "many small pictures: allocations, groups, streams, and decoding on the host",
        .opts = batch_opts,
        .first_variant = 1,
        .nvariants = KIT_NELEMS(batch_variants),
        .variants = batch_variants,
        .help_extra = "results must equal the CPU's exactly. Each run is timed whole; v5's "
                      "includes decoding\nthe pictures: PNG in memory, each run's content "
                      "encoded before its clock starts.",
        .make = batch_make,
        .fresh = batch_fresh,
        .output = batch_output,
        .bytes = batch_bytes,
        .release = batch_release,
    },
};

const kit_lab_desc kit_lab_spec = {"05", "Streams and tiles: copies, streams and pipelines", 1,
                                   KIT_NELEMS(parts), parts};
