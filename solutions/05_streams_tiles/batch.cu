/* batch.cu - lab 05, part batch: many small pictures through one GPU
 * (batch.h).
 *
 * Versions (./lab05 --part batch --variant N):
 *   v1 (given) one picture at a time: cudaMalloc, copy in, launch, copy out,
 *      cudaFree. Each step waits for the one before, and the allocations and
 *      frees (which wait for the whole GPU) cost more than the filter.
 *   v2 the device buffers allocated once for the batch and reused: the same
 *      copies and launches, without the allocation and free per picture.
 *   v3 job->group pictures per copy and per launch: fewer, larger copies and
 *      launches, so fixed costs are paid once per group, not per picture.
 *   v4 groups on job->streams streams with asynchronous copies: group g+1's
 *      copy in runs beside group g's kernel and group g-1's copy out. From
 *      pageable memory the driver stages every copy through its own pinned
 *      buffer with the host waiting, so little overlaps; from pinned memory
 *      (--pinned) the copy engines take over and everything does.
 *   v5 pipelined loading: the GPU work of group g is queued, then the host
 *      decodes group g+1 on job->loaders threads while the GPU works, so the
 *      run takes about as long as the decoding alone.
 *
 * Sections: device helpers, kernels, given launchers, variants.
 */
#include "batch.h"

/* ----------------------------------------------------------- device helpers */

#define BATCH_TAPS ((2 * BATCH_MAX_RADIUS + 1) * (2 * BATCH_MAX_RADIUS + 1))
#define BATCH_BLOCK_W 32
#define BATCH_BLOCK_H 8

__constant__ float c_weights[BATCH_TAPS];

/* ------------------------------------------------------------------ kernels */

/* One thread per pixel of picture blockIdx.z; the filter's sums are exact in
 * float for the filters this part takes (integer weights over a power of two). */
__global__ void batch_kernel(const unsigned char *d_in, unsigned char *d_out, int width,
                             int height, int radius)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const size_t pic = (size_t)width * height * 3;
    const unsigned char *in = d_in + blockIdx.z * pic;
    const int size = 2 * radius + 1;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int i = 0; i < size; i++) {
        const int yy = y + i - radius;
        if (yy < 0 || yy >= height)
            continue;
        for (int j = 0; j < size; j++) {
            const int xx = x + j - radius;
            if (xx < 0 || xx >= width)
                continue;
            const unsigned char *p = in + ((size_t)yy * width + xx) * 3;
            const float w = c_weights[i * size + j];
            r += w * p[0];
            g += w * p[1];
            b += w * p[2];
        }
    }
    unsigned char *o = d_out + blockIdx.z * pic + ((size_t)y * width + x) * 3;
    o[0] = kit_to_u8f(r);
    o[1] = kit_to_u8f(g);
    o[2] = kit_to_u8f(b);
}

/* --------------------------------------------------------- given launchers */

int batch_upload_filter(const float *h_weights, int radius)
{
    KIT_REQUIRE(h_weights != NULL && radius >= 0 && radius <= BATCH_MAX_RADIUS);
    const int size = 2 * radius + 1;
    CUDA_CHECK(cudaMemcpyToSymbol(c_weights, h_weights, (size_t)size * size * sizeof(float)));
    return KIT_OK;
}

int batch_filter(const unsigned char *d_in, unsigned char *d_out, int width, int height, int n,
                 int radius, cudaStream_t s)
{
    KIT_REQUIRE(d_in != NULL && d_out != NULL && width >= 1 && height >= 1);
    KIT_REQUIRE(n >= 1 && n <= 65535 && radius >= 0 && radius <= BATCH_MAX_RADIUS);
    dim3 block(BATCH_BLOCK_W, BATCH_BLOCK_H);
    dim3 grid((width + BATCH_BLOCK_W - 1) / BATCH_BLOCK_W, (height + BATCH_BLOCK_H - 1) / BATCH_BLOCK_H,
              n);
    batch_kernel<<<grid, block, 0, s>>>(d_in, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

/* A job the variants can take. */
static int check_job(const batch_job *j)
{
    KIT_REQUIRE(j != NULL && j->h_out != NULL);
    KIT_REQUIRE(j->width >= 1 && j->height >= 1 && j->count >= 1);
    KIT_REQUIRE(j->radius >= 0 && j->radius <= BATCH_MAX_RADIUS);
    KIT_REQUIRE(j->group >= 1 && j->group <= BATCH_MAX_GROUP);
    KIT_REQUIRE(j->streams >= 1 && j->streams <= BATCH_MAX_STREAMS);
    return KIT_OK;
}

/* ----------------------------------------------------------------- variants */

int batch_v1(const batch_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(j->h_in != NULL);
    const size_t pic = batch_picture_bytes(j);
    for (int i = 0; i < j->count; i++) {
        unsigned char *d_in = NULL, *d_out = NULL;
        CUDA_CHECK(cudaMalloc((void **)&d_in, pic));
        CUDA_CHECK(cudaMalloc((void **)&d_out, pic));
        CUDA_CHECK(cudaMemcpy(d_in, j->h_in + i * pic, pic, cudaMemcpyHostToDevice));
        if ((r = batch_filter(d_in, d_out, j->width, j->height, 1, j->radius, 0)) != KIT_OK)
            return r;
        CUDA_CHECK(cudaMemcpy(j->h_out + i * pic, d_out, pic, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
    }
    return KIT_OK;
}

int batch_v2(const batch_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(j->h_in != NULL);
    /* >>> SOLUTION */
    const size_t pic = batch_picture_bytes(j);
    unsigned char *d_in = NULL, *d_out = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_in, pic));
    CUDA_CHECK(cudaMalloc((void **)&d_out, pic));
    for (int i = 0; i < j->count; i++) {
        CUDA_CHECK(cudaMemcpy(d_in, j->h_in + i * pic, pic, cudaMemcpyHostToDevice));
        if ((r = batch_filter(d_in, d_out, j->width, j->height, 1, j->radius, 0)) != KIT_OK)
            return r;
        CUDA_CHECK(cudaMemcpy(j->h_out + i * pic, d_out, pic, cudaMemcpyDeviceToHost));
    }
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v1 with the two cudaMalloc calls before the loop and the two
    // cudaFree calls after it.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int batch_v3(const batch_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(j->h_in != NULL);
    /* >>> SOLUTION */
    const size_t pic = batch_picture_bytes(j);
    const size_t bytes = (size_t)j->group * pic;
    unsigned char *d_in = NULL, *d_out = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
    for (int first = 0; first < j->count; first += j->group) {
        const int n = KIT_MIN(j->group, j->count - first);
        CUDA_CHECK(cudaMemcpy(d_in, j->h_in + first * pic, n * pic, cudaMemcpyHostToDevice));
        if ((r = batch_filter(d_in, d_out, j->width, j->height, n, j->radius, 0)) != KIT_OK)
            return r;
        CUDA_CHECK(cudaMemcpy(j->h_out + first * pic, d_out, n * pic, cudaMemcpyDeviceToHost));
    }
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: buffers of job->group pictures; for each group of n pictures
    // (the last may be smaller): one copy in, one batch_filter() with n
    // pictures, one copy out.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int batch_v4(const batch_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(j->h_in != NULL);
    /* >>> SOLUTION */
    const size_t pic = batch_picture_bytes(j);
    const size_t bytes = (size_t)j->group * pic;
    const int groups = (j->count + j->group - 1) / j->group;
    const int ns = KIT_MIN(j->streams, groups);
    cudaStream_t st[BATCH_MAX_STREAMS];
    unsigned char *d_in[BATCH_MAX_STREAMS], *d_out[BATCH_MAX_STREAMS];
    for (int s = 0; s < ns; s++) {
        CUDA_CHECK(cudaStreamCreate(&st[s]));
        CUDA_CHECK(cudaMalloc((void **)&d_in[s], bytes));
        CUDA_CHECK(cudaMalloc((void **)&d_out[s], bytes));
    }
    /* group g on stream g % ns with that stream's buffers: the stream's order
     * keeps group g+ns from overwriting them before group g is back */
    for (int g = 0; g < groups; g++) {
        const int s = g % ns, first = g * j->group;
        const int n = KIT_MIN(j->group, j->count - first);
        CUDA_CHECK(cudaMemcpyAsync(d_in[s], j->h_in + first * pic, n * pic, cudaMemcpyHostToDevice,
                                   st[s]));
        if ((r = batch_filter(d_in[s], d_out[s], j->width, j->height, n, j->radius, st[s])) != KIT_OK)
            return r;
        CUDA_CHECK(cudaMemcpyAsync(j->h_out + first * pic, d_out[s], n * pic, cudaMemcpyDeviceToHost,
                                   st[s]));
    }
    for (int s = 0; s < ns; s++) {
        CUDA_CHECK(cudaStreamSynchronize(st[s]));
        CUDA_CHECK(cudaStreamDestroy(st[s]));
        CUDA_CHECK(cudaFree(d_in[s]));
        CUDA_CHECK(cudaFree(d_out[s]));
    }
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: job->streams streams (cudaStreamCreate), each with its own pair
    // of group buffers; group g on stream g % streams: cudaMemcpyAsync in,
    // batch_filter() on that stream, cudaMemcpyAsync out; wait for every
    // stream at the end. Then look at the timeline with and without --pinned.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int batch_v5(const batch_job *j)
{
    int r = check_job(j);
    if (r != KIT_OK)
        return r;
    KIT_REQUIRE(j->src != NULL && j->h_stage[0] != NULL && j->h_stage[1] != NULL);
    KIT_REQUIRE(j->loaders >= 1);
    /* >>> SOLUTION */
    const size_t pic = batch_picture_bytes(j);
    const size_t bytes = (size_t)j->group * pic;
    const int groups = (j->count + j->group - 1) / j->group;
    cudaStream_t st[2];
    cudaEvent_t copied[2]; /* stage buffer b has been copied to the device */
    unsigned char *d_in[2], *d_out[2];
    for (int b = 0; b < 2; b++) {
        CUDA_CHECK(cudaStreamCreate(&st[b]));
        CUDA_CHECK(cudaEventCreateWithFlags(&copied[b], cudaEventDisableTiming));
        CUDA_CHECK(cudaMalloc((void **)&d_in[b], bytes));
        CUDA_CHECK(cudaMalloc((void **)&d_out[b], bytes));
    }
    /* the first group: nothing to overlap with yet */
    if ((r = batch_load(j->src, 0, KIT_MIN(j->group, j->count), j->h_stage[0], j->loaders)) != KIT_OK)
        return r;
    for (int g = 0; g < groups; g++) {
        const int b = g & 1, first = g * j->group;
        const int n = KIT_MIN(j->group, j->count - first);
        CUDA_CHECK(cudaMemcpyAsync(d_in[b], j->h_stage[b], n * pic, cudaMemcpyHostToDevice, st[b]));
        CUDA_CHECK(cudaEventRecord(copied[b], st[b]));
        if ((r = batch_filter(d_in[b], d_out[b], j->width, j->height, n, j->radius, st[b])) != KIT_OK)
            return r;
        CUDA_CHECK(cudaMemcpyAsync(j->h_out + first * pic, d_out[b], n * pic, cudaMemcpyDeviceToHost,
                                   st[b]));
        if (g + 1 < groups) {
            /* the other stage buffer last fed group g-1's copy in */
            const int next = first + j->group;
            CUDA_CHECK(cudaEventSynchronize(copied[b ^ 1]));
            if ((r = batch_load(j->src, next, KIT_MIN(j->group, j->count - next), j->h_stage[b ^ 1],
                                j->loaders)) != KIT_OK)
                return r;
        }
    }
    for (int b = 0; b < 2; b++) {
        CUDA_CHECK(cudaStreamSynchronize(st[b]));
        CUDA_CHECK(cudaStreamDestroy(st[b]));
        CUDA_CHECK(cudaEventDestroy(copied[b]));
        CUDA_CHECK(cudaFree(d_in[b]));
        CUDA_CHECK(cudaFree(d_out[b]));
    }
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: decode group 0 into job->h_stage[0] with batch_load(); then for
    // each group g: queue its copy in (from h_stage[g & 1]), batch_filter()
    // and copy out on a stream of its own, and, while the GPU works, decode
    // group g+1 into the other stage buffer. When may that buffer be
    // overwritten? (An event recorded after a copy tells you.)
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
