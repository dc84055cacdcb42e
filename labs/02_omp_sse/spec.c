/* spec.c - lab 02's description (common/spec.h), read by its harness and by
 * the grader's checker: lab 01's problem (RGBA floats, zero border, clamped)
 * with rows of the padded copy rounded up to whole 64-byte lines for aligned
 * SIMD loads. --threads and --isa only change how a variant runs.
 */
#include <stdlib.h>

#include "conv.h"
#include "convin.h"
#include "spec.h"

#define ATOL 1e-2
#define RTOL 1e-5

static const kit_optdesc opts[] = {
    KIT_OPTD_SIZE("1024x768"), KIT_OPTD_IMAGE, KIT_OPTD_FILTER("laplace5"), KIT_OPTD_RADIUS,
    {"--threads", KIT_ARG_INT, KIT_ARG_RUN, "N", "CPU threads (default OMP_NUM_THREADS or all cores)",
     NULL, 1, 4096},
    {"--isa", KIT_ARG_STR, KIT_ARG_RUN, "sse|avx2|avx512",
     "force v5's SIMD width (default: the widest the CPU runs)", NULL, 0, 0},
    KIT_OPTD_END};

#define V(name, what) {name, what, KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0}
static const kit_variant_desc variants[] = {
    V("scalar", "lab 01's loop order, plain C, one thread (the baseline)"),
    V("omp-rows", "v0 with the rows shared among threads: one fork/join, big pieces"),
    V("omp-pixels", "v0 with each row's pixels shared instead: a fork/join per row (loses)"),
    V("sse", "one pixel per __m128, aligned loads, branch-free clamp, one thread"),
    V("sse-omp", "v3 with the rows shared among threads"),
    V("wide-omp", "v4 with AVX2+FMA (2 pixels a register) or AVX-512 (4), picked at run time"),
};

static int make(kit_problem *p, char *err, size_t errlen)
{
    return kit_conv_make(p, CONV_CHANNELS, CONV_STRIDE_ALIGN, err, errlen);
}

static int output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    KIT_UNUSED(v);
    KIT_UNUSED(why);
    KIT_UNUSED(whylen);
    *o = kit_conv_input_output(p->data, ATOL, RTOL);
    return 1;
}

static const kit_part_spec parts[] = {{
    .name = "",
    .title = "2D convolution with OpenMP and SIMD: RGBA float picture, zero-padded, clamped",
    .opts = opts,
    .first_variant = 0,
    .nvariants = KIT_NELEMS(variants),
    .variants = variants,
    .help_extra = "tolerance: |got - ref| <= 0.01 + 1e-5 |ref| per channel (laplace5, edge3,\n"
                  "sharpen3 and gauss5 are exact on 8-bit pictures)\n"
                  "v0 and v3 always run on one thread; --isa picks v5's registers\n"
                  "(sse: 1 pixel, avx2: 2 pixels, avx512: 4 pixels); an instruction set\n"
                  "the CPU lacks is refused with exit 2",
    .make = make,
    .fresh = kit_conv_fresh,
    .output = output,
    .bytes = kit_conv_bytes,
    .release = kit_conv_release,
}};

const kit_lab_desc kit_lab_spec = {"02", "2D convolution with OpenMP and SIMD", 0, 1, parts};
