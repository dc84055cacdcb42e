/* device.h - lab 05, parts device and copies: what the GPU is, and how fast
 * bytes cross between the host and it (the functions are in device.cu).
 *
 * Part device (step 0 of the CE421 report's deviceQuery). device_v1() reads
 * the attributes of GPU d->device with cudaDeviceGetAttribute (CUDA 13 has
 * no clockRate or memoryClockRate in cudaDeviceProp any more: ask for the
 * attributes) and works out the memory's theoretical peak bandwidth:
 *     peak = 2 transfers per clock x memory clock x bus width in bytes
 * in GB/s (1e9 bytes per second); the memory clock attribute is in kHz, the
 * bus width in bits. The harness reads the same attributes itself and
 * compares: every integer must equal its reading, the peak must be within
 * one part in a million of its own.
 *
 * Part copies. job->bytes bytes go from host to device (COPY_H2D: h_src to
 * d_buf) or from device to host (COPY_D2H: d_buf to h_dst), one direction
 * per run (--dir), timed alone by the harness's CUDA events around the call.
 * The host buffers are yours: copies_vN_alloc() allocates h_src and h_dst,
 * job->bytes each, before the variant's first run (outside any timing), and
 * copies_vN_free() releases them after its last; d_buf is the harness's.
 * Around each run the harness fills h_src with new content, poisons h_dst
 * and d_buf, and checks that the bytes that come back are the bytes sent.
 *
 * Variants:
 *   part device  v1 yours  the attributes and the peak bandwidth
 *   part copies  v1 yours  pageable host buffers (malloc), cudaMemcpy: the driver
 *                          stages every copy through a pinned buffer of its own
 *                v2 yours  pinned host buffers (cudaMallocHost or cudaHostAlloc),
 *                          cudaMemcpy: the copy engine reads and writes them itself
 * The harness checks that v1's buffers are pageable and v2's page-locked.
 * Every function returns KIT_OK, KIT_NOT_IMPLEMENTED while it is a TODO, or
 * KIT_RUNTIME_ERROR after a failed CUDA call (CUDA_CHECK does that); a copy
 * returns when its bytes have arrived.
 */
#ifndef LAB05_DEVICE_H
#define LAB05_DEVICE_H

#include <stddef.h>
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- part device */
typedef struct {
    int device;                /* in: the GPU to ask (--device) */
    int major, minor;          /* compute capability */
    int sms;                   /* multiprocessors */
    int warp_size;             /* threads in a warp */
    int max_threads_per_block;
    int smem_per_block;        /* bytes of shared memory a block may use */
    int regs_per_block;        /* 32-bit registers a block may use */
    int mem_clock_khz;         /* the memory's peak clock, kHz */
    int bus_width_bits;        /* the memory bus, bits */
    int copy_engines;          /* engines that copy while kernels run */
    double peak_gbps;          /* 2 x clock x bus width in bytes, GB/s */
} device_info;

int device_v1(device_info *d);

/* ---- part copies */
#define COPY_H2D 0
#define COPY_D2H 1

typedef struct {
    size_t bytes;              /* one copy's size (>= 1) */
    unsigned char *h_src;      /* host: the bytes sent (yours: copies_vN_alloc) */
    unsigned char *h_dst;      /* host: where they come back (yours) */
    unsigned char *d_buf;      /* device: bytes of the harness's */
} copies_job;

int copies_v1_alloc(copies_job *j);
int copies_v1(copies_job *j, int dir);
int copies_v1_free(copies_job *j);

int copies_v2_alloc(copies_job *j);
int copies_v2(copies_job *j, int dir);
int copies_v2_free(copies_job *j);

#ifdef __cplusplus
}
#endif
#endif
