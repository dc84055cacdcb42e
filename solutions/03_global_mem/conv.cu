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
    /* >>> SOLUTION */
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int size = 2 * radius + 1;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int i = 0; i < size; i++) {
        const int yy = y + i - radius;
        if (yy < 0 || yy >= height)
            continue;
        for (int j = 0; j < size; j++) {
            const int xx = x + j - radius;
            if (xx < 0 || xx >= width)
                continue;
            const unsigned char *p = d_in + ((size_t)yy * width + xx) * CONV_CHANNELS;
            const float c = d_filter[i * size + j];
            r += c * p[0];
            g += c * p[1];
            b += c * p[2];
        }
    }
    unsigned char *o = d_out + ((size_t)y * width + x) * CONV_CHANNELS;
    o[0] = to_u8(r);
    o[1] = to_u8(g);
    o[2] = to_u8(b);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: the pixel of this thread from blockIdx, blockDim and threadIdx;
    // threads outside the picture do nothing; sum the window with guards for
    // pixels outside the picture; write the three bytes with to_u8().
    <<< STUDENT */
}

/* v2: interleaved, filter in constant memory */
__global__ void conv_v2_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, int radius)
{
    /* >>> SOLUTION */
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int size = 2 * radius + 1;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int i = 0; i < size; i++) {
        const int yy = y + i - radius;
        if (yy < 0 || yy >= height)
            continue;
        for (int j = 0; j < size; j++) {
            const int xx = x + j - radius;
            if (xx < 0 || xx >= width)
                continue;
            const unsigned char *p = d_in + ((size_t)yy * width + xx) * CONV_CHANNELS;
            const float c = c_filter[i * size + j];
            r += c * p[0];
            g += c * p[1];
            b += c * p[2];
        }
    }
    unsigned char *o = d_out + ((size_t)y * width + x) * CONV_CHANNELS;
    o[0] = to_u8(r);
    o[1] = to_u8(g);
    o[2] = to_u8(b);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v1 with the taps read from c_filter.
    <<< STUDENT */
}

/* v3: planar, filter in constant memory */
__global__ void conv_v3_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, int radius)
{
    /* >>> SOLUTION */
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const size_t plane = (size_t)width * height;
    const int size = 2 * radius + 1;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int i = 0; i < size; i++) {
        const int yy = y + i - radius;
        if (yy < 0 || yy >= height)
            continue;
        const unsigned char *row = d_in + (size_t)yy * width;
        for (int j = 0; j < size; j++) {
            const int xx = x + j - radius;
            if (xx < 0 || xx >= width)
                continue;
            const float c = c_filter[i * size + j];
            r += c * row[xx];
            g += c * row[plane + xx];
            b += c * row[2 * plane + xx];
        }
    }
    const size_t o = (size_t)y * width + x;
    d_out[o] = to_u8(r);
    d_out[plane + o] = to_u8(g);
    d_out[2 * plane + o] = to_u8(b);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: as v2, but the three channels are three planes of width*height.
    <<< STUDENT */
}

/* v4: row pass, one double plane */
__global__ void conv_v4_rows(const double *d_in, double *d_tmp, int width, int height,
                             const double *d_row, int radius)
{
    /* >>> SOLUTION */
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const double *row = d_in + (size_t)y * width;
    double s = 0.0;
    for (int k = -radius; k <= radius; k++) {
        const int xx = x + k;
        if (xx >= 0 && xx < width)
            s += d_row[k + radius] * row[xx];
    }
    d_tmp[(size_t)y * width + x] = s;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: d_tmp(x, y) = sum_k d_row[k+R] * d_in(x+k, y), zero outside.
    <<< STUDENT */
}

/* v4: column pass, one double plane */
__global__ void conv_v4_cols(const double *d_tmp, double *d_out, int width, int height,
                             const double *d_col, int radius)
{
    /* >>> SOLUTION */
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    double s = 0.0;
    for (int k = -radius; k <= radius; k++) {
        const int yy = y + k;
        if (yy >= 0 && yy < height)
            s += d_col[k + radius] * d_tmp[(size_t)yy * width + x];
    }
    d_out[(size_t)y * width + x] = s;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: d_out(x, y) = sum_k d_col[k+R] * d_tmp(x, y+k), zero outside.
    <<< STUDENT */
}

/* v5: planar, four horizontally adjacent outputs per thread */
#define V5_PIX 4
__global__ void conv_v5_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                               int height, int radius)
{
    /* >>> SOLUTION */
    const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * V5_PIX;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int ch = blockIdx.z;
    if (x0 >= width || y >= height)
        return;
    const size_t plane = (size_t)width * height;
    const unsigned char *in = d_in + ch * plane;
    const int size = 2 * radius + 1;
    float s[V5_PIX] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < size; i++) {
        const int yy = y + i - radius;
        if (yy < 0 || yy >= height)
            continue;
        const unsigned char *row = in + (size_t)yy * width;
        const float *f = c_filter + i * size;
        /* input column x0-R+t feeds output p through tap j = t - p */
        for (int t = 0; t < size + V5_PIX - 1; t++) {
            const int xx = x0 - radius + t;
            const float v = (xx >= 0 && xx < width) ? (float)row[xx] : 0.0f;
#pragma unroll
            for (int p = 0; p < V5_PIX; p++) {
                const int j = t - p;
                if (j >= 0 && j < size)
                    s[p] += f[j] * v;
            }
        }
    }
    unsigned char *o = d_out + ch * plane + (size_t)y * width;
#pragma unroll
    for (int p = 0; p < V5_PIX; p++)
        if (x0 + p < width)
            o[x0 + p] = to_u8(s[p]);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: outputs x0 .. x0+3 of row y of plane blockIdx.z; load each input
    // byte of the window rows once and add it into every output it touches.
    <<< STUDENT */
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
    /* >>> SOLUTION */
    dim3 block(block_w, block_h);
    dim3 grid(blocks_for(width, block_w), blocks_for(height, block_h));
    conv_v1_kernel<<<grid, block>>>(d_in, d_out, width, height, d_filter, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: a 2D grid of block_w x block_h blocks covering the picture, the
    // launch of conv_v1_kernel, then KIT_CHECK_LAUNCH(); return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
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
    /* >>> SOLUTION */
    dim3 block(block_w, block_h);
    dim3 grid(blocks_for(width, block_w), blocks_for(height, block_h));
    conv_v2_kernel<<<grid, block>>>(d_in, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: launch conv_v2_kernel as in v1.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int conv_v3(const unsigned char *d_in, unsigned char *d_out, int width, int height, int radius,
            int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    /* >>> SOLUTION */
    dim3 block(block_w, block_h);
    dim3 grid(blocks_for(width, block_w), blocks_for(height, block_h));
    conv_v3_kernel<<<grid, block>>>(d_in, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: launch conv_v3_kernel on a 2D grid.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int conv_v4(const double *d_in, double *d_tmp, double *d_out, int width, int height,
            const double *d_row, const double *d_col, int radius, int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_SEP_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(d_tmp != NULL && d_tmp != d_in && d_tmp != d_out);
    KIT_REQUIRE(d_row != NULL && d_col != NULL);
    /* >>> SOLUTION */
    dim3 block(block_w, block_h);
    dim3 grid(blocks_for(width, block_w), blocks_for(height, block_h));
    conv_v4_rows<<<grid, block>>>(d_in, d_tmp, width, height, d_row, radius);
    KIT_CHECK_LAUNCH();
    conv_v4_cols<<<grid, block>>>(d_tmp, d_out, width, height, d_col, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: launch the row pass, check it, then the column pass, check it.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int conv_v5(const unsigned char *d_in, unsigned char *d_out, int width, int height, int radius,
            int block_w, int block_h)
{
    int r = check_args(d_in, d_out, width, height, radius, CONV_MAX_RADIUS, block_w, block_h);
    if (r != KIT_OK)
        return r;
    /* >>> SOLUTION */
    dim3 block(block_w, block_h);
    dim3 grid(blocks_for(blocks_for(width, V5_PIX), block_w), blocks_for(height, block_h),
              CONV_CHANNELS);
    conv_v5_kernel<<<grid, block>>>(d_in, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: each thread covers four pixels of a row, so the grid needs a
    // quarter of the threads across; one grid layer (blockIdx.z) per plane.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
