/* conv.c - lab 02: the 2D convolution with OpenMP threads and SIMD intrinsics.
 *
 * Versions (./lab02 --variant N):
 *   v0 plain C, one thread: lab 01's loop order (a span of pixels at a time,
 *      window loops outside, contiguous floats innermost); the scalar
 *      baseline (SCALAR_CODE keeps gcc from vectorizing it by itself).
 *   v1 v0 with `omp parallel for` on the row loop: one fork/join for the
 *      whole picture, each thread a block of rows; should scale with cores.
 *   v2 v0 with `omp parallel for` on the pixel loop inside a row instead: a
 *      fork/join and a barrier per row, small pieces of work; it loses to v1.
 *   v3 SSE, one thread: one RGBA pixel is one __m128, aligned loads, six
 *      pixels in flight in six registers (sums never leave the registers),
 *      branch-free clamp: 4 floats per instruction, no store per tap.
 *   v4 v3 with the rows shared among the threads: SIMD times cores.
 *   v5 v4 with wider registers picked at run time: AVX2+FMA (2 pixels a
 *      register, multiply and add in one instruction) or AVX-512 (4 pixels,
 *      masked tail); with --isa sse it runs v4's code.
 *
 * The sections below: helpers, then the variants in order.
 */
#include <stdlib.h>

#include "conv.h"

#if CONV_X86
#include <immintrin.h>
#endif

/* ------------------------------------------------------------------ helpers */

/* Clamp to the 0..255 range an 8-bit picture can hold (the scalar way). */
static float clamp255(float v)
{
    return v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
}

/* The scalar variants v0-v2 stay scalar: at -O2, gcc 12 vectorizes their
 * inner loop with SSE by itself, and v0 is the scalar baseline that the
 * SIMD variants are measured against (the handout shows both timings). */
#if defined(__GNUC__) && !defined(__clang__)
#define SCALAR_CODE __attribute__((optimize("no-tree-vectorize")))
#else
#define SCALAR_CODE
#endif

/* Pixels the scalar versions handle at a time: their sums (SPAN_PX * 4
 * floats = 1 KiB) stay in L1, and a 4992-pixel row has 78 spans to share
 * among threads in v2. */
enum { SPAN_PX = 64 };

/* ------------------------------------------------------ v0: scalar baseline */

SCALAR_CODE int conv_v0(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    // TODO: bring your fastest lab 01 loop (conv_v2) over. Two changes: a row
    // of h_src is now src_stride floats long (not ext_width*4), and work on
    // spans of SPAN_PX pixels, so that v1 and v2 can reuse the same code.
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius); KIT_UNUSED(clamp255);
    return KIT_NOT_IMPLEMENTED;
}

/* ------------------------------------------------------ v1: OpenMP on rows */

SCALAR_CODE int conv_v1(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    // TODO: v0 with its row loop shared among the threads
    // (#pragma omp parallel for). Decide for every variable the loop body
    // touches whether each thread needs its own copy (private), a copy that
    // starts with the current value (firstprivate), or the one copy (shared).
    // default(none) makes the compiler ask you about each one.
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
}

/* ---------------------------------------------- v2: OpenMP on pixels of a row */

SCALAR_CODE int conv_v2(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    // TODO: v0 again, but leave the row loop serial and share the spans of
    // each row among the threads. Measure it against v1 at 1, 2, 4, ...
    // threads: why is it slower?
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
}

/* -------------------------------------------------- v3: SSE, one thread */

int conv_v3(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    // TODO: one RGBA pixel is 4 floats, one __m128. For each output pixel,
    // add up _mm_mul_ps(weight in all 4 lanes (_mm_set_ps), pixel loaded with
    // _mm_load_ps) over the window with _mm_add_ps, clamp to 0..255 without
    // an if (_mm_max_ps, _mm_min_ps) and store with _mm_store_ps. Keep the
    // code inside #if CONV_X86 (see conv.h). Then: several pixels at once in
    // separate registers. Why does that help?
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
}

/* ----------------------------------------------------- v4: SSE + OpenMP */

int conv_v4(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    // TODO: v3 with its rows shared among the threads, as in v1.
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
}

/* ------------------------------------------- v5: AVX2 / AVX-512 + OpenMP */

int conv_v5(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius, int isa)
{
    // TODO: v4 with wider registers. Write one row function for AVX2+FMA
    // (__m256: 2 pixels, _mm256_fmadd_ps) and one for AVX-512 (__m512: 4
    // pixels, masked loads and stores for the last pixels), each compiled
    // for its instruction set whatever the kit's flags say:
    //     __attribute__((target("avx2,fma"))) static void row_avx2(...)
    //     __attribute__((target("avx512f")))  static void row_avx512(...)
    // then call the one isa names (CONV_ISA_*); the harness has already
    // checked that the CPU runs it. Widths that are not a multiple of 2 or 4
    // pixels need care.
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius); KIT_UNUSED(isa);
    return KIT_NOT_IMPLEMENTED;
}
