/* lab07.h - lab 07's cases as spec.c makes them, read by ref.c (the CPU
 * reference) and main.c (the glue). Owned by the kit, not the student's.
 *
 * Part sum: the vectors are not stored. Element i of a and b for the
 * current content (the problem's seed and key) is a pure function of i, so
 * the glue writes them straight into whichever memory a variant reads
 * (pageable, pinned, mapped or managed) and the reference regenerates them;
 * even a case far beyond the GPU's memory costs nothing until it is refused.
 * Parts soa and transpose keep their input on the host (kit_problem.data).
 */
#ifndef LAB07_H
#define LAB07_H

#include <stddef.h>
#include "spec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SUM_BIG (1L << 30)   /* --n beyond this: a multiple of SUM_ROW (the output is a grid of rows) */
#define SUM_ROW (1L << 20)

typedef struct {
    long n;                  /* elements */
} lab07_sum_case;

/* Elements first .. first+count-1 of a and b for p's current content. */
void lab07_sum_content(const kit_problem *p, float *a, float *b, size_t first, size_t count);

typedef struct {
    int w, h;
    long n;                  /* pixels */
    int max;                 /* --max */
    char plane;              /* --plane: 'r', 'g' or 'b' */
    float *aos;              /* 3n floats, r g b r g b ... (v1, v3 read it) */
    float *soa;              /* 3n floats: the r plane, the g plane, the b plane (v2, v4) */
} lab07_soa_case;

typedef struct {
    int w, h;                /* height rows of width floats */
    float *in;
} lab07_tr_case;

#ifdef __cplusplus
}
#endif
#endif
