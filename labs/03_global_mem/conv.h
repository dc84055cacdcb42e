/* conv.h - lab 03: 2D convolution on the GPU from global memory (the
 * functions you write, in conv.cu and, for v6, words.cu).
 *
 * Pictures are RGB, 8 bits per channel. Interleaved ("array of structs"):
 * channel ch of pixel (x, y) is at [(y*W + x)*3 + ch]. Planar ("struct of
 * arrays"): three planes of W*H bytes, channel ch of pixel (x, y) at
 * [ch*W*H + y*W + x]. Outside the picture every pixel is black (zero): the
 * kernels guard their reads, there is no padded copy on the GPU.
 *
 *     out(x, y, ch) = to_u8( sum_{i,j} f[i][j] * in(x+j-R, y+i-R, ch) )
 * where to_u8 clamps to 0..255 and rounds half up (floor(v + 0.5)).
 *
 * Every launcher takes device pointers, launches its kernel(s) with blocks
 * of block_w x block_h threads (v1: block_w * block_h threads in a row; v8:
 * block_w threads across the bytes of a row),
 * checks each launch, and returns KIT_OK (or KIT_NOT_IMPLEMENTED while it is
 * a TODO). It must not synchronise or copy: the harness times it with CUDA
 * events.
 */
#ifndef LAB03_CONV_H
#define LAB03_CONV_H

#include "gpu.h"

#define CONV_CHANNELS 3
#define CONV_MAX_RADIUS 8 /* 2D filters: (2*8+1)^2 taps fit constant memory easily */
#define CONV_MAX_TAPS ((2 * CONV_MAX_RADIUS + 1) * (2 * CONV_MAX_RADIUS + 1))
#define CONV_UNROLL_MAX_RADIUS 4 /* v4, v5: one kernel per radius, 0 .. 4 (every filter exact in float) */
#define CONV_DP4A_MAX_RADIUS 2   /* v6: one kernel per radius, 0 .. 2 (every 8-bit-weight filter of the course) */
#define CONV_SEP_MAX_RADIUS 80   /* v7: 2*80+1 taps per pass, as the course's separable filter allows */

#ifdef __cplusplus
extern "C" {
#endif

/* v1: a 1D grid over all W*H pixels (thread i takes pixel i of the picture
 * in row order); interleaved RGB; the filter ((2R+1)^2 floats, row-major) in
 * global memory. */
int conv_v1(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            const float *d_filter, int radius, int block_w, int block_h);

/* v2: v1 on a 2D grid of 2D blocks: a thread's x and y come from the block
 * and thread indices. */
int conv_v2(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            const float *d_filter, int radius, int block_w, int block_h);

/* Copy the filter into constant memory, once, before v3 to v5 run. */
int conv_upload_filter(const float *h_filter, int radius);

/* v3: v2 with the filter read from constant memory. */
int conv_v3(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            int radius, int block_w, int block_h);

/* v4: v3 with the radius fixed at compile time (one kernel per radius up to
 * CONV_UNROLL_MAX_RADIUS) and the window loops unrolled. */
int conv_v4(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            int radius, int block_w, int block_h);

/* v5: v4 on planar channels: the layout is the only change. */
int conv_v5(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            int radius, int block_w, int block_h);

/* v6's copy of the filter: integer taps ((2R+1)^2 of them, row-major), each
 * in -128..127, with weight = tap / 2^shift. The harness calls it when the
 * filter has such weights (laplace5, edge3, sharpen3, gauss5, gaussian up to
 * radius 2); other filters do not run on v6. */
int conv_upload_filter8(const signed char *h_taps, int radius, int shift);

/* A kernel of v4, v5 or v6 for one radius: (d_in, d_out, width, height). */
typedef void (*conv_u8_kernel)(const unsigned char *, unsigned char *, int, int);

/* v6 (words.cu): planar channels, 2D grid; each thread computes a small patch of one
 * plane (grid layer blockIdx.z) from whole 32-bit words: four bytes a load
 * where rows start on 4-byte boundaries (width % 4 == 0), and four bytes
 * times four 8-bit weights an instruction (dp4a), in exact integer sums.
 * Radius up to CONV_DP4A_MAX_RADIUS. */
int conv_v6(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            int radius, int block_w, int block_h);

/* v7: separable filter in double on one float64 plane of W x H: a row pass
 * into d_tmp, then a column pass into d_out; taps (2R+1 each) in global
 * memory. The harness calls it once per channel plane. */
int conv_v7(const double *d_in, double *d_tmp, double *d_out, int width, int height,
            const double *d_row, const double *d_col, int radius, int block_w, int block_h);

/* v8: v2 with one thread per colour channel instead of one per pixel: the
 * grid covers the 3*W bytes of each interleaved row, byte t being channel
 * t % 3 of pixel t / 3; filter in global memory. */
int conv_v8(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            const float *d_filter, int radius, int block_w, int block_h);

#ifdef __cplusplus
}
#endif
#endif
