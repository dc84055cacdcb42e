/* conv.c - lab 01: 2D convolution on the CPU.
 *
 * Versions (./lab01 --variant N):
 *   v1 straightforward: for each output pixel and channel, walk the window
 *      with full index arithmetic; the baseline.
 *   v2 loop order: a chunk of an output row at a time, the window loops
 *      outside and the pixel loop innermost over contiguous memory, addresses
 *      stepped by pointer increments; the sums stay in L1, reads stream.
 *   v3 separable: a row pass then a column pass in double, 2(2R+1) taps per
 *      pixel instead of (2R+1)^2; only for separable filters.
 *
 * The sections below: CPU helpers, the variants, nothing else (the harness
 * in main.c owns the reference, timing and checking).
 */
#include <stdlib.h>

#include "conv.h"

/* ------------------------------------------------------------------ helpers */

/* Clamp to the 0..255 range an 8-bit picture can hold. */
static float clamp255(float v)
{
    return v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
}

/* --------------------------------------------------------------- v1: naive */

int conv_v1(const float *h_src, int ext_width, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    // TODO: for every output pixel (x, y) and channel ch, add up
    // h_filter[i][j] * src(x+j, y+i, ch) over the window, clamp to 0..255 and
    // store it in h_dst. Work out the linear address of a pixel first.
    KIT_UNUSED(h_src); KIT_UNUSED(ext_width); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius); KIT_UNUSED(clamp255);
    return KIT_NOT_IMPLEMENTED;
}

/* ---------------------------------------------------------- v2: loop order */

int conv_v2(const float *h_src, int ext_width, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    // TODO: the same result as v1, faster. Which loop should be innermost so
    // that consecutive iterations touch consecutive addresses? How do you step
    // to the next row of the window with one addition?
    KIT_UNUSED(h_src); KIT_UNUSED(ext_width); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
}

/* ----------------------------------------------------------- v3: separable */

int conv_v3(const float *h_src, int ext_width, float *h_dst, int width, int height,
            const double *h_row, const double *h_col, int radius)
{
    // TODO: filter every extended row with h_row into a temporary image (in
    // double), then every column of that with h_col; clamp to 0..255.
    KIT_UNUSED(h_src); KIT_UNUSED(ext_width); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_row); KIT_UNUSED(h_col); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
}
