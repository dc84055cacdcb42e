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
    /* >>> SOLUTION */
    if (PW == 4) {
        const unsigned int *p = (const unsigned int *)(srow - 4);
        w[0] = p[0];
        w[1] = p[1];
        w[2] = p[2];
        w[3] = p[3];
    } else if (PW == 8) {
        const uint2 *p = (const uint2 *)(srow - 8);
        const uint2 a = p[0], b = p[1], c = p[2];
        w[0] = a.y;
        w[1] = b.x;
        w[2] = b.y;
        w[3] = c.x;
        w[4] = c.y;
    } else {
        const uint4 *p = (const uint4 *)(srow - 16);
        const uint4 a = p[0], b = p[1], c = p[2];
        w[0] = a.w;
        w[1] = b.x;
        w[2] = b.y;
        w[3] = b.z;
        w[4] = b.w;
        w[5] = c.x;
        w[6] = c.y;
    }
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: fill w[0 .. PW/4+2] with the words of srow-4, srow, srow+4, ...
    // (PW is 4, 8 or 16: wider shared loads where the address allows it).
    <<< STUDENT */
}

__device__ __forceinline__ void conv_rgb_v6_body(const unsigned char *d_in, unsigned char *d_out,
                                                 int width, int height, const int R,
                                                 const int PW, const int PH)
{
    /* >>> SOLUTION */
    extern __shared__ uint4 s_tile[];
    unsigned char *s = (unsigned char *)s_tile;
    const int tw = blockDim.x * PW, th = blockDim.y * PH; /* outputs of the block */
    const int pitch = (tw + 15) / 16 * 16 + 2 * CONV_V6_LEAD; /* bytes of a tile row */
    const int rows = th + 2 * R;
    const int x0 = blockIdx.x * tw, y0 = blockIdx.y * th;
    const size_t plane = (size_t)width * height;
    const unsigned char *in = d_in + blockIdx.z * plane;
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int gx0 = x0 - CONV_V6_LEAD, gy0 = y0 - R; /* picture position of tile byte 0 */

    if (width % 16 == 0 && tw % 16 == 0) {
        /* 16-byte pieces, each wholly inside or outside its row (shared piece
         * r * vpr + q is row r, bytes 16q ..). Warp w takes rows w, w + nw, ..
         * and its lanes the pieces of those rows in turn: no division */
        const int vpr = pitch / 16;
        const int nw = (nthreads + 31) / 32, w = tid / 32;
        const int lanes = min(32, nthreads - 32 * w); /* the warp's threads */
        int r = w, q = tid - 32 * w;                    /* this thread's first piece */
        while (q >= vpr) { /* rows of fewer pieces than the warp has threads */
            q -= vpr;
            r += nw;
        }
        while (r < rows) {
            uint4 v[V6_BATCH];
            int at[V6_BATCH];
#pragma unroll
            for (int u = 0; u < V6_BATCH; u++) { /* the loads first, all in flight */
                at[u] = -1;
                v[u] = make_uint4(0u, 0u, 0u, 0u);
                if (r < rows) {
                    const int gy = gy0 + r, gx = gx0 + 16 * q;
                    if (gy >= 0 && gy < height && gx >= 0 && gx < width)
                        v[u] = __ldg((const uint4 *)(in + (size_t)gy * width + gx));
                    at[u] = r * vpr + q;
                }
                q += lanes;
                while (q >= vpr) { /* on to the warp's next row */
                    q -= vpr;
                    r += nw;
                }
            }
#pragma unroll
            for (int u = 0; u < V6_BATCH; u++) /* then the stores */
                if (at[u] >= 0)
                    s_tile[at[u]] = v[u];
        }
    } else {
        /* any width: byte by byte */
        const int total = rows * pitch;
        for (int i = tid; i < total; i += nthreads) {
            const int r = i / pitch, c = i - r * pitch;
            const int gy = gy0 + r, gx = gx0 + c;
            s[i] = (gy >= 0 && gy < height && gx >= 0 && gx < width)
                       ? in[(size_t)gy * width + gx]
                       : (unsigned char)0;
        }
    }
    __syncthreads();

    const int px = threadIdx.x * PW, py = threadIdx.y * PH; /* the patch in the tile */
    if (x0 + px >= width || y0 + py >= height)
        return;
    const int shift = c_shift8;
    const int half = (1 << shift) >> 1; /* rounding: floor(sum / 2^shift + 1/2) */
    int acc[V6_PH_MAX][V6_PW_MAX];
    /* output row r reads tile rows py + r .. py + r + 2R (input rows
     * y0+py+r-R ..), filter row i from tile row py + r + i */
#pragma unroll
    for (int r = 0; r < PH; r++) {
        unsigned int w[2 * CONV_RGB_MAX_RADIUS + 1][V6_PW_MAX / 4 + 3];
#pragma unroll
        for (int i = 0; i <= 2 * R; i++)
            v6_row_words(s + (py + r + i) * pitch + CONV_V6_LEAD + px, w[i], PW);
#pragma unroll
        for (int p = 0; p < PW; p++) {
            const int b0 = 4 - R + p, ph = b0 % 4, a = b0 / 4;
            const int hi = v6_main_hi(R, ph), left = v6_left(R, ph), g = v6_group(R, ph);
            const int lw = hi ? a : a + 1, lp = hi ? ph : 0; /* leftover word, first byte */
            const int *taps = c_taps8 + ph * V6_SLOTS;
            int sum = half;
#pragma unroll
            for (int i = 0; i <= 2 * R; i++)
                sum = kit_dot4(w[i][a + hi], taps[i], sum);
            if (left > 0) {
#pragma unroll
                for (int i0 = 0; i0 <= 2 * R; i0 += g) {
                    const int n = 2 * R + 1 - i0 < g ? 2 * R + 1 - i0 : g; /* rows here */
                    unsigned int x = w[i0][lw]; /* one row: its word as it is */
                    if (n > 1 && left == 2) /* two bytes of two rows */
                        x = __byte_perm(w[i0][lw], w[i0 + 1][lw],
                                        lp | (lp + 1) << 4 | (lp + 4) << 8 | (lp + 5) << 12);
                    if (n > 1 && left == 1) { /* one byte of each of 2..4 rows */
                        const int sel = lp | (lp + 4) << 4;
                        x = __byte_perm(w[i0][lw], w[i0 + 1][lw], sel);
                        if (n == 3)
                            x = __byte_perm(x, w[i0 + 2][lw], 0x10 | (lp + 4) << 8);
                        if (n == 4)
                            x = __byte_perm(x, __byte_perm(w[i0 + 2][lw], w[i0 + 3][lw], sel),
                                            0x5410);
                    }
                    sum = kit_dot4(x, taps[2 * R + 1 + i0 / g], sum);
                }
            }
            acc[r][p] = sum;
        }
    }
    unsigned char *out = d_out + blockIdx.z * plane;
    const int x = x0 + px;
#pragma unroll
    for (int r = 0; r < PH; r++) {
        const int y = y0 + py + r;
        if (y >= height)
            break;
        unsigned int o[V6_PW_MAX / 4] = {0u, 0u, 0u, 0u};
        if (shift == 0) /* whole-number weights (laplace5, sharpen3): no division */
#pragma unroll
            for (int q = 0; q < PW / 4; q++)
                o[q] = pack4(acc[r][4 * q], acc[r][4 * q + 1], acc[r][4 * q + 2],
                             acc[r][4 * q + 3]);
        else
#pragma unroll
            for (int q = 0; q < PW / 4; q++)
                o[q] = pack4(acc[r][4 * q] >> shift, acc[r][4 * q + 1] >> shift,
                             acc[r][4 * q + 2] >> shift, acc[r][4 * q + 3] >> shift);
        unsigned char *orow = out + (size_t)y * width + x;
        if (width % PW == 0) { /* aligned, and the whole patch row is inside */
            if (PW == 4)
                *(unsigned int *)orow = o[0];
            else if (PW == 8)
                *(uint2 *)orow = make_uint2(o[0], o[1]);
            else
                *(uint4 *)orow = make_uint4(o[0], o[1], o[2], o[3]);
        } else {
#pragma unroll
            for (int p = 0; p < PW; p++)
                if (x + p < width)
                    orow[p] = (unsigned char)(o[p / 4] >> (8 * (p % 4)));
        }
    }
    /* <<< SOLUTION */
    /* >>> STUDENT
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
    <<< STUDENT */
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
    /* >>> SOLUTION */
    const size_t smem = conv_rgb_v6_smem(radius, block_w, block_h, tile_w, tile_h);
    if (smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)smem));
    dim3 block(block_w, block_h);
    dim3 grid(kit_blocks_for(width, block_w * tile_w), kit_blocks_for(height, block_h * tile_h),
              CONV_CHANNELS);
    fn<<<grid, block, smem>>>(d_in, d_out, width, height);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: a block covers (block_w*tile_w) x (block_h*tile_h) pixels of one
    // plane; grid layer z is the plane (3 of them). Dynamic shared memory:
    // conv_rgb_v6_smem(); launch fn, the kernel made for this radius and tile.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
