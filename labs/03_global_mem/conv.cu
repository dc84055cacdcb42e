/* conv.cu - lab 03: 2D convolution on the GPU, global memory only.
 *
 * Versions (./lab03 --variant N):
 *   v1 one thread per output pixel, 16x16 blocks, interleaved RGB bytes, the
 *      filter read from global memory; the zero border by guards (baseline).
 *   v2 the filter in constant memory: every thread of a warp reads the same
 *      tap at once, which the constant cache broadcasts in one transaction.
 *   v3 planar channels and a 2D grid: a warp's reads of one channel are 32
 *      consecutive bytes instead of bytes three apart, so fewer sectors move.
 *   v4 separable filter in double: a row pass then a column pass, 2(2R+1)
 *      taps per pixel instead of (2R+1)^2 (seed 000's starting point).
 *   v5 v3 with four horizontal neighbours per thread: each byte loaded once
 *      serves up to four outputs, so far fewer load instructions per pixel.
 *
 * Sections: device helpers, kernels, launchers.
 */
#include "conv.h"

/* ----------------------------------------------------------- device helpers */

__constant__ float c_filter[CONV_MAX_TAPS];

/* The kit's one float -> byte rule: clamp to 0..255, round half up. */
__device__ KIT_MAYBE_UNUSED static inline unsigned char to_u8(float v)
{
    v = fminf(fmaxf(v, 0.0f), 255.0f);
    return (unsigned char)floorf(v + 0.5f);
}

/* Blocks needed to cover n items with blocks of b. */
KIT_MAYBE_UNUSED static inline int blocks_for(int n, int b)
{
    return (n + b - 1) / b;
}

/* ------------------------------------------------------------------ kernels */

/* v1: interleaved, filter in global memory */
__global__ void conv_v1_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, const float *d_filter, int radius)
{
    // TODO: the pixel of this thread from blockIdx, blockDim and threadIdx;
    // threads outside the picture do nothing; sum the window with guards for
    // pixels outside the picture; write the three bytes with to_u8().
}

/* v2: interleaved, filter in constant memory */
__global__ void conv_v2_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, int radius)
{
    // TODO: v1 with the taps read from c_filter.
}

/* v3: planar, filter in constant memory */
__global__ void conv_v3_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, int radius)
{
    // TODO: as v2, but the three channels are three planes of width*height.
}

/* v4: row pass, one double plane */
__global__ void conv_v4_rows(const double *d_in, double *d_tmp, int width, int height,
                             const double *d_row, int radius)
{
    // TODO: d_tmp(x, y) = sum_k d_row[k+R] * d_in(x+k, y), zero outside.
}

/* v4: column pass, one double plane */
__global__ void conv_v4_cols(const double *d_tmp, double *d_out, int width, int height,
                             const double *d_col, int radius)
{
    // TODO: d_out(x, y) = sum_k d_col[k+R] * d_tmp(x, y+k), zero outside.
}

/* v5: planar, four horizontally adjacent outputs per thread */
#define V5_PIX 4
__global__ void conv_v5_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, int radius)
{
    // TODO: outputs x0 .. x0+3 of row y of plane blockIdx.z; load each input
    // byte of the window rows once and add it into every output it touches.
}

/* ---------------------------------------------------------------- launchers */

static int check_args(const void *d_in, const void *d_out, int width, int height, int radius,
                      int max_radius, int block_w, int block_h)
{
    KIT_REQUIRE(d_in != NULL && d_out != NULL && d_in != d_out);
    KIT_REQUIRE(width > 0 && height > 0);
    KIT_REQUIRE(radius >= 0 && radius <= max_radius);
    KIT_REQUIRE(block_w > 0 && block_h > 0 && block_w * block_h <= 1024);
    return KIT_OK;
}

int conv_v1(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            const float *d_filter, int radius, int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(d_filter != NULL);
    // TODO: a 2D grid of block_w x block_h blocks covering the picture, the
    // launch of conv_v1_kernel, then KIT_CHECK_LAUNCH(); return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
}

int conv_upload_filter(const float *h_filter, int radius)
{
    KIT_REQUIRE(h_filter != NULL && radius >= 0 && radius <= CONV_MAX_RADIUS);
    const int size = 2 * radius + 1;
    CUDA_CHECK(cudaMemcpyToSymbol(c_filter, h_filter, (size_t)size * size * sizeof(float)));
    return KIT_OK;
}

int conv_v2(const unsigned char *d_in, unsigned char *d_out, int width, int height, int radius,
            int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    // TODO: launch conv_v2_kernel as in v1.
    return KIT_NOT_IMPLEMENTED;
}

int conv_v3(const unsigned char *d_in, unsigned char *d_out, int width, int height, int radius,
            int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    // TODO: launch conv_v3_kernel on a 2D grid.
    return KIT_NOT_IMPLEMENTED;
}

int conv_v4(const double *d_in, double *d_tmp, double *d_out, int width, int height,
            const double *d_row, const double *d_col, int radius, int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_SEP_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(d_tmp != NULL && d_tmp != d_in && d_tmp != d_out);
    KIT_REQUIRE(d_row != NULL && d_col != NULL);
    // TODO: launch the row pass, check it, then the column pass, check it.
    return KIT_NOT_IMPLEMENTED;
}

int conv_v5(const unsigned char *d_in, unsigned char *d_out, int width, int height, int radius,
            int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    // TODO: each thread covers four pixels of a row, so the grid needs a
    // quarter of the threads across; one grid layer (blockIdx.z) per plane.
    return KIT_NOT_IMPLEMENTED;
}
