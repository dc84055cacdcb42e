/* conv.cu - lab 03: 2D convolution on the GPU, global memory only.
 *
 * Versions (./lab03 --variant N):
 *   v1 one thread per output pixel, 16x16 blocks, interleaved RGB bytes, the
 *      filter read from global memory; the zero border by guards (baseline).
 *   v2 the filter in constant memory: every thread of a warp reads the same
 *      tap at once, which the constant cache broadcasts in one transaction.
 *   v3 planar channels and a 2D grid: a channel's bytes are contiguous, so a
 *      thread reads them four at a time (32-bit loads) for a 16x2 patch of
 *      outputs: far fewer load and convert instructions per pixel than v2.
 *   v4 separable filter in double: a row pass then a column pass, 2(2R+1)
 *      taps per pixel instead of (2R+1)^2 (seed 000's starting point).
 *   v5 planar, one pixel per thread, byte loads: the layout change alone, kept
 *      to show that on a GPU with large L1 caches it does not pay by itself.
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
    return (unsigned char)__float2uint_rd(v + 0.5f); /* floor, in one conversion */
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

/* v5: planar, one pixel per thread, byte loads (the course's literal step) */
__global__ void conv_v5_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
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

/* v3: planar, a V3_PIX x V3_ROWS patch of one plane per thread, 32-bit
 * loads. The body takes the radius as a constant so that the window lives in
 * registers; one small kernel per radius (below) instantiates it. */
#ifndef V3_PIX
#define V3_PIX 16 /* outputs along a row */
#endif
#ifndef V3_ROWS
#define V3_ROWS 2 /* output rows: each input row loaded once serves them all */
#endif

/* Four bytes of a plane row from column x (a multiple of 4), zero outside
 * the picture: one 32-bit load when the row allows it, else byte by byte. */
__device__ KIT_MAYBE_UNUSED static inline unsigned int load4(const unsigned char *row, int x, int width,
                                            int aligned)
{
    if (aligned && x >= 0 && x + 3 < width)
        return *(const unsigned int *)(row + x);
    unsigned int w = 0;
    for (int b = 0; b < 4; b++)
        if (x + b >= 0 && x + b < width)
            w |= (unsigned int)row[x + b] << (8 * b);
    return w;
}

/* Byte b of word w as a float, without the (slow) integer-to-float unit:
 * 0x4B000000 is 2^23 as a float; putting the byte in its low mantissa bits
 * gives exactly 2^23 + byte, and subtracting 2^23 leaves the byte. */
__device__ KIT_MAYBE_UNUSED static inline float byte_to_float(unsigned int w, int b)
{
    return __uint_as_float(__byte_perm(w, 0x4B000000u, 0x7440 + b)) - 8388608.0f;
}

__device__ __forceinline__ void conv_v3_body(const unsigned char *d_in, unsigned char *d_out,
                                             int width, int height, const int radius)
{
    /* >>> SOLUTION */
    const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * V3_PIX;
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * V3_ROWS;
    if (x0 >= width || y0 >= height)
        return;
    const size_t plane = (size_t)width * height;
    const unsigned char *in = d_in + blockIdx.z * plane;
    const int aligned = (width % 4) == 0; /* every row starts on a 4-byte boundary */
    const int size = 2 * radius + 1;
    const int lead = 4 * ((radius + 3) / 4); /* whole words fetched left of x0 */
    const int nwords = (2 * lead + V3_PIX) / 4;
    float s[V3_ROWS][V3_PIX];
#pragma unroll
    for (int r = 0; r < V3_ROWS; r++)
#pragma unroll
        for (int p = 0; p < V3_PIX; p++)
            s[r][p] = 0.0f;
    /* input rows y0-R .. y0+V3_ROWS-1+R; input row k feeds output row r
     * through filter row i = k - r */
#pragma unroll
    for (int k = 0; k < size + V3_ROWS - 1; k++) {
        const int yy = y0 - radius + k;
        const int inside = yy >= 0 && yy < height;
        const unsigned char *row = in + (size_t)(inside ? yy : 0) * width;
        float v[2 * 8 + V3_PIX]; /* columns x0-lead .. x0+V3_PIX+lead-1 */
#pragma unroll
        for (int w = 0; w < nwords; w++) {
            const unsigned int word = inside ? load4(row, x0 - lead + 4 * w, width, aligned) : 0u;
#pragma unroll
            for (int b = 0; b < 4; b++)
                v[4 * w + b] = byte_to_float(word, b);
        }
#pragma unroll
        for (int r = 0; r < V3_ROWS; r++) {
            const int i = k - r;
            if (i < 0 || i >= size)
                continue;
            const float *f = c_filter + i * size;
#pragma unroll
            for (int j = 0; j < size; j++) {
                const float c = f[j];
#pragma unroll
                for (int p = 0; p < V3_PIX; p++)
                    s[r][p] += c * v[lead - radius + p + j];
            }
        }
    }
#pragma unroll
    for (int r = 0; r < V3_ROWS; r++) {
        if (y0 + r >= height)
            break;
        unsigned char *o = d_out + blockIdx.z * plane + (size_t)(y0 + r) * width;
#pragma unroll
        for (int q = 0; q < V3_PIX; q += 4) {
            const int x = x0 + q;
            if (aligned && x + 3 < width) {
                *(unsigned int *)(o + x) =
                    (unsigned int)to_u8(s[r][q]) | (unsigned int)to_u8(s[r][q + 1]) << 8 |
                    (unsigned int)to_u8(s[r][q + 2]) << 16 | (unsigned int)to_u8(s[r][q + 3]) << 24;
            } else {
                for (int b = 0; b < 4; b++)
                    if (x + b < width)
                        o[x + b] = to_u8(s[r][q + b]);
            }
        }
    }
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: outputs x0 .. x0+V3_PIX-1 of rows y0 .. y0+V3_ROWS-1 of plane
    // blockIdx.z. For each input row the patch needs, fetch the bytes
    // x0-lead .. x0+V3_PIX+lead-1 with load4() into a register array v[]
    // (convert with byte_to_float), then add c_filter[i][j] * v[...] into
    // every output it touches. Store with to_u8.
    <<< STUDENT */
}

/* One kernel per radius, so the compiler knows it and keeps v[] in registers. */
#define CONV_V3_KERNEL(R)                                                                       \
    __global__ void conv_v3_r##R(const unsigned char *d_in, unsigned char *d_out, int width,    \
                                 int height)                                                    \
    {                                                                                           \
        conv_v3_body(d_in, d_out, width, height, R);                                            \
    }
CONV_V3_KERNEL(0)
CONV_V3_KERNEL(1)
CONV_V3_KERNEL(2)
CONV_V3_KERNEL(3)
CONV_V3_KERNEL(4)
CONV_V3_KERNEL(5)
CONV_V3_KERNEL(6)
CONV_V3_KERNEL(7)
CONV_V3_KERNEL(8)

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
    typedef void (*kernel_fn)(const unsigned char *, unsigned char *, int, int);
    static const kernel_fn by_radius[CONV_MAX_RADIUS + 1] = {
        conv_v3_r0, conv_v3_r1, conv_v3_r2, conv_v3_r3, conv_v3_r4,
        conv_v3_r5, conv_v3_r6, conv_v3_r7, conv_v3_r8};
    dim3 block(block_w, block_h);
    dim3 grid(blocks_for(blocks_for(width, V3_PIX), block_w),
              blocks_for(blocks_for(height, V3_ROWS), block_h), CONV_CHANNELS);
    by_radius[radius]<<<grid, block>>>(d_in, d_out, width, height);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: each thread covers V3_PIX x V3_ROWS pixels, so the grid needs
    // fewer threads across and down; one grid layer (blockIdx.z) per plane;
    // launch the kernel made for this radius (conv_v3_r0 .. conv_v3_r8).
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
    dim3 grid(blocks_for(width, block_w), blocks_for(height, block_h));
    conv_v5_kernel<<<grid, block>>>(d_in, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: launch conv_v5_kernel on a 2D grid, one thread per pixel.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
