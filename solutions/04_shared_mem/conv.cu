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
    /* >>> SOLUTION */
    __shared__ unsigned char s_win[WIN_MAX][WIN_ROW_MAX];
    const int side = CONV_GUIDE_BLOCK + 2 * radius;  /* window side in pixels: 20 */
    const int row_bytes = side * CONV_CHANNELS;      /* bytes of a window row: 60 */
    const int per_step = CONV_GUIDE_BLOCK * CONV_GUIDE_BLOCK / row_bytes; /* rows a step: 4 */
    /* the load index: thread t copies byte lcol of window rows lrow, lrow+4, ... */
    const int t = threadIdx.y * CONV_GUIDE_BLOCK + threadIdx.x;
    const int lrow = t / row_bytes, lcol = t % row_bytes;
    const int gx0 = blockIdx.x * CONV_GUIDE_BLOCK - radius; /* the window's first pixel */
    const int gy0 = blockIdx.y * CONV_GUIDE_BLOCK - radius;
    const int gcol = gx0 * CONV_CHANNELS + lcol; /* byte column in the picture's row */
    if (lrow < per_step) {                       /* 240 of the 256 threads */
        for (int r = lrow; r < side; r += per_step) {
            const int gy = gy0 + r;
            unsigned char b = 0;
            if (gy >= 0 && gy < height && gcol >= 0 && gcol < width * CONV_CHANNELS)
                b = d_in[(size_t)gy * width * CONV_CHANNELS + gcol];
            s_win[r][lcol] = b;
        }
    }
    __syncthreads(); /* the whole window is in before anyone reads it */
    /* the compute index: the output pixel of this thread */
    const int x = blockIdx.x * CONV_GUIDE_BLOCK + threadIdx.x;
    const int y = blockIdx.y * CONV_GUIDE_BLOCK + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int size = 2 * radius + 1;
    int r = 0, g = 0, b = 0;
    for (int i = 0; i < size; i++) {
        const unsigned char *p = &s_win[threadIdx.y + i][threadIdx.x * CONV_CHANNELS];
        for (int j = 0; j < size; j++, p += CONV_CHANNELS) {
            const int tap = c_taps[i * size + j];
            r += tap * p[0];
            g += tap * p[1];
            b += tap * p[2];
        }
    }
    const int shift = c_shift;
    unsigned char *o = d_out + ((size_t)y * width + x) * CONV_CHANNELS;
    o[0] = kit_sum_to_u8(r, shift);
    o[1] = kit_sum_to_u8(g, shift);
    o[2] = kit_sum_to_u8(b, shift);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: declare the window, __shared__ unsigned char s_win[WIN_MAX][WIN_ROW_MAX];
    // Load it: thread t = threadIdx.y*16 + threadIdx.x copies byte t % row_bytes of
    // window rows t / row_bytes, + 4, + 8, ... (row_bytes = (16+2R)*3; only the
    // first 4*row_bytes threads load). Zero outside the picture. __syncthreads().
    // Then the thread's own pixel (blockIdx*16 + threadIdx): sum c_taps times the
    // window's bytes in ints, write kit_sum_to_u8(sum, c_shift) per channel.
    <<< STUDENT */
}

/* v2: byte window, float sums (a conversion at every read) */
__global__ void conv_rgb_v2_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius)
{
    /* >>> SOLUTION */
    __shared__ unsigned char s_win[WIN_MAX][WIN_ROW_MAX];
    const int side = CONV_GUIDE_BLOCK + 2 * radius;
    const int row_bytes = side * CONV_CHANNELS;
    const int per_step = CONV_GUIDE_BLOCK * CONV_GUIDE_BLOCK / row_bytes;
    const int t = threadIdx.y * CONV_GUIDE_BLOCK + threadIdx.x;
    const int lrow = t / row_bytes, lcol = t % row_bytes;
    const int gx0 = blockIdx.x * CONV_GUIDE_BLOCK - radius;
    const int gy0 = blockIdx.y * CONV_GUIDE_BLOCK - radius;
    const int gcol = gx0 * CONV_CHANNELS + lcol;
    if (lrow < per_step) {
        for (int r = lrow; r < side; r += per_step) {
            const int gy = gy0 + r;
            unsigned char b = 0;
            if (gy >= 0 && gy < height && gcol >= 0 && gcol < width * CONV_CHANNELS)
                b = d_in[(size_t)gy * width * CONV_CHANNELS + gcol];
            s_win[r][lcol] = b;
        }
    }
    __syncthreads();
    const int x = blockIdx.x * CONV_GUIDE_BLOCK + threadIdx.x;
    const int y = blockIdx.y * CONV_GUIDE_BLOCK + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int size = 2 * radius + 1;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int i = 0; i < size; i++) {
        const unsigned char *p = &s_win[threadIdx.y + i][threadIdx.x * CONV_CHANNELS];
        for (int j = 0; j < size; j++, p += CONV_CHANNELS) {
            const float w = c_w32[i * size + j];
            r += w * (float)p[0];
            g += w * (float)p[1];
            b += w * (float)p[2];
        }
    }
    unsigned char *o = d_out + ((size_t)y * width + x) * CONV_CHANNELS;
    o[0] = kit_to_u8f(r);
    o[1] = kit_to_u8f(g);
    o[2] = kit_to_u8f(b);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v1's window and load; sum in float: c_w32 times (float) of each byte
    // read from the window; write kit_to_u8f(sum) per channel.
    <<< STUDENT */
}

/* v3: float window, converted once when stored */
__global__ void conv_rgb_v3_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius)
{
    /* >>> SOLUTION */
    __shared__ float s_win[WIN_MAX][WIN_ROW_MAX]; /* 4800 bytes instead of 1200 */
    const int side = CONV_GUIDE_BLOCK + 2 * radius;
    const int row_bytes = side * CONV_CHANNELS;
    const int per_step = CONV_GUIDE_BLOCK * CONV_GUIDE_BLOCK / row_bytes;
    const int t = threadIdx.y * CONV_GUIDE_BLOCK + threadIdx.x;
    const int lrow = t / row_bytes, lcol = t % row_bytes;
    const int gx0 = blockIdx.x * CONV_GUIDE_BLOCK - radius;
    const int gy0 = blockIdx.y * CONV_GUIDE_BLOCK - radius;
    const int gcol = gx0 * CONV_CHANNELS + lcol;
    if (lrow < per_step) {
        for (int r = lrow; r < side; r += per_step) {
            const int gy = gy0 + r;
            float v = 0.0f;
            if (gy >= 0 && gy < height && gcol >= 0 && gcol < width * CONV_CHANNELS)
                v = (float)d_in[(size_t)gy * width * CONV_CHANNELS + gcol];
            s_win[r][lcol] = v;
        }
    }
    __syncthreads();
    const int x = blockIdx.x * CONV_GUIDE_BLOCK + threadIdx.x;
    const int y = blockIdx.y * CONV_GUIDE_BLOCK + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int size = 2 * radius + 1;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int i = 0; i < size; i++) {
        const float *p = &s_win[threadIdx.y + i][threadIdx.x * CONV_CHANNELS];
        for (int j = 0; j < size; j++, p += CONV_CHANNELS) {
            const float w = c_w32[i * size + j];
            r += w * p[0];
            g += w * p[1];
            b += w * p[2];
        }
    }
    unsigned char *o = d_out + ((size_t)y * width + x) * CONV_CHANNELS;
    o[0] = kit_to_u8f(r);
    o[1] = kit_to_u8f(g);
    o[2] = kit_to_u8f(b);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v2 with __shared__ float s_win[WIN_MAX][WIN_ROW_MAX]: convert each
    // byte to float when you store it, and sum the floats as they are.
    <<< STUDENT */
}

/* v4: float window, each row `stride` floats apart (row + dummy words) */
__global__ void conv_rgb_v4_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius, int stride)
{
    /* >>> SOLUTION */
    extern __shared__ float s_pad[]; /* side rows of `stride` floats: hand addressing */
    const int side = CONV_GUIDE_BLOCK + 2 * radius;
    const int row_bytes = side * CONV_CHANNELS;
    const int per_step = CONV_GUIDE_BLOCK * CONV_GUIDE_BLOCK / row_bytes;
    const int t = threadIdx.y * CONV_GUIDE_BLOCK + threadIdx.x;
    const int lrow = t / row_bytes, lcol = t % row_bytes;
    const int gx0 = blockIdx.x * CONV_GUIDE_BLOCK - radius;
    const int gy0 = blockIdx.y * CONV_GUIDE_BLOCK - radius;
    const int gcol = gx0 * CONV_CHANNELS + lcol;
    if (lrow < per_step) {
        for (int r = lrow; r < side; r += per_step) {
            const int gy = gy0 + r;
            float v = 0.0f;
            if (gy >= 0 && gy < height && gcol >= 0 && gcol < width * CONV_CHANNELS)
                v = (float)d_in[(size_t)gy * width * CONV_CHANNELS + gcol];
            s_pad[r * stride + lcol] = v;
        }
    }
    __syncthreads();
    const int x = blockIdx.x * CONV_GUIDE_BLOCK + threadIdx.x;
    const int y = blockIdx.y * CONV_GUIDE_BLOCK + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int size = 2 * radius + 1;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int i = 0; i < size; i++) {
        const float *p = s_pad + (threadIdx.y + i) * stride + threadIdx.x * CONV_CHANNELS;
        for (int j = 0; j < size; j++, p += CONV_CHANNELS) {
            const float w = c_w32[i * size + j];
            r += w * p[0];
            g += w * p[1];
            b += w * p[2];
        }
    }
    unsigned char *o = d_out + ((size_t)y * width + x) * CONV_CHANNELS;
    o[0] = kit_to_u8f(r);
    o[1] = kit_to_u8f(g);
    o[2] = kit_to_u8f(b);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v3 with a 1D window, extern __shared__ float s_pad[]; (its size comes
    // from the launch), window row r starting at s_pad[r * stride].
    <<< STUDENT */
}

/* v5: float window of a block_w x block_h block, any shape */
__global__ void conv_rgb_v5_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius)
{
    /* >>> SOLUTION */
    extern __shared__ float s_win5[];
    const int bw = blockDim.x, bh = blockDim.y;
    const int side_w = bw + 2 * radius, side_h = bh + 2 * radius;
    const int row_floats = side_w * CONV_CHANNELS; /* 108 for 32x8 and R = 2 */
    const int gx0 = blockIdx.x * bw - radius, gy0 = blockIdx.y * bh - radius;
    /* a row of threads copies a window row: consecutive threads, consecutive bytes */
    for (int r = threadIdx.y; r < side_h; r += bh) {
        const int gy = gy0 + r;
        const int inside = gy >= 0 && gy < height;
        for (int c = threadIdx.x; c < row_floats; c += bw) {
            const int gcol = gx0 * CONV_CHANNELS + c;
            float v = 0.0f;
            if (inside && gcol >= 0 && gcol < width * CONV_CHANNELS)
                v = (float)d_in[(size_t)gy * width * CONV_CHANNELS + gcol];
            s_win5[r * row_floats + c] = v;
        }
    }
    __syncthreads();
    const int x = blockIdx.x * bw + threadIdx.x;
    const int y = blockIdx.y * bh + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int size = 2 * radius + 1;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int i = 0; i < size; i++) {
        const float *p = s_win5 + (threadIdx.y + i) * row_floats + threadIdx.x * CONV_CHANNELS;
        for (int j = 0; j < size; j++, p += CONV_CHANNELS) {
            const float w = c_w32[i * size + j];
            r += w * p[0];
            g += w * p[1];
            b += w * p[2];
        }
    }
    unsigned char *o = d_out + ((size_t)y * width + x) * CONV_CHANNELS;
    o[0] = kit_to_u8f(r);
    o[1] = kit_to_u8f(g);
    o[2] = kit_to_u8f(b);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v3 for a block of any shape: the window is (blockDim.x+2R) x
    // (blockDim.y+2R) pixels of floats in extern __shared__ float s_win5[];
    // let each row of threads copy window rows (threadIdx.y, + blockDim.y, ...),
    // its threads taking consecutive bytes. Then v3's sums.
    <<< STUDENT */
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
    /* >>> SOLUTION */
    dim3 block(CONV_GUIDE_BLOCK, CONV_GUIDE_BLOCK);
    dim3 grid(kit_blocks_for(width, CONV_GUIDE_BLOCK), kit_blocks_for(height, CONV_GUIDE_BLOCK));
    conv_rgb_v1_kernel<<<grid, block>>>(d_in, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: 16x16 blocks covering the picture, launch conv_rgb_v1_kernel,
    // KIT_CHECK_LAUNCH(), return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int conv_rgb_v2(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    /* >>> SOLUTION */
    dim3 block(CONV_GUIDE_BLOCK, CONV_GUIDE_BLOCK);
    dim3 grid(kit_blocks_for(width, CONV_GUIDE_BLOCK), kit_blocks_for(height, CONV_GUIDE_BLOCK));
    conv_rgb_v2_kernel<<<grid, block>>>(d_in, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: as v1, with conv_rgb_v2_kernel.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int conv_rgb_v3(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    /* >>> SOLUTION */
    dim3 block(CONV_GUIDE_BLOCK, CONV_GUIDE_BLOCK);
    dim3 grid(kit_blocks_for(width, CONV_GUIDE_BLOCK), kit_blocks_for(height, CONV_GUIDE_BLOCK));
    conv_rgb_v3_kernel<<<grid, block>>>(d_in, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: as v1, with conv_rgb_v3_kernel.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int conv_rgb_v4(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius, int pad)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    KIT_REQUIRE(pad <= 64);
    /* >>> SOLUTION */
    const int side = CONV_GUIDE_BLOCK + 2 * radius;
    const int row_floats = side * CONV_CHANNELS;
    /* A warp reads two window rows, 16 pixels each, 3 words apart: banks
     * 3t mod 32 of the first row and S + 3t mod 32 of the second (t =
     * 0..15). The two sets miss each other only when the row stride S is
     * 16 mod 32; the smallest such S >= row_floats wants this padding. */
    if (pad < 0)
        pad = ((16 - row_floats) % 32 + 32) % 32;
    const int stride = row_floats + pad;
    const size_t smem = (size_t)side * stride * sizeof(float);
    dim3 block(CONV_GUIDE_BLOCK, CONV_GUIDE_BLOCK);
    dim3 grid(kit_blocks_for(width, CONV_GUIDE_BLOCK), kit_blocks_for(height, CONV_GUIDE_BLOCK));
    conv_rgb_v4_kernel<<<grid, block, smem>>>(d_in, d_out, width, height, radius, stride);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: pad < 0 asks for your choice (work it out: README, "Bank conflicts");
    // stride = row floats + pad; the dynamic shared memory is side rows of
    // stride floats (third launch parameter). Launch as v1.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int conv_rgb_v5(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius, int block_w, int block_h)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    KIT_REQUIRE(block_w > 0 && block_h > 0 && block_w * block_h <= 1024);
    /* >>> SOLUTION */
    const size_t smem = conv_rgb_v5_smem(radius, block_w, block_h);
    if (smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(conv_rgb_v5_kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    dim3 block(block_w, block_h);
    dim3 grid(kit_blocks_for(width, block_w), kit_blocks_for(height, block_h));
    conv_rgb_v5_kernel<<<grid, block, smem>>>(d_in, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: block_w x block_h blocks; dynamic shared memory conv_rgb_v5_smem()
    // (above 48 KiB a kernel must ask for it: cudaFuncSetAttribute with
    // cudaFuncAttributeMaxDynamicSharedMemorySize). Launch, check, return.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
