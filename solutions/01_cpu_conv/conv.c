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
    /* >>> SOLUTION */
    const int size = 2 * radius + 1;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            for (int ch = 0; ch < CONV_CHANNELS; ch++) {
                float sum = 0.0f;
                for (int i = 0; i < size; i++)
                    for (int j = 0; j < size; j++) {
                        /* pixel (x+j, y+i) of the extended image */
                        long p = (long)(y + i) * ext_width + (x + j);
                        sum += h_filter[i * size + j] * h_src[p * CONV_CHANNELS + ch];
                    }
                h_dst[((long)y * width + x) * CONV_CHANNELS + ch] = clamp255(sum);
            }
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: for every output pixel (x, y) and channel ch, add up
    // h_filter[i][j] * src(x+j, y+i, ch) over the window, clamp to 0..255 and
    // store it in h_dst. Work out the linear address of a pixel first.
    KIT_UNUSED(h_src); KIT_UNUSED(ext_width); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius); KIT_UNUSED(clamp255);
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

/* ---------------------------------------------------------- v2: loop order */

int conv_v2(const float *h_src, int ext_width, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    /* >>> SOLUTION */
    const int size = 2 * radius + 1;
    const long row_len = (long)width * CONV_CHANNELS;     /* floats in an output row */
    const long ext_row = (long)ext_width * CONV_CHANNELS; /* floats in an input row */
    enum { CHUNK = 1024 };                                /* 4 KiB of sums stay in L1 */
    float acc[CHUNK];
    for (int y = 0; y < height; y++) {
        float *d = h_dst + (long)y * row_len;
        for (long k0 = 0; k0 < row_len; k0 += CHUNK) {
            const long n = row_len - k0 < CHUNK ? row_len - k0 : CHUNK;
            for (long k = 0; k < n; k++)
                acc[k] = 0.0f;
            /* top-left of the window, for the first element of the chunk */
            const float *win = h_src + (long)y * ext_row + k0;
            const float *f = h_filter;
            for (int i = 0; i < size; i++, win += ext_row) {
                const float *s = win;
                for (int j = 0; j < size; j++, s += CONV_CHANNELS) {
                    const float c = *f++;
                    /* every channel of consecutive pixels: contiguous */
                    for (long k = 0; k < n; k++)
                        acc[k] += c * s[k];
                }
            }
            for (long k = 0; k < n; k++)
                d[k0 + k] = clamp255(acc[k]);
        }
    }
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: the same result as v1, faster. Which loop should be innermost so
    // that consecutive iterations touch consecutive addresses? How do you step
    // to the next row of the window with one addition?
    KIT_UNUSED(h_src); KIT_UNUSED(ext_width); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

/* ----------------------------------------------------------- v3: separable */

int conv_v3(const float *h_src, int ext_width, float *h_dst, int width, int height,
            const double *h_row, const double *h_col, int radius)
{
    /* >>> SOLUTION */
    const int size = 2 * radius + 1;
    const int ext_height = height + 2 * radius;
    const long tmp_row = (long)width * CONV_CHANNELS;
    /* row pass over every extended row: tmp is width x ext_height */
    double *tmp = malloc((size_t)tmp_row * (size_t)ext_height * sizeof *tmp);
    if (!tmp)
        return KIT_RUNTIME_ERROR;
    for (int y = 0; y < ext_height; y++) {
        const float *s = h_src + (long)y * ext_width * CONV_CHANNELS;
        double *t = tmp + (long)y * tmp_row;
        for (long k = 0; k < tmp_row; k++)
            t[k] = 0.0;
        for (int j = 0; j < size; j++) {
            const double c = h_row[j];
            const float *sj = s + (long)j * CONV_CHANNELS;
            for (long k = 0; k < tmp_row; k++)
                t[k] += c * sj[k];
        }
    }
    /* column pass: output row y gathers tmp rows y .. y+2R */
    double *acc = malloc((size_t)tmp_row * sizeof *acc);
    if (!acc) {
        free(tmp);
        return KIT_RUNTIME_ERROR;
    }
    for (int y = 0; y < height; y++) {
        for (long k = 0; k < tmp_row; k++)
            acc[k] = 0.0;
        for (int i = 0; i < size; i++) {
            const double c = h_col[i];
            const double *t = tmp + (long)(y + i) * tmp_row;
            for (long k = 0; k < tmp_row; k++)
                acc[k] += c * t[k];
        }
        float *d = h_dst + (long)y * tmp_row;
        for (long k = 0; k < tmp_row; k++)
            d[k] = clamp255((float)acc[k]);
    }
    free(acc);
    free(tmp);
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: filter every extended row with h_row into a temporary image (in
    // double), then every column of that with h_col; clamp to 0..255.
    KIT_UNUSED(h_src); KIT_UNUSED(ext_width); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_row); KIT_UNUSED(h_col); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
