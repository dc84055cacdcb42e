/* spec.c - lab 04's description (common/spec.h), read by its harness and by
 * the grader's checker.
 *
 * Part rgb: the RGB picture of --size (or --image) and --seed, a filter with
 * 8-bit integer taps up to radius 2; output W x H x 3 bytes, exact,
 * interleaved for v1-v5 and planar for v6.
 * Part sep: the grey picture of --size (or --image) and --seed as one
 * float64 plane, a separable filter up to radius 80; output W x H doubles
 * within 1e-9 + 1e-12 |ref| (double rounding only, on 0..255 data).
 * Fresh content for a timed repetition: the picture's bytes XOR a pattern of
 * the key (kit_bytes_fresh), in the layout the variant reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convin.h"
#include "image.h"
#include "lab04.h"
#include "spec.h"

#define SEP_ATOL 1e-9
#define SEP_RTOL 1e-12
#define SEP_DEFAULT_RADIUS 32 /* the radius of the report on a separable filter */

/* ---------------------------------------------------------------- part rgb */

static const kit_optdesc rgb_opts[] = {
    KIT_OPTD_SIZE("4992x3744"),
    KIT_OPTD_IMAGE,
    KIT_OPTD_FILTER("laplace5"),
    KIT_OPTD_RADIUS,
    {"--block", KIT_ARG_WXH, KIT_ARG_RUN, "WxH",
     "thread block of v5 and v6 (default 32x8 for v5, 32x4 for v6; v1-v4 keep the guide's 16x16)", NULL, 1, 1024},
    {"--tile", KIT_ARG_WXH, KIT_ARG_RUN, "WxH",
     "v6: pixels a thread computes, 4x4 4x8 8x2 8x4 8x8 16x2 or 16x4", "16x2", 1, 16},
    {"--pad", KIT_ARG_INT, KIT_ARG_RUN, "N",
     "v4: dummy words after each stored row (default: the launcher's choice)", NULL, 0, 64},
    KIT_OPTD_END};

static const kit_variant_desc rgb_variants[] = {
    {"bytes-int", "16x16 blocks, the 20x20-pixel window as bytes in shared memory, integer sums",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"bytes-float", "float sums: every byte converted when it is read from shared memory",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"floats", "the window stored as floats, converted once: 4x the memory, bank conflicts",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"floats-padded", "each stored row padded so a warp's two rows fall in different banks",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"floats-32wide", "32x8 blocks: a warp reads one window row, free of conflicts unpadded",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"planar-dp4a", "planar tiles loaded 16 bytes at a time, 16x2 pixels a thread (--tile), dp4a",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
};

const char *lab04_rgb_refusal(const lab04_rgb *c, char *buf, size_t len)
{
    buf[0] = 0;
    if (c->f.radius > CONV_RGB_MAX_RADIUS)
        kit_set_err(buf, len,
                    "%s radius %d: a block's window holds radius %d at most (the guide's 5x5 "
                    "filter); use laplace5, edge3, sharpen3, gauss5 or gaussian up to radius %d",
                    c->f.name, c->f.radius, CONV_RGB_MAX_RADIUS, CONV_RGB_MAX_RADIUS);
    else if (!c->taps_ok)
        kit_set_err(buf, len,
                    "%s radius %d: its weights are not 8-bit integers over a power of two, so "
                    "the integer and float sums would not be exact; use laplace5, edge3, "
                    "sharpen3, gauss5 or gaussian up to radius %d",
                    c->f.name, c->f.radius, CONV_RGB_MAX_RADIUS);
    return buf;
}

static int rgb_make(kit_problem *p, char *err, size_t errlen)
{
    lab04_rgb *c = kit_calloc(1, sizeof *c);
    p->data = c;
    if (kit_filter_from_args(p->args, &c->f, err, errlen))
        return KIT_EXIT_USAGE;
    c->taps_ok = c->f.radius <= CONV_RGB_MAX_RADIUS && kit_filter_taps_i8(&c->f, c->taps8, &c->shift8);
    kit_image img = {0};
    if (kit_input_picture(p->args, p->seed, CONV_CHANNELS, &img, err, errlen))
        return KIT_EXIT_USAGE;
    c->w = img.w;
    c->h = img.h;
    c->n = (size_t)img.w * (size_t)img.h * CONV_CHANNELS;
    c->base = img.px; /* owned from here */
    c->px = kit_malloc(c->n);
    c->px_p = kit_malloc(c->n);
    memcpy(c->px, c->base, c->n);
    kit_interleaved_to_planar_u8(c->px, c->px_p, c->w, c->h, CONV_CHANNELS);
    p->width = c->w;
    p->height = c->h;
    snprintf(p->param, sizeof p->param, "%s", c->f.name);
    p->input = (kit_buf){KIT_U8, c->w, c->h, CONV_CHANNELS, 0, c->base};
    return 0;
}

static void rgb_fresh(kit_problem *p, int v, unsigned long long key)
{
    lab04_rgb *c = p->data;
    kit_bytes_fresh(c->px, c->base, c->n, key);
    if (v == 6)
        kit_interleaved_to_planar_u8(c->px, c->px_p, c->w, c->h, CONV_CHANNELS);
}

static int rgb_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    const lab04_rgb *c = p->data;
    if (lab04_rgb_refusal(c, why, whylen)[0])
        return 0;
    /* v1-v5 share one reference (interleaved), v6 has its own (planar) */
    *o = (kit_outdesc){KIT_U8, c->w, c->h, CONV_CHANNELS, v == 6, 0.0, 0.0, v == 6 ? 2 : 1};
    return 1;
}

/* The input read once, the output written once. */
static double rgb_bytes(const kit_problem *p, int v)
{
    KIT_UNUSED(v);
    return 2.0 * (double)((const lab04_rgb *)p->data)->n;
}

static void rgb_release(kit_problem *p)
{
    lab04_rgb *c = p->data;
    if (c) {
        kit_filter_free(&c->f);
        free(c->base);
        free(c->px);
        free(c->px_p);
    }
    free(c);
    p->data = NULL;
}

/* ---------------------------------------------------------------- part sep */

static const kit_optdesc sep_opts[] = {
    KIT_OPTD_SIZE("8192x8192"),
    KIT_OPTD_IMAGE,
    {"--filter", KIT_ARG_STR, KIT_ARG_INPUT, "NAME", "separable filter: gaussian, box or gauss5",
     "gaussian", 0, 0},
    {"--radius", KIT_ARG_INT, KIT_ARG_INPUT, "R", "radius of box and gaussian (default 32)",
     NULL, 1, CONV_SEP_MAX_RADIUS},
    {"--block", KIT_ARG_WXH, KIT_ARG_RUN, "WxH",
     "thread block (default 32x32; v4: 32x4)", NULL, 1, 1024},
    {"--per-thread", KIT_ARG_INT, KIT_ARG_RUN, "N", "v4: outputs a thread computes, 4, 8 or 16",
     "16", 1, 64},
    KIT_OPTD_PINNED,
    KIT_OPTD_END};

static const kit_variant_desc sep_variants[] = {
    {"global", "row and column kernels from global memory, the taps too (lab 03's)",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 2, 1},
    {"shared", "32x32 blocks copy their tile and R halo cells into shared memory first",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 2, 0},
    {"shared-const", "and the taps in constant memory: a warp's tap read is one broadcast",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 2, 0},
    {"registers", "N outputs a thread from a sliding window of registers: 1/N shared loads per tap",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 2, 0},
};

static int sep_make(kit_problem *p, char *err, size_t errlen)
{
    lab04_sep *c = kit_calloc(1, sizeof *c);
    p->data = c;
    const char *name = kit_arg_str(p->args, "--filter");
    int radius = (int)kit_arg_int(p->args, "--radius");
    if (!kit_arg_set(p->args, "--radius") && (!strcmp(name, "box") || !strcmp(name, "gaussian")))
        radius = SEP_DEFAULT_RADIUS;
    if (kit_filter_make(name, radius, &c->f, err, errlen))
        return KIT_EXIT_USAGE;
    kit_image img = {0};
    if (kit_input_picture(p->args, p->seed, 1, &img, err, errlen))
        return KIT_EXIT_USAGE;
    c->w = img.w;
    c->h = img.h;
    c->n = (size_t)img.w * (size_t)img.h;
    c->base = img.px;
    c->px = kit_malloc(c->n);
    c->cur = kit_malloc(c->n * sizeof(double));
    memcpy(c->px, c->base, c->n);
    kit_u8_to_f64(c->px, c->cur, c->n);
    p->width = c->w;
    p->height = c->h;
    snprintf(p->param, sizeof p->param, "%s r%d", c->f.name, c->f.radius);
    p->input = (kit_buf){KIT_U8, c->w, c->h, 1, 0, c->base};
    return 0;
}

static void sep_fresh(kit_problem *p, int v, unsigned long long key)
{
    KIT_UNUSED(v);
    lab04_sep *c = p->data;
    /* pieces of a multiple of 64 bytes keep kit_bytes_fresh's pattern in step */
    const size_t piece = (size_t)1 << 20;
    const long pieces = (long)((c->n + piece - 1) / piece);
#pragma omp parallel for schedule(static)
    for (long k = 0; k < pieces; k++) {
        const size_t a = (size_t)k * piece, len = KIT_MIN(piece, c->n - a);
        kit_bytes_fresh(c->px + a, c->base + a, len, key);
        kit_u8_to_f64(c->px + a, c->cur + a, len);
    }
}

static int sep_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    KIT_UNUSED(v);
    const lab04_sep *c = p->data;
    if (!c->f.separable) {
        kit_set_err(why, whylen, "filter %s is not separable; part sep takes gaussian, box or gauss5",
                    c->f.name);
        return 0;
    }
    *o = (kit_outdesc){KIT_F64, c->w, c->h, 1, 0, SEP_ATOL, SEP_RTOL, 1};
    return 1;
}

/* The plane read once and written once (a two-pass variant moves twice this
 * through its temporary; the handout's floor counts both passes). */
static double sep_bytes(const kit_problem *p, int v)
{
    KIT_UNUSED(v);
    return 2.0 * (double)((const lab04_sep *)p->data)->n * sizeof(double);
}

static void sep_release(kit_problem *p)
{
    lab04_sep *c = p->data;
    if (c) {
        kit_filter_free(&c->f);
        free(c->base);
        free(c->px);
        free(c->cur);
    }
    free(c);
    p->data = NULL;
}

/* ---------------------------------------------------------------- the lab */

static const kit_part_spec parts[] = {
    {
        .name = "rgb",
        .title = "8-bit RGB through shared memory: the course guide's steps, then the fastest",
        .opts = rgb_opts,
        .first_variant = 1,
        .nvariants = KIT_NELEMS(rgb_variants),
        .variants = rgb_variants,
        .help_extra = "8-bit results must equal the CPU reference exactly. Filters with 8-bit integer\n"
                      "weights up to radius 2: laplace5, edge3, sharpen3, gauss5, gaussian --radius\n"
                      "1|2. v6 reads and writes planar channels. kernel ms: the launch alone, the L2\n"
                      "flushed; total ms adds the copies in and out.",
        .make = rgb_make,
        .fresh = rgb_fresh,
        .output = rgb_output,
        .bytes = rgb_bytes,
        .release = rgb_release,
    },
    {
        .name = "sep",
        .title = "separable filter in double on one plane: shared tiles, constant taps, registers",
        .opts = sep_opts,
        .first_variant = 1,
        .nvariants = KIT_NELEMS(sep_variants),
        .variants = sep_variants,
        .help_extra = "float64 results within 1e-9 + 1e-12 |ref| (rounding only). --pinned: page-\n"
                      "locked host buffers, faster copies. kernel ms: both passes, the L2 flushed;\n"
                      "total ms adds the copies in and out.",
        .make = sep_make,
        .fresh = sep_fresh,
        .output = sep_output,
        .bytes = sep_bytes,
        .release = sep_release,
    },
};

const kit_lab_desc kit_lab_spec = {"04", "convolution through shared memory", 1, 2, parts};
