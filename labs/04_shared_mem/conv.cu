/* conv.cu - lab 04, part rgb: the convolution of lab 03 through shared
 * memory, step by step as the course guide builds it (v6, the fastest, is
 * in tile.cu).
 *
 * Versions (./lab04 --part rgb --variant N):
 *   v1 16x16 blocks; the block's (16+2R)^2-pixel window copied byte by byte
 *      into shared memory by 240 of the 256 threads, four rows a step, then
 *      integer sums: every input byte leaves global memory once per block
 *      instead of once per tap.
 *   v2 float weights, each byte converted when read from shared memory:
 *      float arithmetic, at the price of a conversion per tap.
 *   v3 the window stored as floats, converted once when stored: no
 *      conversions in the sums, but 4x the shared memory, and the two rows a
 *      warp reads now meet in the same banks (pixel 32's R with pixel 0's).
 *   v4 every stored row padded with dummy words so that the second row of a
 *      warp starts 16 banks away: reads free of bank conflicts again.
 *   v5 32-wide blocks (32x8): a warp reads one row, which is conflict-free
 *      without padding.
 *   v6 (tile.cu) planar tiles in 16-byte pieces, 16x2 pixels a thread (--tile), dp4a.
 *
 * Sections: device helpers, kernels, launchers.
 */
#include "conv.h"

/* ----------------------------------------------------------- device helpers */

__constant__ float c_w32[CONV_RGB_MAX_TAPS]; /* weights as floats, row-major */
__constant__ int c_taps[CONV_RGB_MAX_TAPS];  /* the same as integers: weight = tap / 2^c_shift */
__constant__ int c_shift;

/* The window of a guide block: 20x20 pixels, 60 bytes a row, for R = 2. */
#define WIN_MAX (CONV_GUIDE_BLOCK + 2 * CONV_RGB_MAX_RADIUS)
#define WIN_ROW_MAX (WIN_MAX * CONV_CHANNELS)

/* ------------------------------------------------------------------ kernels */

/* v1: byte window, integer sums */
__global__ void conv_rgb_v1_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius)
{
    // TODO: declare the window, __shared__ unsigned char s_win[WIN_MAX][WIN_ROW_MAX];
    // Load it: thread t = threadIdx.y*16 + threadIdx.x copies byte t % row_bytes of
    // window rows t / row_bytes, + 4, + 8, ... (row_bytes = (16+2R)*3; only the
    // first 4*row_bytes threads load). Zero outside the picture. __syncthreads().
    // Then the thread's own pixel (blockIdx*16 + threadIdx): sum c_taps times the
    // window's bytes in ints, write kit_sum_to_u8(sum, c_shift) per channel.
}

/* v2: byte window, float sums (a conversion at every read) */
__global__ void conv_rgb_v2_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius)
{
    // TODO: v1's window and load; sum in float: c_w32 times (float) of each byte
    // read from the window; write kit_to_u8f(sum) per channel.
}

/* v3: float window, converted once when stored */
__global__ void conv_rgb_v3_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius)
{
    // TODO: v2 with __shared__ float s_win[WIN_MAX][WIN_ROW_MAX]: convert each
    // byte to float when you store it, and sum the floats as they are.
}

/* v4: float window, each row `stride` floats apart (row + dummy words) */
__global__ void conv_rgb_v4_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius, int stride)
{
    // TODO: v3 with a 1D window, extern __shared__ float s_pad[]; (its size comes
    // from the launch), window row r starting at s_pad[r * stride].
}

/* v5: float window of a block_w x block_h block, any shape */
__global__ void conv_rgb_v5_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius)
{
    // TODO: v3 for a block of any shape: the window is (blockDim.x+2R) x
    // (blockDim.y+2R) pixels of floats in extern __shared__ float s_win5[];
    // let each row of threads copy window rows (threadIdx.y, + blockDim.y, ...),
    // its threads taking consecutive bytes. Then v3's sums.
}

/* ---------------------------------------------------------------- launchers */

static int check_args(const void *d_in, const void *d_out, int width, int height, int radius)
{
    KIT_REQUIRE(d_in != NULL && d_out != NULL && d_in != d_out);
    KIT_REQUIRE(width > 0 && height > 0);
    KIT_REQUIRE(radius >= 1 && radius <= CONV_RGB_MAX_RADIUS);
    return KIT_OK;
}

int conv_rgb_upload_filter(const float *h_w32, const signed char *h_taps8, int shift, int radius)
{
    KIT_REQUIRE(h_w32 != NULL && h_taps8 != NULL);
    KIT_REQUIRE(radius >= 1 && radius <= CONV_RGB_MAX_RADIUS && shift >= 0 && shift <= 24);
    const int size = 2 * radius + 1;
    int taps[CONV_RGB_MAX_TAPS] = {0};
    for (int i = 0; i < size * size; i++)
        taps[i] = h_taps8[i];
    CUDA_CHECK(cudaMemcpyToSymbol(c_w32, h_w32, (size_t)size * size * sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(c_taps, taps, sizeof taps));
    CUDA_CHECK(cudaMemcpyToSymbol(c_shift, &shift, sizeof shift));
    return KIT_OK;
}

int conv_rgb_v1(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    // TODO: 16x16 blocks covering the picture, launch conv_rgb_v1_kernel,
    // KIT_CHECK_LAUNCH(), return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
}

int conv_rgb_v2(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    // TODO: as v1, with conv_rgb_v2_kernel.
    return KIT_NOT_IMPLEMENTED;
}

int conv_rgb_v3(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    // TODO: as v1, with conv_rgb_v3_kernel.
    return KIT_NOT_IMPLEMENTED;
}

int conv_rgb_v4(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius, int pad)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    KIT_REQUIRE(pad <= 64);
    // TODO: pad < 0 asks for your choice (work it out: README, "Bank conflicts");
    // stride = row floats + pad; the dynamic shared memory is side rows of
    // stride floats (third launch parameter). Launch as v1.
    return KIT_NOT_IMPLEMENTED;
}

int conv_rgb_v5(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius, int block_w, int block_h)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    KIT_REQUIRE(block_w > 0 && block_h > 0 && block_w * block_h <= 1024);
    // TODO: block_w x block_h blocks; dynamic shared memory conv_rgb_v5_smem()
    // (above 48 KiB a kernel must ask for it: cudaFuncSetAttribute with
    // cudaFuncAttributeMaxDynamicSharedMemorySize). Launch, check, return.
    return KIT_NOT_IMPLEMENTED;
}
