/* sum.cu - lab 07, part sum: c = a + b with the inputs in four kinds of memory.
 *
 * Versions (./lab07 --part sum --variant N):
 *   v1 device memory, copies by the harness before and after (given): the
 *      kernel reads HBM at full speed, but every byte crossed PCIe first.
 *   v2 zero-copy: a and b are mapped host memory; the kernel reads them over
 *      PCIe itself, so no copy in is needed and the transfer overlaps the
 *      arithmetic (it should win for data read once, lose for data reused).
 *   v3 managed memory: pages migrate to the GPU when the kernel first touches
 *      them (page faults, handled a batch at a time while the kernel waits).
 *   v4 managed memory prefetched to the GPU in bulk before the launch: one
 *      large transfer instead of thousands of faults.
 *
 * Sections: helpers, kernels, launchers.
 */
#include "sum.h"

/* ------------------------------------------------------------------ helpers */

/* Ask for bytes of managed memory at p to move to the current GPU, queued
 * on the default stream (it does not wait). CUDA 13 names the destination
 * with a cudaMemLocation, older toolkits with a device number. */
KIT_MAYBE_UNUSED static int prefetch_to_gpu(const void *p, size_t bytes)
{
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
#if CUDART_VERSION >= 13000
    struct cudaMemLocation where;
    where.type = cudaMemLocationTypeDevice;
    where.id = dev;
    CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, where, 0, 0));
#else
    CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, dev, 0));
#endif
    return KIT_OK;
}

/* ------------------------------------------------------------------ kernels */

/* One element per thread. The kernel does not know, and need not know, what
 * kind of memory its pointers point to: device, mapped host or managed. */
__global__ void sum_arrays(const float *a, const float *b, float *c, long n)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

/* ---------------------------------------------------------------- launchers */

int sum_v1(const float *d_a, const float *d_b, float *d_c, long n)
{
    KIT_REQUIRE(d_a != NULL && d_b != NULL && d_c != NULL && n > 0);
    sum_arrays<<<kit_blocks_for(n, SUM_BLOCK), SUM_BLOCK>>>(d_a, d_b, d_c, n);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

int sum_v2(const float *h_a, const float *h_b, float *d_c, long n)
{
    KIT_REQUIRE(h_a != NULL && h_b != NULL && d_c != NULL && n > 0);
    // TODO: the device addresses of h_a and h_b from cudaHostGetDevicePointer
    // (check each call with CUDA_CHECK), then the launch of sum_arrays as in
    // sum_v1 with those addresses, then KIT_CHECK_LAUNCH(); return KIT_OK.
    return KIT_NOT_IMPLEMENTED;
}

int sum_v3(const float *m_a, const float *m_b, float *m_c, long n)
{
    KIT_REQUIRE(m_a != NULL && m_b != NULL && m_c != NULL && n > 0);
    // TODO: launch sum_arrays on the managed pointers as they are, check it.
    return KIT_NOT_IMPLEMENTED;
}

int sum_v4(const float *m_a, const float *m_b, float *m_c, long n)
{
    KIT_REQUIRE(m_a != NULL && m_b != NULL && m_c != NULL && n > 0);
    // TODO: prefetch_to_gpu() each of the three arrays (n floats each; it
    // returns KIT_OK or an error to pass on), then launch sum_arrays on the
    // default stream, which runs after the prefetches; check the launch.
    return KIT_NOT_IMPLEMENTED;
}
