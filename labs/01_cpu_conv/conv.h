/* conv.h - lab 01: 2D convolution on the CPU (the functions you write).
 *
 * The picture is RGBA, one float per channel (0..255), channels interleaved:
 * channel ch of pixel (x, y) of an image W pixels wide is at [(y*W + x)*4 + ch].
 *
 * Every function reads the zero-padded extended image h_src: the W x H
 * picture with R black pixels added on every side, so it is (W+2R) x (H+2R)
 * pixels and ext_width = W + 2R. Pixel (x, y) of the picture is pixel
 * (x+R, y+R) of h_src. The output h_dst is W x H x 4, each value clamped to
 * 0..255:
 *     dst(x, y, ch) = clamp( sum_{i=0}^{2R} sum_{j=0}^{2R} f[i][j] * src(x+j, y+i, ch) )
 * (src in extended coordinates). Each channel, alpha included, is filtered
 * on its own.
 *
 * Return KIT_OK when done, KIT_NOT_IMPLEMENTED while the body is a TODO.
 */
#ifndef LAB01_CONV_H
#define LAB01_CONV_H

#include "kit.h"

#define CONV_CHANNELS 4

/* v1 and v2: h_filter holds (2R+1)*(2R+1) coefficients, row-major. */
int conv_v1(const float *h_src, int ext_width, float *h_dst, int width, int height,
            const float *h_filter, int radius);
int conv_v2(const float *h_src, int ext_width, float *h_dst, int width, int height,
            const float *h_filter, int radius);

/* v3, for separable filters f[i][j] = h_col[i] * h_row[j]: a row pass then a
 * column pass, in double. */
int conv_v3(const float *h_src, int ext_width, float *h_dst, int width, int height,
            const double *h_row, const double *h_col, int radius);

#endif
