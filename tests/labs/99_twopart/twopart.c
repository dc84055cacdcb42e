/* twopart.c - the test lab's functions (tests/labs/99_twopart/twopart.h).
 *   scale v1  plain loop (given)
 *   scale v2  four elements a step
 *   invert v1 byte by byte
 *   invert v2 row by row
 */
#include "twopart.h"

int scale_v1(const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = SCALE_A * x[i];
    return KIT_OK;
}

int scale_v2(const double *x, double *y, size_t n)
{
    (void)x; (void)y; (void)n;
    return KIT_NOT_IMPLEMENTED;
}

int invert_v1(const unsigned char *in, unsigned char *out, int w, int h)
{
    (void)in; (void)out; (void)w; (void)h;
    return KIT_NOT_IMPLEMENTED;
}

int invert_v2(const unsigned char *in, unsigned char *out, int w, int h)
{
    (void)in; (void)out; (void)w; (void)h;
    return KIT_NOT_IMPLEMENTED;
}
