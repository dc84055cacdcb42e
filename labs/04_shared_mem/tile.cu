/* tile.cu - lab 04, part rgb, v6: the fastest this kit can teach, after the
 * course guide's steps (conv.cu). What the guide names as the next steps
 * after shared memory, each one taken:
 *   planar channels, so that four neighbouring bytes of a channel are one
 *   32-bit word; a shared tile per plane copied in 16-byte pieces (fewer and
 *   wider requests); PW x PH pixels a thread (8x4 by default), each input
 *   row loaded once from the tile serving all the patch's rows (more work per
 *   thread, independent sums); four taps an instruction (dp4a, exact integer
 *   sums); results clamped and packed four to a word by cvt.pack.sat. One
 *   kernel per radius and patch shape, so that the loops unroll.
 *
 * Sections: device helpers, kernels, launchers.
 */
#include "conv.h"

/* ----------------------------------------------------------- device helpers */

#define V6_TAP_WORDS 2 /* four 8-bit taps a word, two words per filter row */
/* filter row i, word t: taps 4t .. 4t+3 of row i as signed bytes (zero past the row) */
__constant__ int c_taps8[(2 * CONV_RGB_MAX_RADIUS + 1) * V6_TAP_WORDS];
__constant__ int c_shift8; /* weight = tap / 2^c_shift8 */

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
    // Start the sums at (1 << c_shift8) >> 1. 3) Store pack4(sum >> c_shift8, ...).
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

int conv_rgb_v6_upload_taps(const signed char *h_taps8, int shift, int radius)
{
    KIT_REQUIRE(h_taps8 != NULL);
    KIT_REQUIRE(radius >= 1 && radius <= CONV_RGB_MAX_RADIUS && shift >= 0 && shift <= 24);
    const int size = 2 * radius + 1;
    int words[(2 * CONV_RGB_MAX_RADIUS + 1) * V6_TAP_WORDS] = {0};
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++)
            words[i * V6_TAP_WORDS + j / 4] |=
                (int)((unsigned int)(unsigned char)h_taps8[i * size + j] << (8 * (j % 4)));
    CUDA_CHECK(cudaMemcpyToSymbol(c_taps8, words, sizeof words));
    CUDA_CHECK(cudaMemcpyToSymbol(c_shift8, &shift, sizeof shift));
    return KIT_OK;
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
