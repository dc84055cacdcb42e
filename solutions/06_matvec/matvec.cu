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
    /* >>> SOLUTION */
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: halve the distance each step (16, 8, 4, 2, 1): add to v the
    // value of the lane `offset` places higher (__shfl_down_sync with the
    // full mask 0xffffffff). After five steps lane 0 holds the sum.
    return v;
    <<< STUDENT */
}

/* *addr += val atomically, from a 64-bit compare-and-swap: what atomicAdd
 * on double was before compute capability 6.0 made it an instruction.
 * Returns the value *addr held before the addition. */
__device__ KIT_MAYBE_UNUSED static inline double atomic_add_cas(double *addr, double val)
{
    /* >>> SOLUTION */
    unsigned long long *word = (unsigned long long *)addr;
    unsigned long long seen = *word, expected;
    do {
        expected = seen;
        const double sum = __longlong_as_double((long long)expected) + val;
        /* stores sum only if nobody changed the word since we read it */
        seen = atomicCAS(word, expected, (unsigned long long)__double_as_longlong(sum));
    } while (seen != expected); /* bit patterns, so a NaN cannot loop forever */
    return __longlong_as_double((long long)seen);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: view the double as an unsigned long long word. Loop: remember
    // the bits you last saw, compute their double value + val, and
    // atomicCAS(word, seen_bits, new_bits). atomicCAS returns what the word
    // held; if that differs from what you assumed, another thread got in
    // first: retry with the bits it returned. Return the old value.
    KIT_UNUSED(addr);
    return val;
    <<< STUDENT */
}

/* ------------------------------------------------------------------ kernels */

/* v1: one thread per row */
__global__ void matvec_v1_kernel(const double *d_A, const double *d_x, double *d_y, int m, int n)
{
    /* >>> SOLUTION */
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const double *row = d_A + (size_t)i * n;
    double sum = 0.0;
    for (int j = 0; j < n; j++)
        sum += row[j] * d_x[j];
    d_y[i] = sum;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: the row i of this thread from blockIdx, blockDim and threadIdx;
    // threads past the last row do nothing; sum row[j] * x[j] over the row
    // (index A with (size_t)i * n: m * n may not fit an int) and write y[i].
    <<< STUDENT */
}

/* v2 and v3: one tile_w x tile_h tile per block, blockIdx.x the column
 * tile, blockIdx.y the row tile; one thread per tile column (blockDim.x is
 * tile_w rounded up to whole warps). use_cas picks v3's addition. */
__device__ __forceinline__ void matvec_tile(const double *__restrict__ d_A,
                                            const double *__restrict__ d_x, double *d_y, int m,
                                            int n, int tile_w, int tile_h, int use_cas)
{
    /* >>> SOLUTION */
    __shared__ double s_x[MATVEC_MAX_TILE_W];
    const int j0 = blockIdx.x * tile_w; /* first column and first row of the tile */
    const int i0 = blockIdx.y * tile_h;
    const int w = min(tile_w, n - j0); /* edge tiles are smaller */
    const int h = min(tile_h, m - i0);
    const int t = threadIdx.x;
    if (t < w)
        s_x[t] = d_x[j0 + t]; /* one element of the slice per thread */
    __syncthreads();
    const int lane = t & 31, warp = t >> 5, nwarps = blockDim.x >> 5;
    for (int r = warp; r < h; r += nwarps) {
        const double *a = d_A + (size_t)(i0 + r) * n + j0;
        double sum = 0.0;
#pragma unroll 8
        for (int c = lane; c < w; c += 32) /* lanes on consecutive columns */
            sum += a[c] * s_x[c];
        sum = warp_sum(sum);
        if (lane == 0) {
            if (use_cas)
                atomic_add_cas(&d_y[i0 + r], sum);
            else
                atomicAdd(&d_y[i0 + r], sum);
        }
    }
    /* <<< SOLUTION */
    /* >>> STUDENT
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
    <<< STUDENT */
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
    /* >>> SOLUTION */
    __shared__ double s_part[32]; /* one partial sum per warp */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int rows_per_block = (blockDim.x >> 5) / warps_per_row;
    const int sub = warp % warps_per_row; /* this warp's place among its row's warps */
    const long long row = (long long)blockIdx.x * rows_per_block + warp / warps_per_row;
    const int stride = 32 * warps_per_row; /* lanes that share the row */
    const int first = 32 * sub + lane;
    double sum = 0.0;
    if (row < m) {
        const double *a = d_A + (size_t)row * n;
        if (vec) {
            const double2 *a2 = (const double2 *)a, *x2 = (const double2 *)d_x;
            const int n2 = n >> 1;
            for (int base = first; base < n2; base += V4_UNROLL * stride) {
                double2 av[V4_UNROLL], xv[V4_UNROLL];
#pragma unroll
                for (int u = 0; u < V4_UNROLL; u++) { /* the loads first, then the math */
                    const int k = base + u * stride;
                    av[u] = k < n2 ? __ldcs(a2 + k) : make_double2(0.0, 0.0); /* A: read once */
                    xv[u] = k < n2 ? __ldg(x2 + k) : make_double2(0.0, 0.0);  /* x: cached */
                }
#pragma unroll
                for (int u = 0; u < V4_UNROLL; u++) {
                    sum = fma(av[u].x, xv[u].x, sum);
                    sum = fma(av[u].y, xv[u].y, sum);
                }
            }
        } else {
            for (int base = first; base < n; base += V4_UNROLL * stride) {
                double av[V4_UNROLL], xv[V4_UNROLL];
#pragma unroll
                for (int u = 0; u < V4_UNROLL; u++) {
                    const int k = base + u * stride;
                    av[u] = k < n ? __ldcs(a + k) : 0.0;
                    xv[u] = k < n ? __ldg(d_x + k) : 0.0;
                }
#pragma unroll
                for (int u = 0; u < V4_UNROLL; u++)
                    sum = fma(av[u], xv[u], sum);
            }
        }
    }
    sum = warp_sum(sum); /* every lane gets here, rows past m with 0 */
    if (warps_per_row == 1) { /* the same for the whole block: no barrier skipped */
        if (lane == 0 && row < m)
            d_y[row] = sum;
        return;
    }
    if (lane == 0)
        s_part[warp] = sum;
    __syncthreads();
    if (sub == 0 && lane == 0 && row < m) {
        double total = 0.0;
        for (int k = 0; k < warps_per_row; k++)
            total += s_part[warp + k];
        d_y[row] = total;
    }
    /* <<< SOLUTION */
    /* >>> STUDENT
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
    <<< STUDENT */
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
    /* >>> SOLUTION */
    matvec_v1_kernel<<<kit_blocks_for(m, threads), threads>>>(d_A, d_x, d_y, m, n);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: a 1D grid of blocks of `threads` threads, one thread per row;
    // launch matvec_v1_kernel, then KIT_CHECK_LAUNCH(); return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
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
    /* >>> SOLUTION */
    /* the blocks add into y: it must start at zero (this is in v2's time) */
    CUDA_CHECK(cudaMemsetAsync(d_y, 0, (size_t)m * sizeof(double), 0));
    dim3 grid(kit_blocks_for(n, tile_w), kit_blocks_for(m, tile_h));
    matvec_v2_kernel<<<grid, 32 * kit_blocks_for(tile_w, 32)>>>(d_A, d_x, d_y, m, n, tile_w, tile_h);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: the blocks add into y, so first set it to zero on the default
    // stream: CUDA_CHECK(cudaMemsetAsync(d_y, 0, m * sizeof(double), 0)).
    // Grid: ceil(n / tile_w) column tiles (x) by ceil(m / tile_h) row tiles
    // (y); one thread per tile column, rounded up to whole warps. Launch
    // matvec_v2_kernel, KIT_CHECK_LAUNCH(), return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int matvec_v3(const double *d_A, const double *d_x, double *d_y, int m, int n, int tile_w,
              int tile_h)
{
    int r = check_args(d_A, d_x, d_y, m, n);
    if (r == KIT_OK)
        r = check_tile(m, tile_w, tile_h);
    if (r != KIT_OK)
        return r;
    /* >>> SOLUTION */
    CUDA_CHECK(cudaMemsetAsync(d_y, 0, (size_t)m * sizeof(double), 0));
    dim3 grid(kit_blocks_for(n, tile_w), kit_blocks_for(m, tile_h));
    matvec_v3_kernel<<<grid, 32 * kit_blocks_for(tile_w, 32)>>>(d_A, d_x, d_y, m, n, tile_w, tile_h);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: as v2, launching matvec_v3_kernel.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
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
    /* >>> SOLUTION */
    const int warps_per_row = matvec_v4_warps_per_row(n, threads);
    const int rows_per_block = threads / 32 / warps_per_row;
    const int vec = n % 2 == 0 && aligned16(d_A) && aligned16(d_x);
    matvec_v4_kernel<<<kit_blocks_for(m, rows_per_block), threads>>>(d_A, d_x, d_y, m, n,
                                                                  warps_per_row, vec);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: warps_per_row = matvec_v4_warps_per_row(n, threads); the block
    // then covers threads / 32 / warps_per_row rows, so the grid needs
    // ceil(m / rows_per_block) blocks. vec = n is even and d_A, d_x are
    // 16-byte aligned (aligned16). Launch, KIT_CHECK_LAUNCH(), return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
