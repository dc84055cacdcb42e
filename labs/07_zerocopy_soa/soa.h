/* soa.h - lab 07, part soa: the same RGB picture of float channels (values
 * 0..255) stored as an array of structs (AoS: r g b r g b ...) and as a
 * struct of arrays (SoA: all the r, then all the g, then all the b), and two
 * kernels written for each (the functions are in soa.cu). Each kernel
 * changes the picture in place.
 *
 *   v1 rescale, array of structs (given, written for you)
 *   v2 rescale, struct of arrays
 *   v3 delete a plane, array of structs (given, written for you)
 *   v4 delete a plane, struct of arrays
 *
 * rescale (the course guide's rescaleImg): every channel value v in 0..255
 * becomes v * max / 255 in float arithmetic (channels are floats), so that 255 maps to
 * max and the picture's range shrinks (or stays) to 0..max.
 * delete a plane (deletePlane): channel `plane` ('r', 'g' or 'b') becomes 0
 * in every pixel; the other two channels stay as they are.
 *
 * Launchers take device pointers and n, the number of pixels; they launch
 * one thread per pixel in blocks of SOA_BLOCK threads, check the launch with
 * KIT_CHECK_LAUNCH() and return KIT_OK (KIT_NOT_IMPLEMENTED while a TODO).
 */
#ifndef LAB07_SOA_H
#define LAB07_SOA_H

#include "gpu.h"

#define SOA_BLOCK 256 /* threads per block */

#ifdef __cplusplus
extern "C" {
#endif

/* One pixel of the array of structs: 12 bytes, no padding. */
typedef struct {
    float r, g, b;
} rgb_pixel;

/* The struct of arrays: three planes of n floats each (here one device
 * allocation of 3n floats: r at 0, g at n, b at 2n). */
typedef struct {
    float *r, *g, *b;
} rgb_planes;

/* v1 (given): rescale d_img[0 .. n-1] to 0..max. */
int soa_v1(rgb_pixel *d_img, int max, long n);

/* v2: the same on the planes. */
int soa_v2(rgb_planes d_img, int max, long n);

/* v3 (given): zero channel plane ('r', 'g' or 'b') of every pixel. */
int soa_v3(rgb_pixel *d_img, char plane, long n);

/* v4: the same on the planes. */
int soa_v4(rgb_planes d_img, char plane, long n);

#ifdef __cplusplus
}
#endif
#endif
