/* spec.c - lab 01's description (common/spec.h), read by its harness and by
 * the grader's checker: the RGBA float picture, zero border, clamped output.
 *
 * Input: the picture of --size (or --image) and --seed as RGBA floats 0..255,
 * zero-padded by the filter's radius. Fresh content for timed repetitions:
 * the picture's bytes XOR a pattern of the key (kit_bytes_fresh). Output:
 * W x H x 4 floats, interleaved, clamped to 0..255, within 0.01 + 1e-5 |ref|.
 */
#include <stdlib.h>

#include "conv.h"
#include "convin.h"
#include "spec.h"

#define ATOL 1e-2
#define RTOL 1e-5

static const kit_optdesc opts[] = {
    KIT_OPTD_SIZE("1024x768"), KIT_OPTD_IMAGE, KIT_OPTD_FILTER("laplace5"), KIT_OPTD_RADIUS,
    KIT_OPTD_END};

static const kit_variant_desc variants[] = {
    {"naive", "window loops inside the pixel loop, full index arithmetic (baseline)",
     KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"loop-order", "pixel loop innermost over contiguous memory, pointer steps: streams, vectorizes",
     KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"separable", "row pass then column pass in double: 2(2R+1) taps instead of (2R+1)^2",
     KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
};

static int make(kit_problem *p, char *err, size_t errlen)
{
    return kit_conv_make(p, CONV_CHANNELS, 1, err, errlen);
}

static int output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    const kit_conv_input *in = p->data;
    if (v == 3 && !in->filter.separable) {
        kit_set_err(why, whylen, "filter %s is not separable; v3 needs gauss5, box or gaussian",
                    in->filter.name);
        return 0;
    }
    *o = kit_conv_input_output(in, ATOL, RTOL);
    return 1;
}

static const kit_part_spec parts[] = {{
    .name = "",
    .title = "2D convolution on the CPU: RGBA float picture, zero-padded, clamped to 0..255",
    .opts = opts,
    .first_variant = 1,
    .nvariants = KIT_NELEMS(variants),
    .variants = variants,
    .help_extra = "tolerance: |got - ref| <= 0.01 + 1e-5 |ref| per channel (laplace5, edge3,\n"
                  "sharpen3 and gauss5 are exact on 8-bit pictures)",
    .make = make,
    .fresh = kit_conv_fresh,
    .output = output,
    .bytes = kit_conv_bytes,
    .release = kit_conv_release,
}};

const kit_lab_desc kit_lab_spec = {"01", "2D convolution on the CPU", 0, 1, parts};
