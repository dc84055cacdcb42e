/* ref.h - the CPU references every lab is checked against. Plain loops,
 * accumulation in double, written to be obviously right rather than fast.
 */
#ifndef KIT_REF_H
#define KIT_REF_H

#include <stddef.h>
#include "convin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2D correlation, filter size x size (odd), zero outside the image:
 *   dst(x,y,ch) = sum_{i,j} f[i][j] * src(x+j-R, y+i-R, ch)
 * planar != 0 selects the planar layout, else interleaved. No clamping. */
/* Threads the references may use: 1 (the default: the grader's checker and
 * other tools); 0 OMP_NUM_THREADS or every core (a lab binary's own check
 * sets it). Always 1 inside a parallel region. */
extern int kit_ref_threads;

void kit_ref_corr2d_f32(const float *src, float *dst, int w, int h, int c, int planar,
                        const double *f, int size);
void kit_ref_corr2d_f64(const double *src, double *dst, int w, int h, int c, int planar,
                        const double *f, int size);
/* 8-bit in and out: accumulate in double, clamp to 0..255, round half up. */
void kit_ref_corr2d_u8(const unsigned char *src, unsigned char *dst, int w, int h, int c,
                       int planar, const double *f, int size);

/* Separable passes (the course report on separable filters), one channel, double, radius R, zero outside:
 * row:    dst(x,y) = sum_k taps[k] * src(x+k-R, y)
 * column: dst(x,y) = sum_k taps[k] * src(x, y+k-R) */
void kit_ref_row_pass_f64(const double *src, double *dst, int w, int h, const double *taps, int radius);
void kit_ref_col_pass_f64(const double *src, double *dst, int w, int h, const double *taps, int radius);

/* y = A x, A row-major m x n, double; each row summed left to right with
 * compensated (Kahan-Neumaier) summation, so the reference is more accurate
 * than any GPU order it is compared with. */
/* Labs 01 and 02: the float correlation of in's current content, zero
 * outside, clamped to 0..255, into dst (W x H x c floats). */
void kit_ref_conv_input(const kit_conv_input *in, float *dst);
/* The same as a part's reference (kit_part_ref): labs 01 and 02 share it
 * (every variant has the one answer; the spec's tolerance stands). */
int kit_ref_conv_part(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                      size_t errlen);

void kit_ref_matvec_f64(const double *A, const double *x, double *y, int m, int n);

/* out (cols x rows) = transpose of in (rows x cols), row-major float. */
void kit_ref_transpose_f32(const float *in, float *out, int rows, int cols);

/* c[i] = a[i] + b[i] (the course slides' sumArrays). */
void kit_ref_sum_arrays_f32(const float *a, const float *b, float *c, size_t n);

/* Seed 003's image exercises on RGB float pixels (0..255), n pixels,
 * interleaved (aos != 0) or planar:
 * rescale: every component v becomes v * max / 255 (so 255 maps to max);
 * delete plane: component 'r', 'g' or 'b' becomes 0. */
void kit_ref_rescale_img(float *img, float max, size_t n, int aos);
void kit_ref_delete_plane(float *img, char plane, size_t n, int aos);

#ifdef __cplusplus
}
#endif
#endif
