/* strip.h - lab 05, part strip: a picture larger than the GPU allows,
 * filtered in strips of rows (the functions are in strip.cu).
 *
 * The picture is W x H doubles, row-major: pixel (x, y) at [y*W + x]. The
 * filter is separable with radius R (1..80): a row pass, then a column pass,
 * zero outside the picture:
 *     tmp(x, y) = sum_k row[k+R] * in(x+k, y)      k = -R..R
 *     out(x, y) = sum_k col[k+R] * tmp(x, y+k)
 *
 * Strips. Strip k gives output rows y0..y1-1 (job->rows of them, fewer in the
 * last strip). Its column pass needs tmp on R rows above and R below, so it
 * copies input rows a0..a1-1 = y0-R..y1+R-1, clipped to the picture, runs the
 * row pass on all of them, then the column pass on its own rows: strip_at()
 * works the numbers out. One strip's buffers are two blocks of
 * strip_buffer_doubles() doubles: the input rows (the column pass writes its
 * result over them, the input being no longer needed) and the row pass's tmp.
 *
 * Device memory. job->budget is what a variant may hold at once, from
 * --gpu-mem. The harness counts every cudaMalloc and cudaFree of the run and
 * refuses an allocation that would go past the budget (the call fails with
 * cudaErrorMemoryAllocation), so a variant that ignores it fails as on a
 * smaller GPU. The harness chose job->rows so that the variant's buffer sets
 * fit: one set for v2 and v3, two for v4, job->streams for v5.
 *
 * Host memory. job->h_in and job->h_out are the harness's; job->pinned says
 * whether they are page-locked (v3, v4, v5 always; v1 and v2 with --pinned).
 * Allocate no host memory of your own.
 *
 * Variants (./lab05 --part strip --variant N):
 *   v1 given    the whole picture on the GPU at once (needs 2*W*H doubles)
 *   v2 given    strips, one after the other: synchronous copies from pageable memory
 *   v3 yours    strips on one stream of your own, asynchronous copies from pinned memory,
 *               one wait at the end
 *   v4 yours    two streams and two buffer sets: strip k+1's copies overlap strip k's kernels
 *   v5 yours    job->streams streams and buffer sets, so that copy-in, kernels and copy-out
 *               of three different strips run at the same time
 * Every variant returns KIT_OK, or KIT_NOT_IMPLEMENTED while it is a TODO,
 * or KIT_RUNTIME_ERROR after a failed CUDA call (CUDA_CHECK does that). Its
 * timed span holds everything it does: allocations, copies, kernels, and the
 * wait for the last copy; when it returns, job->h_out holds the result.
 */
#ifndef LAB05_STRIP_H
#define LAB05_STRIP_H

#include <stddef.h>
#include "gpu.h"

#define STRIP_MAX_RADIUS 80
#define STRIP_MAX_STREAMS 16

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const double *h_in; /* the picture, W x H */
    double *h_out;      /* the result, W x H */
    int width, height, radius;
    int rows;           /* output rows per strip (>= 1) */
    int streams;        /* v5: streams and buffer sets (--streams, at most the strips) */
    int pinned;         /* h_in and h_out are page-locked */
    size_t budget;      /* device bytes the variant may hold at once */
} strip_job;

/* One strip: output rows [y0, y1) from input rows [a0, a1). */
typedef struct {
    int y0, y1, a0, a1;
} strip_span;

/* Strips in the picture. */
static inline int strip_count(const strip_job *j)
{
    return (j->height + j->rows - 1) / j->rows;
}

/* Strip k (0 .. strip_count()-1). */
static inline strip_span strip_at(const strip_job *j, int k)
{
    strip_span s;
    s.y0 = k * j->rows;
    s.y1 = s.y0 + j->rows < j->height ? s.y0 + j->rows : j->height;
    s.a0 = s.y0 - j->radius > 0 ? s.y0 - j->radius : 0;
    s.a1 = s.y1 + j->radius < j->height ? s.y1 + j->radius : j->height;
    return s;
}

/* Doubles in one buffer of a strip: its input rows with the halo, for the
 * tallest strip (rows + 2R rows, no more than the picture). */
static inline size_t strip_buffer_doubles(const strip_job *j)
{
    long r = (long)j->rows + 2L * j->radius;
    if (r > j->height)
        r = j->height;
    return (size_t)r * (size_t)j->width;
}

/* Bytes of one buffer set (input rows, tmp). */
static inline size_t strip_set_bytes(const strip_job *j)
{
    return 2 * strip_buffer_doubles(j) * sizeof(double);
}

/* Given: the taps (2R+1 each) into constant memory, once before any run. */
int strip_upload_taps(const double *h_row, const double *h_col, int radius);

/* Given: the row pass on n rows of W doubles (d_in -> d_tmp), on stream s. */
int strip_rows(const double *d_in, double *d_tmp, int width, int n, int radius, cudaStream_t s);

/* Given: the column pass of strip sp: d_tmp holds the row pass of input rows
 * sp.a0 .. sp.a1-1; output row y (sp.y0 <= y < sp.y1) goes to
 * d_out[(y - sp.y0) * W + x]. On stream s. */
int strip_cols(const double *d_tmp, double *d_out, int width, int height, strip_span sp,
               int radius, cudaStream_t s);

int strip_v1(const strip_job *j);
int strip_v2(const strip_job *j);
int strip_v3(const strip_job *j);
int strip_v4(const strip_job *j);
int strip_v5(const strip_job *j);

#ifdef __cplusplus
}
#endif
#endif
