/* tile.cu - lab 04, part rgb, v6: the fastest this kit can teach, after the
 * course guide's steps (conv.cu). What the guide names as the next steps
 * after shared memory, each one taken:
 *   planar channels, so that four neighbouring bytes of a channel are one
 *   32-bit word; a shared tile per plane copied in 16-byte pieces (fewer and
 *   wider requests); PW x PH pixels a thread (16x2 by default), the input
 *   rows under each output row loaded from the tile in whole words (more
 *   work per thread, independent sums); four taps an instruction (dp4a,
 *   exact integer sums), the taps placed where each output's bytes lie in
 *   the words, so that no output needs its bytes moved, and the bytes left
 *   over gathered from several rows into one more dp4a; results clamped and
 *   packed four to a word by cvt.pack.sat. One kernel per radius and patch
 *   shape, so that the loops unroll.
 *
 * Sections: device helpers, kernels, launchers.
 */
#include "conv.h"

/* ----------------------------------------------------------- device helpers */

/* Where an output's taps fall in the words of a row. Output p of a patch
 * reads bytes b0 .. b0+2R of each input row's words w[] (w[0] is the byte 4
 * left of the patch), b0 = 4 - R + p: its phase ph = b0 % 4 and word
 * a = b0 / 4. The 2R+1 bytes lie in w[a] (n0 of them, from byte ph) and
 * w[a+1] (the other n1, from byte 0). One dp4a per row takes the word that
 * holds more of them (its main word), the taps placed at their bytes, so no
 * output needs its bytes moved into a word of its own. The bytes left over
 * in the other word (L = min(n0, n1) a row: 1 or 2 at R = 2) of several
 * rows are gathered into one word (4 rows of 1 byte, 2 rows of 2 bytes) for
 * one more dp4a: at R = 2, 7 or 8 dp4a an output instead of 10. The taps of
 * each phase: slot i <= 2R the main word of row i, slot 2R+1+g the word of
 * leftover group g. */
#define V6_SLOTS (2 * CONV_RGB_MAX_RADIUS + 1 + 3)
__host__ __device__ static inline int v6_n0(int R, int ph) /* bytes in w[a] */
{
    return 2 * R + 1 < 4 - ph ? 2 * R + 1 : 4 - ph;
}
__host__ __device__ static inline int v6_main_hi(int R, int ph) /* main word w[a+1] */
{
    return 2 * R + 1 - v6_n0(R, ph) > v6_n0(R, ph);
}
__host__ __device__ static inline int v6_left(int R, int ph) /* leftover bytes a row */
{
    const int n0 = v6_n0(R, ph), n1 = 2 * R + 1 - n0;
    return n0 < n1 ? n0 : n1;
}
__host__ __device__ static inline int v6_group(int R, int ph) /* rows a leftover word */
{
    return v6_left(R, ph) == 1 ? 4 : 2;
}
/* phase ph, slot: four signed 8-bit taps (zero where no tap) */
__constant__ int c_taps8[4 * V6_SLOTS];
__constant__ int c_shift8; /* weight = tap / 2^c_shift8 */

/* Four sums as four bytes of one word, each clamped to 0..255 (a the lowest
 * byte): cvt.pack.sat puts sat(b) in byte 0, sat(a) in byte 1 and the low
 * half of its third operand above them. It comes with sm_72: the V100
 * (sm_70, built by CUDA 12) clamps the four one by one, to the same word. */
__device__ KIT_MAYBE_UNUSED static inline unsigned int pack4(int a, int b, int c, int d)
{
#if __CUDA_ARCH__ >= 720
    unsigned int hi, w;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(hi) : "r"(d), "r"(c), "r"(0u));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(w) : "r"(b), "r"(a), "r"(hi));
    return w;
#else
    return (unsigned int)min(max(a, 0), 255) | (unsigned int)min(max(b, 0), 255) << 8 |
           (unsigned int)min(max(c, 0), 255) << 16 | (unsigned int)min(max(d, 0), 255) << 24;
#endif
}

/* ------------------------------------------------------------------ kernels */

/* v6: planar, a shared tile per plane, PW x PH pixels a thread, dp4a. R,
 * PW and PH are constants in each kernel made from this body (below), so
 * that the arrays live in registers and the loops unroll. */
#define V6_BATCH 8   /* 16-byte pieces a thread has in flight at once while loading */
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
    // __syncthreads(). 2) For output row r, v6_row_words() of tile rows
    // py+r .. py+r+2R; for output p (phase ph, word a: see c_taps8) one kit_dot4()
    // a row with its main word w[i][a + v6_main_hi()] and c_taps8 slot i, then
    // the leftover bytes of v6_group() rows at a time gathered by __byte_perm
    // into one word, with slot 2R+1+group. Start the sums at
    // (1 << c_shift8) >> 1. 3) Store pack4(sum >> c_shift8, ...).
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

/* Tap T as byte POS of word *W. */
static void v6_put_tap(int *w, int pos, unsigned char t)
{
    *w = (int)((unsigned int)*w | (unsigned int)t << (8 * pos));
}

int conv_rgb_v6_upload_taps(const signed char *h_taps8, int shift, int radius)
{
    KIT_REQUIRE(h_taps8 != NULL);
    KIT_REQUIRE(radius >= 1 && radius <= CONV_RGB_MAX_RADIUS && shift >= 0 && shift <= 24);
    const int R = radius, size = 2 * R + 1;
    int h_words[4 * V6_SLOTS] = {0}; /* phase ph, slot k: h_words[ph * V6_SLOTS + k] */
    for (int ph = 0; ph < 4; ph++) {
        const int n0 = v6_n0(R, ph), hi = v6_main_hi(R, ph), left = v6_left(R, ph);
        const int g = v6_group(R, ph), c0 = hi ? 0 : n0; /* first leftover tap */
        int *w = h_words + ph * V6_SLOTS;
        for (int i = 0; i < size; i++) {
            const unsigned char *t = (const unsigned char *)h_taps8 + i * size;
            for (int j = 0; j < size; j++) /* main word: taps at their bytes */
                if (hi ? j >= n0 : j < n0)
                    v6_put_tap(&w[i], hi ? j - n0 : ph + j, t[j]);
            if (left == 0)
                continue;
            const int i0 = i / g * g, n = size - i0 < g ? size - i0 : g; /* its group */
            for (int l = 0; l < left; l++) /* alone: at its bytes; else gathered */
                v6_put_tap(&w[size + i / g], n == 1 ? (hi ? ph : 0) + l : (i - i0) * left + l,
                           t[c0 + l]);
        }
    }
    CUDA_CHECK(cudaMemcpyToSymbol(c_taps8, h_words, sizeof h_words));
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
