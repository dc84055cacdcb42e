/* conv.cu - lab 04, part rgb: the convolution of lab 03 through shared
 * memory, step by step as the course guide builds it.
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
 *   v6 planar channels, a shared tile per plane loaded in 16-byte pieces,
 *      8x4 pixels a thread from 32-bit words and dp4a (four 8-bit taps an
 *      instruction), results packed four to a word: fewer and wider memory
 *      requests, fewer instructions per pixel, more independent work.
 *
 * Sections: device helpers, kernels, launchers.
 */
#include "conv.h"

/* ----------------------------------------------------------- device helpers */

__constant__ float c_w32[CONV_RGB_MAX_TAPS]; /* weights as floats, row-major */
__constant__ int c_taps[CONV_RGB_MAX_TAPS];  /* the same as integers: weight = tap / 2^c_shift */
__constant__ int c_shift;
#define V6_TAP_WORDS 2 /* v6: four 8-bit taps a word, two words per filter row */
__constant__ int c_taps8[(2 * CONV_RGB_MAX_RADIUS + 1) * V6_TAP_WORDS];

/* The window of a guide block: 20x20 pixels, 60 bytes a row, for R = 2. */
#define WIN_MAX (CONV_GUIDE_BLOCK + 2 * CONV_RGB_MAX_RADIUS)
#define WIN_ROW_MAX (WIN_MAX * CONV_CHANNELS)

/* The kit's one float -> byte rule: clamp to 0..255, round half up. */
__device__ KIT_MAYBE_UNUSED static inline unsigned char to_u8(float v)
{
    v = fminf(fmaxf(v, 0.0f), 255.0f);
    return (unsigned char)__float2uint_rd(v + 0.5f);
}

/* An integer sum acc / 2^shift as a byte by the same rule:
 * floor(acc / 2^shift + 1/2) = (2 acc + 2^shift) >> (shift + 1). */
__device__ KIT_MAYBE_UNUSED static inline unsigned char sum_to_u8(int acc, int shift)
{
    return (unsigned char)min(max((2 * acc + (1 << shift)) >> (shift + 1), 0), 255);
}

/* acc + four unsigned bytes (pixels) times four signed bytes (taps): one
 * dp4a. CUDA C's __dp4a wants both signed or both unsigned, hence the PTX. */
__device__ KIT_MAYBE_UNUSED static inline int dot4(unsigned int pixels, int taps, int acc)
{
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(pixels), "r"(taps), "r"(acc));
    return d;
}

/* Four sums as four bytes of one word, each clamped to 0..255 (a the lowest
 * byte): cvt.pack.sat puts sat(b) in byte 0, sat(a) in byte 1 and the low
 * half of its third operand above them. */
__device__ KIT_MAYBE_UNUSED static inline unsigned int pack4(int a, int b, int c, int d)
{
    unsigned int hi, w;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(hi) : "r"(d), "r"(c), "r"(0u));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(w) : "r"(b), "r"(a), "r"(hi));
    return w;
}

/* Blocks needed to cover n items with blocks of b. */
KIT_MAYBE_UNUSED static inline int blocks_for(int n, int b)
{
    return (n + b - 1) / b;
}

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
    // window's bytes in ints, write sum_to_u8(sum, c_shift) per channel.
}

/* v2: byte window, float sums (a conversion at every read) */
__global__ void conv_rgb_v2_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                                   int height, int radius)
{
    // TODO: v1's window and load; sum in float: c_w32 times (float) of each byte
    // read from the window; write to_u8(sum) per channel.
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

/* v6: planar, a shared tile per plane, PW x PH pixels a thread, dp4a. R,
 * PW and PH are constants in each kernel made from this body (below), so
 * that the arrays live in registers and the loops unroll. */
#define V6_BATCH 4   /* 16-byte pieces a thread has in flight at once while loading */
#define V6_PW_MAX 16 /* the widest and tallest patches; arrays are sized for them, */
#define V6_PH_MAX 8  /* and the unrolled loops touch only the patch's own part */

/* Bytes px-4 .. px+PW+7 of a tile row as words w[0 .. PW/4+2], where srow
 * points at byte px: one 32-, 64- or 128-bit shared load per piece, at
 * addresses that keep a warp's loads free of bank conflicts. */
__device__ __forceinline__ void v6_row_words(const unsigned char *srow, unsigned int *w,
                                             const int PW)
{
    // TODO: fill w[0 .. PW/4+2] with the words of srow-4, srow, srow+4, ...
    // (PW is 4, 8 or 16: wider shared loads where the address allows it).
}

__device__ __forceinline__ void conv_rgb_v6_body(const unsigned char *d_in, unsigned char *d_out,
                                                 int width, int height, const int R,
                                                 const int PW, const int PH)
{
    // TODO: the block's outputs are (blockDim.x*PW) x (blockDim.y*PH) pixels of
    // plane blockIdx.z. 1) Copy the tile rows y0-R .. y0+th+R-1, bytes
    // x0-CONV_V6_LEAD .. into extern __shared__ uint4 s_tile[] (row pitch as in
    // conv_rgb_v6_smem), 16 bytes a load where width % 16 == 0, zeros outside;
    // __syncthreads(). 2) Per input row of the patch, v6_row_words(), then for
    // each output p and tap word t the four bytes under those taps
    // (__byte_perm when they straddle two words) into dot4() with
    // c_taps8[i * V6_TAP_WORDS + t] for every output row r it feeds (i = k - r).
    // Start the sums at (1 << c_shift) >> 1. 3) Store pack4(sum >> c_shift, ...).
}

/* One kernel per radius and patch, so that the body's loops unroll. */
#define CONV_V6_KERNEL(R, PW, PH)                                                             \
    __global__ void __launch_bounds__(CONV_V6_MAX_THREADS)                                    \
        conv_rgb_v6_r##R##_##PW##x##PH(const unsigned char *d_in, unsigned char *d_out,       \
                                       int width, int height)                                 \
    {                                                                                         \
        conv_rgb_v6_body(d_in, d_out, width, height, R, PW, PH);                              \
    }
#define CONV_V6_KERNELS(R)                                                                    \
    CONV_V6_KERNEL(R, 4, 4)                                                                   \
    CONV_V6_KERNEL(R, 4, 8)                                                                   \
    CONV_V6_KERNEL(R, 8, 2)                                                                   \
    CONV_V6_KERNEL(R, 8, 4)                                                                   \
    CONV_V6_KERNEL(R, 8, 8)                                                                   \
    CONV_V6_KERNEL(R, 16, 2)                                                                  \
    CONV_V6_KERNEL(R, 16, 4)
CONV_V6_KERNELS(1)
CONV_V6_KERNELS(2)

typedef void (*v6_kernel)(const unsigned char *, unsigned char *, int, int);
#define V6_ENTRY(R, PW, PH) {R, PW, PH, conv_rgb_v6_r##R##_##PW##x##PH}
#define V6_ENTRIES(R)                                                                         \
    V6_ENTRY(R, 4, 4), V6_ENTRY(R, 4, 8), V6_ENTRY(R, 8, 2), V6_ENTRY(R, 8, 4),               \
        V6_ENTRY(R, 8, 8), V6_ENTRY(R, 16, 2), V6_ENTRY(R, 16, 4)
static const struct {
    int radius, tile_w, tile_h;
    v6_kernel fn;
} v6_kernels[] = {V6_ENTRIES(1), V6_ENTRIES(2)};

static v6_kernel v6_find(int radius, int tile_w, int tile_h)
{
    for (size_t k = 0; k < sizeof v6_kernels / sizeof v6_kernels[0]; k++)
        if (v6_kernels[k].radius == radius && v6_kernels[k].tile_w == tile_w &&
            v6_kernels[k].tile_h == tile_h)
            return v6_kernels[k].fn;
    return NULL;
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
    int words[(2 * CONV_RGB_MAX_RADIUS + 1) * V6_TAP_WORDS] = {0};
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++) {
            taps[i * size + j] = h_taps8[i * size + j];
            words[i * V6_TAP_WORDS + j / 4] |=
                (int)((unsigned int)(unsigned char)h_taps8[i * size + j] << (8 * (j % 4)));
        }
    CUDA_CHECK(cudaMemcpyToSymbol(c_w32, h_w32, (size_t)size * size * sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(c_taps, taps, sizeof taps));
    CUDA_CHECK(cudaMemcpyToSymbol(c_taps8, words, sizeof words));
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

int conv_rgb_v6_has(int radius, int tile_w, int tile_h)
{
    return v6_find(radius, tile_w, tile_h) != NULL;
}

int conv_rgb_v6(const unsigned char *d_in, unsigned char *d_out, int width, int height,
                int radius, int block_w, int block_h, int tile_w, int tile_h)
{
    int rc = check_args(d_in, d_out, width, height, radius);
    if (rc != KIT_OK)
        return rc;
    KIT_REQUIRE(block_w > 0 && block_h > 0 && block_w * block_h <= CONV_V6_MAX_THREADS);
    const v6_kernel fn = v6_find(radius, tile_w, tile_h);
    KIT_REQUIRE(fn != NULL);
    // TODO: a block covers (block_w*tile_w) x (block_h*tile_h) pixels of one
    // plane; grid layer z is the plane (3 of them). Dynamic shared memory:
    // conv_rgb_v6_smem(); launch fn, the kernel made for this radius and tile.
    return KIT_NOT_IMPLEMENTED;
}
