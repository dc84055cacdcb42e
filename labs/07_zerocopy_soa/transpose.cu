/* transpose.cu - lab 07, part transpose: out = in^T, float, any size.
 *
 * Versions (./lab07 --part transpose --variant N):
 *   v1 naive, one element per thread, reading rows (given): a warp reads 128
 *      consecutive bytes but writes 32 floats `height` apart, one sector each.
 *   v2 naive, reading columns: the strided side moves from the writes to the
 *      reads, which the L1 and L2 caches can partly absorb (writes cannot).
 *   v3 a tile in shared memory (the course guide's): the block reads its tile
 *      row by row and writes it back row by row, transposed through shared
 *      memory, so both global sides are coalesced; reading the tile down a
 *      column, though, puts all 32 lanes of a warp on one bank.
 *   v4 v3 with one float of padding per tile row: a column of the tile now
 *      spreads over the 32 banks, no conflicts (the kit's addition).
 *   v5 32x8 threads per block, each moving 4x4 blocks of floats: 16-byte
 *      loads and stores (a quarter of the instructions), several blocks in
 *      flight per thread, a larger tile per block, and the tile's 16-byte
 *      groups placed by an XOR pattern (padding would break their alignment).
 *
 * Sections: helpers, kernels, launchers.
 */
#include "transpose.h"

/* ------------------------------------------------------------------ helpers */

#define V5_THREADS (V5_THREADS_X * V5_THREADS_Y)
#define V5_MAX_QUADS 2 /* 4x4 blocks a thread moves in the largest tile (128x64) */

/* v5's tile in shared memory holds the *output* tile: tile_w rows (input
 * columns) of tile_h floats, as float4 groups of 4 consecutive output
 * columns. Group g of row r sits at slot g ^ ((r / 4) % 8) of the row
 * instead of slot g. A 16-byte shared access is served 8 lanes at a time,
 * and those 8 lanes must hit 8 different groups of 4 banks:
 *  - filling the tile, 8 lanes write rows r = 4q .. 4q + 28 (step 4) at the
 *    same g: the XOR sends them to 8 different slots;
 *  - emptying it, 8 lanes read slots g = 8k .. 8k+7 of one row: the XOR
 *    only permutes those 8.
 * Rows are tile_h / 4 >= 8 groups long, a multiple of 8 (tile_h 32, 64 or
 * 128), so every row starts on bank 0 and the XOR stays inside the row. */
__device__ KIT_MAYBE_UNUSED static inline int v5_slot(int r, int g, int tile_h)
{
    return r * (tile_h / 4) + (g ^ ((r >> 2) & 7));
}

/* ------------------------------------------------------------------ kernels */

/* v1: thread (x, y) moves in(y, x) to out(x, y) */
__global__ void transpose_naive_rows(const float *d_in, float *d_out, int width, int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        d_out[(size_t)x * height + y] = d_in[(size_t)y * width + x];
}

/* v2: thread (x, y) is output element (row y, column x) = in(row x, column y) */
__global__ void transpose_naive_cols(const float *d_in, float *d_out, int width, int height)
{
    // TODO: x runs along an output row (0 .. height-1), y down the output
    // (0 .. width-1); guard both, then out[y * height + x] = in[x * width + y]
    // (offsets as size_t: a 65535 x 65535 matrix has more elements than an
    // int can count).
}

/* v3: the course guide's tile, square blocks of blockDim.x <= 32 threads a side */
__global__ void transpose_smem(const float *d_in, float *d_out, int width, int height)
{
    // TODO: declare __shared__ float s_tile[TR_MAX_SQUARE][TR_MAX_SQUARE];
    // t = blockDim.x (the tile's side); (x, y) of this thread in the input
    // from blockIdx, t and threadIdx; if inside, copy in(y, x) to
    // s_tile[threadIdx.y][threadIdx.x] (no early return: every thread must
    // reach the barrier); __syncthreads(); then swap the block indices: this
    // thread writes output row oy = blockIdx.x*t + threadIdx.y, column
    // ox = blockIdx.y*t + threadIdx.x, the tile's [threadIdx.x][threadIdx.y],
    // if ox < height and oy < width.
}

/* v4: v3 with a padded tile */
__global__ void transpose_smem_pad(const float *d_in, float *d_out, int width, int height)
{
    // TODO: v3's body with the tile declared one float wider:
    // __shared__ float s_tile[TR_MAX_SQUARE][TR_MAX_SQUARE + 1];
}

/* v5: one tile of tile_w columns x tile_h rows of the input per block of
 * 32x8 threads. s_t holds tile_w * tile_h / 4 float4 (v5_slot's layout).
 * Interior tiles of a matrix whose sides are multiples of 4 go by whole
 * 4x4 blocks and 16-byte accesses; the others (edges, odd sizes) move the
 * same tile one float at a time. */
__device__ __forceinline__ void transpose_v5_body(const float *__restrict__ d_in,
                                                  float *__restrict__ d_out, int width,
                                                  int height, float4 *s_t, const int tile_w,
                                                  const int tile_h)
{
    // TODO: tile (blockIdx.x, blockIdx.y) covers input columns x0 .. x0+tile_w-1
    // and rows y0 .. y0+tile_h-1; tid = threadIdx.y * 32 + threadIdx.x.
    // Fast path (width and height multiples of 4, the tile wholly inside, both
    // pointers 16-byte aligned): the tile is (tile_h/4) x (tile_w/4) blocks
    // of 4x4 floats; block m = tid + 256*j (j < V5_MAX_QUADS, m < their count)
    // is read as four float4 (four input rows, four columns), turned in
    // registers (column c of the four rows becomes one float4) and written to
    // s_t[v5_slot(output row, group, tile_h)]. Other tiles: one float at a time,
    // to float index 4*v5_slot(xx, yy/4, tile_h) + yy%4 of s_t, with guards.
    // __syncthreads(). Then the output rows x0 .. x0+tile_w-1, columns
    // y0 .. y0+tile_h-1: 16-byte stores of s_t[v5_slot(r, g, tile_h)] on the
    // fast path, single guarded floats otherwise.
}

/* One v5 kernel per tile shape, so the tile's sizes are constants. */
#define TRANSPOSE_V5_KERNEL(TW, TH)                                                           \
    __global__ void __launch_bounds__(V5_THREADS)                                             \
        transpose_v5_##TW##x##TH(const float *__restrict__ d_in, float *__restrict__ d_out,  \
                                 int width, int height)                                       \
    {                                                                                         \
        __shared__ float4 s_t[(TW) * (TH) / 4];                                               \
        transpose_v5_body(d_in, d_out, width, height, s_t, TW, TH);                           \
    }
TRANSPOSE_V5_KERNEL(64, 64)
TRANSPOSE_V5_KERNEL(128, 32)
TRANSPOSE_V5_KERNEL(32, 128)
TRANSPOSE_V5_KERNEL(128, 64)
TRANSPOSE_V5_KERNEL(64, 128)
TRANSPOSE_V5_KERNEL(64, 32)
TRANSPOSE_V5_KERNEL(32, 64)

typedef void (*v5_kernel)(const float *, float *, int, int);
static const struct {
    int tile_w, tile_h;
    v5_kernel fn;
} v5_tiles[] = {
    {64, 64, transpose_v5_64x64},   {128, 32, transpose_v5_128x32}, {32, 128, transpose_v5_32x128},
    {128, 64, transpose_v5_128x64}, {64, 128, transpose_v5_64x128}, {64, 32, transpose_v5_64x32},
    {32, 64, transpose_v5_32x64},
};

KIT_MAYBE_UNUSED static v5_kernel v5_find(int tile_w, int tile_h)
{
    for (size_t i = 0; i < sizeof v5_tiles / sizeof v5_tiles[0]; i++)
        if (v5_tiles[i].tile_w == tile_w && v5_tiles[i].tile_h == tile_h)
            return v5_tiles[i].fn;
    return NULL;
}

/* ---------------------------------------------------------------- launchers */

static int check_args(const float *d_in, const float *d_out, int width, int height)
{
    KIT_REQUIRE(d_in != NULL && d_out != NULL && d_in != d_out);
    KIT_REQUIRE(width > 0 && height > 0);
    return KIT_OK;
}

int transpose_v5_has_tile(int tile_w, int tile_h)
{
    return v5_find(tile_w, tile_h) != NULL;
}

int transpose_v1(const float *d_in, float *d_out, int width, int height, int tile_w, int tile_h)
{
    int r = check_args(d_in, d_out, width, height);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(tile_w > 0 && tile_h > 0 && tile_w * tile_h <= 1024);
    dim3 block(tile_w, tile_h);
    dim3 grid(kit_blocks_for(width, tile_w), kit_blocks_for(height, tile_h));
    transpose_naive_rows<<<grid, block>>>(d_in, d_out, width, height);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

int transpose_v2(const float *d_in, float *d_out, int width, int height, int tile_w, int tile_h)
{
    int r = check_args(d_in, d_out, width, height);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(tile_w > 0 && tile_h > 0 && tile_w * tile_h <= 1024);
    // TODO: a grid of tile_w x tile_h blocks covering the *output* (height
    // columns, width rows), the launch of transpose_naive_cols, the check.
    return KIT_NOT_IMPLEMENTED;
}

int transpose_v3(const float *d_in, float *d_out, int width, int height, int tile_w, int tile_h)
{
    int r = check_args(d_in, d_out, width, height);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(tile_w == tile_h && tile_w > 0 && tile_w <= TR_MAX_SQUARE);
    // TODO: square blocks of tile_w x tile_w threads covering the input, the
    // launch of transpose_smem, the check.
    return KIT_NOT_IMPLEMENTED;
}

int transpose_v4(const float *d_in, float *d_out, int width, int height, int tile_w, int tile_h)
{
    int r = check_args(d_in, d_out, width, height);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(tile_w == tile_h && tile_w > 0 && tile_w <= TR_MAX_SQUARE);
    // TODO: as transpose_v3, launching transpose_smem_pad.
    return KIT_NOT_IMPLEMENTED;
}

int transpose_v5(const float *d_in, float *d_out, int width, int height, int tile_w, int tile_h)
{
    int r = check_args(d_in, d_out, width, height);
    if (r != KIT_OK)
        return r;
    const v5_kernel fn = v5_find(tile_w, tile_h);
    KIT_REQUIRE(fn != NULL);
    // TODO: blocks of 32x8 threads, one per tile of tile_w x tile_h input
    // elements; launch fn (the kernel made for this tile), check it.
    return KIT_NOT_IMPLEMENTED;
}
