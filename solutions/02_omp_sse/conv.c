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
/* >>> SOLUTION */
/* Output pixels x0 .. x0+n-1 of row y (n <= SPAN_PX) into d, lab 01's way:
 * for every tap of the window, one pass over the span's contiguous floats. */
SCALAR_CODE static void span_scalar(const float *h_src, int src_stride, float *d, int y, int x0, int n,
                        const float *h_filter, int size)
{
    float acc[SPAN_PX * CONV_CHANNELS];
    const int len = n * CONV_CHANNELS;
    for (int k = 0; k < len; k++)
        acc[k] = 0.0f;
    /* top-left pixel of the first window: extended pixel (x0, y) */
    const float *win = h_src + (long)y * src_stride + (long)x0 * CONV_CHANNELS;
    const float *f = h_filter;
    for (int i = 0; i < size; i++, win += src_stride) {
        const float *s = win;
        for (int j = 0; j < size; j++, s += CONV_CHANNELS) {
            const float c = *f++;
            for (int k = 0; k < len; k++)
                acc[k] += c * s[k];
        }
    }
    for (int k = 0; k < len; k++)
        d[k] = clamp255(acc[k]);
}
/* <<< SOLUTION */

SCALAR_CODE int conv_v0(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    /* >>> SOLUTION */
    const int size = 2 * radius + 1;
    const long out_row = (long)width * CONV_CHANNELS;
    for (int y = 0; y < height; y++)
        for (int x0 = 0; x0 < width; x0 += SPAN_PX)
            span_scalar(h_src, src_stride, h_dst + y * out_row + (long)x0 * CONV_CHANNELS, y, x0,
                        KIT_MIN(SPAN_PX, width - x0), h_filter, size);
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: bring your fastest lab 01 loop (conv_v2) over. Two changes: a row
    // of h_src is now src_stride floats long (not ext_width*4), and work on
    // spans of SPAN_PX pixels, so that v1 and v2 can reuse the same code.
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius); KIT_UNUSED(clamp255);
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

/* ------------------------------------------------------ v1: OpenMP on rows */

SCALAR_CODE int conv_v1(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    /* >>> SOLUTION */
    const int size = 2 * radius + 1;
    const long out_row = (long)width * CONV_CHANNELS;
    int x0, n; /* declared outside the loop, so shared unless the pragma says otherwise */
    /* default(none) makes every variable's sharing explicit:
     *  - shared: the arrays. Threads only read h_src and h_filter, and each
     *    writes its own rows of h_dst, so sharing them is safe.
     *  - private: x0 and n, which every thread changes. A private copy starts
     *    with no defined value; both are assigned before they are read.
     *  - firstprivate: a private copy that starts with the value set above.
     *  - y, the loop variable, is private by the rules of the construct.
     * span_scalar's sums live on each calling thread's own stack. */
#pragma omp parallel for default(none) private(x0, n) shared(h_src, h_dst, h_filter) \
    firstprivate(src_stride, width, height, size, out_row) schedule(static)
    for (int y = 0; y < height; y++) {
        for (x0 = 0; x0 < width; x0 += SPAN_PX) {
            n = KIT_MIN(SPAN_PX, width - x0);
            span_scalar(h_src, src_stride, h_dst + y * out_row + (long)x0 * CONV_CHANNELS, y,
                        x0, n, h_filter, size);
        }
    }
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v0 with its row loop shared among the threads
    // (#pragma omp parallel for). Decide for every variable the loop body
    // touches whether each thread needs its own copy (private), a copy that
    // starts with the current value (firstprivate), or the one copy (shared).
    // default(none) makes the compiler ask you about each one.
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

/* ---------------------------------------------- v2: OpenMP on pixels of a row */

SCALAR_CODE int conv_v2(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    /* >>> SOLUTION */
    const int size = 2 * radius + 1;
    const long out_row = (long)width * CONV_CHANNELS;
    for (int y = 0; y < height; y++) {
        /* a parallel region per row: the team wakes up, splits this row's
         * spans, and waits at the implicit barrier for the slowest thread
         * before the next row can start */
#pragma omp parallel for default(none) shared(h_src, h_dst, h_filter) \
    firstprivate(y, src_stride, width, size, out_row) schedule(static)
        for (int x0 = 0; x0 < width; x0 += SPAN_PX)
            span_scalar(h_src, src_stride, h_dst + y * out_row + (long)x0 * CONV_CHANNELS, y,
                        x0, KIT_MIN(SPAN_PX, width - x0), h_filter, size);
    }
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v0 again, but leave the row loop serial and share the spans of
    // each row among the threads. Measure it against v1 at 1, 2, 4, ...
    // threads: why is it slower?
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

/* -------------------------------------------------- v3: SSE, one thread */
/* >>> SOLUTION */
#if CONV_X86
/* Pixels computed together, one accumulator register each. An addition
 * takes several cycles before its result can be added to again, so one
 * running sum would keep the adders waiting; six independent sums keep them
 * busy, and six (plus the weight and the pixels in flight) still fit in the
 * 16 SSE registers without spilling to the stack. */
enum { SSE_BLOCK = 6 };

/* The n weights, each copied into all 4 lanes of a register, once per call,
 * so the inner loop reads a ready __m128 instead of shuffling a float. NULL
 * when memory runs out. */
static __m128 *broadcast_sse(const float *h_filter, int n)
{
    __m128 *coef = aligned_alloc(16, (size_t)n * sizeof *coef);
    if (coef)
        for (int q = 0; q < n; q++)
            coef[q] = _mm_set_ps(h_filter[q], h_filter[q], h_filter[q], h_filter[q]);
    return coef;
}

/* Output row y (all width pixels) into d with SSE: one pixel per __m128. */
static void row_sse(const float *h_src, int src_stride, float *d, int y, int width,
                    const __m128 *coef, int size)
{
    const __m128 zero = _mm_setzero_ps();
    const __m128 top = _mm_set_ps(255.0f, 255.0f, 255.0f, 255.0f);
    const float *src_row = h_src + (long)y * src_stride; /* top row of every window */
    int x = 0;
    for (; x + SSE_BLOCK <= width; x += SSE_BLOCK) {
        __m128 acc[SSE_BLOCK];
#pragma GCC unroll 8
        for (int k = 0; k < SSE_BLOCK; k++)
            acc[k] = zero;
        const float *win = src_row + (long)x * CONV_CHANNELS;
        const __m128 *c = coef;
        for (int i = 0; i < size; i++, win += src_stride) {
            for (int j = 0; j < size; j++, c++) {
                /* pixel x+k+j of this window row: 16-byte aligned, see conv.h */
                const float *s = win + j * CONV_CHANNELS;
#pragma GCC unroll 8
                for (int k = 0; k < SSE_BLOCK; k++)
                    acc[k] = _mm_add_ps(acc[k], _mm_mul_ps(*c, _mm_load_ps(s + k * CONV_CHANNELS)));
            }
        }
        float *o = d + (long)x * CONV_CHANNELS;
        /* clamp without a branch: max with 0 then min with 255, lane by lane */
#pragma GCC unroll 8
        for (int k = 0; k < SSE_BLOCK; k++)
            _mm_store_ps(o + k * CONV_CHANNELS, _mm_min_ps(_mm_max_ps(acc[k], zero), top));
    }
    for (; x < width; x++) { /* the last width % 6 pixels, one at a time */
        __m128 acc = zero;
        const float *win = src_row + (long)x * CONV_CHANNELS;
        const __m128 *c = coef;
        for (int i = 0; i < size; i++, win += src_stride)
            for (int j = 0; j < size; j++, c++)
                acc = _mm_add_ps(acc, _mm_mul_ps(*c, _mm_load_ps(win + j * CONV_CHANNELS)));
        _mm_store_ps(d + (long)x * CONV_CHANNELS, _mm_min_ps(_mm_max_ps(acc, zero), top));
    }
}
#endif
/* <<< SOLUTION */

int conv_v3(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    /* >>> SOLUTION */
#if CONV_X86
    const int size = 2 * radius + 1;
    const long out_row = (long)width * CONV_CHANNELS;
    __m128 *coef = broadcast_sse(h_filter, size * size);
    if (!coef)
        return KIT_RUNTIME_ERROR;
    for (int y = 0; y < height; y++)
        row_sse(h_src, src_stride, h_dst + y * out_row, y, width, coef, size);
    free(coef);
    return KIT_OK;
#else
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_UNSUPPORTED;
#endif
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: one RGBA pixel is 4 floats, one __m128. For each output pixel,
    // add up _mm_mul_ps(weight in all 4 lanes (_mm_set_ps), pixel loaded with
    // _mm_load_ps) over the window with _mm_add_ps, clamp to 0..255 without
    // an if (_mm_max_ps, _mm_min_ps) and store with _mm_store_ps. Keep the
    // code inside #if CONV_X86 (see conv.h). Then: several pixels at once in
    // separate registers. Why does that help?
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

/* ----------------------------------------------------- v4: SSE + OpenMP */

int conv_v4(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius)
{
    /* >>> SOLUTION */
#if CONV_X86
    const int size = 2 * radius + 1;
    const long out_row = (long)width * CONV_CHANNELS;
    __m128 *coef = broadcast_sse(h_filter, size * size); /* read-only: shared */
    if (!coef)
        return KIT_RUNTIME_ERROR;
#pragma omp parallel for default(none) shared(h_src, h_dst, coef) \
    firstprivate(src_stride, width, height, size, out_row) schedule(static)
    for (int y = 0; y < height; y++)
        row_sse(h_src, src_stride, h_dst + y * out_row, y, width, coef, size);
    free(coef);
    return KIT_OK;
#else
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_UNSUPPORTED;
#endif
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v3 with its rows shared among the threads, as in v1.
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius);
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

/* ------------------------------------------- v5: AVX2 / AVX-512 + OpenMP */
/* >>> SOLUTION */
#if CONV_X86
/* AVX2 + FMA: a __m256 holds 2 pixels; 8 accumulators = 16 pixels a block.
 * The function is compiled for AVX2 whatever the kit's flags say; the
 * harness calls it only on a CPU that has AVX2 and FMA. Loads are unaligned
 * (loadu): a 32-byte pair starting at pixel x+j is 32-byte aligned only for
 * every other j. */
__attribute__((target("avx2,fma"))) static void row_avx2(const float *h_src, int src_stride,
                                                         float *d, int y, int width,
                                                         const float *h_filter, int size)
{
    enum { PX = 2, BLOCK = 8 };
    const __m256 zero = _mm256_setzero_ps();
    const __m256 top = _mm256_set1_ps(255.0f);
    const float *src_row = h_src + (long)y * src_stride;
    int x = 0;
    for (; x + PX * BLOCK <= width; x += PX * BLOCK) {
        __m256 acc[BLOCK];
#pragma GCC unroll 8
        for (int k = 0; k < BLOCK; k++)
            acc[k] = zero;
        const float *win = src_row + (long)x * CONV_CHANNELS;
        const float *f = h_filter;
        for (int i = 0; i < size; i++, win += src_stride)
            for (int j = 0; j < size; j++) {
                const __m256 c = _mm256_set1_ps(*f++);
                const float *s = win + j * CONV_CHANNELS;
#pragma GCC unroll 8
                for (int k = 0; k < BLOCK; k++)
                    acc[k] = _mm256_fmadd_ps(c, _mm256_loadu_ps(s + k * PX * CONV_CHANNELS), acc[k]);
            }
        float *o = d + (long)x * CONV_CHANNELS;
#pragma GCC unroll 8
        for (int k = 0; k < BLOCK; k++)
            _mm256_storeu_ps(o + k * PX * CONV_CHANNELS, _mm256_min_ps(_mm256_max_ps(acc[k], zero), top));
    }
    for (; x + PX <= width; x += PX) { /* pairs left over */
        __m256 acc = zero;
        const float *win = src_row + (long)x * CONV_CHANNELS;
        const float *f = h_filter;
        for (int i = 0; i < size; i++, win += src_stride)
            for (int j = 0; j < size; j++)
                acc = _mm256_fmadd_ps(_mm256_set1_ps(*f++),
                                      _mm256_loadu_ps(win + j * CONV_CHANNELS), acc);
        _mm256_storeu_ps(d + (long)x * CONV_CHANNELS, _mm256_min_ps(_mm256_max_ps(acc, zero), top));
    }
    if (x < width) { /* odd width: the last pixel with 128-bit registers */
        __m128 acc = _mm_setzero_ps();
        const float *win = src_row + (long)x * CONV_CHANNELS;
        const float *f = h_filter;
        for (int i = 0; i < size; i++, win += src_stride)
            for (int j = 0; j < size; j++)
                acc = _mm_fmadd_ps(_mm_set1_ps(*f++), _mm_load_ps(win + j * CONV_CHANNELS), acc);
        acc = _mm_min_ps(_mm_max_ps(acc, _mm_setzero_ps()), _mm_set1_ps(255.0f));
        _mm_store_ps(d + (long)x * CONV_CHANNELS, acc);
    }
}

/* AVX-512: a __m512 holds 4 pixels; 8 accumulators = 32 pixels a block. The
 * last 1..3 pixels use a mask: lanes outside it are neither read nor
 * written, so no scalar tail is needed. */
__attribute__((target("avx512f"))) static void row_avx512(const float *h_src, int src_stride,
                                                          float *d, int y, int width,
                                                          const float *h_filter, int size)
{
    enum { PX = 4, BLOCK = 8 };
    const __m512 zero = _mm512_setzero_ps();
    const __m512 top = _mm512_set1_ps(255.0f);
    const float *src_row = h_src + (long)y * src_stride;
    int x = 0;
    for (; x + PX * BLOCK <= width; x += PX * BLOCK) {
        __m512 acc[BLOCK];
#pragma GCC unroll 8
        for (int k = 0; k < BLOCK; k++)
            acc[k] = zero;
        const float *win = src_row + (long)x * CONV_CHANNELS;
        const float *f = h_filter;
        for (int i = 0; i < size; i++, win += src_stride)
            for (int j = 0; j < size; j++) {
                const __m512 c = _mm512_set1_ps(*f++);
                const float *s = win + j * CONV_CHANNELS;
#pragma GCC unroll 8
                for (int k = 0; k < BLOCK; k++)
                    acc[k] = _mm512_fmadd_ps(c, _mm512_loadu_ps(s + k * PX * CONV_CHANNELS), acc[k]);
            }
        float *o = d + (long)x * CONV_CHANNELS;
#pragma GCC unroll 8
        for (int k = 0; k < BLOCK; k++)
            _mm512_storeu_ps(o + k * PX * CONV_CHANNELS, _mm512_min_ps(_mm512_max_ps(acc[k], zero), top));
    }
    for (; x < width; x += PX) { /* groups of 4 left over; the last may be short */
        const int left = KIT_MIN(PX, width - x);
        /* one mask bit per float: 4 bits for every pixel still inside the row */
        const __mmask16 m = (__mmask16)((1u << (left * CONV_CHANNELS)) - 1u);
        __m512 acc = zero;
        const float *win = src_row + (long)x * CONV_CHANNELS;
        const float *f = h_filter;
        for (int i = 0; i < size; i++, win += src_stride)
            for (int j = 0; j < size; j++)
                acc = _mm512_fmadd_ps(_mm512_set1_ps(*f++),
                                      _mm512_maskz_loadu_ps(m, win + j * CONV_CHANNELS), acc);
        _mm512_mask_storeu_ps(d + (long)x * CONV_CHANNELS, m,
                              _mm512_min_ps(_mm512_max_ps(acc, zero), top));
    }
}
#endif
/* <<< SOLUTION */

int conv_v5(const float *h_src, int src_stride, float *h_dst, int width, int height,
            const float *h_filter, int radius, int isa)
{
    /* >>> SOLUTION */
#if CONV_X86
    if (isa != CONV_ISA_AVX2 && isa != CONV_ISA_AVX512)
        return conv_v4(h_src, src_stride, h_dst, width, height, h_filter, radius);
    const int size = 2 * radius + 1;
    const long out_row = (long)width * CONV_CHANNELS;
    /* one function pointer per call, chosen outside the parallel loop */
    void (*row)(const float *, int, float *, int, int, const float *, int) =
        isa == CONV_ISA_AVX512 ? row_avx512 : row_avx2;
#pragma omp parallel for default(none) shared(h_src, h_dst, h_filter) \
    firstprivate(row, src_stride, width, height, size, out_row) schedule(static)
    for (int y = 0; y < height; y++)
        row(h_src, src_stride, h_dst + y * out_row, y, width, h_filter, size);
    return KIT_OK;
#else
    KIT_UNUSED(h_src); KIT_UNUSED(src_stride); KIT_UNUSED(h_dst); KIT_UNUSED(width);
    KIT_UNUSED(height); KIT_UNUSED(h_filter); KIT_UNUSED(radius); KIT_UNUSED(isa);
    return KIT_UNSUPPORTED;
#endif
    /* <<< SOLUTION */
    /* >>> STUDENT
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
    <<< STUDENT */
}
