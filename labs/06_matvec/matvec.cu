/* matvec.cu - lab 06: y = A x in double, A row-major m x n.
 *
 * Versions (./lab06 --variant N); v0, cublasDgemv, is the kit's (main.c):
 *   v1 one thread per row, 512-thread blocks (the course report's question 2). Each
 *      thread walks its own row, so the 32 threads of a warp read 32
 *      addresses n*8 bytes apart: every load touches 32 sectors to use 8
 *      bytes of each. The baseline that shows why coalescing matters.
 *   v2 the report's tiles, walked by rows (its question 3): a 2D grid of tiles, 512 columns
 *      x 64 rows by default, smaller at the right and bottom edges. The
 *      block stages the tile's slice of x in shared memory once (64 rows
 *      reuse it), and its warps go down the tile a row at a time with the 32
 *      lanes on 32 consecutive columns: whole sectors, 8 per load. Each
 *      row's partial sum goes into y with atomicAdd on double.
 *   v3 v2 with the double addition built from atomicCAS (the loop GPUs
 *      before compute capability 6.0 needed): the same reads, a slower add
 *      that retries when another block changed the word first.
 *   v4 the modern answer: each row is read by one or several whole warps
 *      with 16-byte loads (double2), up to eight in flight per lane, summed by
 *      warp shuffles (and shared memory across a row's warps). No atomics,
 *      no zeroing of y, no tiles: every byte of A is read once, in full
 *      sectors, with enough loads in flight to keep the memory busy.
 *
 * Sections: device helpers, kernels, launchers.
 */
#include <stdint.h>

#include "matvec.h"

/* ----------------------------------------------------------- device helpers */

/* 1 when p may be read with 16-byte loads. */
KIT_MAYBE_UNUSED static inline int aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

/* The sum of v over the 32 lanes of a warp, in lane 0. Every lane of the
 * warp must call it (the shuffles name all 32 lanes). v2 and v4 use it. */
__device__ KIT_MAYBE_UNUSED static inline double warp_sum(double v)
{
    // TODO: halve the distance each step (16, 8, 4, 2, 1): add to v the
    // value of the lane `offset` places higher (__shfl_down_sync with the
    // full mask 0xffffffff). After five steps lane 0 holds the sum.
    return v;
}

/* *addr += val atomically, from a 64-bit compare-and-swap: what atomicAdd
 * on double was before compute capability 6.0 made it an instruction.
 * Returns the value *addr held before the addition. */
__device__ KIT_MAYBE_UNUSED static inline double atomic_add_cas(double *addr, double val)
{
    // TODO: view the double as an unsigned long long word. Loop: remember
    // the bits you last saw, compute their double value + val, and
    // atomicCAS(word, seen_bits, new_bits). atomicCAS returns what the word
    // held; if that differs from what you assumed, another thread got in
    // first: retry with the bits it returned. Return the old value.
    KIT_UNUSED(addr);
    return val;
}

/* ------------------------------------------------------------------ kernels */

/* v1: one thread per row */
__global__ void matvec_v1_kernel(const double *d_A, const double *d_x, double *d_y, int m, int n)
{
    // TODO: the row i of this thread from blockIdx, blockDim and threadIdx;
    // threads past the last row do nothing; sum row[j] * x[j] over the row
    // (index A with (size_t)i * n: m * n may not fit an int) and write y[i].
}

/* v2 and v3: one tile_w x tile_h tile per block, blockIdx.x the column
 * tile, blockIdx.y the row tile; one thread per tile column (blockDim.x is
 * tile_w rounded up to whole warps). use_cas picks v3's addition. */
__device__ __forceinline__ void matvec_tile(const double *__restrict__ d_A,
                                            const double *__restrict__ d_x, double *d_y, int m,
                                            int n, int tile_w, int tile_h, int use_cas)
{
    // TODO: the tile starts at column j0 = blockIdx.x * tile_w and row
    // i0 = blockIdx.y * tile_h; at the edges it is only w = min(tile_w, n - j0)
    // wide and h = min(tile_h, m - i0) high. Declare
    //     __shared__ double s_x[MATVEC_MAX_TILE_W];
    // let thread t < w copy x[j0 + t] into s_x[t], then __syncthreads().
    // Warp k takes the tile's rows k, k + (warps per block), ...: lane l
    // adds a[c] * s_x[c] for c = l, l + 32, ... < w (consecutive lanes read
    // consecutive addresses), warp_sum() the lane sums, and lane 0 adds the
    // row's partial into y[i0 + r]: atomicAdd, or atomic_add_cas when
    // use_cas is set. Every lane of a warp must reach warp_sum().
    KIT_UNUSED(d_A); KIT_UNUSED(d_x); KIT_UNUSED(d_y); KIT_UNUSED(m); KIT_UNUSED(n);
    KIT_UNUSED(tile_w); KIT_UNUSED(tile_h); KIT_UNUSED(use_cas);
}

/* v2: atomicAdd on double (compute capability 6.0 and newer) */
__global__ void matvec_v2_kernel(const double *__restrict__ d_A, const double *__restrict__ d_x,
                                 double *d_y, int m, int n, int tile_w, int tile_h)
{
    matvec_tile(d_A, d_x, d_y, m, n, tile_w, tile_h, 0);
}

/* v3: the same, adding with atomic_add_cas */
__global__ void matvec_v3_kernel(const double *__restrict__ d_A, const double *__restrict__ d_x,
                                 double *d_y, int m, int n, int tile_w, int tile_h)
{
    matvec_tile(d_A, d_x, d_y, m, n, tile_w, tile_h, 1);
}

/* v4: loads per lane and loop trip, issued before the multiply-adds */
#define V4_UNROLL 8

/* v4: blockDim.x / 32 warps per block, warps_per_row of them on each row,
 * so a block covers (blockDim.x / 32) / warps_per_row consecutive rows.
 * vec: rows and x start on 16-byte boundaries (n even): double2 loads;
 * else one double at a time.
 * __launch_bounds__(1024, 1): any block size, 64 registers a thread at most.
 * Without it the compiler keeps the kernel at 32 registers by putting each
 * load right before the multiply that needs it, so only about two loads of
 * a lane are in flight; with 64 it issues five or six before the first
 * multiply (seen in the SASS, cuobjdump -sass). */
__global__ void __launch_bounds__(1024, 1)
    matvec_v4_kernel(const double *__restrict__ d_A, const double *__restrict__ d_x,
                     double *__restrict__ d_y, int m, int n, int warps_per_row, int vec)
{
    // TODO: lane = threadIdx.x % 32, warp = threadIdx.x / 32; the block
    // holds (blockDim.x / 32) / warps_per_row rows; this warp's row is
    // blockIdx.x * rows_per_block + warp / warps_per_row, and it is warp
    // number sub = warp % warps_per_row of that row. The row's lanes start
    // at first = 32 * sub + lane and step by stride = 32 * warps_per_row.
    // With vec, read the row and x as double2 (n / 2 pairs): each trip of
    // the loop issues V4_UNROLL loads (guarded, 0 past the end) before any
    // arithmetic, so they are in flight together; __ldcs for A (read once),
    // __ldg for x (read by every row). Without vec, the same with doubles.
    // Then warp_sum(); with one warp per row lane 0 writes y[row]; with
    // several, lane 0 puts its warp's sum in __shared__ double s_part[32],
    // __syncthreads(), and the row's first warp adds them and writes y[row].
    // Rows past m: no loads, but they still reach warp_sum and the barrier.
    KIT_UNUSED(d_A); KIT_UNUSED(d_x); KIT_UNUSED(d_y); KIT_UNUSED(m); KIT_UNUSED(n);
    KIT_UNUSED(warps_per_row); KIT_UNUSED(vec);
}

/* ---------------------------------------------------------------- launchers */

static int check_args(const double *d_A, const double *d_x, const double *d_y, int m, int n)
{
    KIT_REQUIRE(d_A != NULL && d_x != NULL && d_y != NULL);
    KIT_REQUIRE(d_y != d_A && d_y != d_x);
    KIT_REQUIRE(m > 0 && n > 0);
    return KIT_OK;
}

int matvec_v1(const double *d_A, const double *d_x, double *d_y, int m, int n, int threads)
{
    int r = check_args(d_A, d_x, d_y, m, n);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(threads > 0 && threads <= 1024);
    // TODO: a 1D grid of blocks of `threads` threads, one thread per row;
    // launch matvec_v1_kernel, then KIT_CHECK_LAUNCH(); return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
}

static int check_tile(int m, int tile_w, int tile_h)
{
    KIT_REQUIRE(tile_w > 0 && tile_w <= MATVEC_MAX_TILE_W && tile_h > 0);
    KIT_REQUIRE(kit_blocks_for(m, tile_h) <= MATVEC_MAX_GRID_Y);
    return KIT_OK;
}

int matvec_v2(const double *d_A, const double *d_x, double *d_y, int m, int n, int tile_w,
              int tile_h)
{
    int r = check_args(d_A, d_x, d_y, m, n);
    if (r == KIT_OK)
        r = check_tile(m, tile_w, tile_h);
    if (r != KIT_OK)
        return r;
    // TODO: the blocks add into y, so first set it to zero on the default
    // stream: CUDA_CHECK(cudaMemsetAsync(d_y, 0, m * sizeof(double), 0)).
    // Grid: ceil(n / tile_w) column tiles (x) by ceil(m / tile_h) row tiles
    // (y); one thread per tile column, rounded up to whole warps. Launch
    // matvec_v2_kernel, KIT_CHECK_LAUNCH(), return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
}

int matvec_v3(const double *d_A, const double *d_x, double *d_y, int m, int n, int tile_w,
              int tile_h)
{
    int r = check_args(d_A, d_x, d_y, m, n);
    if (r == KIT_OK)
        r = check_tile(m, tile_w, tile_h);
    if (r != KIT_OK)
        return r;
    // TODO: as v2, launching matvec_v3_kernel.
    return KIT_NOT_IMPLEMENTED;
}

/* v4's split of a block's warps between rows (kit-owned, main.c reports
 * it): as many warps on a row as divide the block evenly while each still
 * gets at least 128 elements (4 per lane); 1 for short rows, so a block
 * then takes several rows. Small matrices get more warps, hence more loads
 * in flight at once: their time is mostly latency. */
int matvec_v4_warps_per_row(int n, int threads)
{
    const int warps = threads / 32;
    const int want = n / 128 > 1 ? n / 128 : 1;
    int best = 1;
    for (int d = 1; d <= warps; d++)
        if (warps % d == 0 && d <= want)
            best = d;
    return best;
}

int matvec_v4(const double *d_A, const double *d_x, double *d_y, int m, int n, int threads)
{
    int r = check_args(d_A, d_x, d_y, m, n);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(threads >= 32 && threads <= 1024 && threads % 32 == 0);
    // TODO: warps_per_row = matvec_v4_warps_per_row(n, threads); the block
    // then covers threads / 32 / warps_per_row rows, so the grid needs
    // ceil(m / rows_per_block) blocks. vec = n is even and d_A, d_x are
    // 16-byte aligned (aligned16). Launch, KIT_CHECK_LAUNCH(), return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
}
