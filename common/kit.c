/* kit.c - allocation, fatal errors, the seeded generator, atomic writes. */
#define _POSIX_C_SOURCE 200809L
#include "kit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *kit_prog = "kit";

void *kit_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        kit_die(KIT_EXIT_RUNTIME, "out of host memory (%zu bytes)", bytes);
    return p;
}

void *kit_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        kit_die(KIT_EXIT_RUNTIME, "out of host memory (%zu x %zu bytes)", count, size);
    return p;
}

void *kit_calloc_aligned64(size_t bytes)
{
    /* the exact size, so that a write past the end is caught as with malloc */
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0)
        kit_die(KIT_EXIT_RUNTIME, "out of host memory (%zu bytes)", bytes);
    memset(p, 0, bytes);
    return p;
}

void kit_vmessage(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", kit_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void kit_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kit_vmessage(fmt, ap);
    va_end(ap);
}

void kit_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kit_vmessage(fmt, ap);
    va_end(ap);
    exit(code);
}

void kit_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

double kit_rng_uniform(kit_rng *r)
{
    return (double)(kit_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

void kit_fill_uniform(double *v, size_t count, unsigned long long s0, size_t first)
{
    kit_rng r;
    /* splitmix64 advances its state by a constant: jump straight to `first` */
    kit_rng_seed(&r, s0 + (unsigned long long)first * 0x9E3779B97F4A7C15ULL);
    for (size_t k = 0; k < count; k++)
        v[k] = 2.0 * kit_rng_uniform(&r) - 1.0;
}

int kit_write_file_atomic(const char *path, const void *data, size_t bytes)
{
    size_t n = strlen(path) + 32;
    char *tmp = kit_malloc(n);
    snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
    FILE *fp = fopen(tmp, "wb");
    if (!fp) {
        int e = errno;
        free(tmp);
        errno = e;
        return -1;
    }
    size_t w = fwrite(data, 1, bytes, fp);
    int bad = (w != bytes);
    if (fclose(fp) != 0)
        bad = 1;
    if (bad || rename(tmp, path) != 0) {
        int e = errno ? errno : EIO;
        remove(tmp);
        free(tmp);
        errno = e;
        return -1;
    }
    free(tmp);
    return 0;
}

int kit_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}
