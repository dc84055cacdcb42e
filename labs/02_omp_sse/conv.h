/* conv.h - lab 02: the lab 01 convolution with OpenMP threads and SIMD
 * intrinsics (the functions you write).
 *
 * The picture is RGBA, one float per channel (0..255), channels interleaved,
 * so one pixel is 4 floats = 16 bytes = exactly one SSE register (__m128).
 *
 * Input h_src: the zero-padded extended image of lab 01, (W+2R) x (H+2R)
 * pixels, but each of its rows is src_stride floats long, and src_stride is
 * a multiple of CONV_STRIDE_ALIGN (16 floats = 64 bytes) at least (W+2R)*4.
 * The buffer itself starts on a 64-byte boundary. Together this means every
 * row starts on a 64-byte boundary and every pixel on a 16-byte boundary, so
 * _mm_load_ps (aligned load) is legal on any pixel of the extended image.
 * The floats past (W+2R)*4 at the end of a row are zero and never needed.
 *
 *   extended pixel (X, Y), channel ch:  h_src[Y*src_stride + X*4 + ch]
 *   picture pixel (x, y) is extended pixel (x+R, y+R)
 *
 * Output h_dst: W x H pixels, no padding (row y starts at y*W*4), 64-byte
 * aligned base. Each value clamped to 0..255:
 *     dst(x, y, ch) = clamp( sum_{i=0}^{2R} sum_{j=0}^{2R} f[i][j] * src(x+j, y+i, ch) )
 * (src in extended coordinates). h_filter holds the (2R+1)^2 weights,
 * row-major. Every channel, alpha included, is filtered on its own.
 *
 * Threads: the harness sets the OpenMP team size (--threads N, else
 * OMP_NUM_THREADS, else every core) with omp_set_num_threads() before any
 * variant runs, so a plain `#pragma omp parallel for` uses it. v0 and v3 are
 * the single-thread versions: no OpenMP in them.
 *
 * Return KIT_OK when done, KIT_NOT_IMPLEMENTED while the body is a TODO,
 * KIT_UNSUPPORTED when this build cannot run the variant (SIMD variants on a
 * CPU that is not x86).
 */
#ifndef LAB02_CONV_H
#define LAB02_CONV_H

#include "kit.h"

#define CONV_CHANNELS 4
#define CONV_STRIDE_ALIGN 16 /* floats: extended rows are a multiple of 64 bytes */

/* x86 SIMD intrinsics can be compiled here (SSE2 is part of x86-64).
 * -DCONV_X86=0 builds as if for another CPU: the SIMD variants then report
 * that they cannot run. */
#ifndef CONV_X86
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
#define CONV_X86 1
#else
#define CONV_X86 0
#endif
#endif

/* Instruction sets v5 can use; the harness picks the widest the CPU runs
 * (or the one forced with --isa) and passes it in. */
enum { CONV_ISA_SSE = 0, CONV_ISA_AVX2 = 1, CONV_ISA_AVX512 = 2 };

/* v0: plain C, one thread: lab 01's best loop order (the baseline). */
int conv_v0(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius);
/* v1: v0 with the rows shared among the OpenMP threads. */
int conv_v1(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius);
/* v2: v0 with the pixels of each row shared among the threads instead. */
int conv_v2(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius);
/* v3: SSE intrinsics, one pixel per __m128, one thread. */
int conv_v3(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius);
/* v4: v3 with the rows shared among the threads. */
int conv_v4(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius);
/* v5: v4 with the widest registers isa allows (CONV_ISA_*): AVX2+FMA two
 * pixels a register, AVX-512 four; CONV_ISA_SSE runs the v4 code. */
int conv_v5(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius, int isa);

#endif
