/* sum.h - lab 07, part sum: c = a + b on float vectors of n elements, with
 * the data in four kinds of memory (the functions are in sum.cu).
 *
 *   v1 device memory: the harness copies a and b to the GPU and c back
 *      (given, written for you: the reference point)
 *   v2 zero-copy: a and b stay in page-locked host memory mapped into the
 *      GPU's address space; the kernel reads them across the PCIe bus
 *   v3 managed (unified) memory: one pointer valid on both sides; pages the
 *      kernel touches move to the GPU on demand, inside the kernel
 *   v4 managed memory, moved to the GPU in bulk (cudaMemPrefetchAsync)
 *      before the kernel runs
 *
 * Every variant is timed from the first byte in to the last byte out
 * (span "total"); the harness also times the launcher alone ("kernel").
 * For v2 to v4 the data moves while the launcher runs, so their kernel time
 * already holds what v1 pays for in copies.
 *
 * Pointer prefixes: h_ host memory, d_ device memory, m_ managed memory
 * (valid on the host and on the GPU). A launcher checks its launch with
 * KIT_CHECK_LAUNCH() and returns KIT_OK (KIT_NOT_IMPLEMENTED while it is a
 * TODO); it never synchronises.
 */
#ifndef LAB07_SUM_H
#define LAB07_SUM_H

#include "gpu.h"

#define SUM_BLOCK 512 /* threads per block, as in the course guide */

#ifdef __cplusplus
extern "C" {
#endif

/* v1 (given): d_a, d_b, d_c in device memory (cudaMalloc). */
int sum_v1(const float *d_a, const float *d_b, float *d_c, long n);

/* v2: h_a and h_b are host memory allocated with cudaHostAlloc(...,
 * cudaHostAllocMapped); d_c is device memory. Ask CUDA for the device
 * addresses of h_a and h_b (cudaHostGetDevicePointer) and launch the same
 * kernel as v1 on them. */
int sum_v2(const float *h_a, const float *h_b, float *d_c, long n);

/* v3: m_a, m_b, m_c from cudaMallocManaged. The host has just written m_a
 * and m_b, so their pages are in host memory when the kernel starts. */
int sum_v3(const float *m_a, const float *m_b, float *m_c, long n);

/* v4: v3, but first ask for m_a, m_b and m_c to be moved to this GPU
 * (cudaMemPrefetchAsync on the default stream), then launch. */
int sum_v4(const float *m_a, const float *m_b, float *m_c, long n);

#ifdef __cplusplus
}
#endif
#endif
