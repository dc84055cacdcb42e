/* conv.h - lab 04: convolution on the GPU through shared memory (the
 * functions you write: part rgb in conv.cu (v1-v5) and tile.cu (v6), part
 * sep in sep.cu).
 *
 * Part rgb: RGB pictures, 8 bits per channel, a (2R+1)^2 filter with
 * R <= 2. Interleaved: channel ch of pixel (x, y) at [(y*W + x)*3 + ch];
 * planar (v6): [ch*W*H + y*W + x]. Black (zero) outside the picture: the
 * loads into shared memory guard their reads.
 *
 *     out(x, y, ch) = to_u8( sum_{i,j} f[i][j] * in(x+j-R, y+i-R, ch) )
 *
 * to_u8 clamps to 0..255 and rounds half up. The filter is in constant
 * memory as floats and as integer taps with weight = tap / 2^shift
 * (conv_rgb_upload_filter), and for v6 as 8-bit taps four to a word
 * (conv_rgb_v6_upload_taps).
 *
 * Part sep: one float64 plane of W x H, a separable filter of radius R <= 80
 * (2R+1 taps per pass): a row pass into d_tmp, then a column pass into
 * d_out, zero outside the plane.
 *
 *     tmp(x, y) = sum_k row[k] * in(x+k-R, y)     out(x, y) = sum_k col[k] * tmp(x, y+k-R)
 *
 * Every launcher takes device pointers, launches its kernel(s), checks each
 * launch (KIT_CHECK_LAUNCH) and returns KIT_OK (KIT_NOT_IMPLEMENTED while it
 * is a TODO). It must not synchronise or copy: the harness times it with
 * CUDA events, the copies outside.
 */
#ifndef LAB04_CONV_H
#define LAB04_CONV_H

#include "gpu.h"

#define CONV_CHANNELS 3
#define CONV_RGB_MAX_RADIUS 2 /* the guide's 5x5 filter: a (16+4)x(16+4) window */
#define CONV_RGB_MAX_TAPS ((2 * CONV_RGB_MAX_RADIUS + 1) * (2 * CONV_RGB_MAX_RADIUS + 1))
#define CONV_GUIDE_BLOCK 16 /* v1-v4: the guide's 16x16 thread blocks */
#define CONV_V6_MAX_THREADS 512 /* v6 kernels are compiled for blocks of at most 512 threads */
#define CONV_V6_LEAD 16 /* v6: bytes kept in a tile row left of the block's first column */
/* sep v4 takes blocks of at most this many threads: with 16 outputs a
 * thread its kernels need about 70 registers, too many for 1024 threads */
#define CONV_SEP_V4_MAX_THREADS(per_thread) ((per_thread) >= 16 ? 512 : 1024)
#define CONV_SEP_MAX_RADIUS 80 /* 2*80+1 taps in constant memory, as in the course's report */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- part rgb */

/* The filter into constant memory, once, before any variant runs: (2R+1)^2
 * float weights and the same as integer taps (each in -128..127) with
 * weight = tap / 2^shift (common/filters.h: kit_filter_taps_i8); v6's copy,
 * four taps a word, lives in tile.cu. */
int conv_rgb_upload_filter(const float *h_w32, const signed char *h_taps8, int shift, int radius);
int conv_rgb_v6_upload_taps(const signed char *h_taps8, int shift, int radius);

/* v1: 16x16 blocks; the (16+2R)x(16+2R)-pixel window of a block loaded into
 * shared memory byte by byte (for R = 2: 60x20 bytes, by 240 threads, four
 * rows a step, five steps), then integer sums from shared memory. */
int conv_rgb_v1(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius);
/* v2: v1 with float weights: every byte read from shared memory is
 * converted to float before it is used. */
int conv_rgb_v2(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius);
/* v3: the window stored as floats, converted once when stored. */
int conv_rgb_v3(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius);
/* v4: v3 with every stored row followed by `pad` dummy words, so that the
 * next row starts in another bank; pad < 0: the launcher's own choice. */
int conv_rgb_v4(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius, int pad);
/* v5: v3 with blocks of block_w x block_h threads (32x8 by default), so that
 * a warp reads one row of the window. */
int conv_rgb_v5(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius, int block_w, int block_h);
/* v6: planar channels (grid layer blockIdx.z is the plane); each thread
 * computes tile_w x tile_h pixels of its plane from 32-bit words of a
 * shared tile, four taps a dp4a. Tiles 4x4 4x8 8x2 8x4 8x8 16x2 16x4. */
int conv_rgb_v6(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius, int block_w, int block_h, int tile_w, int tile_h);
/* 1 when v6 has a kernel for this radius and tile. */
int conv_rgb_v6_has(int radius, int tile_w, int tile_h);

/* Dynamic shared memory a v5 or v6 launch asks for (bytes), so that the
 * harness can refuse a block shape the GPU cannot hold before anything runs. */
static inline size_t conv_rgb_v5_smem(int radius, int block_w, int block_h)
{
    return (size_t)(block_w + 2 * radius) * (size_t)(block_h + 2 * radius) * CONV_CHANNELS *
           sizeof(float);
}
static inline size_t conv_rgb_v6_smem(int radius, int block_w, int block_h, int tile_w,
                                      int tile_h)
{
    const size_t tw = (size_t)block_w * (size_t)tile_w;
    const size_t pitch = (tw + 15) / 16 * 16 + 2 * CONV_V6_LEAD;
    return ((size_t)block_h * (size_t)tile_h + 2 * (size_t)radius) * pitch;
}

/* ---------------------------------------------------------------- part sep */

/* Row and column taps (2R+1 doubles each) into constant memory, once. */
int conv_sep_upload_taps(const double *h_row, const double *h_col, int radius);

/* v1 (given): a row kernel and a column kernel straight from global memory,
 * the taps (d_row, d_col) in global memory too. */
int conv_sep_v1(const double *d_in, double *d_tmp, double *d_out, int width, int height,
                const double *d_row, const double *d_col, int radius, int block_w,
                int block_h);
/* v2: each block copies its tile and R halo cells on each side into shared
 * memory first (rows for the row pass, columns for the column pass); taps
 * still in global memory. */
int conv_sep_v2(const double *d_in, double *d_tmp, double *d_out, int width, int height,
                const double *d_row, const double *d_col, int radius, int block_w,
                int block_h);
/* v3: v2 with the taps in constant memory. */
int conv_sep_v3(const double *d_in, double *d_tmp, double *d_out, int width, int height,
                int radius, int block_w, int block_h);
/* v4: every thread computes per_thread consecutive outputs (4, 8 or 16)
 * from registers that each serve several taps. */
int conv_sep_v4(const double *d_in, double *d_tmp, double *d_out, int width, int height,
                int radius, int block_w, int block_h, int per_thread);

/* Dynamic shared memory of v2/v3 (row and column kernels alike) and of v4's
 * row and column kernels, in bytes. */
static inline size_t conv_sep_v2_smem(int radius, int block_w, int block_h)
{
    const size_t a = (size_t)block_h * (size_t)(block_w + 2 * radius);
    const size_t b = (size_t)(block_h + 2 * radius) * (size_t)block_w;
    return (a > b ? a : b) * sizeof(double);
}
static inline size_t conv_sep_v4_row_smem(int radius, int block_w, int block_h, int per_thread)
{
    const size_t span = (size_t)block_w * (size_t)per_thread + 2 * (size_t)radius;
    return (size_t)block_h * (span + span / (size_t)per_thread + 1) * sizeof(double);
}
static inline size_t conv_sep_v4_col_smem(int radius, int block_w, int block_h, int per_thread)
{
    return ((size_t)block_h * (size_t)per_thread + 2 * (size_t)radius) * (size_t)block_w *
           sizeof(double);
}

#ifdef __cplusplus
}
#endif
#endif
