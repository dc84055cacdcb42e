/* matvec.h - lab 06: the matrix-vector product y = A x in double on the GPU
 * (the functions you write, in matvec.cu).
 *
 * A is m x n, row-major: element (i, j) is d_A[(size_t)i * n + j]; x has n
 * elements, y has m. Variant 0 (cublasDgemv) is the kit's, in main.c.
 *
 * Every launcher takes device pointers, launches its kernel(s) on the
 * default stream, checks every launch, and returns KIT_OK (or
 * KIT_NOT_IMPLEMENTED while it is a TODO). It must not synchronise or copy
 * to the host: the harness times it with CUDA events, and before each call
 * it fills d_y with NaN, so a row that is never written fails the check.
 */
#ifndef LAB06_MATVEC_H
#define LAB06_MATVEC_H

#include "gpu.h"

/* v2/v3 tiles: BLOCK_WIDTH columns x BLOCK_HEIGHT rows (512 x 64, the course report's).
 * One thread per tile column, so a tile is at most 1024 columns wide. */
#define MATVEC_TILE_W 512
#define MATVEC_TILE_H 64
#define MATVEC_MAX_TILE_W 1024
#define MATVEC_MAX_GRID_Y 65535 /* row tiles are blockIdx.y */

#define MATVEC_V1_THREADS 512 /* v1: threads per block (the course report's) */
#define MATVEC_V4_THREADS 256 /* v4: threads per block, a multiple of 32 */

#ifdef __cplusplus
extern "C" {
#endif

/* The case's input (spec.c): A and x on the host, and the seeds of their streams. */
typedef struct {
    int m, n;
    double *h_A, *h_x;
    unsigned long long s_A, s_x;
    unsigned char *h_neg; /* rows of A negated for the content in force */
} matvec_problem;

/* v1: one thread per row, a 1D grid of `threads`-thread blocks. */
int matvec_v1(const double *d_A, const double *d_x, double *d_y, int m, int n, int threads);

/* v2: the course report's tiles, walked by rows. A 2D grid of tile_w x
 * tile_h tiles (edge tiles smaller); each block stages its slice of x in
 * shared memory, reads its tile a row at a time with consecutive threads on
 * consecutive columns, and adds each row's partial sum into y with atomicAdd
 * on double. Zeroes d_y first (that memset is part of v2's time). */
int matvec_v2(const double *d_A, const double *d_x, double *d_y, int m, int n, int tile_w,
              int tile_h);

/* v3: v2 with the double addition built from atomicCAS, as GPUs before
 * compute capability 6.0 had to. */
int matvec_v3(const double *d_A, const double *d_x, double *d_y, int m, int n, int tile_w,
              int tile_h);

/* v4: several warps per row (or several rows per block when rows are
 * short), 16-byte loads, a warp-shuffle reduction; no atomics. `threads`
 * per block, a multiple of 32. */
int matvec_v4(const double *d_A, const double *d_x, double *d_y, int m, int n, int threads);

/* How many of v4's warps share one row of n elements with blocks of
 * `threads` threads (kit-owned, in matvec.cu; main.c reports it). */
int matvec_v4_warps_per_row(int n, int threads);

#ifdef __cplusplus
}
#endif
#endif
