/* soa.cu - lab 07, part soa: an RGB float picture as an array of structs
 * (AoS) and as a struct of arrays (SoA), rescaled and with one plane deleted.
 *
 * Versions (./lab07 --part soa --variant N):
 *   v1 rescale on AoS (given): a warp's 32 pixels are 384 consecutive bytes,
 *      but each of its three loads uses only every third float of them.
 *   v2 rescale on SoA: each load of a warp is 128 consecutive bytes of one
 *      plane: every byte of every sector it fetches is used.
 *   v3 delete a plane on AoS (given): one float written per pixel, but the
 *      floats lie 12 bytes apart, so every sector of the picture is touched.
 *   v4 delete a plane on SoA: one plane is a contiguous third of the
 *      picture; the other two are never touched at all.
 *
 * Sections: helpers, kernels, launchers.
 */
#include "soa.h"

/* ------------------------------------------------------------------ helpers */

/* 0..255 onto 0..max. */
__device__ KIT_MAYBE_UNUSED static inline float rescale(float v, int max)
{
    return v * (float)max / 255.0f;
}

/* ------------------------------------------------------------------ kernels */

__global__ void rescale_img_aos(rgb_pixel *img, int max, long n)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    rgb_pixel p = img[i];
    p.r = rescale(p.r, max);
    p.g = rescale(p.g, max);
    p.b = rescale(p.b, max);
    img[i] = p;
}

__global__ void rescale_img_soa(rgb_planes img, int max, long n)
{
    /* >>> SOLUTION */
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    img.r[i] = rescale(img.r[i], max);
    img.g[i] = rescale(img.g[i], max);
    img.b[i] = rescale(img.b[i], max);
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: pixel i of this thread; threads past n do nothing; rescale
    // img.r[i], img.g[i] and img.b[i] in place with rescale().
    <<< STUDENT */
}

__global__ void delete_plane_aos(rgb_pixel *img, char plane, long n)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (plane == 'r')
        img[i].r = 0.0f;
    else if (plane == 'g')
        img[i].g = 0.0f;
    else
        img[i].b = 0.0f;
}

__global__ void delete_plane_soa(rgb_planes img, char plane, long n)
{
    /* >>> SOLUTION */
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float *p = plane == 'r' ? img.r : plane == 'g' ? img.g : img.b;
    p[i] = 0.0f;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: pixel i of this thread; threads past n do nothing; zero
    // element i of the plane that `plane` names ('r', 'g' or 'b').
    <<< STUDENT */
}

/* ---------------------------------------------------------------- launchers */

int soa_v1(rgb_pixel *d_img, int max, long n)
{
    KIT_REQUIRE(d_img != NULL && n > 0 && max >= 0 && max <= 255);
    rescale_img_aos<<<kit_blocks_for(n, SOA_BLOCK), SOA_BLOCK>>>(d_img, max, n);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

int soa_v2(rgb_planes d_img, int max, long n)
{
    KIT_REQUIRE(d_img.r != NULL && d_img.g != NULL && d_img.b != NULL);
    KIT_REQUIRE(n > 0 && max >= 0 && max <= 255);
    /* >>> SOLUTION */
    rescale_img_soa<<<kit_blocks_for(n, SOA_BLOCK), SOA_BLOCK>>>(d_img, max, n);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: launch rescale_img_soa as soa_v1 launches its kernel; check it.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int soa_v3(rgb_pixel *d_img, char plane, long n)
{
    KIT_REQUIRE(d_img != NULL && n > 0);
    KIT_REQUIRE(plane == 'r' || plane == 'g' || plane == 'b');
    delete_plane_aos<<<kit_blocks_for(n, SOA_BLOCK), SOA_BLOCK>>>(d_img, plane, n);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

int soa_v4(rgb_planes d_img, char plane, long n)
{
    KIT_REQUIRE(d_img.r != NULL && d_img.g != NULL && d_img.b != NULL && n > 0);
    KIT_REQUIRE(plane == 'r' || plane == 'g' || plane == 'b');
    /* >>> SOLUTION */
    delete_plane_soa<<<kit_blocks_for(n, SOA_BLOCK), SOA_BLOCK>>>(d_img, plane, n);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: launch delete_plane_soa as soa_v3 launches its kernel; check it.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
