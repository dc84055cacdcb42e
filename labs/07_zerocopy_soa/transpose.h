/* transpose.h - lab 07, part transpose: out = in^T for a float matrix (the
 * functions are in transpose.cu).
 *
 * in has `height` rows of `width` floats (row-major: element (row y,
 * column x) at in[y * width + x]); out has `width` rows of `height` floats:
 *     out[x * height + y] = in[y * width + x]
 * Any size from 1x1 up: threads outside the matrix do nothing.
 *
 *   v1 naive, reading rows (given, written for you): reads coalesced,
 *      writes `height` floats apart
 *   v2 naive, reading columns: writes coalesced, reads `width` floats apart
 *   v3 a tile in shared memory (the course guide's version): both global
 *      reads and global writes coalesced, the tile read down its columns
 *   v4 v3 with one float of padding per tile row (the kit's addition):
 *      no bank conflicts when the tile is read down its columns
 *   v5 the fastest the kit teaches: blocks of 32x8 threads, each moving 4x4
 *      blocks of floats with 16-byte loads and stores through a tile whose
 *      16-byte groups are placed by an XOR pattern instead of padding
 *
 * Launchers take device (or managed) pointers. v1 to v4 launch blocks of
 * tile_w x tile_h threads, one element per thread (v3 and v4 need a square
 * tile of at most 32x32); v5 launches 32x8 threads per block whatever the
 * tile, and takes the tiles V5_TILES lists. They check the launch with
 * KIT_CHECK_LAUNCH() and return KIT_OK (KIT_NOT_IMPLEMENTED while a TODO).
 */
#ifndef LAB07_TRANSPOSE_H
#define LAB07_TRANSPOSE_H

#include "gpu.h"

#define TR_TILE 32          /* default tile of v1 to v4: the course guide's 32x32 blocks */
#define TR_MAX_SQUARE 32    /* v3, v4: a square tile of at most 32x32 threads */
#define V5_THREADS_X 32     /* v5: threads of a block, always 32x8 */
#define V5_THREADS_Y 8
#define V5_TILE_W 64        /* v5's default tile: 64 columns x 64 rows of the input */
#define V5_TILE_H 64
/* the tiles v5 is compiled for, input columns x rows (--tile WxH) */
#define V5_TILES "64x64 128x32 32x128 128x64 64x128 64x32 32x64"

#ifdef __cplusplus
extern "C" {
#endif

/* v1 (given): thread (x, y) reads in(y, x) and writes out(x, y). */
int transpose_v1(const float *d_in, float *d_out, int width, int height, int tile_w,
                 int tile_h);

/* v2: thread (x, y) of the grid is output element (row y, column x): it
 * reads in(x, y) and writes out(y, x) = out[y * height + x]. */
int transpose_v2(const float *d_in, float *d_out, int width, int height, int tile_w,
                 int tile_h);

/* v3: tile_w == tile_h <= 32; a tile_w x tile_w tile in shared memory. */
int transpose_v3(const float *d_in, float *d_out, int width, int height, int tile_w,
                 int tile_h);

/* v4: v3 with rows of tile_w + 1 floats in shared memory. */
int transpose_v4(const float *d_in, float *d_out, int width, int height, int tile_w,
                 int tile_h);

/* v5: a tile_w x tile_h tile (one of V5_TILES) per block of 32x8 threads. */
int transpose_v5(const float *d_in, float *d_out, int width, int height, int tile_w,
                 int tile_h);

/* 1 when v5 is compiled for a tile_w x tile_h tile. */
int transpose_v5_has_tile(int tile_w, int tile_h);

#ifdef __cplusplus
}
#endif
#endif
