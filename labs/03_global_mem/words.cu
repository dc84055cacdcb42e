/* words.cu - lab 03, v6: the last step of global-memory convolution, after
 * v5 (conv.cu) put each channel in a plane of its own.
 *   v6 planar-words: a thread computes 8x4 pixels of one plane from whole
 *      32-bit words: 4 bytes a load, 4 taps a dp4a instruction, exact integer
 *      sums: far fewer instructions and loads a pixel than v5's
 *
 * Sections: device helpers, kernels, launchers.
 */
#include "conv.h"

/* ----------------------------------------------------------- device helpers */

#ifndef DP4A_PIX
#define DP4A_PIX 8 /* outputs along a row: a multiple of 4 */
#endif
#ifndef DP4A_ROWS
#define DP4A_ROWS 4 /* output rows: each input row loaded once serves them all */
#endif
#define DP4A_TAP_WORDS ((2 * CONV_DP4A_MAX_RADIUS + 1 + 3) / 4) /* words of weights per filter row */
#define DP4A_LEAD_MAX (4 * ((CONV_DP4A_MAX_RADIUS + 3) / 4))       /* bytes fetched left of a patch */

/* filter row i, word t: weights 4t .. 4t+3 of the row as signed bytes (zero past the row) */
__constant__ int c_taps8[(2 * CONV_DP4A_MAX_RADIUS + 1) * DP4A_TAP_WORDS];
__constant__ int c_shift8; /* weight = tap / 2^c_shift8 */

/* Four bytes of a plane row from column x (a multiple of 4), zero outside
 * the picture. fast: the caller knows the word is inside and aligned. */
__device__ KIT_MAYBE_UNUSED static inline unsigned int load4(const unsigned char *row, int x, int width,
                                            int aligned, int fast)
{
    if (fast || (aligned && x >= 0 && x + 3 < width))
        return *(const unsigned int *)(row + x);
    unsigned int w = 0;
    for (int b = 0; b < 4; b++)
        if (x + b >= 0 && x + b < width)
            w |= (unsigned int)row[x + b] << (8 * b);
    return w;
}

/* ------------------------------------------------------------------ kernels */

/* v6: planar, a DP4A_PIX x DP4A_ROWS patch of one plane per thread, whole 32-bit
 * words: four neighbouring bytes of a plane are loaded as one word and
 * multiplied by four 8-bit weights in one instruction (dp4a), with integer
 * sums, which for these filters are exact. The body takes the radius as a
 * constant so that the words live in registers; one small kernel per radius
 * (below) instantiates it. */
__device__ __forceinline__ void conv_v6_body(const unsigned char *d_in, unsigned char *d_out,
                                             int width, int height, const int radius)
{
    // TODO: outputs x0 .. x0+DP4A_PIX-1 of rows y0 .. y0+DP4A_ROWS-1 of plane
    // blockIdx.z, in integer sums acc[r][p]. For each input row the patch
    // needs, fetch the words of bytes x0-lead .. x0+DP4A_PIX+lead-1 with
    // load4() into a register array w[]; for each output p and weight word t
    // of filter row i, the four input bytes under weights 4t .. 4t+3 start at
    // byte o = lead - R + p + 4t of w[] (__byte_perm joins two words when o
    // is not a multiple of 4); add kit_dot4(those bytes, c_taps8[i][t]). Store
    // kit_sum_to_u8(acc, c_shift8).
}

/* One kernel per radius, so the compiler knows it and keeps w[] in registers. */
#define CONV_V6_KERNEL(R)                                                                       \
    __global__ void conv_v6_r##R(const unsigned char *d_in, unsigned char *d_out, int width,    \
                                 int height)                                                    \
    {                                                                                           \
        conv_v6_body(d_in, d_out, width, height, R);                                            \
    }
CONV_V6_KERNEL(0)
CONV_V6_KERNEL(1)
CONV_V6_KERNEL(2)

/* ---------------------------------------------------------------- launchers */

int conv_upload_filter8(const signed char *h_taps, int radius, int shift)
{
    KIT_REQUIRE(h_taps != NULL && radius >= 0 && radius <= CONV_DP4A_MAX_RADIUS);
    KIT_REQUIRE(shift >= 0 && shift <= 24);
    const int size = 2 * radius + 1;
    int h_words[(2 * CONV_DP4A_MAX_RADIUS + 1) * DP4A_TAP_WORDS] = {0};
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++)
            h_words[i * DP4A_TAP_WORDS + j / 4] |=
                (int)((unsigned int)(unsigned char)h_taps[i * size + j] << (8 * (j % 4)));
    CUDA_CHECK(cudaMemcpyToSymbol(c_taps8, h_words, sizeof h_words));
    CUDA_CHECK(cudaMemcpyToSymbol(c_shift8, &shift, sizeof shift));
    return KIT_OK;
}

int conv_v6(const unsigned char *d_in, unsigned char *d_out, int width, int height, int radius,
            int block_w, int block_h)
{
    KIT_REQUIRE(d_in != NULL && d_out != NULL && d_in != d_out);
    KIT_REQUIRE(width > 0 && height > 0);
    KIT_REQUIRE(radius >= 0 && radius <= CONV_DP4A_MAX_RADIUS);
    KIT_REQUIRE(block_w > 0 && block_h > 0 && block_w * block_h <= 1024);
    // TODO: each thread covers DP4A_PIX x DP4A_ROWS pixels, so the grid needs
    // fewer threads across and down; one grid layer (blockIdx.z) per plane;
    // launch the kernel made for this radius (conv_v6_r0 .. conv_v6_r2).
    return KIT_NOT_IMPLEMENTED;
}
