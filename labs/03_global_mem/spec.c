/* spec.c - lab 03's description (common/spec.h), read by its harness and by
 * the grader's checker: an RGB picture of 8-bit channels, zero border.
 *
 * Input: the picture of --size (or --image) and --seed, interleaved, with
 * its planar copy (and planar doubles for separable filters). Fresh content
 * for timed repetitions: the picture's bytes XOR a pattern of the key
 * (kit_bytes_fresh), then the copies the variant reads rebuilt. Outputs:
 * W x H x 3 bytes, interleaved (v1 to v4, v8) or planar (v5, v6), exact; v7
 * planar doubles within 1e-9 + 1e-12 |ref|. Each variant's filter limits are
 * decided here, so that the harness and the checker agree on what is n/a.
 */
#include <stdlib.h>
#include <string.h>

#include "convin.h"
#include "image.h"
#include "input.h"
#include "spec.h"

#define ATOL64 1e-9 /* double sums in another order than the reference's: rounding only */
#define RTOL64 1e-12

static const kit_optdesc opts[] = {
    KIT_OPTD_SIZE("4992x3744"), KIT_OPTD_IMAGE, KIT_OPTD_FILTER("laplace5"), KIT_OPTD_RADIUS,
    KIT_OPTD_BLOCK, KIT_OPTD_PINNED, KIT_OPTD_END};

/* v7 launches a row and a column kernel for each of the three planes */
static const kit_variant_desc variants[] = {
    {"linear-grid", "a 1D grid, thread i takes pixel i; interleaved RGB, filter in global memory (baseline)",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"2d-grid", "a 2D grid of 2D blocks: x and y from the indices, no division, a block covers a square",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"const-filter", "filter in constant memory: one broadcast read per tap for the whole warp",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"unrolled", "one kernel per radius, window loops unrolled: no loop counters, constant tap indices",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"planar-bytes", "the unrolled kernel on planar channels: the layout alone",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"planar-words", "planar, 8x4 pixels a thread: 4 bytes a load, 4 taps a dp4a (8-bit weights)",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
    {"separable-f64", "row then column pass in double, 2(2R+1) taps instead of (2R+1)^2",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 2 * CONV_CHANNELS, 0},
    {"channel-threads", "v2 with a thread per colour channel, not per pixel: 3x the threads",
     KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
};

static void release(kit_problem *p)
{
    lab03_input *in = p->data;
    if (in) {
        kit_filter_free(&in->filter);
        free(in->h_base);
        free(in->h_in);
        free(in->h_in_p);
        free(in->h_in64);
        free(in);
    }
    p->data = NULL;
}

static int make(kit_problem *p, char *err, size_t errlen)
{
    lab03_input *in = kit_calloc(1, sizeof *in);
    p->data = in;
    if (kit_arg_set(p->args, "--block")) {
        int bw, bh;
        kit_arg_wxh(p->args, "--block", &bw, &bh);
        if ((long)bw * bh > 1024) {
            kit_set_err(err, errlen, "--block %dx%d has %ld threads; a block holds at most 1024",
                        bw, bh, (long)bw * bh);
            return KIT_EXIT_USAGE;
        }
    }
    if (kit_filter_from_args(p->args, &in->filter, err, errlen))
        return KIT_EXIT_USAGE;
    kit_image img = {0};
    if (kit_input_picture(p->args, p->seed, CONV_CHANNELS, &img, err, errlen))
        return KIT_EXIT_USAGE;
    in->w = img.w;
    in->h = img.h;
    in->n8 = (size_t)img.w * (size_t)img.h * CONV_CHANNELS;
    in->h_base = img.px; /* owned from here */
    in->h_in = kit_malloc(in->n8);
    in->h_in_p = kit_malloc(in->n8);
    memcpy(in->h_in, in->h_base, in->n8);
    kit_interleaved_to_planar_u8(in->h_in, in->h_in_p, in->w, in->h, CONV_CHANNELS);
    if (in->filter.separable) {
        in->h_in64 = kit_malloc(in->n8 * sizeof(double));
        kit_u8_to_f64(in->h_in_p, in->h_in64, in->n8);
    }
    in->taps8_ok = in->filter.radius <= CONV_DP4A_MAX_RADIUS &&
                   kit_filter_taps_i8(&in->filter, in->taps8, &in->shift8);
    p->width = in->w;
    p->height = in->h;
    snprintf(p->param, sizeof p->param, "%s", in->filter.name);
    p->input = (kit_buf){KIT_U8, in->w, in->h, CONV_CHANNELS, 0, in->h_in};
    return 0;
}

/* The key's content into h_in, then into the layouts variant v reads. */
static void fresh(kit_problem *p, int v, unsigned long long key)
{
    lab03_input *in = p->data;
    kit_bytes_fresh(in->h_in, in->h_base, in->n8, key);
    if (LAB03_PLANAR(v) || LAB03_F64(v))
        kit_interleaved_to_planar_u8(in->h_in, in->h_in_p, in->w, in->h, CONV_CHANNELS);
    if (LAB03_F64(v) && in->h_in64)
        kit_u8_to_f64(in->h_in_p, in->h_in64, in->n8);
}

static int output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    const lab03_input *in = p->data;
    const kit_filter *f = &in->filter;
    if (LAB03_F64(v)) {
        if (!f->separable) {
            kit_set_err(why, whylen, "filter %s is not separable; v7 needs gauss5, box or gaussian",
                        f->name);
            return 0;
        }
        *o = (kit_outdesc){.type = KIT_F64, .w = in->w, .h = in->h, .c = CONV_CHANNELS,
                           .planar = 1, .atol = ATOL64, .rtol = RTOL64, .ref_class = 3};
        return 1;
    }
    if (f->radius > CONV_MAX_RADIUS) {
        kit_set_err(why, whylen, "radius %d is beyond the %d the 8-bit variants take; v7 "
                    "(double) takes up to %d", f->radius, CONV_MAX_RADIUS, CONV_SEP_MAX_RADIUS);
        return 0;
    }
    if (!kit_filter_exact_f32(f)) {
        kit_set_err(why, whylen, "%s radius %d: float sums of its weights are not exact, so 8-bit "
                    "results could differ by one; use v7 (double) or an exact filter",
                    f->name, f->radius);
        return 0;
    }
    if ((v == 4 || v == 5) && f->radius > CONV_UNROLL_MAX_RADIUS) {
        kit_set_err(why, whylen, "radius %d: the unrolled kernels exist for radius 0 to %d",
                    f->radius, CONV_UNROLL_MAX_RADIUS);
        return 0;
    }
    if (v == 6 && !in->taps8_ok) {
        kit_set_err(why, whylen, "%s radius %d: v6 multiplies bytes by 8-bit integer weights, "
                    "and this filter's are not integers in -128..127 over a power of two "
                    "(radius up to %d); use v3 or v5", f->name, f->radius, CONV_DP4A_MAX_RADIUS);
        return 0;
    }
    *o = (kit_outdesc){.type = KIT_U8, .w = in->w, .h = in->h, .c = CONV_CHANNELS,
                       .planar = LAB03_PLANAR(v), .atol = 0.0, .rtol = 0.0,
                       .ref_class = LAB03_PLANAR(v) ? 2 : 1};
    return 1;
}

/* The input read once and the output written once. */
static double bytes(const kit_problem *p, int v)
{
    const lab03_input *in = p->data;
    return 2.0 * (double)in->n8 * (LAB03_F64(v) ? sizeof(double) : 1);
}

static const kit_part_spec parts[] = {{
    .name = "",
    .title = "2D convolution on the GPU from global memory: RGB bytes, zero border by guards",
    .opts = opts,
    .first_variant = 1,
    .nvariants = KIT_NELEMS(variants),
    .variants = variants,
    .help_extra =
        "8-bit outputs must equal the CPU reference exactly; v7 (float64) within\n"
        "1e-9 + 1e-12 |ref|. kernel ms: the launch alone (input on the GPU, L2 flushed);\n"
        "total ms: copy in, kernel, copy out. v1 to v5, v8: filters exact in float (not\n"
        "box; gaussian up to radius 4); v6: 8-bit integer weights (laplace5, edge3,\n"
        "sharpen3, gauss5, gaussian up to radius 2); v7: separable filters, radius up to\n"
        "80. --block WxH: every variant (v1: W*H threads in a row; v8: W threads take W\n"
        "bytes of a row, a third of W pixels); default 16x16, v6 32x8.",
    .make = make,
    .fresh = fresh,
    .output = output,
    .bytes = bytes,
    .release = release,
}};

const kit_lab_desc kit_lab_spec = {"03", "2D convolution on the GPU from global memory", 1, 1,
                                   parts};
