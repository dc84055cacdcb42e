/* device.cu - lab 05, parts device and copies: the GPU's attributes and its
 * memory's peak bandwidth, then host-device copies from pageable and from
 * pinned memory (device.h).
 *
 * Versions:
 *   device v1  the attributes with cudaDeviceGetAttribute, and the peak
 *              bandwidth 2 x memory clock x bus width in bytes: the ceiling
 *              every later GB/s figure is measured against.
 *   copies v1  pageable host buffers (malloc) and cudaMemcpy: the baseline;
 *              the driver copies each piece into a pinned buffer of its own
 *              before the copy engine may touch it.
 *   copies v2  pinned host buffers (cudaMallocHost) and cudaMemcpy: the copy
 *              engine reads and writes them directly, no staging copy, so
 *              each direction should run near the bus's speed.
 *
 * Sections: part device, part copies (no kernels: the copy engines do it).
 */
#include <stdlib.h>

#include "device.h"

/* -------------------------------------------------------------- part device */

int device_v1(device_info *d)
{
    KIT_REQUIRE(d != NULL && d->device >= 0);
    // TODO: fill every field of *d with cudaDeviceGetAttribute(&value,
    // cudaDevAttr..., d->device) (the attribute names are in device.h's
    // comments and CUDA's driver_types.h), then d->peak_gbps: 2 transfers
    // per clock x the memory clock (kHz) x the bus width in bytes, in GB/s.
    return KIT_NOT_IMPLEMENTED;
}

/* -------------------------------------------------------------- part copies */

/* A job the copies can take. */
static int check_job(const copies_job *j, int dir)
{
    KIT_REQUIRE(j != NULL && j->bytes >= 1 && j->d_buf != NULL);
    KIT_REQUIRE(j->h_src != NULL && j->h_dst != NULL);
    KIT_REQUIRE(dir == COPY_H2D || dir == COPY_D2H);
    return KIT_OK;
}

int copies_v1_alloc(copies_job *j)
{
    KIT_REQUIRE(j != NULL && j->bytes >= 1);
    // TODO: j->h_src and j->h_dst, j->bytes each, from malloc (pageable)
    return KIT_NOT_IMPLEMENTED;
}

int copies_v1(copies_job *j, int dir)
{
    int r = check_job(j, dir);
    if (r != KIT_OK)
        return r;
    // TODO: COPY_H2D: j->h_src to j->d_buf; COPY_D2H: j->d_buf to j->h_dst,
    // j->bytes with cudaMemcpy
    return KIT_NOT_IMPLEMENTED;
}

int copies_v1_free(copies_job *j)
{
    KIT_REQUIRE(j != NULL);
    // TODO: release what copies_v1_alloc took
    return KIT_NOT_IMPLEMENTED;
}

int copies_v2_alloc(copies_job *j)
{
    KIT_REQUIRE(j != NULL && j->bytes >= 1);
    // TODO: j->h_src and j->h_dst, j->bytes each, page-locked (cudaMallocHost)
    return KIT_NOT_IMPLEMENTED;
}

int copies_v2(copies_job *j, int dir)
{
    int r = check_job(j, dir);
    if (r != KIT_OK)
        return r;
    // TODO: v1's copies; the buffers are pinned now
    return KIT_NOT_IMPLEMENTED;
}

int copies_v2_free(copies_job *j)
{
    KIT_REQUIRE(j != NULL);
    // TODO: release what copies_v2_alloc took (cudaFreeHost)
    return KIT_NOT_IMPLEMENTED;
}
