/* devmemcheck.c - `make devmemcheck` (and the CLI tests, no GPU needed): the
 * device memory account of devmem.c with the real CUDA calls replaced by
 * fakes that hand out host memory (or fail when told to): the budget of a
 * window, the refusal and its one line, the peak, what a variant leaves
 * behind, frees of unknown pointers. Prints "ok" and exits 0, or the first
 * check that fails.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "harness05.h"

static int fail_next; /* the next fake allocation fails like a full GPU */

cudaError_t __real_cudaMalloc(void **p, size_t n);
cudaError_t __real_cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h);
cudaError_t __real_cudaMallocManaged(void **p, size_t n, unsigned int flags);
cudaError_t __real_cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e);
cudaError_t __real_cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t __real_cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s);
cudaError_t __real_cudaFree(void *p);
cudaError_t __real_cudaFreeAsync(void *p, cudaStream_t s);
cudaError_t __wrap_cudaMalloc(void **p, size_t n);
cudaError_t __wrap_cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h);
cudaError_t __wrap_cudaFree(void *p);
cudaError_t __wrap_cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t __wrap_cudaFreeAsync(void *p, cudaStream_t s);

cudaError_t __real_cudaMalloc(void **p, size_t n)
{
    if (fail_next) {
        fail_next = 0;
        return cudaErrorMemoryAllocation;
    }
    *p = malloc(n ? n : 1);
    return cudaSuccess;
}
cudaError_t __real_cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h)
{
    *pitch = (w + 511) / 512 * 512;
    return __real_cudaMalloc(p, *pitch * h);
}
cudaError_t __real_cudaMallocManaged(void **p, size_t n, unsigned int flags)
{
    (void)flags;
    return __real_cudaMalloc(p, n);
}
cudaError_t __real_cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e)
{
    p->pitch = e.width;
    return __real_cudaMalloc(&p->ptr, e.width * e.height * e.depth);
}
cudaError_t __real_cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
    (void)s;
    return __real_cudaMalloc(p, n);
}
cudaError_t __real_cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
    (void)pool;
    (void)s;
    return __real_cudaMalloc(p, n);
}
cudaError_t __real_cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}
cudaError_t __real_cudaFreeAsync(void *p, cudaStream_t s)
{
    (void)s;
    free(p);
    return cudaSuccess;
}

/* a variant's own thread, between its calls: 5 MiB into *arg */
static void *take_on_a_thread(void *arg)
{
    if (__wrap_cudaMalloc((void **)arg, 5 << 20) != cudaSuccess)
        *(void **)arg = NULL;
    return NULL;
}

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            printf("devmemcheck: line %d: %s\n", __LINE__, #cond);                          \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

int main(void)
{
    kit_prog = "devmemcheck";
    const size_t MiB = 1 << 20;
    size_t peak, left;
    void *kit = NULL, *a = NULL, *b = NULL, *c = NULL;
    /* outside a window nothing is refused: the kit's own buffers */
    CHECK(__wrap_cudaMalloc(&kit, 64 * MiB) == cudaSuccess);
    /* a window with a 10 MiB budget on top of the 64 held */
    devmem_begin(10 * MiB, "strip v9");
    CHECK(__wrap_cudaMalloc(&a, 4 * MiB) == cudaSuccess);
    CHECK(__wrap_cudaMallocAsync(&b, 6 * MiB, 0) == cudaSuccess);
    CHECK(__wrap_cudaMalloc(&c, 1) == cudaErrorMemoryAllocation); /* 10 MiB + 1 byte */
    CHECK(c == NULL);
    CHECK(devmem_refusals() == 1);
    CHECK(__wrap_cudaFreeAsync(b, 0) == cudaSuccess);
    CHECK(__wrap_cudaMalloc(&c, 6 * MiB) == cudaSuccess); /* room again */
    CHECK(__wrap_cudaFree(c) == cudaSuccess);
    CHECK(__wrap_cudaFree(NULL) == cudaSuccess);           /* nothing to forget */
    devmem_end(&peak, &left);
    CHECK(peak == 10 * MiB);
    CHECK(left == 4 * MiB); /* a was never freed */
    CHECK(__wrap_cudaFree(a) == cudaSuccess);
    /* a failed real call gives its reservation back */
    devmem_begin(8 * MiB, "batch v9");
    fail_next = 1;
    CHECK(__wrap_cudaMalloc(&a, 8 * MiB) == cudaErrorMemoryAllocation);
    CHECK(__wrap_cudaMalloc(&a, 8 * MiB) == cudaSuccess);
    /* a pitched allocation counts its real rows: 100 bytes become 512 a row */
    CHECK(__wrap_cudaFree(a) == cudaSuccess);
    size_t pitch = 0;
    CHECK(__wrap_cudaMallocPitch(&b, &pitch, 100, 1000) == cudaSuccess && pitch == 512);
    CHECK(__wrap_cudaFree(b) == cudaSuccess);
    devmem_end(&peak, &left);
    CHECK(peak == 8 * MiB);
    CHECK(left == 0);
    CHECK(devmem_refusals() == 1); /* the failure above was the GPU's, not the budget's */
    /* budget 0: counted, never refused */
    devmem_begin(0, "batch v1");
    CHECK(__wrap_cudaMalloc(&a, 512 * MiB) == cudaSuccess);
    CHECK(__wrap_cudaFree(a) == cudaSuccess);
    devmem_end(&peak, &left);
    CHECK(peak == 512 * MiB && left == 0);
    /* memory a variant kept from an earlier call counts in the next window */
    devmem_begin(0, "strip v8");
    CHECK(__wrap_cudaMalloc(&a, 6 * MiB) == cudaSuccess);
    devmem_end(&peak, &left);
    CHECK(left == 6 * MiB);
    devmem_begin(8 * MiB, "strip v8");
    CHECK(__wrap_cudaMalloc(&b, 4 * MiB) == cudaErrorMemoryAllocation); /* 6 + 4 > 8 */
    CHECK(__wrap_cudaMalloc(&b, 2 * MiB) == cudaSuccess);
    devmem_end(&peak, &left);
    CHECK(peak == 8 * MiB && left == 8 * MiB);
    CHECK(__wrap_cudaFree(a) == cudaSuccess && __wrap_cudaFree(b) == cudaSuccess);
    /* memory taken on another thread between windows (a set-up of the variant's) is its */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, take_on_a_thread, &c) == 0 && pthread_join(th, NULL) == 0);
    CHECK(c != NULL);
    devmem_begin(8 * MiB, "strip v7");
    CHECK(__wrap_cudaMalloc(&a, 4 * MiB) == cudaErrorMemoryAllocation); /* 5 + 4 > 8 */
    devmem_end(&peak, &left);
    CHECK(peak == 5 * MiB && left == 5 * MiB);
    CHECK(__wrap_cudaFree(c) == cudaSuccess);
    /* and the kit's own thread outside a window stays the kit's */
    CHECK(__wrap_cudaMalloc(&a, 100 * MiB) == cudaSuccess);
    devmem_begin(8 * MiB, "strip v6");
    CHECK(__wrap_cudaMalloc(&b, 8 * MiB) == cudaSuccess);
    devmem_end(&peak, &left);
    CHECK(peak == 8 * MiB && left == 8 * MiB);
    CHECK(__wrap_cudaFree(a) == cudaSuccess && __wrap_cudaFree(b) == cudaSuccess);
    CHECK(__wrap_cudaFree(kit) == cudaSuccess);
    printf("ok\n");
    return 0;
}
