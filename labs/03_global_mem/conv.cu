/* conv.cu - lab 03: 2D convolution on the GPU, global memory only.
 *
 * Versions (./lab03 --variant N), one step each, in teaching order:
 *   v1 linear-grid: 1D grid, thread i takes pixel i, filter in global memory (the baseline)
 *   v2 2d-grid: x, y from a 2D grid: no division, a block's windows overlap in the cache
 *   v3 const-filter: taps in constant memory, broadcast to the whole warp in one read
 *   v4 unrolled: one kernel per radius, loops unrolled: no counters, taps at fixed places
 *   v5 planar-bytes: v4 on planar channels (the layout alone): a warp's bytes contiguous
 *   v6 planar-words (words.cu): 8x4 pixels a thread, 4 bytes a load, 4 taps a dp4a: far fewer instructions
 *   v7 separable-f64: row then column pass in double: 2(2R+1) taps instead of (2R+1)^2
 *   v8 channel-threads: v2, a thread a channel: warps load 32 adjacent bytes, but 3x the tap reads
 *
 * Sections: device helpers, kernels, launchers.
 */
#include "conv.h"

/* ----------------------------------------------------------- device helpers */

__constant__ float c_filter[CONV_MAX_TAPS];

/* v1 to v3: output pixel (x, y) of an interleaved picture, inside it, from
 * the (2R+1)^2 taps at `filter` (global or constant memory: the caller's
 * choice is the only difference between v2 and v3). */
__device__ KIT_MAYBE_UNUSED static inline void conv_pixel(const unsigned char *d_in,
                                                          unsigned char *d_out, int width,
                                                          int height, int x, int y,
                                                          const float *filter, int radius)
{
    // TODO: sum the window over rows i and columns j of the filter; a tap
    // whose pixel (x+j-R, y+i-R) lies outside the picture adds nothing (skip
    // it: no read outside the picture). Three sums, one per channel; write
    // the three bytes of pixel (x, y) with kit_to_u8f().
}

/* ------------------------------------------------------------------ kernels */

/* v1: a 1D grid over every pixel, filter in global memory */
__global__ void conv_v1_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, const float *d_filter, int radius)
{
    // TODO: this thread's pixel number i from blockIdx.x, blockDim.x and
    // threadIdx.x; threads past the last pixel (i >= W*H) do nothing; the
    // pixel's row and column from i; then conv_pixel().
}

/* v2: a 2D grid, filter in global memory */
__global__ void conv_v2_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, const float *d_filter, int radius)
{
    // TODO: the pixel of this thread from blockIdx, blockDim and threadIdx in
    // x and in y; threads outside the picture (either way) do nothing; then
    // conv_pixel().
}

/* v3: a 2D grid, filter in constant memory */
__global__ void conv_v3_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, int radius)
{
    // TODO: v2 with the taps read from c_filter.
}

/* v4 and v5: the window of v3 with the radius a compile-time constant (each
 * kernel below passes a literal), so that every loop has a known trip count
 * and unrolls completely and every tap index is a constant; planar chooses
 * the layout (v4 interleaved, v5 planar), also at compile time. */
__device__ __forceinline__ void conv_unrolled_body(const unsigned char *d_in,
                                                   unsigned char *d_out, int width, int height,
                                                   const int radius, const int planar)
{
    // TODO: v3's pixel (2D grid, guards, taps from c_filter) written out here
    // with `#pragma unroll` before both window loops: radius is a constant in
    // each kernel below, so the compiler can unroll them. Channel ch of pixel
    // (xx, yy) lives at (yy*W + xx)*3 + ch when interleaved (planar == 0) and
    // at ch*W*H + yy*W + xx when planar.
}

/* One kernel per radius and layout: the radius is a literal in each. */
#define CONV_UNROLLED_KERNELS(R)                                                                \
    __global__ void conv_v4_r##R(const unsigned char *d_in, unsigned char *d_out, int width,    \
                                 int height)                                                    \
    {                                                                                           \
        conv_unrolled_body(d_in, d_out, width, height, R, 0);                                   \
    }                                                                                           \
    __global__ void conv_v5_r##R(const unsigned char *d_in, unsigned char *d_out, int width,    \
                                 int height)                                                    \
    {                                                                                           \
        conv_unrolled_body(d_in, d_out, width, height, R, 1);                                   \
    }
CONV_UNROLLED_KERNELS(0)
CONV_UNROLLED_KERNELS(1)
CONV_UNROLLED_KERNELS(2)
CONV_UNROLLED_KERNELS(3)
CONV_UNROLLED_KERNELS(4)

/* v7: row pass, one double plane */
__global__ void conv_v7_rows(const double *d_in, double *d_tmp, int width, int height,
                             const double *d_row, int radius)
{
    // TODO: d_tmp(x, y) = sum_k d_row[k+R] * d_in(x+k, y), zero outside.
}

/* v7: column pass, one double plane */
__global__ void conv_v7_cols(const double *d_tmp, double *d_out, int width, int height,
                             const double *d_col, int radius)
{
    // TODO: d_out(x, y) = sum_k d_col[k+R] * d_tmp(x, y+k), zero outside.
}

/* v8: v2's 2D grid with one thread per colour channel instead of one per
 * pixel. Grid column t is byte t of an interleaved row: channel t % 3 of
 * pixel t / 3, so the 32 threads of a warp row take 32 adjacent bytes and
 * each tap is one load of 32 adjacent bytes for the warp (v2: three loads
 * of bytes three apart). Filter in global memory, as in v2. */
__global__ void conv_v8_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, const float *d_filter, int radius)
{
    // TODO: grid column t (blockIdx.x, blockDim.x, threadIdx.x) is byte t of
    // an interleaved row: channel t % 3 of pixel x = t / 3; y as in v2.
    // Threads past the row's 3*W bytes or below the picture do nothing. Sum
    // that one channel over the window (taps from d_filter; a window pixel
    // outside the picture adds nothing), then write byte t of row y with
    // kit_to_u8f().
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
    // TODO: blocks of block_w * block_h threads in a row (a 1D block), as
    // many blocks as cover W*H pixels; launch conv_v1_kernel, then
    // KIT_CHECK_LAUNCH(); return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
}

int conv_v2(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            const float *d_filter, int radius, int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(d_filter != NULL);
    // TODO: a 2D grid of block_w x block_h blocks covering the picture (the
    // last column and row of blocks may stick out), the launch of
    // conv_v2_kernel, then KIT_CHECK_LAUNCH(); return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
}

int conv_upload_filter(const float *h_filter, int radius)
{
    KIT_REQUIRE(h_filter != NULL && radius >= 0 && radius <= CONV_MAX_RADIUS);
    const int size = 2 * radius + 1;
    CUDA_CHECK(cudaMemcpyToSymbol(c_filter, h_filter, (size_t)size * size * sizeof(float)));
    return KIT_OK;
}

int conv_v3(const unsigned char *d_in, unsigned char *d_out, int width, int height, int radius,
            int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    // TODO: launch conv_v3_kernel as in v2.
    return KIT_NOT_IMPLEMENTED;
}

int conv_v4(const unsigned char *d_in, unsigned char *d_out, int width, int height, int radius,
            int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_UNROLL_MAX_RADIUS, block_w,
                       block_h);
    if (r != KIT_OK)
        return r;
    // TODO: launch the kernel made for this radius (conv_v4_r0 .. conv_v4_r4)
    // on v3's grid.
    return KIT_NOT_IMPLEMENTED;
}

int conv_v5(const unsigned char *d_in, unsigned char *d_out, int width, int height, int radius,
            int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_UNROLL_MAX_RADIUS, block_w,
                       block_h);
    if (r != KIT_OK)
        return r;
    // TODO: as v4, with the planar kernels conv_v5_r0 .. conv_v5_r4.
    return KIT_NOT_IMPLEMENTED;
}

int conv_v7(const double *d_in, double *d_tmp, double *d_out, int width, int height,
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

int conv_v8(const unsigned char *d_in, unsigned char *d_out, int width, int height,
            const float *d_filter, int radius, int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(d_filter != NULL);
    // TODO: v2's grid with three times the threads across (one per byte of
    // a row, 3*W), the launch of conv_v8_kernel, then KIT_CHECK_LAUNCH();
    // return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
}
