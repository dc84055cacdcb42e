/* batch.h - lab 05, part batch: many small pictures through one GPU (the
 * functions are in batch.cu).
 *
 * job->count pictures of W x H RGB bytes, interleaved: channel ch of pixel
 * (x, y) of picture i at [i*W*H*3 + (y*W + x)*3 + ch]. Every picture goes
 * through the same small filter (3x3 or 5x5, weights in constant memory,
 * zero outside the picture), rounded to bytes: the results must equal the
 * CPU's exactly. batch_filter() is the given launcher of the given kernel;
 * the lesson of this part is everything around it: allocations, copies,
 * launches, streams, and the host's own work.
 *
 * Host memory. job->h_in and job->h_out are the harness's and hold all the
 * pictures one after the other. They are pageable, except with --pinned for
 * v4 (job->pinned says so). v5 reads no job->h_in: it decodes the pictures
 * itself, group by group, with batch_load() into job->h_stage[0] and [1], two
 * page-locked buffers of job->group pictures each; its job->h_out is
 * page-locked. Allocate no host memory of your own.
 *
 * Variants (./lab05 --part batch --variant N):
 *   v1 given   one picture at a time: allocate, copy in, launch, copy out, free
 *   v2 yours   device buffers allocated once for the whole batch and reused
 *   v3 yours   job->group pictures per copy and per launch (grid.z = pictures)
 *   v4 yours   groups on job->streams streams with cudaMemcpyAsync, so that one
 *              group's copies overlap another's kernel (run it with and without
 *              --pinned, and explain the difference)
 *   v5 yours   pipelined loading: while the GPU filters group g, the host decodes
 *              group g+1 on job->loaders threads
 * Every variant returns KIT_OK, KIT_NOT_IMPLEMENTED while it is a TODO, or
 * KIT_RUNTIME_ERROR after a failed CUDA call. Its timed span holds all it
 * does; when it returns, job->h_out holds every result.
 */
#ifndef LAB05_BATCH_H
#define LAB05_BATCH_H

#include <stddef.h>
#include "gpu.h"

#define BATCH_MAX_RADIUS 2  /* 3x3 and 5x5 filters */
#define BATCH_MAX_GROUP 4096
#define BATCH_MAX_STREAMS 16

#ifdef __cplusplus
extern "C" {
#endif

/* v5's pictures: the run's content as PNG in memory, which the harness
 * encodes before each run (opaque here). */
typedef struct batch_source batch_source;

typedef struct {
    const unsigned char *h_in; /* v1-v4: count pictures, one after the other */
    unsigned char *h_out;      /* count results, the same layout */
    int width, height, count;
    int radius;                /* of the filter: 1 (3x3) or 2 (5x5) */
    int group;                 /* v3-v5: pictures per copy and launch (1..BATCH_MAX_GROUP) */
    int streams;               /* v4: streams (1..BATCH_MAX_STREAMS) */
    int pinned;                /* h_in and h_out are page-locked */
    const batch_source *src;   /* v5: the pictures to decode */
    int loaders;               /* v5: threads batch_load() decodes on */
    unsigned char *h_stage[2]; /* v5: two page-locked buffers of `group` pictures each */
} batch_job;

/* Bytes of one picture. */
static inline size_t batch_picture_bytes(const batch_job *j)
{
    return (size_t)j->width * (size_t)j->height * 3;
}

/* Given: the filter's (2R+1)^2 weights, row-major, into constant memory,
 * once before any run. */
int batch_upload_filter(const float *h_weights, int radius);

/* Given: filter n pictures (1..65535) that lie one after the other at d_in
 * into d_out, with one launch on stream s. */
int batch_filter(const unsigned char *d_in, unsigned char *d_out, int width, int height, int n,
                 int radius, cudaStream_t s);

/* Given (the harness's): decode pictures first .. first+n-1 of src into dst
 * (n pictures, one after the other) on `threads` threads; returns when they
 * are all there. Every run has content of its own: pictures decoded in an
 * earlier run are not this run's. KIT_OK, or KIT_RUNTIME_ERROR after one
 * line. */
int batch_load(const batch_source *src, int first, int n, unsigned char *dst, int threads);

int batch_v1(const batch_job *j);
int batch_v2(const batch_job *j);
int batch_v3(const batch_job *j);
int batch_v4(const batch_job *j);
int batch_v5(const batch_job *j);

#ifdef __cplusplus
}
#endif
#endif
