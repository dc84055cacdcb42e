/* strip.cu - lab 05, part strip: separable double convolution of a picture
 * larger than the GPU's memory budget, in strips of rows (strip.h).
 *
 * Versions (./lab05 --part strip --variant N):
 *   v1 (given) the whole picture at once: copy in, row pass, column pass,
 *      copy out; the baseline, when it fits.
 *   v2 (given) strips of job->rows rows plus R halo rows above and below,
 *      one after the other with synchronous copies from pageable memory: any
 *      picture fits, but each copy is staged by the driver and nothing overlaps.
 *   v3 strips on one stream with asynchronous copies from pinned memory: the
 *      copies run at the DMA engines' full speed and the host waits once.
 *   v4 two streams and two buffer sets: strip k+1's copy in runs while strip
 *      k's kernels do, so the copies hide part of the compute (the course
 *      guide's two streams).
 *   v5 job->streams streams and buffer sets in a ring: copy in, kernels and
 *      copy out of three different strips run at the same time, so the run
 *      takes about as long as its busiest engine.
 *
 * Sections: kernels, given launch helpers, variants.
 */
#include "strip.h"

/* ------------------------------------------------------------------ kernels */

#define STRIP_TAPS (2 * STRIP_MAX_RADIUS + 1)
#define STRIP_BLOCK_W 32
#define STRIP_BLOCK_H 8

__constant__ double c_row[STRIP_TAPS];
__constant__ double c_col[STRIP_TAPS];

/* Row pass: one thread per output, n rows of width doubles. */
__global__ void strip_rows_kernel(const double *d_in, double *d_tmp, int width, int n, int radius)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= n)
        return;
    const double *row = d_in + (size_t)y * width;
    double s = 0.0;
    for (int k = -radius; k <= radius; k++) {
        const int xx = x + k;
        if (xx >= 0 && xx < width)
            s += c_row[k + radius] * row[xx];
    }
    d_tmp[(size_t)y * width + x] = s;
}

/* Column pass of output rows y0 .. y0+n-1 of a picture of `height` rows;
 * d_tmp starts at picture row a0. Rows outside the picture count as zero. */
__global__ void strip_cols_kernel(const double *d_tmp, double *d_out, int width, int height,
                                  int a0, int y0, int n, int radius)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || i >= n)
        return;
    const int y = y0 + i;
    double s = 0.0;
    for (int k = -radius; k <= radius; k++) {
        const int yy = y + k;
        if (yy >= 0 && yy < height)
            s += c_col[k + radius] * d_tmp[(size_t)(yy - a0) * width + x];
    }
    d_out[(size_t)i * width + x] = s;
}

/* ---------------------------------------------------- given launch helpers */

int strip_upload_taps(const double *h_row, const double *h_col, int radius)
{
    KIT_REQUIRE(h_row != NULL && h_col != NULL && radius >= 0 && radius <= STRIP_MAX_RADIUS);
    const size_t bytes = (size_t)(2 * radius + 1) * sizeof(double);
    CUDA_CHECK(cudaMemcpyToSymbol(c_row, h_row, bytes));
    CUDA_CHECK(cudaMemcpyToSymbol(c_col, h_col, bytes));
    return KIT_OK;
}

int strip_rows(const double *d_in, double *d_tmp, int width, int n, int radius, cudaStream_t s)
{
    KIT_REQUIRE(d_in != NULL && d_tmp != NULL && width >= 1 && n >= 1);
    KIT_REQUIRE(radius >= 0 && radius <= STRIP_MAX_RADIUS);
    dim3 block(STRIP_BLOCK_W, STRIP_BLOCK_H);
    dim3 grid((width + STRIP_BLOCK_W - 1) / STRIP_BLOCK_W, (n + STRIP_BLOCK_H - 1) / STRIP_BLOCK_H);
    strip_rows_kernel<<<grid, block, 0, s>>>(d_in, d_tmp, width, n, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

int strip_cols(const double *d_tmp, double *d_out, int width, int height, strip_span sp,
               int radius, cudaStream_t s)
{
    KIT_REQUIRE(d_tmp != NULL && d_out != NULL && width >= 1 && height >= 1);
    KIT_REQUIRE(radius >= 0 && radius <= STRIP_MAX_RADIUS);
    KIT_REQUIRE(0 <= sp.a0 && sp.a0 <= sp.y0 && sp.y0 < sp.y1 && sp.y1 <= sp.a1 && sp.a1 <= height);
    /* the window of every output row must lie in the rows d_tmp holds */
    KIT_REQUIRE(sp.a0 == 0 || sp.a0 <= sp.y0 - radius);
    KIT_REQUIRE(sp.a1 == height || sp.a1 >= sp.y1 + radius);
    const int n = sp.y1 - sp.y0;
    dim3 block(STRIP_BLOCK_W, STRIP_BLOCK_H);
    dim3 grid((width + STRIP_BLOCK_W - 1) / STRIP_BLOCK_W, (n + STRIP_BLOCK_H - 1) / STRIP_BLOCK_H);
    strip_cols_kernel<<<grid, block, 0, s>>>(d_tmp, d_out, width, height, sp.a0, sp.y0, n, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

/* A job the variants can take. */
static int check_job(const strip_job *j)
{
    KIT_REQUIRE(j != NULL && j->h_in != NULL && j->h_out != NULL);
    KIT_REQUIRE(j->width >= 1 && j->height >= 1 && j->rows >= 1);
    KIT_REQUIRE(j->radius >= 0 && j->radius <= STRIP_MAX_RADIUS);
    KIT_REQUIRE(j->streams >= 1 && j->streams <= STRIP_MAX_STREAMS);
    return KIT_OK;
}

/* ----------------------------------------------------------------- variants */

int strip_v1(const strip_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    const size_t bytes = (size_t)j->width * (size_t)j->height * sizeof(double);
    const strip_span all = {0, j->height, 0, j->height};
    double *d_pic = NULL, *d_tmp = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_pic, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_tmp, bytes));
    CUDA_CHECK(cudaMemcpy(d_pic, j->h_in, bytes, cudaMemcpyHostToDevice));
    if ((r = strip_rows(d_pic, d_tmp, j->width, j->height, j->radius, 0)) != KIT_OK)
        return r;
    /* the input is no longer needed: the column pass writes over it */
    if ((r = strip_cols(d_tmp, d_pic, j->width, j->height, all, j->radius, 0)) != KIT_OK)
        return r;
    CUDA_CHECK(cudaMemcpy(j->h_out, d_pic, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_pic));
    CUDA_CHECK(cudaFree(d_tmp));
    return KIT_OK;
}

int strip_v2(const strip_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    const size_t W = (size_t)j->width;
    const size_t buf = strip_buffer_doubles(j) * sizeof(double);
    double *d_pic = NULL, *d_tmp = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_pic, buf));
    CUDA_CHECK(cudaMalloc((void **)&d_tmp, buf));
    for (int k = 0; k < strip_count(j); k++) {
        const strip_span sp = strip_at(j, k);
        const int n_in = sp.a1 - sp.a0, n_out = sp.y1 - sp.y0;
        CUDA_CHECK(cudaMemcpy(d_pic, j->h_in + (size_t)sp.a0 * W, n_in * W * sizeof(double),
                              cudaMemcpyHostToDevice));
        if ((r = strip_rows(d_pic, d_tmp, j->width, n_in, j->radius, 0)) != KIT_OK)
            return r;
        if ((r = strip_cols(d_tmp, d_pic, j->width, j->height, sp, j->radius, 0)) != KIT_OK)
            return r;
        CUDA_CHECK(cudaMemcpy(j->h_out + (size_t)sp.y0 * W, d_pic, n_out * W * sizeof(double),
                              cudaMemcpyDeviceToHost));
    }
    CUDA_CHECK(cudaFree(d_pic));
    CUDA_CHECK(cudaFree(d_tmp));
    return KIT_OK;
}
/* >>> SOLUTION */

/* Strips on nsets streams, each with its own buffer set: strip k goes to
 * stream k % nsets. Within a stream the copies and kernels run in order, so
 * strip k+nsets reuses the buffers only after strip k's copy out; across
 * streams nothing waits, so different strips' copies and kernels overlap. */
static int strip_ring(const strip_job *j, int nsets)
{
    const size_t W = (size_t)j->width;
    const size_t buf = strip_buffer_doubles(j) * sizeof(double);
    const int nstrips = strip_count(j);
    if (nsets > nstrips)
        nsets = nstrips; /* a set no strip would use */
    cudaStream_t st[STRIP_MAX_STREAMS];
    double *d_pic[STRIP_MAX_STREAMS], *d_tmp[STRIP_MAX_STREAMS];
    for (int b = 0; b < nsets; b++) {
        CUDA_CHECK(cudaStreamCreate(&st[b]));
        CUDA_CHECK(cudaMalloc((void **)&d_pic[b], buf));
        CUDA_CHECK(cudaMalloc((void **)&d_tmp[b], buf));
    }
    for (int k = 0; k < nstrips; k++) {
        const int b = k % nsets;
        const strip_span sp = strip_at(j, k);
        const int n_in = sp.a1 - sp.a0, n_out = sp.y1 - sp.y0;
        int r;
        CUDA_CHECK(cudaMemcpyAsync(d_pic[b], j->h_in + (size_t)sp.a0 * W, n_in * W * sizeof(double),
                                   cudaMemcpyHostToDevice, st[b]));
        if ((r = strip_rows(d_pic[b], d_tmp[b], j->width, n_in, j->radius, st[b])) != KIT_OK)
            return r;
        if ((r = strip_cols(d_tmp[b], d_pic[b], j->width, j->height, sp, j->radius, st[b])) != KIT_OK)
            return r;
        CUDA_CHECK(cudaMemcpyAsync(j->h_out + (size_t)sp.y0 * W, d_pic[b], n_out * W * sizeof(double),
                                   cudaMemcpyDeviceToHost, st[b]));
    }
    for (int b = 0; b < nsets; b++) {
        CUDA_CHECK(cudaStreamSynchronize(st[b]));
        CUDA_CHECK(cudaStreamDestroy(st[b]));
        CUDA_CHECK(cudaFree(d_pic[b]));
        CUDA_CHECK(cudaFree(d_tmp[b]));
    }
    return KIT_OK;
}
/* <<< SOLUTION */

int strip_v3(const strip_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    /* >>> SOLUTION */
    return strip_ring(j, 1);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v2's loop on a stream of your own (cudaStreamCreate): the copies
    // with cudaMemcpyAsync on that stream (job->h_in and job->h_out are
    // pinned now), the kernels with strip_rows()/strip_cols() on it; wait for
    // the stream once after the loop, then destroy it and free the buffers.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int strip_v4(const strip_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    /* >>> SOLUTION */
    return strip_ring(j, 2);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: two streams, each with its own buffer set (input rows and tmp):
    // even strips on one, odd strips on the other. What keeps strip k+2 from
    // overwriting strip k's buffers before strip k's copy out has read them?
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int strip_v5(const strip_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    /* >>> SOLUTION */
    return strip_ring(j, j->streams);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v4 with job->streams streams and buffer sets (strip k on stream
    // k % streams). The harness sized job->rows so that this many sets fit
    // the budget (and job->streams is never more than the strips).
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
